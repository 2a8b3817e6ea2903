"""PyTorch peer rows for a run: torch.add (fp32, fp16) and torch.relu
(fp32), timed as ewbench times its own rows, written to the run's
peer-torch.csv.  Run as `ewbench torch RUN_DIR [--dry-run]`.

For every size and cache state of the run: allocate the operands once
(random values in [-1, 1] from the run's seed), run the op `warmup` times
untimed, then batches of launches under torch.profiler, which reads the
GPU's own start and end of every kernel (CUPTI activity, in this process:
ewbench's CUPTI client is another process).  A row's time is the median
of those kernel durations, with the same 95 % interval of the median and
the same stopping rule as ewbench's rows (run.json settings.timing:
at least min_samples, until the interval is within target_ci_pct of the
median or max_samples): PyTorch's Python launch path is never in it.
That path is reported apart, as the row's interval_ns: the median
start-to-start time of consecutive kernels as Python issues them.  For
cold points a buffer larger than L2 is zeroed before each launch, which
evicts the operands; its kernels are told apart by name (the first
kernel of a batch is a flush).  add writes into a preallocated
output (out=); relu has no out= form, so its output comes from PyTorch's
caching allocator, which reuses one block and adds no GPU work.  The last
output is compared with the same op computed exactly (see reference()),
which sets the check column.

Rows follow the timing.csv schema: variant torch_add_f32, torch_add_f16,
torch_relu_f32; block and grid empty (PyTorch decides).  Points already in
timing.csv (runs from before peers/) or in peer-torch.csv are skipped.
timing.csv is never written: after each point peer-torch.csv is rewritten
atomically with its old rows and the new one (peers/output.py), so an
interrupted run keeps every complete row.  A sidecar peer-torch.json
records the PyTorch and CUDA versions.

Only measure() and measure_run() touch torch; everything else is pure.

Exit codes: 0 ok, 1 I/O error, 2 usage, 3 bad input data (file:line),
4 cannot run here (no PyTorch, no CUDA GPU, or a GPU other than the run's).
"""


import argparse
import math
import os
import sys
import time
from dataclasses import dataclass

if __name__ == "__main__" and not __package__:
    # Run as a file, the package imports below cannot resolve.
    print("usage: ewbench torch RUN_DIR [--dry-run], or python3 -m "
          "ewbench.peers.torch_ops RUN_DIR (not as a file)", file=sys.stderr)
    sys.exit(2)

import numpy as np

from ..analysis import load
from ..analysis.validate import DTYPE_BYTES, DataError

from . import output

VARIANTS = (("torch_add_f32", "add", "f32"), ("torch_add_f16", "add", "f16"),
            ("torch_relu_f32", "relu", "f32"))
NAME = "torch"               # peer-torch.csv, peer-torch.json
DEFAULT_WARMUP = 10
DEFAULT_FLUSH_BYTES = 256 << 20
# ewbench's defaults (src/cli.h), for runs whose run.json predates
# settings.timing.
DEFAULT_TIMING = {"min_samples": 20, "max_samples": 2000,
                  "target_ci_pct": 0.5}
# Launches under one profiler session; a point takes at most BATCHES.  A
# session's start and stop cost a few tenths of a second, more than 500
# launches of any of these kernels: one batch is as many as the rule needs
# at the spread seen on an H100 (0.5 % from 4 % scatter).
BATCH = 500
BATCHES = 1
# The median's interval: src/ewbench.h STATS_CI_Z, STATS_CI_MIN.
CI_Z = 1.959963984540054
CI_MIN = 6
METHOD = ("torch.profiler kernel durations (CUPTI activity), median with "
          "its 95 % interval, batches until it is within the run's target; "
          "interval_ns: Python's launch-to-launch time; add with out=; relu "
          "via the caching allocator")


class CannotRun(Exception):
    """No torch, no GPU, or the wrong GPU: nothing was measured."""


@dataclass(frozen=True)
class Job:
    variant: str
    op: str
    dtype: str
    n: int
    cache: str
    min_samples: int
    max_samples: int
    target_pct: float
    warmup: int


def traffic(op, dtype, n):
    """(footprint bytes, bytes moved, flops) as data-format.md defines."""
    size = DTYPE_BYTES[dtype]
    if op == "add":
        return 3 * n * size, 3 * n * size, n
    return 2 * n * size, 2 * n * size, 0


def plan(run):
    """The jobs to run: every variant x size x cache state of the run,
    less the points already in timing.csv or a peer-*.csv."""
    settings = run.manifest.get("settings") or {}
    sizes = sorted({p.n for p in run.points} |
                   set(settings.get("sizes") or []))
    caches = settings.get("cache") or sorted({p.cache for p in run.points}) \
        or ["warm"]
    timing = dict(DEFAULT_TIMING, **(settings.get("timing") or {}))
    warmup = int(settings.get("warmup") or DEFAULT_WARMUP)
    present = {p.key for p in run.points}
    jobs = []
    for variant, op, dtype in VARIANTS:
        for n in sizes:
            for cache in caches:
                if (variant, n, None, cache, "stream") in present:
                    continue
                jobs.append(Job(variant, op, dtype, n, cache,
                                int(timing["min_samples"]),
                                int(timing["max_samples"]),
                                float(timing["target_ci_pct"]), warmup))
    return jobs


def median_interval(values):
    """(low, high): the median's 95 % interval from order statistics, as
    src/stats.c computes it (ranks n/2 -+ z sqrt(n)/2, rounded outwards;
    [min, max] below CI_MIN samples)."""
    v = np.sort(np.asarray(values, dtype=float))
    n = len(v)
    if n < CI_MIN:
        return float(v[0]), float(v[-1])
    half = CI_Z * math.sqrt(n) / 2
    j = max(1, math.floor(n / 2 - half))
    k = min(n, math.ceil(n / 2 + half + 1))
    return float(v[j - 1]), float(v[k - 1])


def ci_pct(values):
    """The larger side of the median's interval, in % of the median."""
    low, high = median_interval(values)
    mid = float(np.median(values))
    return 100.0 * max(mid - low, high - mid) / mid


def enough(job, durations):
    """ewbench's stopping rule (src/sampling.c), less its time limits."""
    n = len(durations)
    if n < job.min_samples:
        return False
    return n >= job.max_samples or ci_pct(durations) <= job.target_pct


def summarize(samples_ns):
    s = np.asarray(samples_ns, dtype=float)
    q1, q3 = np.percentile(s, [25, 75])
    low, high = median_interval(s)
    return {"median": float(np.median(s)), "min": float(s.min()),
            "max": float(s.max()), "mean": float(s.mean()),
            "stddev": float(s.std(ddof=1)) if len(s) > 1 else 0.0,
            "iqr": float(q3 - q1), "ci_low": low, "ci_high": high}


def row_values(run, job, durations_ns, intervals_ns, stop, check):
    """{column: text} of one row with timing.csv's columns."""
    footprint, moved, flops = traffic(job.op, job.dtype, job.n)
    st = summarize(durations_ns)
    spec = run.spec_dram_bandwidth
    bw = moved / (st["median"] * 1e-9)

    def g(x):
        return "%.17g" % x
    interval, interval_ci = "", ""
    if len(intervals_ns):
        low, high = median_interval(intervals_ns)
        mid = float(np.median(intervals_ns))
        interval, interval_ci = g(mid), g(max(mid - low, high - mid))
    return {
        "run_id": run.run_id, "variant": job.variant, "op": job.op,
        "dtype": job.dtype, "n": str(job.n), "block": "",
        "cache": job.cache, "launch": "stream", "grid": "",
        "footprint_bytes": str(footprint), "bytes_moved": str(moved),
        "flops": str(flops), "iters": str(len(durations_ns)),
        "time_median_ns": g(st["median"]), "time_min_ns": g(st["min"]),
        "time_max_ns": g(st["max"]), "time_mean_ns": g(st["mean"]),
        "time_stddev_ns": g(st["stddev"]), "activity_median_ns": "",
        "bandwidth_median_bytes_per_s": g(bw),
        "bandwidth_max_bytes_per_s": g(moved / (st["min"] * 1e-9)),
        "spec_dram_pct": g(100.0 * bw / spec) if spec else "",
        "check": check, "time_source": "kernel",
        "time_ci_low_ns": g(st["ci_low"]), "time_ci_high_ns": g(st["ci_high"]),
        "time_iqr_ns": g(st["iqr"]), "stop": stop,
        "interval_ns": interval, "interval_ci_ns": interval_ci,
    }


# the parts that need torch and a GPU

def import_torch():
    try:
        import torch
    except ImportError as e:
        raise CannotRun("PyTorch is not installed (%s); install torch with "
                        "CUDA support to add the reference rows" % e) from None
    if not torch.cuda.is_available():
        raise CannotRun("PyTorch %s sees no CUDA GPU" % torch.__version__)
    return torch


def check_device(torch, run):
    """Refuse to mix GPUs: the run's device name must match."""
    want = run.device.get("name")
    index = run.device.get("index") or 0
    if index >= torch.cuda.device_count():
        raise CannotRun("run.json names device %d, PyTorch sees %d" % (
            index, torch.cuda.device_count()))
    have = torch.cuda.get_device_name(index)
    if want and have != want:
        raise CannotRun("this GPU is %r, the run was measured on %r" % (
            have, want))
    return index


def make_operands(torch, job, seed):
    """(inputs, launch): random inputs on the GPU and a function that runs
    the op once and returns its output."""
    dtype = {"f32": torch.float32, "f16": torch.float16}[job.dtype]
    gen = torch.Generator(device="cuda").manual_seed(seed)

    def rand():
        return torch.empty(job.n, dtype=dtype, device="cuda").uniform_(
            -1, 1, generator=gen)
    if job.op == "add":
        a, b = rand(), rand()
        out = torch.empty_like(a)
        return (a, b), lambda: torch.add(a, b, out=out)
    a = rand()
    return (a,), lambda: torch.relu(a)


def reference(torch, op, inputs):
    """The op's exact result, computed on the GPU in float64 and rounded
    once to the inputs' dtype: the sum of two fp32 (or fp16) values is
    exact in float64, so this is the correctly rounded result, which is
    what torch.add must return; ReLU is exact in any precision.  (The CPU
    took seconds per point at 2^28.)"""
    wide = [x.double() for x in inputs]
    exact = torch.add(*wide) if op == "add" else torch.relu(wide[0])
    return exact.to(inputs[0].dtype)


def kernel_spans(torch, prof):
    """[(name, start ns, end ns)] of the GPU activities a profiler session
    recorded (kernels, and a flush's memset), in start order."""
    spans = []
    for e in prof.profiler.kineto_results.events():
        if e.device_type() != torch.autograd.DeviceType.CUDA:
            continue
        if hasattr(e, "start_ns"):
            start, length = e.start_ns(), e.duration_ns()
        else:                   # older torch: microseconds
            start, length = e.start_us() * 1000, e.duration_us() * 1000
        spans.append((e.name(), start, start + length))
    return sorted(spans, key=lambda s: s[1])


def measure(torch, job, flush, seed):
    """(kernel durations in ns, launch intervals in ns, stop, 'pass' or
    'fail') of one job."""
    def profile():
        return torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CUDA])
    inputs, launch = make_operands(torch, job, seed)
    for _ in range(job.warmup):
        if job.cache == "cold":
            flush.zero_()
        launch()
    torch.cuda.synchronize()
    durations, intervals, result = [], [], None
    for _ in range(BATCHES):
        with profile() as prof:
            for _ in range(BATCH):
                if job.cache == "cold":
                    flush.zero_()
                result = launch()
            torch.cuda.synchronize()
        spans = kernel_spans(torch, prof)
        if job.cache == "cold" and spans:
            # The flush comes first; the op's kernels are the others.
            spans = [s for s in spans if s[0] != spans[0][0]]
        if len(spans) != BATCH:
            raise CannotRun("torch.profiler recorded %d of %d %s kernels"
                            % (len(spans), BATCH, job.variant))
        durations += [end - start for _, start, end in spans]
        if job.cache == "warm":
            intervals += [b[1] - a[1] for a, b in zip(spans, spans[1:])]
        if enough(job, durations):
            break
    stop = "ci" if ci_pct(durations) <= job.target_pct else "cap"
    same = torch.equal(result, reference(torch, job.op, inputs))
    return durations, intervals, stop, "pass" if same else "fail"


def measure_run(run_dir, say=print):
    """Measure the missing points and add them to peer-torch.csv.  Returns
    the number of rows written; raises CannotRun (nothing measured) or
    DataError."""
    run = load.load_run(run_dir)
    jobs = plan(run)
    if not jobs:
        say("every PyTorch point is already in timing.csv or %s; nothing "
            "to do" % os.path.basename(load.peer_paths(run_dir, NAME)[0]))
        return 0
    torch = import_torch()
    index = check_device(torch, run)
    torch.cuda.set_device(index)
    settings = run.manifest.get("settings") or {}
    flush_bytes = int(settings.get("flush_bytes") or
                      max(2 * (run.l2_bytes or 0), DEFAULT_FLUSH_BYTES))
    flush = torch.empty(flush_bytes, dtype=torch.uint8, device="cuda")
    seed = int(settings.get("seed") or 1)
    csv_path, sidecar_path = load.peer_paths(run_dir, NAME)
    written = 0
    for job in jobs:
        need = (3 if job.op == "add" else 2) * job.n * DTYPE_BYTES[job.dtype]
        free, _ = torch.cuda.mem_get_info()
        if need > 0.9 * free:
            say("skip %s n=%d %s: needs %d bytes, %d free" % (
                job.variant, job.n, job.cache, need, free))
            continue
        durations, intervals, stop, check = measure(torch, job, flush, seed)
        torch.cuda.empty_cache()
        output.add_rows(csv_path, [row_values(run, job, durations,
                                              intervals, stop, check)])
        written += 1
        say("%s n=%d %s: kernel median %.2f us (%d), %s" % (
            job.variant, job.n, job.cache, np.median(durations) / 1e3,
            len(durations), check))
    output.write_sidecar(sidecar_path, {
        "torch": torch.__version__, "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(index),
        "written_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "rows": written, "flush_bytes": flush_bytes, "method": METHOD})
    load.load_run(run_dir)      # what we wrote must load with the run
    return written


# the command

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_DATA = 3
EXIT_CANNOT_RUN = 4

EPILOG = """\
exit codes: 0 ok, 1 I/O error, 2 usage, 3 bad input data (file:line),
4 cannot run here (no PyTorch, no CUDA GPU, or not the run's GPU)
"""


def make_parser():
    parser = argparse.ArgumentParser(
        prog=("ewbench torch" if os.environ.get("EWBENCH_PROG")
              else "python3 -m ewbench.peers.torch_ops"),
        description="Time the kernels of torch.add (fp32, fp16) and "
        "torch.relu (fp32) at the run's sizes and cache states, with "
        "torch.profiler, as ewbench times its own, into "
        "RUN_DIR/peer-torch.csv (timing.csv is not touched).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", metavar="RUN_DIR")
    parser.add_argument("--dry-run", action="store_true",
                        help="print what would be measured, measure nothing")
    return parser


def main(argv=None):
    try:
        args = make_parser().parse_args(argv)
    except SystemExit as e:
        return EXIT_OK if e.code in (0, None) else EXIT_USAGE
    try:
        if args.dry_run:
            for job in plan(load.load_run(args.run_dir)):
                print("%s n=%d %s samples=%d-%d target=%g%% warmup=%d" % (
                    job.variant, job.n, job.cache, job.min_samples,
                    job.max_samples, job.target_pct, job.warmup))
            return EXIT_OK
        written = measure_run(args.run_dir)
    except CannotRun as e:
        print("torch: cannot run here: %s" % e, file=sys.stderr)
        return EXIT_CANNOT_RUN
    except DataError as e:
        print("torch: %s" % e, file=sys.stderr)
        return EXIT_DATA
    except OSError as e:
        print("torch: %s" % e, file=sys.stderr)
        return EXIT_ERROR
    if written:
        print("wrote %d rows to %s" % (
            written, load.peer_paths(args.run_dir, NAME)[0]))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

"""PyTorch peer rows for a run: torch.add (fp32, fp16) and torch.relu
(fp32), timed like ewbench times its stream rows, written to the run's
peer-torch.csv.  Run as `ewbench torch RUN_DIR [--dry-run]`.

For every size and cache state of the run: allocate the operands once
(random values in [-1, 1] from the run's seed), run the op `warmup` times
untimed, then `iters` timed launches, each between its own pair of CUDA
events and issued as the host gets to it: no synchronisation after the
warm-up and nothing queued ahead of the loop, exactly as ewbench's
`launch = stream` rows (src/measure.c).  So at small sizes, where a launch
takes less GPU time than the host needs to issue it, both sides time their
own launch path, and a contest there compares like with like.  For cold
points a buffer larger than L2 is zeroed before each launch (outside the
events), which evicts the operands.  add writes into a preallocated output
(out=); relu has no out= form, so its output comes from PyTorch's caching
allocator, which reuses one block and adds no GPU work.  The last output
is compared with the same op computed exactly (see reference()), which
sets the check column.

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
DEFAULT_ITERS = 100
DEFAULT_WARMUP = 10
DEFAULT_FLUSH_BYTES = 256 << 20
METHOD = ("CUDA events around each launch, launches issued as the host "
          "gets to them (as ewbench's stream rows); add with out=; relu via "
          "the caching allocator")


class CannotRun(Exception):
    """No torch, no GPU, or the wrong GPU: nothing was measured."""


@dataclass(frozen=True)
class Job:
    variant: str
    op: str
    dtype: str
    n: int
    cache: str
    iters: int
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
    iters = int(settings.get("iters") or DEFAULT_ITERS)
    warmup = int(settings.get("warmup") or DEFAULT_WARMUP)
    present = {p.key for p in run.points}
    jobs = []
    for variant, op, dtype in VARIANTS:
        for n in sizes:
            for cache in caches:
                if (variant, n, None, cache, "stream") in present:
                    continue
                jobs.append(Job(variant, op, dtype, n, cache, iters, warmup))
    return jobs


def summarize(samples_ns):
    s = np.asarray(samples_ns, dtype=float)
    return {"median": float(np.median(s)), "min": float(s.min()),
            "max": float(s.max()), "mean": float(s.mean()),
            "stddev": float(s.std(ddof=1)) if len(s) > 1 else 0.0}


def row_values(run, job, samples_ns, check):
    """{column: text} of one row with timing.csv's columns."""
    footprint, moved, flops = traffic(job.op, job.dtype, job.n)
    st = summarize(samples_ns)
    spec = run.spec_dram_bandwidth
    bw = moved / (st["median"] * 1e-9)

    def g(x):
        return "%.17g" % x
    return {
        "run_id": run.run_id, "variant": job.variant, "op": job.op,
        "dtype": job.dtype, "n": str(job.n), "block": "",
        "cache": job.cache, "launch": "stream", "grid": "",
        "footprint_bytes": str(footprint), "bytes_moved": str(moved),
        "flops": str(flops), "iters": str(len(samples_ns)),
        "time_median_ns": g(st["median"]), "time_min_ns": g(st["min"]),
        "time_max_ns": g(st["max"]), "time_mean_ns": g(st["mean"]),
        "time_stddev_ns": g(st["stddev"]), "activity_median_ns": "",
        "bandwidth_median_bytes_per_s": g(bw),
        "bandwidth_max_bytes_per_s": g(moved / (st["min"] * 1e-9)),
        "spec_dram_pct": g(100.0 * bw / spec) if spec else "",
        "check": check,
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


def measure(torch, job, flush, seed):
    """(per-launch times in ns, 'pass' or 'fail') of one job."""
    inputs, launch = make_operands(torch, job, seed)
    for _ in range(job.warmup):
        if job.cache == "cold":
            flush.zero_()
        launch()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(job.iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(job.iters)]
    result = None
    for start, end in zip(starts, ends):
        if job.cache == "cold":
            flush.zero_()
        start.record()
        result = launch()
        end.record()
    torch.cuda.synchronize()
    samples = [s.elapsed_time(e) * 1e6 for s, e in zip(starts, ends)]
    same = torch.equal(result, reference(torch, job.op, inputs))
    return samples, "pass" if same else "fail"


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
        samples, check = measure(torch, job, flush, seed)
        torch.cuda.empty_cache()
        output.add_rows(csv_path, [row_values(run, job, samples, check)])
        written += 1
        say("%s n=%d %s: median %.2f us, %s" % (
            job.variant, job.n, job.cache, np.median(samples) / 1e3, check))
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
        description="Time torch.add (fp32, fp16) and torch.relu (fp32) at "
        "the run's sizes and cache states, as ewbench times its stream "
        "rows, into RUN_DIR/peer-torch.csv (timing.csv is not touched).",
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
                print("%s n=%d %s iters=%d warmup=%d" % (
                    job.variant, job.n, job.cache, job.iters, job.warmup))
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

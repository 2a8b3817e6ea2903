"""The points `ewbench torch` times and the statistics of its rows, pure
(no torch, no GPU): the jobs of a run (plan, and what --dry-run says of
them), ewbench's stopping rule and the median's interval as src/base
computes them, a batch's size, and a row with timing.csv's columns
(torch_ops.py measures)."""

import math
import os
from dataclasses import dataclass

import numpy as np

from ..analysis.core import load
from ..analysis.core.sinks import terminal
from ..analysis.core.validate import DTYPE_BYTES

VARIANTS = (("torch_add_f32", "add", "f32"), ("torch_add_f16", "add", "f16"),
            ("torch_relu_f32", "relu", "f32"))
NAME = "torch"               # peer-torch.csv, peer-torch.json
DEFAULT_WARMUP = 10
# ewbench's defaults (src/run/settings.h), for runs whose run.json predates
# settings.timing.
DEFAULT_TIMING = {"min_samples": 20, "max_samples": 2000,
                  "target_ci_pct": 0.5, "max_time_ms": 10}
# Launches in one point's batch, at most: a session's start and stop cost
# a few tenths of a second, so a batch is sized to the run's time budget
# from the start (500 of the shortest of these kernels take under 2 ms);
# a point takes at most ROUNDS batches, each round one profiler session.
BATCH = 500
ROUNDS = 3
# The median's interval: src/base/ewbench.h STATS_CI_Z, STATS_CI_MIN.
CI_Z = 1.959963984540054
CI_MIN = 6

# A run directory's path in a message, at most (a 100 KB path was printed
# whole).
PATH_LIMIT = 400


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
    max_time_ms: float = DEFAULT_TIMING["max_time_ms"]
    seed: int = 1           # the run's: random inputs
    run_dir: str = ""       # whose peer-torch.csv gets the row


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
    seed = int(settings.get("seed") or 1)
    present = {p.key for p in run.points}
    jobs = []
    for variant, op, dtype in VARIANTS:
        for n in sizes:
            for cache in caches:
                if load.PointKey(variant, n, None, cache,
                                 "stream") in present:
                    continue
                jobs.append(Job(variant, op, dtype, n, cache,
                                int(timing["min_samples"]),
                                int(timing["max_samples"]),
                                float(timing["target_ci_pct"]), warmup,
                                float(timing["max_time_ms"]), seed))
    return jobs


def median_interval(values):
    """(low, high): the median's 95 % interval from order statistics, as
    src/base/stats.c computes it (ranks n/2 -+ z sqrt(n)/2, rounded outwards;
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


def stop_reason(job, durations, rounds):
    """ewbench's stopping rule (src/base/sampling.c) on a point's samples so
    far: 'ci', 'cap' or 'time' once it is met, '' while another batch may
    help.  Time is the GPU time of the samples; after ROUNDS batches the
    point stops at the cap."""
    n = len(durations)
    if n >= job.min_samples and ci_pct(durations) <= job.target_pct:
        return "ci"
    if n >= job.max_samples:
        return "cap"
    if n >= job.min_samples and sum(durations) >= job.max_time_ms * 1e6:
        return "time"
    return "cap" if rounds >= ROUNDS else ""


def batch_size(job, durations, pace_ns):
    """Launches in the point's next batch.  The first fills max_time_ms at
    the warm-up's pace (an upper bound: it includes the host); a later
    one asks for what the interval's width says is missing (it narrows as
    1/sqrt(n), 20 % more for luck), within the time left.  Never fewer
    than min_samples in all, never more than BATCH or the cap."""
    n = len(durations)
    if n == 0:
        want = job.max_time_ms * 1e6 / max(pace_ns, 1.0)
    else:
        ci = ci_pct(durations)
        want = n * (ci / job.target_pct) ** 2 * 1.2 - n
        left = job.max_time_ms * 1e6 - sum(durations)
        want = min(want, left / float(np.median(durations)))
    want = max(want, job.min_samples - n, 8)
    return int(max(1, min(math.ceil(want), BATCH, job.max_samples - n)))


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


def distinct(run_dirs):
    """run_dirs without repeats, in the order first given: `r`, `r/`,
    `./r` and a symbolic link to r are one run (its points were planned,
    measured and written once per name)."""
    seen, kept = set(), []
    for d in run_dirs:
        real = os.path.realpath(d)
        if real not in seen:
            seen.add(real)
            kept.append(d)
    return kept


def nothing_to_do(run_dir):
    return "%s: every PyTorch point is already in timing.csv or %s; " \
        "nothing to do" % (terminal(run_dir, PATH_LIMIT), os.path.basename(
            load.peer_paths(run_dir, NAME)[0]))


def dry_run(run_dirs, say=print):
    """Say, per run directory, the points a run would time and the file
    it would write, or that there is nothing to do."""
    for d in distinct(run_dirs):
        jobs = plan(load.load_run(d))
        csv = load.peer_paths(d, NAME)[0]
        if not jobs:
            say(nothing_to_do(d))
            continue
        say("%s: would time %d PyTorch point%s into %s:" % (
            terminal(d, PATH_LIMIT), len(jobs), "" if len(jobs) == 1 else
            "s", terminal(csv, PATH_LIMIT)))
        for job in jobs:
            say("  %s n=%d %s samples=%d-%d target=%g%% max_time=%gms "
                "warmup=%d" % (job.variant, job.n, job.cache,
                               job.min_samples, job.max_samples,
                               job.target_pct, job.max_time_ms, job.warmup))

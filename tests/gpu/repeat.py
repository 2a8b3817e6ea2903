"""tests/gpu/repeat.py A B [C ...] [--floor PCT] - how measurements of the
same points agree: the run-to-run floor of the noise rule, measured.
With more than two directories every pair is compared, and the table by
kernel duration below is printed: the noise model's F for the GPU
(python/ewbench/analysis/noise.py MEASURED_FLOOR_PCT) is its 99th
percentile over rows of 20 µs and more.

A and B are run directories (timing.csv) or study directories (their
article/, sweep/, blocks/ runs, matched by name), measured back to back
by the same command.  Two rows of one point agree by the noise rule
(docs/analysis.md) when their medians' confidence intervals, each widened
by the floor (% of its median) on both sides, overlap.  For every point
this prints nothing; at the end:

  - the floor each point would need to agree, 100 x gap / (a + b) where
    the gap is the distance between the two intervals (0 when they
    overlap): its median, 90th, 95th and 99th percentiles; the 95th is the
    floor that makes 95 % of these rows agree (measure it on one pair,
    apply it to another with --floor);
  - with --floor: the share of rows that agree with it;
  - the share of rows whose medians agree within 1 % and within 2 %
    (what the event protocol managed: about 74 % within 1 %).

  - by kernel duration (the pair's mean median): the floor needed at the
    50th, 95th and 99th percentile, and the share of rows the noise
    model (max(F, 100 x timer step / median), F = --floor, default the
    99th percentile of rows >= 20 µs; the step from the studies'
    run.json, the largest of them) makes agree.

A benchmark script, not a test: it asserts nothing.
"""

import csv
import json
import os
import sys


# Rows timed on the GPU alone (CUPTI records, an uninstrumented replay).
GPU_TIMED = ("kernel", "replay")

def rows(directory):
    """{(run, variant, n, block, cache, launch): row} of a run or study."""
    parts = [""]
    if not os.path.exists(os.path.join(directory, "timing.csv")):
        parts = sorted(p for p in os.listdir(directory) if os.path.exists(
            os.path.join(directory, p, "timing.csv")))
    found = {}
    for part in parts:
        for name in sorted(os.listdir(os.path.join(directory, part))):
            if name != "timing.csv" and not (name.startswith("peer-") and
                                              name.endswith(".csv")):
                continue
            with open(os.path.join(directory, part, name)) as f:
                for r in csv.DictReader(f):
                    key = (part, r["variant"], r["n"], r["block"],
                           r["cache"], r["launch"])
                    found[key] = r
    return found


def interval(r):
    """(median, low, high); schema-1 rows recorded no interval."""
    m = float(r["time_median_ns"])
    low = float(r.get("time_ci_low_ns") or m)
    high = float(r.get("time_ci_high_ns") or m)
    return m, min(low, m), max(high, m)


def needed_floor(a, b):
    """The floor (%) that makes a's and b's widened intervals overlap."""
    ma, la, ha = interval(a)
    mb, lb, hb = interval(b)
    gap = max(0.0, max(la, lb) - min(ha, hb))
    return 100.0 * gap / (ma + mb)


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q / 100.0 * len(values)))]


DURATION_BINS_NS = (0, 5e3, 10e3, 20e3, 50e3, 100e3, 1e6, float("inf"))
LONG_NS = 20e3


def timer_step_ns(directory):
    """The GPU timer's step the run (or the study's first part) measured
    (run.json settings.timing.timer_step_ns), 0 when not recorded."""
    for part in [""] + sorted(os.listdir(directory)):
        path = os.path.join(directory, part, "run.json")
        if os.path.isfile(path):
            with open(path) as f:
                timing = (json.load(f).get("settings") or {}).get(
                    "timing") or {}
            return float(timing.get("timer_step_ns") or 0.0)
    return 0.0


def by_duration(pairs, floor, step_ns):
    """The table by kernel duration over (needed floor %, mean median ns)
    of kernel-timed rows; floor None: the p99 of rows >= LONG_NS."""
    long_rows = [f for f, m in pairs if m >= LONG_NS]
    source = "given"
    if floor is None and long_rows:
        floor = percentile(long_rows, 99)
        source = "p99 of %d rows >= 20 us" % len(long_rows)
    print("repeat: noise model F = %.2f %% (%s), timer step %g ns" % (
        floor or 0.0, source, step_ns))
    for low, high in zip(DURATION_BINS_NS, DURATION_BINS_NS[1:]):
        need = [(f, m) for f, m in pairs if low <= m < high]
        if not need:
            continue
        fs = [f for f, _ in need]
        ok = sum(f <= max(floor or 0.0, 100.0 * step_ns / m)
                 for f, m in need)
        print("repeat:   %7.0f-%-9s us rows %5d  need p50 %.2f p95 %.2f "
              "p99 %.2f %%  agree by the model %.1f %%" % (
                  low / 1e3, "inf" if high == float("inf") else
                  "%.0f" % (high / 1e3), len(fs), percentile(fs, 50),
                  percentile(fs, 95), percentile(fs, 99),
                  100.0 * ok / len(need)))


def main(argv):
    floor = None
    if "--floor" in argv:
        i = argv.index("--floor")
        floor = float(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    if len(argv) < 2:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    if len(argv) > 2:
        found = [rows(d) for d in argv]
        pairs = []
        for i, a in enumerate(found):
            for b in found[i + 1:]:
                for k in set(a) & set(b):
                    if a[k].get("time_source") in GPU_TIMED and \
                            b[k].get("time_source") == \
                            a[k].get("time_source"):
                        pairs.append((needed_floor(a[k], b[k]), (
                            float(a[k]["time_median_ns"]) +
                            float(b[k]["time_median_ns"])) / 2))
        print("repeat: %d directories, %d row pairs" % (len(found),
                                                       len(pairs)))
        by_duration(pairs, floor, max(timer_step_ns(d) for d in argv))
        return 0
    a, b = rows(argv[0]), rows(argv[1])
    keys = sorted(set(a) & set(b))
    if not keys:
        print("repeat: no point in both", file=sys.stderr)
        return 1
    need = [needed_floor(a[k], b[k]) for k in keys]
    diff = [abs(float(a[k]["time_median_ns"]) / float(b[k]["time_median_ns"])
                - 1) * 100 for k in keys]
    print("repeat: %d points in both (%d only in A, %d only in B)"
          % (len(keys), len(set(a) - set(b)), len(set(b) - set(a))))
    print("repeat: floor needed to agree: median %.2f %%, p90 %.2f %%, "
          "p95 %.2f %%, p99 %.2f %%, max %.2f %%"
          % (percentile(need, 50), percentile(need, 90),
             percentile(need, 95), percentile(need, 99), max(need)))
    print("repeat: intervals overlap with no floor: %.1f %%"
          % (100.0 * sum(n == 0 for n in need) / len(need)))
    if floor is not None:
        print("repeat: agree by the rule with a floor of %.2f %%: %.1f %%"
              % (floor, 100.0 * sum(n <= floor for n in need) / len(need)))
    for within in (1, 2):
        print("repeat: medians within %d %%: %.1f %%"
              % (within, 100.0 * sum(d <= within for d in diff) / len(diff)))
    small = [d for k, d in zip(keys, diff) if int(k[2]) <= 1 << 20]
    if small:
        print("repeat: medians within 2 %% at n <= 1Mi: %.1f %% of %d"
              % (100.0 * sum(d <= 2 for d in small) / len(small),
                 len(small)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

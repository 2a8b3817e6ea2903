"""tests/gpu/repeat.py A B [--floor PCT] - how two measurements of the same
points agree: the run-to-run floor of the noise rule, measured.

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

A benchmark script, not a test: it asserts nothing.
"""

import csv
import os
import sys


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


def main(argv):
    floor = None
    if "--floor" in argv:
        i = argv.index("--floor")
        floor = float(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    if len(argv) != 2:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
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

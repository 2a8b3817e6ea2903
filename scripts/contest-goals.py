#!/usr/bin/env python3
"""scripts/contest-goals.py - this project's performance goals for its add
kernels (docs/kernels.md, "Goals"), judged on the output of
`ewbench contest --json`.  The goals are the project's, not the
tool's: the contest reports rankings, margins and spreads; this script
says whether they are what the project aims for.

    ewbench contest --json round-? -o contest.json
    scripts/contest-goals.py contest.json          # or - for stdin

Goals, per dtype (DRAM size n = --dram-n, default 2^28):

  G1  n, warm stream: best ewbench add >= WIN_RATIO x the faster of cub
      and torch.add, and both their repeat-to-repeat spreads, 100 x (max -
      min) / median of the per-round bandwidths, < MAX_SPREAD_PCT.
      Undecided when cub or torch is missing, the size is absent, or one
      repeat leaves the spread unknown.
  G2  n, warm stream: best ewbench add >= SPEC_GOAL_PCT % of the spec DRAM
      bandwidth.  Undecided without the size or a spec bandwidth.
  G3  the l2 tier (`--preset tiers`), warm graph launch: best ewbench add
      >= cub (plain >= of the medians).  Undecided without an l2 tier,
      graph rows there, or cub.

Exit: 0 every goal met, 1 a goal not met, 2 usage, 3 input that is not a
contest JSON (FILE:LINE: ...), 4 none missed but some undecided.
"""

import argparse
import json
import statistics
import sys

WIN_RATIO = 1.01
MAX_SPREAD_PCT = 0.5
SPEC_GOAL_PCT = 93.0
DEFAULT_DRAM_N = 1 << 28
SCHEMA = "ewbench-contest/1"
DTYPES = ("f32", "f16")

EXIT_MET = 0
EXIT_MISSED = 1
EXIT_USAGE = 2
EXIT_BAD_INPUT = 3
EXIT_UNDECIDED = 4

MET = "met"
NOT_MET = "not met"
UNDECIDED = "undecided"


class BadInput(Exception):
    """The input is not what `analysis contest --json` writes."""


def read(path):
    """The contest JSON of path ('-': stdin), checked for what is used."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput("%s: cannot read: %s" % (name, e)) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise BadInput("%s:%d: expected JSON (%s)" % (name, e.lineno,
                                                      e.msg)) from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise BadInput("%s:1: expected the output of `ewbench contest "
                       "--json` (schema %s)" % (name, SCHEMA))
    try:
        for c in doc["contests"]:
            for key in ("dtype", "n", "cache", "launch", "tier", "ranked",
                        "cub", "torch"):
                c[key]
            for e in c["ranked"] + [x for x in (c["cub"], c["torch"]) if x]:
                [float(b) for b in e["bandwidths_bytes_per_s"]]
                float(e["bandwidth_bytes_per_s"]), e["label"]
            c["ranked"][0]
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise BadInput("%s: expected every contest with dtype, n, cache, "
                       "launch, tier, ranked entries, cub and torch, each "
                       "entry with its bandwidths (%s: %s)" % (
                           name, type(e).__name__, e)) from None
    return doc


def range_spread_pct(entry):
    """100 x (max - min) / median of the per-round bandwidths; None with
    one round."""
    values = entry["bandwidths_bytes_per_s"]
    middle = statistics.median(values)
    if len(values) < 2 or not middle:
        return None
    return 100.0 * (max(values) - min(values)) / middle


def find(doc, dtype, cache, launch, n=None, tier=None):
    for c in doc["contests"]:
        if (c["dtype"], c["cache"], c["launch"]) == (dtype, cache, launch) \
                and (n is None or c["n"] == n) and \
                (tier is None or c["tier"] == tier):
            return c
    return None


def gbps(entry):
    return "%s %.0f GB/s" % (entry["label"],
                             entry["bandwidth_bytes_per_s"] / 1e9)


def with_spread(entry):
    spread = range_spread_pct(entry)
    return "%s (spread %s)" % (gbps(entry), "unknown" if spread is None
                               else "%.2f %%" % spread)


def g1(doc, dtype, n):
    c = find(doc, dtype, "warm", "stream", n=n)
    if c is None:
        return UNDECIDED, "no warm stream %s add at n = %d" % (dtype, n)
    best = c["ranked"][0]
    absent = [p for p in ("cub", "torch") if c[p] is None]
    if absent:
        return UNDECIDED, "%s missing at n = %d; best %s" % (
            " and ".join(absent), n, gbps(best))
    peer = max((c["cub"], c["torch"]),
               key=lambda e: e["bandwidth_bytes_per_s"])
    ratio = best["bandwidth_bytes_per_s"] / peer["bandwidth_bytes_per_s"]
    spreads = [range_spread_pct(e) for e in (best, peer)]
    numbers = "%s vs %s: ratio %.4f" % (with_spread(best),
                                        with_spread(peer), ratio)
    if ratio < WIN_RATIO:
        return NOT_MET, numbers
    if None in spreads:
        return UNDECIDED, numbers + "; one repeat: spread unknown"
    if max(spreads) >= MAX_SPREAD_PCT:
        return NOT_MET, numbers + "; a spread >= %.1f %%" % MAX_SPREAD_PCT
    return MET, numbers


def g2(doc, dtype, n):
    c = find(doc, dtype, "warm", "stream", n=n)
    spec = doc.get("spec_dram_bandwidth_bytes_per_s")
    if c is None:
        return UNDECIDED, "no warm stream %s add at n = %d" % (dtype, n)
    best = c["ranked"][0]
    if not spec:
        return UNDECIDED, "no spec DRAM bandwidth; best %s" % gbps(best)
    share = 100.0 * best["bandwidth_bytes_per_s"] / spec
    return (MET if share >= SPEC_GOAL_PCT else NOT_MET,
            "%s = %.1f %% of spec %.0f GB/s" % (gbps(best), share,
                                                spec / 1e9))


def g3(doc, dtype):
    if not any(c["dtype"] == dtype and c["tier"] == "l2"
               for c in doc["contests"]):
        return UNDECIDED, "no l2 tier for %s" % dtype
    c = find(doc, dtype, "warm", "graph", tier="l2")
    if c is None:
        return UNDECIDED, "no warm graph %s add at the l2 tier" % dtype
    best = c["ranked"][0]
    if c["cub"] is None:
        return UNDECIDED, "no cub at the l2 tier; best %s" % gbps(best)
    ratio = best["bandwidth_bytes_per_s"] / c["cub"]["bandwidth_bytes_per_s"]
    return (MET if ratio >= 1.0 else NOT_MET,
            "n = %d: %s vs %s (ratio %.4f)" % (c["n"], gbps(best),
                                               gbps(c["cub"]), ratio))


GOALS = (
    ("G1", "n = %(n)s, warm stream: best ewbench add >= %(win).2fx the "
     "faster of cub and torch.add, both spreads < %(spread).1f %%",
     lambda doc, dtype, n: g1(doc, dtype, n)),
    ("G2", "n = %(n)s, warm stream: best ewbench add >= %(spec).0f %% of "
     "spec DRAM bandwidth", lambda doc, dtype, n: g2(doc, dtype, n)),
    ("G3", "l2 tier, warm graph launch: best ewbench add >= cub",
     lambda doc, dtype, n: g3(doc, dtype)),
)


def n_text(n):
    """2^28 for powers of two, else the number."""
    if n > 0 and n & (n - 1) == 0:
        return "2^%d" % (n.bit_length() - 1)
    return str(n)


def judge(doc, dram_n=DEFAULT_DRAM_N):
    """[(goal, text, dtype, verdict, numbers)]."""
    words = {"n": n_text(dram_n), "win": WIN_RATIO, "spread": MAX_SPREAD_PCT,
             "spec": SPEC_GOAL_PCT}
    return [(name, text % words, dtype) + rule(doc, dtype, dram_n)
            for dtype in DTYPES for name, text, rule in GOALS]


def positive_int(text):
    """argparse type: an integer > 0."""
    try:
        value = int(text, 0)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError("expected a positive integer, got "
                                         "%r" % text)
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="scripts/contest-goals.py",
        description="Judge the project's goals G1-G3 on the JSON of "
        "`ewbench contest --json` (docs/kernels.md).",
        epilog="exit: 0 all met, 1 a goal not met, 2 usage, 3 bad input, "
        "4 none missed but some undecided")
    parser.add_argument("contest_json", metavar="CONTEST.json",
                        help="the contest's JSON, or - for stdin")
    parser.add_argument("--dram-n", type=positive_int, default=DEFAULT_DRAM_N,
                        metavar="N", help="element count of G1 and G2 "
                        "(default 268435456 = 2^28)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return EXIT_MET if e.code in (0, None) else EXIT_USAGE
    try:
        doc = read(args.contest_json)
    except BadInput as e:
        print("contest-goals: %s" % e, file=sys.stderr)
        return EXIT_BAD_INPUT
    results = judge(doc, args.dram_n)
    print("%s, R = %s" % (doc.get("device"), doc.get("repeats")))
    for name, text, dtype, verdict, numbers in results:
        print("%s %s %s: %s (%s)" % (name, dtype, verdict.upper(), text,
                                     numbers))
    verdicts = [r[3] for r in results]
    if NOT_MET in verdicts:
        return EXIT_MISSED
    return EXIT_UNDECIDED if UNDECIDED in verdicts else EXIT_MET


if __name__ == "__main__":
    sys.exit(main())

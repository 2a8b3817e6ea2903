#!/usr/bin/env python3
"""scripts/sweep-schedule.py - does a sparser sweep tell the same story?

The study's sweep (`ewbench sweep --density 2`) measures working sets
from 64 KiB to past the L2, densest where a warm working set leaves L2
(src/run/tiers.c, sweep_segments).  This script takes a denser sweep that was
measured (a study directory's sweep/; by default the shipped H100 and H200
references, measured before 2026-12 with four times the density from
L2 / 4 to 4 x L2), keeps only the sizes a schedule would measure, and
judges both with the analysis as it is: the effective L2 and Finding 2
(report/findings/l2.py), the L2-tier contest of ewbench's fastest add
against cub (report/answers.py, l2_ranges).  It prints the numbers side by
side and whether they agree:

  effective L2   each study's middle lies within the other's bracket (the
                 last footprint still in L2, the first beyond)
  Finding 2      the same verdict and deciding line; per study add, the
                 transitions' brackets overlap, and its best bandwidth in
                 L2 and its highest past twice the effective L2 agree
                 within the two points' noise floors (core/noise.py)
  L2 tier        per dtype and peer, the lowest, middle and highest
                 margins agree within the floors of their four points,
                 and the share of sizes beyond the noise within one size
  verdicts       every part's bottleneck verdicts are the same (the
                 sweep's fitted fixed costs decide other parts' too); a
                 point whose verdict differs is listed with both rules'
                 text, which says how near their thresholds it was

and the sweep's time, estimated from the dense run's own accounting
(run.json wall_s; estimate_seconds).  The sizes kept are, per variant, the
dense sweep's nearest to each working set of the schedule (the largest
distance, in octaves, is printed).  The default schedule is ewbench's at
--density 2, checked against `ewbench sweep --dry-run` (EWBENCH, else
./ewbench).  Run it again after changing the rules it judges with: it
imports them.  A study measured on the new grid is not dense enough to
judge it: give a sweep measured with a higher --density (e.g. 8).

    scripts/sweep-schedule.py [--schedule SPEC] [STUDY_DIR...]

SPEC: segments "UPPER:DENSITY,...", UPPER a multiple of the L2 (or
"top": the sweep's end, max(8 x L2, 1 GiB)), DENSITY points per octave,
from 64 KiB up; the grid before 2026-12 at --density 2 is
"0.25:2,4:8,top:2".  Exit 0 when everything agrees, 1 when something does
not, 2 usage.
"""

import argparse
import math
import os
import subprocess
import sys
from dataclasses import replace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

from ewbench.analysis.core import noise  # noqa: E402
from ewbench.analysis.core import study as stu  # noqa: E402
from ewbench.analysis.core.units import bytes_label  # noqa: E402
from ewbench.analysis.report import answers  # noqa: E402
from ewbench.analysis.report import findings as fnd  # noqa: E402
from ewbench.analysis.report.findings import l2  # noqa: E402

# src/run/tiers.h: the sweep's first working set, its element quantum, its end.
SWEEP_MIN_BYTES = 64 << 10
QUANTUM = 1024
GIB = 1 << 30
# ewbench's schedule at --density 2 (src/run/tiers.c, sweep_segments): 8 a
# doubling where a warm working set leaves L2, 4 below it, 2 around the
# launch knee and above 1.5 x L2, 1 on the straight stretches (launch cost
# below L2 / 16, DRAM speed beyond 4 x L2).
SCHEDULE = "0.0625:1,0.25:2,0.5:4,1.5:8,4:2,top:1"
SCHEDULE_DENSITY = 2        # src/run/tiers.c's sweep_segments at --density 2
REFERENCES = [os.path.join(os.path.dirname(HERE), "reports", "reference",
                           name) for name in ("nvidia-h100", "nvidia-h200")]


def parse_schedule(spec):
    """[(upper: L2 multiple or None for the top, density)]."""
    out = []
    for part in spec.split(","):
        upper, density = part.split(":")
        out.append((None if upper == "top" else float(upper),
                    float(density)))
    if out[-1][0] is not None:
        raise ValueError("the last segment must end at top")
    return out


def working_sets(schedule, l2_bytes):
    """The schedule's working sets, bytes, ascending, as src/run/tiers.c cuts
    its segments: each from its lower bound (included) in equal log steps,
    ceil(octaves x density) of them, then the top."""
    top = max(8 * l2_bytes, GIB)
    bounds = [SWEEP_MIN_BYTES] + [
        min(max(u * l2_bytes, SWEEP_MIN_BYTES), top) if u is not None
        else top for u, _ in schedule]
    out = []
    for (lo, hi), (_, density) in zip(zip(bounds, bounds[1:]), schedule):
        octaves = math.log2(hi) - math.log2(lo)
        if octaves <= 0:
            continue
        steps = max(1, math.ceil(octaves * density - 1e-9))
        out += [2 ** (math.log2(lo) + octaves * i / steps)
                for i in range(steps)]
    return out + [top]


def kept_sizes(run, sets):
    """{variant: set of n} nearest, per variant, to each working set, and
    the largest distance in octaves."""
    by_variant = {}
    for p in run.points:
        by_variant.setdefault(p.variant, {})[p.n] = p.footprint_bytes / p.n
    kept, worst = {}, 0.0
    for variant, sizes in by_variant.items():
        per = next(iter(sizes.values()))
        ns = sorted(sizes)
        keep = set()
        for w in sets:
            want = max(1, round(w / (per * QUANTUM))) * QUANTUM
            n = min(ns, key=lambda m: abs(math.log2(m / want)))
            worst = max(worst, abs(math.log2(n / want)))
            keep.add(n)
        kept[variant] = keep
    return kept, worst


def sparse_study(study, sets):
    """The study with its sweep cut to the schedule's sizes."""
    run = study.run(stu.SWEEP)
    kept, worst = kept_sizes(run, sets)

    def keep(key):
        return key[1] in kept.get(key[0], ())
    points = tuple(p for p in run.points if keep(p.key))
    metrics = None if run.metrics is None else {
        k: v for k, v in run.metrics.items() if keep(k)}
    runs = dict(study.runs)
    runs[stu.SWEEP] = replace(run, points=points, metrics=metrics)
    return replace(study, runs=runs), worst, len(points)


def estimate_seconds(run, points):
    """The sweep's time for a subset of its points, from the dense run's
    own accounting (run.json wall_s): timing as each row's samples and
    warm-up on the GPU (its iters x its median, a cold one's flush at
    3 TB/s, at least 1 ms of warm-up) plus the dense run's per-row rest;
    counters in proportion to the profiled kernels (a cold row has two:
    the flush and its own); the inputs and checks in proportion to the
    elements; the set-up as it was.  An estimate, not a measurement."""
    wall = run.manifest.get("wall_s") or {}
    if not all(k in wall for k in ("timing", "counters", "inputs",
                                   "checks", "total")):
        return None
    flush = (run.manifest.get("settings") or {}).get("flush_bytes") or 0

    def gpu(p):
        t = p.time_median_ns * 1e-9 + (flush / 3e12 if p.cache == "cold"
                                       else 0)
        return p.iters * t + max(3 * t, 1e-3)

    def ranges(pts):
        return sum(2 if p.cache == "cold" else 1 for p in pts)
    rest = (wall["timing"] - sum(gpu(p) for p in run.points)) / \
        len(run.points)
    return (wall["total"] - wall["timing"] - wall["counters"] -
            wall["inputs"] - wall["checks"] +
            sum(gpu(p) for p in points) + rest * len(points) +
            wall["counters"] * ranges(points) / ranges(run.points) +
            (wall["inputs"] + wall["checks"]) * sum(p.n for p in points) /
            sum(p.n for p in run.points))


def ewbench_sets(density, chip="H100"):
    """The working sets `ewbench sweep --dry-run --chip CHIP --density N`
    plans for add_f32, or None without an ewbench (EWBENCH, else
    ./ewbench) that plans one."""
    binary = os.environ.get("EWBENCH") or os.path.join(
        os.path.dirname(HERE), "ewbench")
    try:
        out = subprocess.run([binary, "sweep", "--dry-run", "--chip", chip,
                              "--density", str(density), "-v", "add_f32"],
                             capture_output=True, text=True, timeout=60,
                             check=False).stdout
    except OSError:
        return None
    for line in out.splitlines():
        words = line.split()
        if words[:1] == ["add_f32"] and words[-1].isdigit():
            return int(words[-1])
    return None


def floor_pct(run, p):
    """The noise floor of a point's median, % (core/noise.py)."""
    return noise.run_floor(run).pct_at(p.time_median_ns)


def agree(a, b, pct):
    return abs(a / b - 1) * 100 <= pct


class Judge:
    """The rows of one study's comparison, and how many disagree."""

    def __init__(self):
        self.rows, self.bad = [], 0

    def row(self, what, dense, sparse, ok):
        self.rows.append((what, dense, sparse, "yes" if ok else "NO"))
        self.bad += not ok

    def print(self, title):
        print("\n## %s\n" % title)
        print("| | dense | sparse | agree |")
        print("| --- | --- | --- | --- |")
        for r in self.rows:
            print("| %s |" % " | ".join(r))


def effective(judge, dctx, sctx):
    d, s = l2.effective_l2(dctx), l2.effective_l2(sctx)
    if d is None or s is None:
        judge.row("effective L2", str(d), str(s), d is None and s is None)
        return
    judge.row("effective L2 (bracket)", "%s (%s-%s)" % tuple(
        bytes_label(x) for x in d), "%s (%s-%s)" % tuple(
            bytes_label(x) for x in s),
        d[1] <= s[0] <= d[2] and s[1] <= d[0] <= s[2])


def _limit(ctx):
    eff = l2.effective_l2(ctx)
    return eff[0] if eff else l2.F2_FIT_FRACTION * ctx.run.l2_bytes


def _spill_top(ctx, v):
    beyond = [q for q in l2._warm_series(ctx, v)
              if q.footprint_bytes >= l2.F2_SPILL_FACTOR * _limit(ctx)]
    return max(beyond, key=lambda q: q.bandwidth) if beyond else None


def _bandwidths(judge, what, dctx, sctx, a, b, ceiling):
    """A row of two points' bandwidths, agreeing within their floors."""
    if a is None or b is None:
        judge.row(what, str(a), str(b), a is None and b is None)
        return
    judge.row(what, "%.2fx DRAM at %s" % (
        a.bandwidth / ceiling, bytes_label(a.footprint_bytes)),
        "%.2fx DRAM at %s" % (b.bandwidth / ceiling,
                              bytes_label(b.footprint_bytes)),
        agree(b.bandwidth, a.bandwidth, floor_pct(dctx.run, a) +
              floor_pct(sctx.run, b)))


def finding2(judge, dense, sparse):
    """Finding 2's verdict, its deciding line, and per study add its
    transition, best point in L2 and highest past twice the effective
    L2."""
    fd, fs = l2.finding_2(dense), l2.finding_2(sparse)
    judge.row("Finding 2 verdict", fd.verdict, fs.verdict,
              fd.verdict == fs.verdict)
    judge.row("Finding 2 deciding", fd.deciding, fs.deciding,
              fd.deciding == fs.deciding)
    dctx, sctx = dense.parts[stu.SWEEP], sparse.parts[stu.SWEEP]
    ceiling = l2.model.run_dram_ceiling(dctx.run, "add").value
    for v in l2._study_adds(dctx):
        td, ts = (l2.transition(c, v, ceiling) for c in (dctx, sctx))
        if td is None or ts is None:
            judge.row("%s transition" % v, str(td), str(ts),
                      td is None and ts is None)
        else:
            judge.row("%s transition" % v, "%s-%s" % (
                bytes_label(td.low_bytes), bytes_label(td.high_bytes)),
                "%s-%s" % (bytes_label(ts.low_bytes),
                           bytes_label(ts.high_bytes)),
                ts.low_bytes <= td.high_bytes and
                td.low_bytes <= ts.high_bytes)
        pd, ps = (l2._fits_peak(c, v, ceiling, _limit(c))
                  for c in (dctx, sctx))
        _bandwidths(judge, "%s best in L2" % v, dctx, sctx,
                    pd and pd[0], ps and ps[0], ceiling)
        _bandwidths(judge, "%s highest past 2x eff. L2" % v, dctx, sctx,
                    _spill_top(dctx, v), _spill_top(sctx, v), ceiling)


def l2_tier(judge, dense, sparse):
    """answers.l2_ranges: per dtype and peer, the lowest, middle and
    highest margins (within the two margins' noise: the floors of the
    four points) and the share of sizes beyond the noise (within one
    size)."""
    drun, srun = (c.parts[stu.SWEEP].run for c in (dense, sparse))

    def noise_pct(run, m):
        v = m.versus
        return floor_pct(run, v.best) + floor_pct(run, v.cub or v.torch)
    rd = {(r.dtype, r.peer): r for r in answers.l2_ranges(dense)}
    rs = {(r.dtype, r.peer): r for r in answers.l2_ranges(sparse)}
    for key in sorted(set(rd) | set(rs)):
        a, b = rd.get(key), rs.get(key)
        what = "L2 tier, %s vs %s" % key
        if a is None or b is None:
            judge.row(what, str(a), str(b), False)
            continue
        for which in ("lowest", "middle", "highest"):
            ma, mb = getattr(a, which), getattr(b, which)
            judge.row("%s: %s margin" % (what, which), "%+.1f %% at %s" % (
                ma.margin_pct, bytes_label(ma.versus.best.footprint_bytes)),
                "%+.1f %% at %s" % (
                    mb.margin_pct,
                    bytes_label(mb.versus.best.footprint_bytes)),
                abs(ma.margin_pct - mb.margin_pct) <=
                noise_pct(drun, ma) + noise_pct(srun, mb))
        ca, cb = a.count(True), b.count(True)
        na, nb = len(a.sizes), len(b.sizes)
        judge.row(what + ": sizes beyond the noise", "%d of %d" % (ca, na),
                  "%d of %d" % (cb, nb),
                  abs(ca / na - cb / nb) <= 1.0 / min(na, nb) + 1e-9)


def verdicts(judge, dense, sparse):
    """Every part's bottleneck verdicts (the sweep's fitted intercepts
    decide the fixed cost of the other parts' points too: findings
    make_context): per part, how many of the points both have differ;
    each that does, with the rule's text on both sides (how near its
    thresholds it was)."""
    for part in sorted(dense.parts):
        vd, vs = dense.parts[part].verdicts, sparse.parts[part].verdicts
        keys = [k for k in vd if k in vs]
        flips = [k for k in keys if vd[k].name != vs[k].name]
        judge.row("verdicts of %s/" % part, "%d points" % len(keys),
                  "%d differ" % len(flips), not flips)
        for k in flips:
            judge.row("%s/ %s" % (part, " ".join(str(x) for x in k if x)),
                      "%s: %s" % (vd[k].name, vd[k].rule),
                      "%s: %s" % (vs[k].name, vs[k].rule), False)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("studies", nargs="*", metavar="STUDY_DIR",
                        default=REFERENCES)
    parser.add_argument("--schedule", default=SCHEDULE)
    args = parser.parse_args(argv)
    try:
        schedule = parse_schedule(args.schedule)
    except ValueError as e:
        parser.error("--schedule %s: %s" % (args.schedule, e))
    bad = 0
    if args.schedule == SCHEDULE:
        # The schedule here must be the one ewbench measures: add_f32's
        # working sets on an H100 (50 MiB L2), by both.
        mine = len({max(1, round(w / (12 * QUANTUM))) for w in
                    working_sets(schedule, 50 << 20)})
        theirs = ewbench_sets(SCHEDULE_DENSITY)
        if theirs is None:
            print("(no ewbench to compare the schedule with)")
        else:
            print("`ewbench sweep --density %d` plans %d working sets for "
                  "add_f32 on an H100, this schedule %d: %s" % (
                      SCHEDULE_DENSITY, theirs, mine,
                      "the same" if theirs == mine else "NOT the same"))
            bad += theirs != mine
    for path in args.studies:
        dense = stu.load_study(path)
        run = dense.run(stu.SWEEP)
        sets = working_sets(schedule, run.l2_bytes)
        sparse, worst, rows = sparse_study(dense, sets)
        dctx, sctx = fnd.make_context(dense), fnd.make_context(sparse)
        judge = Judge()
        effective(judge, dctx.parts[stu.SWEEP], sctx.parts[stu.SWEEP])
        finding2(judge, dctx, sctx)
        l2_tier(judge, dctx, sctx)
        verdicts(judge, dctx, sctx)
        sizes = len({p.footprint_bytes for p in run.points
                     if p.variant == run.points[0].variant})
        before = estimate_seconds(run, run.points)
        after = estimate_seconds(run, sparse.run(stu.SWEEP).points)
        judge.print("%s: %d working sets -> %d (%s), %d rows -> %d%s; "
                    "sizes at most %.3f octave from the schedule's" % (
                        path, sizes, len(sets), args.schedule,
                        len(run.points), rows,
                        ", the sweep %.1f s -> about %.1f s" % (
                            before, after) if before else "", worst))
        bad += judge.bad
    print("\n%s" % ("everything agrees" if not bad else
                    "%d numbers disagree" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

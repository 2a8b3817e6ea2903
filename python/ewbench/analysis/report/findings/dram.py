"""Finding 3: at the largest size every variant reaches one DRAM ceiling,
so fp16 halves the time.

Judged on the article run, else the sweep, at its largest size, on the
study's variants alone.
"""

from statistics import median

from .. import model
from ...core import noise
from ...core import study as stu
from ...core import timing
from ...core import variants as var
from ...core.units import bytes_label, gbps, ratio, size_label
from .common import FAILS, HOLDS, UNTESTABLE, Spec, at_size, counter_story


CLAIM = ("At the largest size every variant reaches the same DRAM ceiling, "
         "so fp16 halves the time.")
SHORT_CLAIM = "largest size: one DRAM ceiling, fp16 halves the time"

F3_MIN_PCT = 85.0           # every variant >= 85 % of its DRAM ceiling
F3_MIN_OF_MAX = 0.90        # slowest variant >= 90 % of the fastest
F3_RATIO = (0.40, 0.60)     # fp16 / fp32 add time


def finding_3(sctx):
    part, ctx = sctx.part(stu.ARTICLE, stu.SWEEP)
    if ctx is None:
        return SPEC.finding(UNTESTABLE, [], "No run.")
    run = ctx.run
    all_sizes = sorted({p.n for p in ctx.points})
    if not all_sizes:
        return SPEC.finding(UNTESTABLE, [], "No points.", part=part)
    n = all_sizes[-1]
    pts, cache = at_size(ctx, n)
    # The claim is the study's: its variants alone decide it, and its
    # fp16/fp32 ratio is theirs (ewbench's own kernels, cub and PyTorch
    # would carry it otherwise).
    pts = [p for p in pts if var.role(p.variant) == var.STUDY]
    if not pts:
        return SPEC.finding(UNTESTABLE, [], "No study variant at the "
                            "largest size (%s)." % size_label(n), part=part)
    if run.l2_bytes and min(p.footprint_bytes for p in pts) < run.l2_bytes:
        return SPEC.finding(UNTESTABLE, [], "At the largest size (%s) some "
                            "footprint still fits in L2 (%s); the claim needs "
                            "DRAM-resident data." % (size_label(n),
                                                     bytes_label(run.l2_bytes)),
                            part=part)
    shares = []
    for p in pts:
        ceiling = model.run_dram_ceiling(run, p.op)
        if ceiling is None:
            return SPEC.finding(UNTESTABLE, [], "No DRAM ceiling (neither "
                                "measured nor in run.json).", part=part)
        shares.append((p, 100.0 * p.bandwidth / ceiling.value, ceiling))
    lowest = min(shares, key=lambda s: s[1])
    highest = max(shares, key=lambda s: s[1])
    f16 = [p.time_median_ns for p in pts if p.op == "add" and p.dtype == "f16"]
    f32 = [p.time_median_ns for p in pts if p.op == "add" and p.dtype == "f32"]
    time_ratio = median(f16) / median(f32) if f16 and f32 else None
    numbers = [("size, cache", "%s elements, %s" % (size_label(n), cache)),
               ("DRAM ceilings", ", ".join(sorted({"%s %s" % (
                   gbps(c.value), c.source) for _, _, c in shares})))]
    for p, share, _ in sorted(shares, key=lambda s: -s[1]):
        numbers.append((p.variant, "%s, %.0f%% of DRAM ceiling" % (
            gbps(p.bandwidth), share)))
    numbers.append(("fp16/fp32 add time (medians over the study's "
                    "variants)", ratio(time_ratio)))
    deciding = "lowest %s %.0f%% of DRAM (limit %.0f%%: %s); fp16/fp32 " \
        "time %s" % (lowest[0].variant, lowest[1], F3_MIN_PCT,
                     _share_margin(lowest[0], lowest[2], F3_MIN_PCT,
                                   noise.run_floor(run)), ratio(time_ratio))
    same = lowest[1] >= F3_MIN_OF_MAX * highest[1]
    high = lowest[1] >= F3_MIN_PCT
    halves = time_ratio is not None and \
        F3_RATIO[0] <= time_ratio <= F3_RATIO[1]
    if same and high and halves:
        return SPEC.finding(HOLDS, numbers, "Every variant reaches %.0f-%.0f%% "
                            "of its DRAM ceiling and fp16 add takes %s the time "
                            "of fp32." % (lowest[1], highest[1],
                                          ratio(time_ratio)), deciding, part)
    # Two disjoint groups: a variant short of either threshold falls
    # short; every other one is at the ceiling (add_f32 at 89 % of the
    # ceiling but under 90 % of the fastest was once counted in both).
    short = [(p, s) for p, s, _ in shares if _falls_short(s, highest[1])]
    at_ceiling = [p for p, s, _ in shares if not _falls_short(s, highest[1])]
    lines = []
    for p, s in sorted(short, key=lambda x: x[1]):
        story = counter_story(run, p)
        lines.append("%s reaches %.0f%% (%s%s)" % (
            p.variant, s, ctx.verdicts[p.key].name,
            ": " + story if story else ""))
    text = ("Not every variant reaches the ceiling: " + "; ".join(lines) +
            "." if lines else "Every variant reaches the ceiling.")
    if time_ratio is None:
        text += " No fp16/fp32 add pair to compare times."
    elif not halves:
        text += " fp16 add takes %s the time of fp32, not about half." % \
            ratio(time_ratio)
    text += _in_flight_contrast(ctx, [p for p, _ in short], at_ceiling)
    return SPEC.finding(FAILS, numbers, text, deciding, part,
                        _why(ctx, short, at_ceiling, time_ratio, halves))


def _why(ctx, short, at_ceiling, time_ratio, halves):
    """Why the claim fails, in a clause for the first screen's verdict:
    how many fall short and as what, what separates them, the time
    ratio."""
    why = []
    if short:
        kinds = {}
        for p, _ in short:
            name = ctx.verdicts[p.key].name
            kinds[name] = kinds.get(name, 0) + 1
        why.append("%d of %d variants fall short of the ceiling (%s)" % (
            len(short), len(short) + len(at_ceiling), ", ".join(
                "%d %s" % (k, v) for v, k in sorted(
                    kinds.items(), key=lambda kv: -kv[1]))))
        kib = _in_flight_ranges(ctx, [p for p, _ in short], at_ceiling)
        if kib is not None and kib[1] < kib[2]:
            why.append("they keep %.0f-%.0f KiB of loads in flight per SM, "
                       "those at it %.0f-%.0f KiB" % kib)
    if time_ratio is not None and not halves:
        why.append("fp16 add takes %s fp32's time, not about half" %
                   ratio(time_ratio))
    return "; ".join(why)


def _falls_short(share, highest):
    """A variant falls short when it is below F3_MIN_PCT of its ceiling or
    below F3_MIN_OF_MAX of the fastest; otherwise it is at the ceiling."""
    return share < F3_MIN_PCT or share < F3_MIN_OF_MAX * highest


def _in_flight_ranges(ctx, short, full):
    """(lowest, highest) KiB of loads in flight per SM of the variants that
    fall short, then of those at the ceiling; None where either group
    has no number."""
    def kib(points):
        values = []
        for p in points:
            occ, _ = model.occupancy(ctx.run, p)
            k = model.kib_in_flight_per_sm(
                p, occ, ctx.run.device.get("max_threads_per_sm"))
            if k is not None:
                values.append(k)
        return values
    slow, fast = kib(short), kib(full)
    if not slow or not fast:
        return None
    return (min(slow), max(slow), min(fast), max(fast))


def _in_flight_contrast(ctx, short, full):
    """A sentence contrasting loads in flight of the variants that fall
    short and those at the ceiling (two disjoint groups): whether the two
    ranges overlap, as the numbers show it."""
    ranges = _in_flight_ranges(ctx, short, full)
    if ranges is None:
        return ""
    if ranges[1] < ranges[2]:
        return (" The variants that fall short keep %.0f-%.0f KiB of loads "
                "in flight per SM, those at the ceiling %.0f-%.0f KiB: the "
                "two ranges do not overlap (%.1fx from the highest of the "
                "first to the lowest of the second), so bytes in flight "
                "separate the two groups." % (ranges + (ranges[2] /
                                                         ranges[1],)))
    return (" Loads in flight per SM: %.0f-%.0f KiB for the variants that "
            "fall short, %.0f-%.0f KiB for those at the ceiling; the ranges "
            "overlap, so bytes in flight alone do not separate the two "
            "groups (see the verdict of each)." % ranges)


def _share_margin(point, ceiling, threshold_pct, floor):
    """A point's share of a ceiling against a threshold (noise.Margin):
    the distance in % of the threshold, borderline within the share's
    uncertainty (the row's interval widened by the noise floor), else in
    units of the cross-host spread: '-30.1 %, 150x the cross-host spread
    0.2 %'."""
    kt = timing.row_time(point)
    share = 100.0 * point.bandwidth / ceiling.value
    return noise.distance(share, threshold_pct, kt.half_width_pct +
                          floor.pct_at(kt.median_ns),
                          floor.pct_at(kt.median_ns)).text()


SPEC = Spec(3, CLAIM, SHORT_CLAIM, (), finding_3)

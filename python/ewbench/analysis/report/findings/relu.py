"""Finding 6: vectorised ReLU is only ~2 % faster than naive, and PyTorch
is as fast as either.

Judged on the article run at its largest ReLU size.
"""

from ...core import noise
from ...core import study as stu
from ...core import timing
from ...core.units import gbps, ratio, size_label, us
from .common import (BORDERLINE, FAILS, HOLDS, TORCH_PREFIX, UNTESTABLE,
                     Spec, at_size, counter_story)


CLAIM = ("Vectorised ReLU is only ~2 % faster than naive; PyTorch is as fast "
         "as either.")
SHORT_CLAIM = "vector ReLU ~2 % faster; PyTorch as fast"

F6_TOLERANCE = 0.05         # "~2 % faster" read as: within 5 % either way
F6_NAIVE, F6_VECTOR = "relu_f32", "relu_f32x4"


def _beyond_tolerance(a, b, tolerance, floor):
    """How far the difference of KernelTime b from a lies beyond a
    tolerance (a fraction), as a noise.Margin: its difference_pct the
    excess in points of % (< 0: inside the tolerance), not beyond: within
    the noise of the line."""
    m = noise.margin(a, b, floor)
    return noise.Margin(abs(m.difference_pct) - 100.0 * tolerance,
                        m.limit_pct, m.spread_pct)


def _gap_text(gap):
    """'29.2 % beyond the limit, 146x the cross-host spread 0.2 %'."""
    if not gap.beyond:
        return "%.1f %% %s the limit: borderline, within the noise limit " \
            "%.1f %%" % (abs(gap.difference_pct), "beyond" if
                          gap.difference_pct > 0 else "inside",
                          gap.limit_pct)
    return "%.1f %% %s the limit, %.0fx the cross-host spread %.2g %%" % (
        abs(gap.difference_pct), "beyond" if gap.difference_pct > 0 else
        "inside", gap.spreads, gap.spread_pct)


def finding_6(sctx):
    part, ctx = sctx.part(stu.ARTICLE, stu.SWEEP, stu.BLOCKS)
    if ctx is None:
        return SPEC.finding(UNTESTABLE, [], "No run.")
    all_sizes = sorted({p.n for p in ctx.points if p.op == "relu"})
    if not all_sizes:
        return SPEC.finding(UNTESTABLE, [], "No ReLU points.", part=part)
    n = all_sizes[-1]
    pts, cache = at_size(ctx, n, op="relu")
    by_variant = {p.variant: p for p in pts}
    naive, vector = by_variant.get(F6_NAIVE), by_variant.get(F6_VECTOR)
    if naive is None or vector is None:
        return SPEC.finding(UNTESTABLE, [], "Needs both %s and %s at the "
                            "largest ReLU size." % (F6_NAIVE, F6_VECTOR),
                            part=part)
    speedup = naive.time_median_ns / vector.time_median_ns
    floor = noise.run_floor(ctx.run)
    gap = _beyond_tolerance(timing.row_time(vector), timing.row_time(naive),
                            F6_TOLERANCE, floor)
    numbers = [("size, cache", "%s elements, %s" % (size_label(n), cache)),
               (F6_NAIVE, "%s µs, %s" % (us(naive.time_median_ns),
                                         gbps(naive.bandwidth))),
               (F6_VECTOR, "%s µs, %s" % (us(vector.time_median_ns),
                                          gbps(vector.bandwidth))),
               ("speed-up of %s" % F6_VECTOR, ratio(speedup))]
    deciding = ["float4 %s as fast as naive (limit +-%.0f%%; %s)" % (
        ratio(speedup), 100 * F6_TOLERANCE, _gap_text(gap))]
    failures = []
    if abs(speedup - 1) > F6_TOLERANCE:
        failures.append("The vectorised kernel is %s as fast as the naive "
                        "one (more than %.0f%% apart)" % (
                            ratio(speedup), 100 * F6_TOLERANCE))
    torch = [p for p in pts if p.variant.startswith(TORCH_PREFIX)]
    best = min(naive.time_median_ns, vector.time_median_ns)
    for p in torch:
        versus = p.time_median_ns / best
        numbers.append((p.variant, "%s µs, %s the faster of the two" % (
            us(p.time_median_ns), ratio(versus))))
        deciding.append("PyTorch takes %s the time" % ratio(versus))
        if versus > 1 + F6_TOLERANCE:
            failures.append("PyTorch (%s) is %.0f%% slower than the faster "
                            "kernel" % (p.variant, 100 * (versus - 1)))
    deciding = "; ".join(deciding)
    note = "" if torch else " No PyTorch rows (ewbench torch " \
        "RUN_DIR adds them), so the PyTorch half is not tested."
    if not gap.beyond:
        return SPEC.finding(BORDERLINE, numbers, "The two kernels are %s "
                            "apart, within the noise of the %.0f%% limit: "
                            "another run can tip it either way; repeated "
                            "rounds (`ewbench contest`) would decide it." % (
                                ratio(speedup), 100 * F6_TOLERANCE) + note,
                            deciding, part)
    if failures:
        explanation = "; ".join(failures) + "."
        if speedup > 1 + F6_TOLERANCE:
            story = counter_story(ctx.run, naive)
            explanation += (" On this GPU the scalar kernel falls short of "
                            "the bandwidth the float4 one reaches%s." % (
                                " (" + story + ")" if story else ""))
        return SPEC.finding(FAILS, numbers, explanation + note, deciding, part)
    return SPEC.finding(HOLDS, numbers, "Naive and vectorised ReLU are within "
                        "%.0f%% of each other%s." % (
                            100 * F6_TOLERANCE,
                            " and PyTorch matches them" if torch else "") + note,
                        deciding, part)


SPEC = Spec(6, CLAIM, SHORT_CLAIM, (), finding_6)

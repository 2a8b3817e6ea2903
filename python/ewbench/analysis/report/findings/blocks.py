"""Finding 5: 128 or 256 threads per block is the safe choice.

Judged on the block sweep (tune), else any run that timed a variant at
several blocks; the block-launch rate explains a sweep where a larger
block wins.
"""

import numpy as np

from .. import model
from ...core import noise
from ...core import study as stu
from ...core import timing
from ...core.units import gbps, size_label, us
from .common import FAILS, HOLDS, UNTESTABLE, Spec, and_list


CLAIM = "128 or 256 threads per block is the safe choice."
SHORT_CLAIM = "128 or 256 threads per block is safe"

F5_TOLERANCE = 1.05         # best of 128/256 within 5 % of the best block
F5_SAFE_BLOCKS = (128, 256)     # the one definition (plots/blocks.py too)
F5_SAFE_TEXT = "%d/%d" % F5_SAFE_BLOCKS


def block_sweeps(ctx):
    """(variant, n, cache, launch) -> points of every block timed there,
    for the groups with more than one block (tune rows)."""
    groups = {}
    for p in ctx.run.points:
        if p.block is not None and p.check != "fail":
            groups.setdefault((p.variant, p.n, p.cache, p.launch),
                              []).append(p)
    return {k: v for k, v in groups.items() if len({p.block for p in v}) > 1}


F5_FIT_RESIDUAL = 0.10     # the block-rate model explains a sweep within 10 %


def block_rate(rows, upto_block):
    """Fit t = t0 + grid / R over a sweep's points with block <= upto_block
    (least squares on relative residuals): R, the rate at which the GPU
    launches blocks (blocks per ns), t0 and the largest relative residual;
    None with fewer than three such points, a known grid on each, or a
    non-positive slope."""
    pts = [p for p in rows if p.block <= upto_block and p.grid]
    if len({p.grid for p in pts}) < 3:
        return None
    g = np.array([p.grid for p in pts], dtype=float)
    t = np.array([p.time_median_ns for p in pts])
    w = 1.0 / t
    coef, *_ = np.linalg.lstsq(np.column_stack([np.ones_like(g), g]) *
                               w[:, None], t * w, rcond=None)
    if coef[1] <= 0:
        return None
    resid = float(np.max(np.abs(coef[0] + coef[1] * g - t) / t))
    return 1.0 / coef[1], float(coef[0]), resid


def _rate_text(rows, best, good):
    """The block-launch-rate mechanism of a sweep where a block larger than
    the safe ones (F5_SAFE_BLOCKS) wins, or '' when the model does not explain it."""
    fit = block_rate(rows, good.block)
    if fit is None or fit[2] > F5_FIT_RESIDUAL:
        return ""
    rate, t0, resid = fit
    spent = good.grid / rate
    return ("block launch rate: up to block %d, time = %s µs + grid / %.0f "
            "blocks per µs (max residual %.0f%%); at %d threads the grid of "
            "%d blocks alone takes %s of its %s µs, at %d the %d blocks %s "
            "µs: fewer, larger blocks win because the GPU launches blocks "
            "at a bounded rate" % (
                good.block, us(t0), rate * 1e3, 100 * resid, good.block,
                good.grid, us(spent), us(good.time_median_ns), best.block,
                best.grid, us(best.grid / rate)))


def _tier_groups(judged, l2_bytes):
    """(size tier, launch mode) -> the judged sweeps there (L2: the best
    point's footprint below the L2; else DRAM)."""
    groups = {}
    for j in judged:
        best = j[4]
        tier = "L2" if l2_bytes and best.footprint_bytes < l2_bytes \
            else "DRAM"
        groups.setdefault((tier, best.launch), []).append(j)
    return groups


def f5_tiers(judged, l2_bytes):
    """'' when every sweep of the judged gives one answer, else per size
    tier and launch mode, how many sweeps are beyond their limit and the
    worst ratio."""
    groups = _tier_groups(judged, l2_bytes)
    answers = {any(j[0] for j in g) for g in groups.values()}
    if len(answers) < 2:
        return ""
    return "; ".join("%s tier, %s launches: %d of %d sweeps beyond the "
                     "limit (worst %.3fx)" % (
                         tier, launch, sum(j[0] for j in g), len(g),
                         max(j[1] for j in g))
                     for (tier, launch), g in sorted(groups.items()))


def _per_thread(p):
    """Elements per launched thread of a point, or None."""
    return p.n / (p.grid * p.block) if p.grid and p.block else None


def f5_regimes(judged, l2_bytes):
    """Which regime holds and which does not, for the verdict cell, where
    the answer differs by size tier and launch mode: 'holds in the DRAM
    tier, graph launches (0 of 4 sweeps beyond the limit, worst 1.010x);
    not in the L2 tier, graph launches, for add_f16x2 (2 elements per
    thread) and add_f32 (1): 2 of 4 sweeps, worst 1.107x'."""
    groups = _tier_groups(judged, l2_bytes)
    if len({any(j[0] for j in g) for g in groups.values()}) < 2:
        return ""
    parts = []
    for (tier, launch), g in sorted(groups.items()):
        worst = max(j[1] for j in g)
        failed = [j for j in g if j[0]]
        if not failed:
            parts.append("holds in the %s tier, %s launches (0 of %d "
                         "sweeps beyond the limit, worst %.3fx)" % (
                             tier, launch, len(g), worst))
            continue
        who = ["%s (%s)" % (j[3].split()[0], "%.0f element%s per thread"
                            % (k, "" if k == 1 else "s")
                            if k is not None else "elements per thread "
                            "unknown")
               for j in failed for k in [_per_thread(j[5])]]
        parts.append("not in the %s tier, %s launches, for %s: %d of %d "
                     "sweeps beyond the limit, worst %.3fx" % (
                         tier, launch, and_list(who), len(failed), len(g),
                         worst))
    return "; ".join(parts)


def finding_5(sctx):
    part, ctx = None, None
    for name in (stu.BLOCKS,) + stu.PARTS:
        if name in sctx.parts and block_sweeps(sctx.parts[name]):
            part, ctx = name, sctx.parts[name]
            break
    if ctx is None:
        return SPEC.finding(UNTESTABLE, [], "Every variant was timed at one "
                            "block size; a block sweep (`ewbench tune`, the "
                            "study's blocks/ part) is needed.")
    numbers, failures, judged, launch_bound, noisy = [], [], [], [], []
    floor = noise.run_floor(ctx.run)
    for (variant, n, cache, launch), rows in sorted(block_sweeps(ctx).items()):
        best = min(rows, key=lambda p: p.time_median_ns)
        label = "%s %s %s %s" % (variant, size_label(n), cache, launch)
        blocks = ",".join(str(b) for b in sorted(p.block for p in rows))
        if ctx.verdicts[best.key].name == model.LAUNCH_BOUND:
            launch_bound.append(label)
            continue
        safe = [p for p in rows if p.block in F5_SAFE_BLOCKS]
        if not safe:
            numbers.append((label, "blocks %s: none of %s tested" % (
                blocks, F5_SAFE_TEXT)))
            continue
        good = min(safe, key=lambda p: p.time_median_ns)
        slack = good.time_median_ns / best.time_median_ns
        # The tolerance, or the noise rule's limit where the two points
        # scatter more than it can resolve.
        limit = 1 + max(100 * (F5_TOLERANCE - 1), noise.separation_pct(
            timing.row_time(best), timing.row_time(good), floor)) / 100
        judged.append((slack > limit, slack, limit, label, best, good))
        worst = max(rows, key=lambda p: p.time_median_ns)
        numbers.append((label, "best %d (%s); best of %s: %d, %.3fx "
                        "its time (limit %.3fx); worst %d, %.2fx" % (
                            best.block, gbps(best.bandwidth), F5_SAFE_TEXT,
                            good.block, slack, limit, worst.block,
                            worst.time_median_ns / best.time_median_ns)))
        if slack > limit:
            mechanism = _rate_text(rows, best, good) \
                if best.block > good.block else ""
            if mechanism:
                numbers.append(("%s mechanism" % label, mechanism))
            fit = block_rate(rows, good.block) if mechanism else None
            failures.append("%s: block %d is %.0f%% faster than the best "
                            "of %s (%d)%s" % (
                                label, best.block, 100 * (slack - 1),
                                F5_SAFE_TEXT, good.block, ": the GPU launches about %.0f "
                                "blocks per µs, and the %d blocks of %d "
                                "threads take %s of its %s µs" % (
                                    fit[0] * 1e3, good.grid, good.block,
                                    us(good.grid / fit[0]),
                                    us(good.time_median_ns))
                                if fit else ""))
        elif slack > F5_TOLERANCE:
            noisy.append("%s (%.3fx, limit %.3fx)" % (label, slack, limit))
    note = (" Left out as launch-bound (the block does not show when the "
            "launch sets the time): %s." % ", ".join(launch_bound)) \
        if launch_bound else ""
    if noisy:
        note += (" Beyond %.0f%% but within the noise of the points "
                 "(their confidence intervals overlap, the noise rule): "
                 "%s." % (
                     100 * (F5_TOLERANCE - 1), ", ".join(noisy)))
    if not judged:
        return SPEC.finding(UNTESTABLE, numbers, "No block sweep here "
                            "includes %d or %d at a size that is not "
                            "launch-bound." % F5_SAFE_BLOCKS + note,
                            part=part)
    # The deciding sweep: the worst beyond its limit, else the worst.
    _, slack, limit, label, best, good = max(judged, key=lambda j: j[:2])
    tiers = f5_tiers(judged, ctx.run.l2_bytes)
    # The distance of the deciding sweep from its limit (the limit
    # already holds the noise), in units of the cross-host spread.
    distance = noise.distance(slack, limit, 0.0,
                              floor.pct_at(good.time_median_ns))
    deciding = "worst: %s, %s is %.3fx the best block (%d); limit " \
        "%.3fx (%s); %d sweeps%s" % (
            label, F5_SAFE_TEXT, slack, best.block,
            limit, distance.text(), len(judged),
            "; " + tiers if tiers else "")
    if failures:
        return SPEC.finding(FAILS, numbers, ("The answer differs by tier: "
                                                "%s. " % tiers if tiers else "")
                            + "; ".join(failures) + "." + note, deciding, part,
                            f5_regimes(judged, ctx.run.l2_bytes))
    return SPEC.finding(HOLDS, numbers, "In all %d sweeps the better of %d "
                        "and %d threads is within %.0f%% of the best block "
                        "size%s." % ((len(judged),) + F5_SAFE_BLOCKS + (
                            100 * (F5_TOLERANCE - 1),
                            ", or within the noise" if noisy else "")) +
                        note,
                        deciding, part)


SPEC = Spec(5, CLAIM, SHORT_CLAIM, (), finding_5)

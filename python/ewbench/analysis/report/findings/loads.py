"""Finding 4: float4 moves 4x the bytes per load instruction of scalar
fp32, the 8-half pack 8x scalar fp16.

Judged on the article run's counters (requested bytes per warp load
instruction), with the loads that leave sector bytes unused.
"""

from statistics import median

from ...core import derived
from ...core import sass
from ...core import select as sel
from ...core import study as stu
from ...core import variants as var
from ...core.validate import DTYPE_BYTES
from ..uses import EVIDENCE, FINDING, VERDICT_PARTS, WEAKER, Use
from .common import FAILS, HOLDS, UNTESTABLE, Spec


CLAIM = ("float4 moves 4x the bytes per load instruction of scalar fp32 (512 "
         "vs 128 bytes per warp instruction); the 8-half pack moves 8x "
         "scalar fp16.")
SHORT_CLAIM = "float4 4x, 8-half pack 8x bytes per load"

F4_TOLERANCE = 0.10         # measured ratio within 10 % of 4x / 8x
F4_PAIRS = (("add_f32x4", "add_f32", 4.0), ("add_f16x8_pack", "add_f16", 8.0))


F4_FULL_SECTORS = 95.0      # % of the L1 sector bytes used: below it, the
#                             loads leave sector bytes unused


def _ld_values(ctx, variant, metric):
    """Median of a per-load-instruction metric of a variant over its
    points in the preferred cache state; None if not measured."""
    rows = [p for p in ctx.points if p.variant == variant]
    cache = sel.preferred_cache(rows)
    values = [v for v in (sel.metric(ctx.run, p, metric)
                          for p in rows if p.cache == cache) if v is not None]
    return median(values) if values else None


def _operands(p):
    """Arrays the kernel reads per element (add: 2; relu, abs: 1)."""
    size = DTYPE_BYTES[p.dtype]
    read = derived.point_facts(p.bytes_moved, p.n, size)["read_bytes"]
    return read / (p.n * size)


def load_story(run, p):
    """The loads of a point in one clause: bytes requested per warp load
    instruction, per thread and loads a thread, the share of the L1 sector
    bytes touched that they use, and the kernel's load instructions where
    its SASS was recorded.  '' without the requested bytes."""
    asked = sel.metric(run, p, sel.M_LD_REQUESTED_BYTES_PER_INST)
    if asked is None:
        return ""
    per_warp = sel.metric(run, p, sel.M_LD_INST_PER_WARP)
    text = "%.0f B requested per warp load (%.0f B a thread%s)" % (
        asked, asked / 32, "" if per_warp is None else
        " × %.3g load%s" % (per_warp, "" if per_warp == 1 else "s"))
    sectors = sel.metric(run, p, sel.M_LD_BYTES_PER_INST)
    used = sel.metric(run, p, sel.M_LD_SECTOR_EFFICIENCY)
    if sectors is not None and used is not None:
        text += ", %.0f %% of %.0f B of sectors used" % (used, sectors)
    loads = sass.accesses(run, p.variant, "load")
    if loads:
        text += "; SASS: " + loads
    return text


def _largest(ctx, variant):
    """A variant's point at its largest size, preferred cache; None."""
    rows = [p for p in ctx.points if p.variant == variant]
    if not rows:
        return None
    at = sel.select(rows, n=max(p.n for p in rows),
                    cache=sel.preferred_cache(rows))
    return at[0] if at else None


def _wasting(ctx):
    """Study variants whose loads use less than F4_FULL_SECTORS % of the
    sector bytes they touch, each with the sibling (same op and dtype)
    that asks for the most bytes per load instruction."""
    out = []
    study = sorted({p.variant for p in ctx.points
                    if var.role(p.variant) == var.STUDY})
    for v in study:
        used = _ld_values(ctx, v, sel.M_LD_SECTOR_EFFICIENCY)
        p = _largest(ctx, v)
        if used is None or used >= F4_FULL_SECTORS or p is None:
            continue
        best = None
        for w in study:
            q = _largest(ctx, w)
            asked = _ld_values(ctx, w, sel.M_LD_REQUESTED_BYTES_PER_INST)
            if q is None or asked is None or (q.op, q.dtype) != \
                    (p.op, p.dtype):
                continue
            if best is None or asked > best[1]:
                best = (w, asked)
        out.append((p, best))
    return out


def _waste_text(run, p, best):
    """Why a variant whose loads waste sectors moves fewer bytes per load
    instruction than its best sibling: requested bytes, sector share,
    loads per thread, and its load instructions where the SASS is there."""
    asked = sel.metric(run, p, sel.M_LD_REQUESTED_BYTES_PER_INST)
    used = sel.metric(run, p, sel.M_LD_SECTOR_EFFICIENCY)
    sectors = sel.metric(run, p, sel.M_LD_BYTES_PER_INST)
    text = "%s asks for %.0f B per warp load instruction (%.0f B a " \
        "thread)" % (p.variant, asked, asked / 32)
    per_warp = sel.metric(run, p, sel.M_LD_INST_PER_WARP)
    if per_warp is not None:
        text += " in %.3g loads a thread, %.3g per operand" % (
            per_warp, per_warp / _operands(p))
    text += ", and uses %.0f %% of the %.0f B of L1 sectors each touches" % (
        used, sectors)
    if best is not None and best[0] != p.variant and best[1] > asked:
        text += "; %s asks for %.0f B, so %s issues %.3gx the load " \
            "instructions for the same bytes" % (best[0], best[1],
                                                 p.variant, best[1] / asked)
    loads = sass.accesses(run, p.variant, "load")
    if loads:
        text += " (SASS: %s)" % loads
    return text


def finding_4(sctx):
    part, ctx = sctx.part(stu.ARTICLE, stu.SWEEP, stu.BLOCKS)
    metric = sel.M_LD_REQUESTED_BYTES_PER_INST
    if ctx is None or not sel.has_metric(ctx.run, metric):
        return SPEC.finding(UNTESTABLE, [], "Needs the counter row %s "
                            "(run with counters on)." % metric, part=part or "")
    numbers, failures, tested, missing, deciding = [], [], [], [], []
    for wide, narrow, target in F4_PAIRS:
        a, b = _ld_values(ctx, wide, metric), _ld_values(ctx, narrow, metric)
        if a is None or b is None or b == 0:
            missing.append("%s/%s" % (wide, narrow))
            continue
        measured = a / b
        tested.append(wide)
        text = "%.0f vs %.0f B requested per warp load = %.2fx (expected " \
            "%.0fx)" % (a, b, measured, target)
        sa = _ld_values(ctx, wide, sel.M_LD_BYTES_PER_INST)
        sb = _ld_values(ctx, narrow, sel.M_LD_BYTES_PER_INST)
        if sa is not None and sb is not None:
            text += "; L1 sectors touched %.0f vs %.0f B" % (sa, sb)
        numbers.append(("%s vs %s" % (wide, narrow), text))
        deciding.append("%s %.2fx (expected %.0fx)" % (wide, measured,
                                                      target))
        if abs(measured / target - 1) > F4_TOLERANCE:
            failures.append("Measured ratio off: %s asks for %.2fx the "
                            "bytes per load of %s, not %.0fx" % (
                                wide, measured, narrow, target))
    deciding = "; ".join(deciding)
    for wide, narrow, _ in F4_PAIRS:
        for v in (wide, narrow):
            p = _largest(ctx, v)
            story = load_story(ctx.run, p) if p is not None else ""
            if story and v not in [n for n, _ in numbers]:
                numbers.append((v, story))
    waste = []
    for p, best in _wasting(ctx):
        numbers.append((p.variant, load_story(ctx.run, p)))
        waste.append(_waste_text(ctx.run, p, best))
    waste = (" Loads that leave sector bytes unused: %s." % "; ".join(waste)
             if waste else "")
    if not ctx.run.sass:
        waste += " The kernels' load instructions (SASS): %s." % \
            sass.why_not(ctx.run)
    if not tested:
        return SPEC.finding(UNTESTABLE, numbers, "None of the pairs %s has "
                            "the counter on both sides." % ", ".join(missing) +
                            waste, deciding, part)
    note = (" Not tested (variant or counter missing): %s." %
            ", ".join(missing)) if missing else ""
    if failures:
        return SPEC.finding(FAILS, numbers, "; ".join(failures) + "." + note +
                            waste, deciding, part)
    return SPEC.finding(HOLDS, numbers, "The wide loads ask for the expected "
                        "multiple of bytes per warp load instruction (the bytes "
                        "the kernel reads over its global load instructions)." +
                        note + waste, deciding, part)


SPEC = Spec(4, CLAIM, SHORT_CLAIM, (
    Use("Finding 4", FINDING, VERDICT_PARTS,
        ((sel.M_LD_REQUESTED_BYTES_PER_INST,),),
        "not testable: no requested bytes per global load instruction "
        "(`%s`)" % sel.M_LD_REQUESTED_BYTES_PER_INST),
    Use("Finding 4 and the shortfalls table", EVIDENCE, VERDICT_PARTS,
        ((sel.M_LD_SECTOR_EFFICIENCY,),),
        "no L1 sector bytes beside the requested ones (sector efficiency)",
        WEAKER),
), finding_4)

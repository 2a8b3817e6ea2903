"""Finding 2: a working set in L2 runs above DRAM speed, one that spills
falls to it.

Judged on the sweep (dense sizes around this GPU's L2), else the article
run: per study add variant, where its warm working set leaves L2 (the
effective L2 for streaming, which the cache-tier figure draws) and its
bandwidth on either side.
"""

from dataclasses import dataclass
from statistics import median

from .. import model
from ...core import noise
from ...core import select as sel
from ...core import study as stu
from ...core import variants as var
from ...core.units import bytes_label, gbps, size_label
from .common import FAILS, HOLDS, UNTESTABLE, _and, _finding, counter_story


NUMBER = 2
CLAIM = ("Mid sizes: when A+B+C fits in L2 the achieved bandwidth exceeds "
         "DRAM bandwidth; when it does not, it falls to DRAM speed.")
SHORT_CLAIM = "fits in L2: above DRAM speed; spills: DRAM speed"

F2_FIT_FRACTION = 0.5       # "fits in L2": footprint <= half the L2
F2_SPILL_FACTOR = 2.0       # "does not fit": footprint >= twice the L2
F2_DRAM_CAP = 1.10          # not-in-L2 points stay below 1.1 x DRAM ceiling
# The effective L2 is a number where the sizes around it are at most this
# far apart (the sweep's: 1.09x on the H100 and H200), else only the
# bracket they make: the study's three sizes are 16x apart, and the
# geometric middle of such a bracket is no measurement.
F2_LOCATED_RATIO = 1.5

# The article's GPU, for finding 2's note: an RTX 5090 (GB202) has 96 MiB
# of L2 and a 1792 GB/s DRAM peak (28 Gbit/s GDDR7 on a 512-bit bus).
ARTICLE_GPU = "RTX 5090"
ARTICLE_GPU_L2_BYTES = 96 << 20
ARTICLE_MID_N = 1 << 24


def _best(points):
    return max(points, key=lambda p: p.bandwidth) if points else None


def l2_tiers(ctx, dtype, l2_bytes):
    """(fit size, spill size) for one dtype's warm add points: the largest
    size whose footprint is <= F2_FIT_FRACTION x L2 and the smallest whose
    footprint is >= F2_SPILL_FACTOR x L2; None where the run has none."""
    pts = sel.select(ctx.points, op="add", dtype=dtype, cache="warm")
    sizes = sorted({(p.footprint_bytes, p.n) for p in pts})
    fit = [n for f, n in sizes if f <= F2_FIT_FRACTION * l2_bytes]
    spill = [n for f, n in sizes if f >= F2_SPILL_FACTOR * l2_bytes]
    return (fit[-1] if fit else None), (spill[0] if spill else None)


def _residency(run, points):
    hits = [h for h in (sel.l2_read_served(run, p) for p in points)
            if h is not None]
    return median(hits) if hits else None


def _article_note(l2_bytes):
    """Where the article's 2^24 stood against its L2 and this one's."""
    fp16 = ARTICLE_MID_N * 6
    return ("The article's 2^24 elements: an fp16 add touches %s, the %s's "
            "%s L2 (the article's 2891 GB/s there is above that card's "
            "1792 GB/s DRAM peak); on this GPU's %s L2 the same size is "
            "%.1fx the L2, so the sizes judged here are chosen from this "
            "L2 instead." % (bytes_label(fp16), ARTICLE_GPU,
                             bytes_label(ARTICLE_GPU_L2_BYTES),
                             bytes_label(l2_bytes), fp16 / l2_bytes))


F2_SHARE_PCT = 50.0        # L2 -> DRAM: the share of reads from L2 falls
#                            through 50 %


@dataclass(frozen=True)
class Transition:
    """Where a variant's warm working set leaves L2: the last footprint
    whose reads still came mostly from L2 and the next one measured."""
    variant: str
    low_bytes: int          # last footprint with share >= 50 %
    high_bytes: int         # next footprint, share < 50 %
    source: str             # "counters" or "timing"

    @property
    def bytes(self):
        """The geometric middle of the bracket."""
        return (self.low_bytes * self.high_bytes) ** 0.5


def _warm_series(ctx, variant):
    return sorted(sel.select(ctx.points, variant=variant, cache="warm"),
                  key=lambda p: p.footprint_bytes)


def transition(ctx, variant, ceiling):
    """The L2 -> DRAM Transition of a variant's warm points: from the
    residency counters (share of reads served by L2 falls through
    F2_SHARE_PCT), else from timing (bandwidth falls through the DRAM
    ceiling, launch-bound points skipped); None when it does not cross."""
    pts = _warm_series(ctx, variant)
    shares = [(p, sel.l2_read_served(ctx.run, p)) for p in pts]
    shares = [(p, h) for p, h in shares if h is not None]
    if shares:
        source, above = "counters", [h >= F2_SHARE_PCT for _, h in shares]
        rows = [p for p, _ in shares]
    else:
        rows = [p for p in pts
                if ctx.verdicts[p.key].name != model.LAUNCH_BOUND]
        source = "timing"
        above = [p.bandwidth > ceiling for p in rows]
    last = max((i for i, a in enumerate(above) if a), default=None)
    if last is None or last + 1 >= len(rows):
        return None
    return Transition(variant, rows[last].footprint_bytes,
                      rows[last + 1].footprint_bytes, source)


def effective_l2(ctx, ceiling=None):
    """(middle, low, high) bytes: the median over the study's add variants
    of their L2 -> DRAM transition and of its bracket; None without any."""
    if ceiling is None:
        bound = model.run_dram_ceiling(ctx.run, "add")
        if bound is None:
            return None
        ceiling = bound.value
    found = [t for t in (transition(ctx, v, ceiling) for v in
                         _study_adds(ctx)) if t is not None]
    if not found:
        return None
    return (median(t.bytes for t in found),
            median(t.low_bytes for t in found),
            median(t.high_bytes for t in found))


def located(eff):
    """Whether an effective_l2() is narrow enough to be said as one size."""
    return eff[2] <= F2_LOCATED_RATIO * eff[1]


def effective_l2_text(eff, l2):
    """The effective L2 against the nominal one, for the deciding number:
    'effective L2 33.9 MiB of 50 MiB', or the bracket where the sizes
    measured are too far apart to locate it."""
    if located(eff):
        return "effective L2 %s of %s" % (bytes_label(eff[0]),
                                           bytes_label(l2))
    return "effective L2 between %s and %s, too few sizes to say closer " \
        "(L2 %s)" % (bytes_label(eff[1]), bytes_label(eff[2]),
                     bytes_label(l2))


def _study_adds(ctx):
    return sorted({p.variant for p in ctx.points if p.op == "add" and
                   var.role(p.variant) == var.STUDY})


def _block_cap(run, p):
    """(byte/s, text): what a point's blocks can move at the block-launch
    ceiling of its block size, its bytes per block at that rate."""
    rate = model.block_rate_ceiling(run, p.block)
    per_block = p.bytes_moved / p.grid
    cap = per_block * rate.value
    return cap, "%d blocks of %d threads, %s each, at %.2f blocks/ns " \
        "(%s) move at most %s" % (p.grid, p.block, bytes_label(per_block),
                                  rate.value * 1e-9, rate.source, gbps(cap))


def _fits_peak(ctx, variant, ceiling, limit_bytes):
    """The fastest warm point of a variant whose reads come mostly from
    L2 (counters), else whose footprint is below limit_bytes; launch-bound
    points left out.  (point, share of reads from L2 or None)."""
    best = None
    for p in _warm_series(ctx, variant):
        if ctx.verdicts[p.key].name == model.LAUNCH_BOUND:
            continue
        share = sel.l2_read_served(ctx.run, p)
        inside = share >= F2_SHARE_PCT if share is not None else \
            p.footprint_bytes < limit_bytes
        if inside and (best is None or p.bandwidth > best[0].bandwidth):
            best = (p, share)
    return best


def finding_2(sctx):
    """Per study add variant, over every size of the sweep: where its warm
    working set leaves L2 (residency counters), whether it exceeds DRAM
    speed while its data sits in L2, and whether it falls to DRAM speed
    beyond.  Each study variant must show it: the best kernel of any
    origin does not carry the claim for the others."""
    part, ctx = sctx.part(stu.SWEEP, stu.ARTICLE)
    if ctx is None:
        return _finding(2, UNTESTABLE, [], "No run.")
    run = ctx.run
    floor = noise.run_floor(run)
    l2 = run.l2_bytes
    if not l2:
        return _finding(2, UNTESTABLE, [], "run.json gives no L2 size.",
                        part=part)
    bound = model.run_dram_ceiling(run, "add")
    if bound is None:
        return _finding(2, UNTESTABLE, [], "No DRAM ceiling (neither "
                        "measured nor in run.json).", part=part)
    ceiling = bound.value
    variants = _study_adds(ctx)
    if not variants:
        return _finding(2, UNTESTABLE, [], "No study add variant.",
                        part=part)
    eff = effective_l2(ctx, ceiling)
    numbers = [("L2 (nominal)", bytes_label(l2)),
               ("DRAM ceiling", "%s (%s)" % (gbps(ceiling), bound.source))]
    if eff is not None:
        how = "median over the study's add variants of where the share " \
            "of reads served by L2 falls through %.0f%%" % F2_SHARE_PCT
        numbers.append(("effective L2 for streaming", "%s (between %s and "
                        "%s: %s) = %.2fx the nominal L2" % (
                            bytes_label(eff[0]), bytes_label(eff[1]),
                            bytes_label(eff[2]), how, eff[0] / l2)
                        if located(eff) else "between %s and %s (%s; the "
                        "sizes measured locate it no closer)" % (
                            bytes_label(eff[1]), bytes_label(eff[2]), how)))
    limit = eff[0] if eff else F2_FIT_FRACTION * l2
    exceed, never, spill_bad, untested = [], [], [], []
    # Never above DRAM speed, by why: capped, block-launch-bound there with
    # their blocks' bytes at the block rate below DRAM speed; launched,
    # block-launch-bound with that above it (the launch of the kernel and
    # its blocks takes nearly all the time); others, neither.
    capped, launched, others = [], [], []
    for v in variants:
        t = transition(ctx, v, ceiling)
        peak = _fits_peak(ctx, v, ceiling, limit)
        where = ("L2 -> DRAM at %s-%s (%s)" % (
            bytes_label(t.low_bytes), bytes_label(t.high_bytes), t.source)
            if t else "no L2 -> DRAM transition in the sweep")
        if peak is None:
            untested.append(v)
            numbers.append((v, where + "; no size in L2 that is not "
                            "launch-bound"))
            continue
        p, share = peak
        r = p.bandwidth / ceiling
        faster = p.bandwidth > ceiling * (
            1 + floor.pct_at(p.time_median_ns) / 100)
        beyond = [q for q in _warm_series(ctx, v)
                  if q.footprint_bytes >= F2_SPILL_FACTOR * limit]
        top = max(beyond, key=lambda q: q.bandwidth) if beyond else None
        text = "%s; in L2: best %s at %s (%s%s) = %.2fx DRAM" % (
            where, gbps(p.bandwidth), bytes_label(p.footprint_bytes),
            size_label(p.n), ", %.0f%% of reads from L2" % share
            if share is not None else "", r)
        if top is not None:
            text += "; from %s: at most %.2fx DRAM" % (
                bytes_label(F2_SPILL_FACTOR * limit),
                top.bandwidth / ceiling)
            if top.bandwidth > F2_DRAM_CAP * ceiling:
                spill_bad.append("%s reaches %.2fx DRAM at %s" % (
                    v, top.bandwidth / ceiling,
                    bytes_label(top.footprint_bytes)))
        numbers.append((v, text))
        if faster:
            exceed.append((v, r))
        else:
            story = counter_story(run, p)
            if "per issued instruction" not in story:
                story = ", ".join(x for x in (story, _article_bpi(sctx, v))
                                  if x)
            if ctx.verdicts[p.key].name == model.BLOCK_LAUNCH_BOUND:
                cap, text = _block_cap(run, p)
                (capped if cap < ceiling else launched).append(v)
                story = "block-launch-bound: %s" % text
            else:
                others.append(v)
            never.append("%s (at most %.2fx DRAM, at %s%s%s)" % (
                v, r, bytes_label(p.footprint_bytes),
                " with %.0f%% of reads from L2" % share
                if share is not None else "",
                "; " + story if story else ""))
    if eff and located(eff):
        eff_text = "The effective L2 for streaming is %s (%.2fx the " \
            "nominal %s): beyond it the reads come from DRAM. " % (
                bytes_label(eff[0]), eff[0] / l2, bytes_label(l2))
    elif eff:
        eff_text = "The effective L2 for streaming lies between %s and %s " \
            "(the nominal L2 is %s; the sizes measured locate it no " \
            "closer): beyond it the reads come from DRAM. " % (
                bytes_label(eff[1]), bytes_label(eff[2]), bytes_label(l2))
    else:
        eff_text = ""
    deciding = "%s; %d of %d study adds exceed DRAM in L2" % (
        effective_l2_text(eff, l2) if eff else
        "effective L2 n/a of %s" % bytes_label(l2),
        len(exceed), len(exceed) + len(never))
    note = " " + _article_note(l2)
    if untested:
        note = " Not judged (launch-bound wherever they fit): %s." % \
            _and(untested) + note
    if not exceed and not never:
        return _finding(2, UNTESTABLE, numbers, eff_text + "No study add "
                        "variant has a size in L2 that is not "
                        "launch-bound." + note, deciding, part)
    fails = []
    if never:
        why = []
        if capped:
            why.append("Their block launches cap them: %s launch%s blocks "
                       "as fast as the GPU launches them, and each block "
                       "moves too few bytes to pass DRAM speed at that "
                       "rate, wherever the data sits" % (
                           _and(capped), "es" if len(capped) == 1 else ""))
        if launched:
            why.append("For %s: launching the kernel and its blocks "
                       "takes nearly all %s time at these sizes, so the "
                       "L2's speed does not show" % (
                           _and(launched),
                           "its" if len(launched) == 1 else "their"))
        if others:
            why.append("%she data is in L2, so the memory level is not the "
                       "limit: the kernel does not issue enough bytes per "
                       "instruction or keep enough in flight" % (
                           "For %s, t" % _and(others) if why else "T"))
        fails.append("Never above DRAM speed while its data is in L2: %s. "
                     "%s" % ("; ".join(never), ". ".join(why)))
    if spill_bad:
        fails.append("Above %.1fx DRAM past twice the effective L2: %s" % (
            F2_DRAM_CAP, "; ".join(spill_bad)))
    if exceed:
        ok = "Above DRAM speed in L2: %s." % ", ".join(
            "%s %.2fx" % x for x in exceed)
    else:
        ok = ""
    if fails:
        return _finding(2, FAILS, numbers, eff_text + ". ".join(fails) +
                        ". " + ok + note, deciding, part)
    return _finding(2, HOLDS, numbers, eff_text + "Every study add variant "
                    "runs above DRAM speed while its working set is in L2 "
                    "and falls to DRAM speed beyond it. " + ok + note,
                    deciding, part)


def _article_bpi(sctx, variant):
    """'N B per issued instruction (article, SIZE)' of a variant from the
    article run's largest size, where the sweep's counter set has none."""
    ctx = sctx.parts.get(stu.ARTICLE)
    pts = [p for p in ctx.points if p.variant == variant] if ctx else []
    if not pts:
        return ""
    n = max(p.n for p in pts)
    at = sel.select(pts, n=n, cache=sel.preferred_cache(pts))
    bpi = sel.metric(ctx.run, at[0], sel.M_BYTES_PER_INST) if at else None
    return "" if bpi is None else \
        "%.1f B per issued instruction (article, %s)" % (bpi, size_label(n))


JUDGE = finding_2

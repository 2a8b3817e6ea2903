"""Finding 2: a working set in L2 runs above DRAM speed, one that spills
falls to it.

Judged on the sweep (dense sizes around this GPU's L2), else the article
run: per study add variant, where its warm working set leaves L2 (the
effective L2 for streaming, which the cache-tier figure draws) and its
bandwidth on either side.
"""

import math
from dataclasses import dataclass, field
from statistics import median
from typing import Optional

from .. import model
from ...core import noise
from ...core import select as sel
from ...core import study as stu
from ...core import variants as var
from ...core.units import bytes_label, gbps, size_label
from ..uses import FINDING, L2_PARTS, WEAKER, Use
from .common import FAILS, HOLDS, UNTESTABLE, Spec, and_list, counter_story


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
F2_ONSET_PCT = 95.0        # the share starts to fall: through 95 %; the L2
#                            tier of the contest is the sizes above it


def falls_through(series, level):
    """Where a curve of (footprint, value) pairs, by footprint, falls
    through level: between the last point at or above it and the next,
    interpolated linearly in log2(footprint); None when it does not.  A
    few KiB more or less of footprint move it by as much, never by a
    sweep step (the median of brackets did: a 6 KiB difference between
    two dtypes' 32.4 MiB decided which bracket won)."""
    last = max((i for i, (_, v) in enumerate(series) if v >= level),
               default=None)
    if last is None or last + 1 >= len(series):
        return None
    (f0, v0), (f1, v1) = series[last], series[last + 1]
    frac = (v0 - level) / (v0 - v1) if v0 != v1 else 0.5
    return 2 ** (math.log2(f0) + frac * (math.log2(f1) - math.log2(f0)))


@dataclass(frozen=True)
class Transition:
    """Where a variant's warm working set leaves L2: the footprint where
    its share of reads from L2 falls through 50 % (interpolated), the
    sizes measured on either side, and where the share starts to fall
    (through 95 %; from counters only)."""
    variant: str
    bytes: float            # the 50 % point, interpolated
    low_bytes: int          # the last footprint at or above it
    high_bytes: int         # the next footprint measured
    onset_bytes: Optional[float]    # the share through 95 %, or None
    source: str             # "counters" or "timing"


def _warm_series(ctx, variant):
    return sorted(sel.select(ctx.points, variant=variant, cache="warm"),
                  key=lambda p: p.footprint_bytes)


def transition(ctx, variant, ceiling):
    """The L2 -> DRAM Transition of a variant's warm points: from the
    residency counters (share of reads served by L2 falls through
    F2_SHARE_PCT; its onset through F2_ONSET_PCT), else from timing
    (bandwidth falls through the DRAM ceiling, launch-bound points
    skipped; no onset); None when it does not cross."""
    pts = _warm_series(ctx, variant)
    shares = [(p.footprint_bytes, sel.l2_read_served(ctx.run, p))
              for p in pts]
    shares = [(f, h) for f, h in shares if h is not None]
    if shares:
        source, series, level = "counters", shares, F2_SHARE_PCT
    else:
        series = [(p.footprint_bytes, p.bandwidth) for p in pts
                  if ctx.verdicts[p.key].name != model.LAUNCH_BOUND]
        source, level = "timing", ceiling
    middle = falls_through(series, level)
    if middle is None:
        return None
    low = max(f for f, v in series if f <= middle and v >= level)
    high = min(f for f, _ in series if f > low)
    onset = falls_through(series, F2_ONSET_PCT) if shares else None
    return Transition(variant, middle, low, high, onset, source)


@dataclass(frozen=True)
class EffectiveL2:
    """The effective L2 for streaming: the median over the study's add
    variants of where their share of reads from L2 falls through 50 %,
    and of where it starts to fall (through 95 %), each interpolated per
    footprint (falls_through); the range of the variants' 50 % points."""
    bytes: float
    onset_bytes: Optional[float]
    low_bytes: float        # the lowest and highest variant's 50 % point
    high_bytes: float
    source: str
    count: int              # the variants that cross
    bracket: tuple = ()     # (low, high): the median of the sizes measured
    #                         on either side of the variants' 50 % points

    @property
    def located(self):
        """Whether the sizes measured around it are close enough for it to
        be said as one size (F2_LOCATED_RATIO), not only as the bracket
        they make."""
        return not self.bracket or \
            self.bracket[1] <= F2_LOCATED_RATIO * self.bracket[0]

    @property
    def mark(self):
        """(middle, low, high, band) for the cache-tier figure: its band
        from the onset to the 50 % point (band "onset"), else over the
        variants' 50 % points ("variants"), or only the bracket of sizes
        where they do not locate it ("bracket")."""
        if not self.located:
            return (self.bracket[0] * self.bracket[1]) ** 0.5, \
                self.bracket[0], self.bracket[1], "bracket"
        if self.onset_bytes is not None:
            return self.bytes, min(self.onset_bytes, self.bytes), \
                self.bytes, "onset"
        return self.bytes, self.low_bytes, self.high_bytes, "variants"


def effective_l2(ctx, ceiling=None):
    """EffectiveL2 of a run, or None when no study add variant crosses."""
    if ceiling is None:
        bound = model.run_dram_ceiling(ctx.run, "add")
        if bound is None:
            return None
        ceiling = bound.value
    found = [t for t in (transition(ctx, v, ceiling) for v in
                         _study_adds(ctx)) if t is not None]
    if not found:
        return None
    onsets = [t.onset_bytes for t in found if t.onset_bytes is not None]
    return EffectiveL2(median(t.bytes for t in found),
                       median(onsets) if onsets else None,
                       min(t.bytes for t in found),
                       max(t.bytes for t in found),
                       found[0].source, len(found),
                       (median(t.low_bytes for t in found),
                        median(t.high_bytes for t in found)))


def effective_l2_text(eff, l2):
    """The effective L2 against the nominal one, for the deciding number:
    'effective L2 34.9 MiB (onset 23 MiB) of 50 MiB', or the bracket where
    the sizes measured are too far apart to locate it."""
    if eff.located:
        return "effective L2 %s%s of %s" % (
            bytes_label(eff.bytes), " (onset %s)" % bytes_label(
                eff.onset_bytes) if eff.onset_bytes is not None else "",
            bytes_label(l2))
    return "effective L2 between %s and %s, too few sizes to say closer " \
        "(L2 %s)" % (bytes_label(eff.bracket[0]),
                     bytes_label(eff.bracket[1]), bytes_label(l2))


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
        return SPEC.finding(UNTESTABLE, [], "No run.")
    run = ctx.run
    floor = noise.run_floor(run)
    l2 = run.l2_bytes
    if not l2:
        return SPEC.finding(UNTESTABLE, [], "run.json gives no L2 size.",
                            part=part)
    bound = model.run_dram_ceiling(run, "add")
    if bound is None:
        return SPEC.finding(UNTESTABLE, [], "No DRAM ceiling (neither "
                            "measured nor in run.json).", part=part)
    ceiling = bound.value
    variants = _study_adds(ctx)
    if not variants:
        return SPEC.finding(UNTESTABLE, [], "No study add variant.",
                            part=part)
    eff = effective_l2(ctx, ceiling)
    numbers = [("L2 (nominal)", bytes_label(l2)),
               ("DRAM ceiling", "%s (%s)" % (gbps(ceiling), bound.source))]
    if eff is not None:
        numbers.append(("effective L2 for streaming", _effective_text(
            eff, l2)))
    limit = eff.bytes if eff else F2_FIT_FRACTION * l2
    tally = _Tally(numbers)
    for v in variants:
        _judge_variant(sctx, ctx, v, (ceiling, floor), limit, tally)
    eff_text = _effective_paragraph(eff, l2)
    deciding = _deciding(eff, l2, tally)
    note = " " + _article_note(l2)
    if tally.untested:
        note = " Not judged (launch-bound wherever they fit): %s." % \
            and_list(tally.untested) + note
    if not tally.exceed and not tally.never:
        return SPEC.finding(UNTESTABLE, numbers, eff_text + "No study add "
                            "variant has a size in L2 that is not "
                            "launch-bound." + note, deciding, part)
    fails = _failures(tally)
    if tally.exceed:
        ok = "Above DRAM speed in L2: %s." % ", ".join(
            "%s %.2fx" % x[:2] for x in tally.exceed)
    else:
        ok = ""
    if fails:
        return SPEC.finding(FAILS, numbers, eff_text + ". ".join(fails) +
                            ". " + ok + note, deciding, part,
                            _regimes(tally.exceed, tally.capped,
                                     tally.launched, tally.others,
                                     tally.spill_bad))
    return SPEC.finding(HOLDS, numbers, eff_text + "Every study add variant "
                        "runs above DRAM speed while its working set is in L2 "
                        "and falls to DRAM speed beyond it. " + ok + note,
                        deciding, part)


@dataclass
class _Tally:
    """What finding 2 found of each study add, by outcome."""
    numbers: list           # the numbers table: (label, text), a row each
    exceed: list = field(default_factory=list)  # (variant, x DRAM,
    #                         Margin) of those above DRAM speed in L2
    never: list = field(default_factory=list)   # text of each never above
    spill_bad: list = field(default_factory=list)  # text of each above
    #                         F2_DRAM_CAP past twice the effective L2
    untested: list = field(default_factory=list)   # launch-bound in L2
    # Never above DRAM speed, by why: capped, block-launch-bound there with
    # their blocks' bytes at the block rate below DRAM speed; launched,
    # block-launch-bound with that above it (the launch of the kernel and
    # its blocks takes nearly all the time); others, neither.
    # (variant, x DRAM) each.
    capped: list = field(default_factory=list)
    launched: list = field(default_factory=list)
    others: list = field(default_factory=list)
    below: list = field(default_factory=list)   # (variant, x DRAM, Margin)
    #                         of those never above


def _judge_variant(sctx, ctx, v, dram, limit, tally):
    """One study add: its numbers-table row, and the tally's list its
    best point in L2 (footprint <= limit) and its points past twice the
    limit put it in.  dram: (the DRAM ceiling in byte/s, the run's noise
    floor, noise.run_floor)."""
    run = ctx.run
    ceiling, floor = dram
    t = transition(ctx, v, ceiling)
    peak = _fits_peak(ctx, v, ceiling, limit)
    where = _where_text(t)
    if peak is None:
        tally.untested.append(v)
        tally.numbers.append((v, where + "; no size in L2 that is not "
                              "launch-bound"))
        return
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
            tally.spill_bad.append("%s reaches %.2fx DRAM at %s" % (
                v, top.bandwidth / ceiling,
                bytes_label(top.footprint_bytes)))
    tally.numbers.append((v, text))
    distance = noise.distance(p.bandwidth, ceiling,
                              floor.pct_at(p.time_median_ns),
                              floor.pct_at(p.time_median_ns))
    if faster:
        tally.exceed.append((v, r, distance))
        return
    story = counter_story(run, p)
    if "per issued instruction" not in story:
        story = ", ".join(x for x in (story, _article_bpi(sctx, v)) if x)
    if ctx.verdicts[p.key].name == model.BLOCK_LAUNCH_BOUND:
        cap, text = _block_cap(run, p)
        (tally.capped if cap < ceiling else tally.launched).append((v, r))
        story = "block-launch-bound: %s" % text
    else:
        tally.others.append((v, r))
    tally.below.append((v, r, distance))
    tally.never.append("%s (at most %.2fx DRAM, at %s%s%s)" % (
        v, r, bytes_label(p.footprint_bytes),
        " with %.0f%% of reads from L2" % share
        if share is not None else "",
        "; " + story if story else ""))


def _effective_paragraph(eff, l2):
    """The explanation's opening: the effective L2 located (or bracketed),
    '' without one."""
    if eff and eff.located:
        return "The effective L2 for streaming is %s (%.2fx the " \
            "nominal %s): beyond it most reads come from DRAM%s. " % (
                bytes_label(eff.bytes), eff.bytes / l2, bytes_label(l2),
                "; the share of reads from L2 starts to fall at %s" %
                bytes_label(eff.onset_bytes)
                if eff.onset_bytes is not None else "")
    if eff:
        return "The effective L2 for streaming lies between %s and %s " \
            "(the nominal L2 is %s; the sizes measured locate it no " \
            "closer): beyond it the reads come from DRAM. " % (
                bytes_label(eff.bracket[0]), bytes_label(eff.bracket[1]),
                bytes_label(l2))
    return ""


def _deciding(eff, l2, tally):
    """The deciding line: the effective L2, how many study adds exceed
    DRAM in L2, and the margin of each side closest to DRAM speed."""
    deciding = "%s; %d of %d study adds exceed DRAM in L2" % (
        effective_l2_text(eff, l2) if eff else
        "effective L2 n/a of %s" % bytes_label(l2),
        len(tally.exceed), len(tally.exceed) + len(tally.never))
    if tally.exceed:
        v, r, m = min(tally.exceed, key=lambda x: x[1])
        deciding += "; the lowest above: %s %.2fx DRAM (%s)" % (
            v, r, m.text())
    if tally.below:
        v, r, m = max(tally.below, key=lambda x: x[1])
        deciding += "; the highest below: %s %.2fx DRAM (%s)" % (
            v, r, m.text())
    return deciding


def _failures(tally):
    """The sentences of what fails the claim: the adds never above DRAM
    speed in L2 with why, those above F2_DRAM_CAP past it."""
    fails = []
    if tally.never:
        capped, launched, others = tally.capped, tally.launched, \
            tally.others
        why = []
        if capped:
            why.append("Their block launches cap them: %s launch%s blocks "
                       "as fast as the GPU launches them, and each block "
                       "moves too few bytes to pass DRAM speed at that "
                       "rate, wherever the data sits" % (
                           _names(capped), "es" if len(capped) == 1 else ""))
        if launched:
            why.append("For %s: launching the kernel and its blocks "
                       "takes nearly all %s time at these sizes, so the "
                       "L2's speed does not show" % (
                           _names(launched),
                           "its" if len(launched) == 1 else "their"))
        if others:
            why.append("%she data is in L2, so the memory level is not the "
                       "limit: the kernel does not issue enough bytes per "
                       "instruction or keep enough in flight" % (
                           "For %s, t" % _names(others) if why else "T"))
        fails.append("Never above DRAM speed while its data is in L2: %s. "
                     "%s" % ("; ".join(tally.never), ". ".join(why)))
    if tally.spill_bad:
        fails.append("Above %.1fx DRAM past twice the effective L2: %s" % (
            F2_DRAM_CAP, "; ".join(tally.spill_bad)))
    return fails


def _effective_text(eff, l2):
    """The numbers-table value of the effective L2."""
    if eff.source == "timing":
        how = "where the bandwidth falls through the DRAM ceiling (no " \
            "residency counters)"
    else:
        how = "where the share of reads served by L2 falls through " \
            "%.0f%%" % F2_SHARE_PCT
    if not eff.located:
        return "between %s and %s (median over the study's add variants " \
            "of the sizes measured on either side of %s; the sizes " \
            "measured locate it no closer)" % (
                bytes_label(eff.bracket[0]), bytes_label(eff.bracket[1]),
                how)
    text = "%s = %.2fx the nominal L2: the median over %d study add " \
        "variants of %s, each interpolated per footprint (theirs %s-%s)" % (
            bytes_label(eff.bytes), eff.bytes / l2, eff.count, how,
            bytes_label(eff.low_bytes), bytes_label(eff.high_bytes))
    if eff.onset_bytes is not None:
        text += "; the share starts to fall (through %.0f%%) at %s, the " \
            "median of the same" % (F2_ONSET_PCT,
                                    bytes_label(eff.onset_bytes))
    return text


def _where_text(t):
    """A variant's transition for its numbers-table row."""
    if t is None:
        return "no L2 -> DRAM transition in the sweep"
    return "L2 -> DRAM at %s (%s; measured %s-%s)%s" % (
        bytes_label(t.bytes), t.source, bytes_label(t.low_bytes),
        bytes_label(t.high_bytes), ", onset %s" % bytes_label(
            t.onset_bytes) if t.onset_bytes is not None else "")


def _names(group):
    return and_list([x[0] for x in group])


def _span(group):
    """'0.76-0.79x' of [(variant, x DRAM), ...]."""
    low, high = min(x[1] for x in group), max(x[1] for x in group)
    return "%.2fx" % low if high - low < 0.005 else \
        "%.2f-%.2fx" % (low, high)


def _regimes(exceed, capped, launched, others, spill_bad):
    """Which regime holds and which does not, for the verdict cell, where
    the answer is not one for all: 'holds for add_f32, ... (1.34-2.02x
    DRAM in L2); not for add_f16, ..., capped by their block launches
    (0.76-0.79x)'; '' where every study add fails alike."""
    if not exceed and not spill_bad:
        return ""
    parts = []
    if exceed:
        parts.append("holds for %s (%s DRAM in L2)" % (
            _names(exceed), _span(exceed)))
    for group, why in ((capped, ", capped by their block launches"),
                       (launched, ", launch-bound at these sizes"),
                       (others, "")):
        if group:
            parts.append("not for %s%s (%s)" % (_names(group), why,
                                                 _span(group)))
    if spill_bad:
        parts.append("above %.1fx DRAM past twice the effective L2: %s" % (
            F2_DRAM_CAP, "; ".join(spill_bad)))
    return "; ".join(parts)


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


SPEC = Spec(2, CLAIM, SHORT_CLAIM, (
    Use("Finding 2", FINDING, L2_PARTS, ((sel.M_DRAM_READ_FRACTION,),),
        "where each study variant's working set leaves L2, and whether a "
        "point is in L2, are judged from timing (bandwidth against the "
        "DRAM ceiling, footprint against the effective L2) instead of the "
        "share of reads served by L2 (`%s`)" % sel.M_DRAM_READ_FRACTION,
        WEAKER),
), finding_2)

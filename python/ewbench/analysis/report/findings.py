"""The six findings of the study brief, judged on a study directory.

Each judge returns a Finding: a verdict ("holds", "does not hold", "not
testable with this data"), the one number that decides it, the numbers
behind it, a short explanation and the part of the study it was judged
on.  The thresholds are constants below and docs/analysis.md repeats them.

Which part decides which finding: 1, 3, 4 and 6 the article run (the
study's sizes, with counters and torch rows); 2 the sweep (dense sizes
around this GPU's L2), else the article run; 5 the block sweep (tune),
else any run that timed a variant at several blocks.  A single run
directory is a study of one part and is judged the same way.

Findings compare variants at their primary block size (see select.py) and
use warm points when the run has them (the write-ups timed back-to-back
launches), cold points otherwise; points whose correctness check failed
are left out.
"""

from dataclasses import dataclass
from statistics import median

import numpy as np

from ..core import derived
from . import model
from ..core import noise
from ..core import sass
from ..core import select as sel
from ..core import study as stu
from ..core import timing
from ..core import variants as var
from ..core.validate import DTYPE_BYTES
from ..core.units import bytes_label, gbps, ratio, size_label, us

HOLDS = "holds"
FAILS = "does not hold"
UNTESTABLE = "not testable with this data"
# A deciding number within the noise of its threshold: the finding says
# so, and what would decide it, rather than a verdict another machine
# could flip.
BORDERLINE = "borderline"

F1_MAX_N = 1 << 22          # "~1M elements": the smallest size must be <= 4Mi
F2_FIT_FRACTION = 0.5       # "fits in L2": footprint <= half the L2
F2_SPILL_FACTOR = 2.0       # "does not fit": footprint >= twice the L2
F2_DRAM_CAP = 1.10          # not-in-L2 points stay below 1.1 x DRAM ceiling
F3_MIN_PCT = 85.0           # every variant >= 85 % of its DRAM ceiling
F3_MIN_OF_MAX = 0.90        # slowest variant >= 90 % of the fastest
F3_RATIO = (0.40, 0.60)     # fp16 / fp32 add time
F4_TOLERANCE = 0.10         # measured ratio within 10 % of 4x / 8x
F4_PAIRS = (("add_f32x4", "add_f32", 4.0), ("add_f16x8_pack", "add_f16", 8.0))
F5_TOLERANCE = 1.05         # best of 128/256 within 5 % of the best block
F5_SAFE_BLOCKS = (128, 256)
F6_TOLERANCE = 0.05         # "~2 % faster" read as: within 5 % either way
F6_NAIVE, F6_VECTOR = "relu_f32", "relu_f32x4"
TORCH_PREFIX = "torch_"

# The article's GPU, for finding 2's note: an RTX 5090 (GB202) has 96 MiB
# of L2 and a 1792 GB/s DRAM peak (28 Gbit/s GDDR7 on a 512-bit bus).
ARTICLE_GPU = "RTX 5090"
ARTICLE_GPU_L2_BYTES = 96 << 20
ARTICLE_MID_N = 1 << 24

CLAIMS = {
    1: "At ~1M elements every variant takes the same time: the launch, not "
       "the data, sets it.",
    2: "Mid sizes: when A+B+C fits in L2 the achieved bandwidth exceeds DRAM "
       "bandwidth; when it does not, it falls to DRAM speed.",
    3: "At the largest size every variant reaches the same DRAM ceiling, so "
       "fp16 halves the time.",
    4: "float4 moves 4x the bytes per load instruction of scalar fp32 (512 vs "
       "128 bytes per warp instruction); the 8-half pack moves 8x scalar "
       "fp16.",
    5: "128 or 256 threads per block is the safe choice.",
    6: "Vectorised ReLU is only ~2 % faster than naive; PyTorch is as fast as "
       "either.",
}
SHORT_CLAIMS = {
    1: "~1M elements: the launch sets the time",
    2: "fits in L2: above DRAM speed; spills: DRAM speed",
    3: "largest size: one DRAM ceiling, fp16 halves the time",
    4: "float4 4x, 8-half pack 8x bytes per load",
    5: "128 or 256 threads per block is safe",
    6: "vector ReLU ~2 % faster; PyTorch as fast",
}


@dataclass(frozen=True)
class Finding:
    number: int
    claim: str
    verdict: str
    numbers: tuple          # ((label, value text), ...)
    explanation: str
    deciding: str = ""      # the number that decides it, one line
    part: str = ""          # the study part it was judged on

    @property
    def short_claim(self):
        return SHORT_CLAIMS[self.number]


@dataclass(frozen=True)
class Context:
    """What every judge needs of one run, computed once."""
    run: object
    points: tuple           # primary-block points with a passing check
    fits: dict
    verdicts: dict          # point key -> model.Verdict


@dataclass(frozen=True)
class StudyContext:
    study: object
    parts: dict             # part name -> Context

    def part(self, *names):
        """(name, Context) of the first of names present, or (None, None)."""
        for name in names:
            if name in self.parts:
                return name, self.parts[name]
        return None, None

    @property
    def main(self):
        return self.part(*stu.PARTS)[1]


def run_context(run):
    fits = model.fit_series(run.points, run.l2_bytes,
                            run.spec_dram_bandwidth)
    verdicts = {p.key: v for p, v in model.classify_run(run, fits)}
    points = tuple(p for p in sel.primary_points(run) if p.check != "fail")
    return Context(run, points, fits, verdicts)


def make_context(study):
    """A StudyContext of a Study, or of one loaded run."""
    if not isinstance(study, stu.Study):
        study = stu.single_run_study(study)
    return StudyContext(study, {name: run_context(run)
                                for name, run in study.runs.items()})


def _finding(number, verdict, numbers, explanation, deciding="", part=""):
    return Finding(number, CLAIMS[number], verdict, tuple(numbers),
                   explanation, deciding, part)


def _and(items):
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    return items[0] if len(items) == 1 else \
        ", ".join(items[:-1]) + " and " + items[-1]


def at_size(ctx, n, **where):
    """Points at size n in the preferred cache state, and that state."""
    at_n = sel.select(ctx.points, n=n, **where)
    cache = sel.preferred_cache(at_n)
    return sel.select(at_n, cache=cache), cache


def counter_story(run, p):
    """One clause of counter evidence for a point, or ''."""
    parts = []
    occ, kind = model.occupancy(run, p)
    if occ is not None:
        parts.append("%s occupancy %.0f%%" % (kind, occ))
    kib = model.kib_in_flight_per_sm(p, occ,
                                     run.device.get("max_threads_per_sm"))
    if kib is not None:
        # One definition (model.kib_in_flight_per_sm): at the achieved
        # occupancy; from the theoretical one it is an upper bound.
        parts.append("~%.0f KiB of loads in flight per SM%s" % (
            kib, " (at theoretical occupancy: an upper bound)"
            if kind == "theoretical" else ""))
    bpi = sel.metric(run, p, sel.M_BYTES_PER_INST)
    if bpi is not None:
        parts.append("%.1f B per issued instruction" % bpi)
    regs = sel.metric(run, p, sel.M_REGISTERS)
    if regs is not None:
        parts.append("%d registers/thread" % regs)
    return ", ".join(parts)


# finding 1

F1_MODES = ("python", "stream", "queued", "graph")
F1_MODE_LABELS = {"python": "PyTorch from Python (the article's launch "
                            "path)",
                  "stream": "ewbench's C launches, host-paced",
                  "queued": "stream queued behind a spin kernel",
                  "graph": "graph replay"}
F1_SETS, F1_NOT_SET, F1_BORDERLINE = "sets", "does not set", "borderline"
F1_STATUS_TEXT = {F1_SETS: "the launch sets the time",
                  F1_NOT_SET: "the launch does not set the time",
                  F1_BORDERLINE: "borderline"}


def f1_kernels(ctx, n):
    """{variant: (point, KernelTime)} of the kernels at size n in the
    preferred cache state, one per variant (stream rows first: the counter
    rows are stream rows), and the rows left out because their time is not
    a kernel's (a peer's host launch path)."""
    pts, cache = at_size(ctx, n)
    kernels, left_out = {}, []
    for p in sorted(pts, key=lambda p: p.launch != "stream"):
        if not timing.is_kernel(p, ctx.run):
            left_out.append(p)
        elif p.variant not in kernels:
            kernels[p.variant] = (p, timing.kernel_time(p, ctx.run))
    return kernels, [p for p in left_out if p.variant not in kernels], cache


def f1_interval(ctx, kernels, mode):
    """The launch interval of a mode: the median of the rows' own (schema
    2; "python": the PyTorch rows' stream interval, Python's launch path;
    the others: ewbench's rows), else the run's launch ceiling; None when
    not measured."""
    python = mode == "python"
    rows = [p for p, _ in kernels.values()
            if p.variant.startswith(TORCH_PREFIX) == python]
    own = [timing.launch_interval(p, None, "stream" if python else mode)
           for p in rows]
    own = [i for i in own if i is not None]
    if own:
        own.sort(key=lambda i: i.median_ns)
        return own[len(own) // 2]
    if python or not rows:
        return None
    return timing.launch_interval(rows[0], ctx.run.ceilings, mode)


def _as_time(interval):
    return timing.KernelTime(interval.median_ns,
                             interval.median_ns - interval.ci_ns,
                             interval.median_ns + interval.ci_ns,
                             timing.KERNEL)


def f1_status(interval_time, kernels, floor):
    """Whether a mode's interval sets the time: F1_SETS when it exceeds
    every kernel's duration beyond the noise, F1_NOT_SET when some kernel
    is longer beyond it, F1_BORDERLINE otherwise; and the Margin of the
    interval against the kernel that comes closest (in noise units)."""
    margins = [noise.margin(kt, interval_time, floor)
               for _, kt in kernels.values()]
    longer = [m for m in margins if m.beyond and m.difference_pct < 0]
    if longer:
        return F1_NOT_SET, max(longer, key=lambda m: m.units)
    closest = min(margins, key=lambda m: m.units if m.difference_pct > 0
                  else -m.units)
    return (F1_SETS if closest.beyond else F1_BORDERLINE), closest


def finding_1(sctx):
    """Two questions per launch path at the smallest size: do the kernels'
    durations differ beyond the noise, and does the launch interval exceed
    every kernel's duration (the launch sets the time)?  The interval
    belongs to the host (CPU, driver, language), not the GPU: the verdict
    is that of the article's own launch path, PyTorch from Python, when
    the study has its rows, else of ewbench's host-paced C launches; every
    path measured is shown with its margin."""
    part, ctx = sctx.part(stu.ARTICLE, stu.SWEEP, stu.BLOCKS)
    if ctx is None:
        return _finding(1, UNTESTABLE, [], "No run.")
    all_sizes = sorted({p.n for p in ctx.points})
    if not all_sizes or all_sizes[0] > F1_MAX_N:
        return _finding(1, UNTESTABLE, [], "The smallest size of the run is "
                        "%s elements; the claim is about ~1M (needs a size "
                        "<= %s)." % (size_label(all_sizes[0]) if all_sizes
                                     else "none", size_label(F1_MAX_N)),
                        part=part)
    n = all_sizes[0]
    kernels, left_out, cache = f1_kernels(ctx, n)
    if len(kernels) < 2:
        return _finding(1, UNTESTABLE, [], "Fewer than two kernels with a "
                        "kernel time at %s." % size_label(n), part=part)
    floor = noise.run_floor(ctx.run)
    times = sorted(kernels.items(), key=lambda kv: kv[1][1].median_ns)
    (fast_v, (_, fast)), (slow_v, (_, slow)) = times[0], times[-1]
    sources = sorted({kt.source for _, kt in kernels.values()})
    spread = noise.margin(fast, slow, floor)
    numbers = [
        ("size, cache", "%s elements, %s" % (size_label(n), cache)),
        ("kernel time", "; ".join(timing.SOURCE_LABELS[s] for s in sources)),
        ("shortest kernel", "%s %s µs" % (fast_v, _ci_us(fast))),
        ("longest kernel", "%s %s µs" % (slow_v, _ci_us(slow))),
        ("kernels differ", "%.2fx, %s: %s (noise rule: 95 %% CIs widened "
         "by %s)" % (slow.median_ns / fast.median_ns,
                     "beyond the noise" if spread.beyond else
                     "within the noise", spread.text(), floor.describe())),
    ]
    modes, judged = [], {}
    for mode in F1_MODES:
        interval = f1_interval(ctx, kernels, mode)
        if interval is None:
            continue
        # Every kernel against the mode's interval: one launch rate for
        # all.  (A row's own queued interval always exceeds its kernel by
        # the GPU's launch gap, whatever the kernel's length.)
        status, closest = f1_status(_as_time(interval), kernels, floor)
        low, low_u = timing.overhead(interval, slow)
        high, high_u = timing.overhead(interval, fast)
        judged[mode] = status
        numbers.append(("%s" % F1_MODE_LABELS[mode],
                        "interval %s ± %s µs (%s); launch overhead "
                        "(interval − kernel) %s ± %s to %s ± %s µs; %s: "
                        "interval against the closest kernel %s" % (
                            us(interval.median_ns), us(interval.ci_ns),
                            interval.source, us(low), us(low_u), us(high),
                            us(high_u), F1_STATUS_TEXT[status],
                            closest.text())))
        modes.append("%s: interval %s µs %s longest kernel %s µs (%.1fx "
                      "the noise limit)" % (
                          mode, us(interval.median_ns),
                          {F1_SETS: ">", F1_NOT_SET: "<"}.get(status, "≈"),
                          us(slow.median_ns), closest.units))
    if left_out:
        numbers.append(("left out (no kernel time: a peer's launch path)",
                        ", ".join("%s %s µs" % (p.variant,
                                                us(p.time_median_ns))
                                  for p in left_out)))
    note = (" Left out: %s: a peer's event time is its host launch path, "
            "not its kernel, and never decides a claim about kernels." % _and(
                [p.variant for p in left_out])) if left_out else ""
    if timing.EVENTS in sources:
        note += (" Kernel times of the old protocol (schema 1: an event "
                 "pair around each launch) include the host launch path.")
    if not judged:
        return _finding(1, UNTESTABLE, numbers, "No launch interval "
                        "measured (neither the rows' intervals nor the "
                        "launch_stream / launch_graph ceilings)." + note,
                        "kernels %.2fx apart" % (slow.median_ns /
                                                 fast.median_ns), part)
    decisive = next(m for m in ("python", "stream") + F1_MODES
                    if m in judged)
    deciding = "%s; kernels %.2fx apart (%s)" % (
        "; ".join(modes), slow.median_ns / fast.median_ns,
        "beyond noise" if spread.beyond else "within noise")
    text = ("At %s elements the kernels take %s (%s) to %s µs (%s): %s. " % (
        size_label(n), us(fast.median_ns), fast_v, us(slow.median_ns),
        slow_v, "they differ beyond the noise" if spread.beyond else
        "within the noise of each other"))
    text += ("Whether the launch sets the time depends on the launch path, "
             "which belongs to the host (CPU, driver, language), not to the "
             "GPU; the verdict is that of %s. " % F1_MODE_LABELS[decisive])
    parts = []
    for mode, status in judged.items():
        parts.append("with %s the launch %s" % (
            F1_MODE_LABELS[mode], {
                F1_SETS: "sets the time (its interval exceeds every "
                         "kernel's duration beyond the noise)",
                F1_NOT_SET: "does not set the time (a kernel outlasts the "
                            "interval beyond the noise)",
                F1_BORDERLINE: "is borderline (its interval is within the "
                               "noise of the longest kernel: another host, "
                               "or a busier one, can tip it either way)"}[
                    status]))
    joined = "; ".join(parts)
    text += joined[:1].upper() + joined[1:] + "." + note
    verdict = {F1_SETS: HOLDS, F1_NOT_SET: FAILS,
               F1_BORDERLINE: BORDERLINE}[judged[decisive]]
    return _finding(1, verdict, numbers, text, deciding, part)


def _ci_us(kt):
    """'3.55 (3.53-3.57)', or the median alone without an interval."""
    if kt.high_ns - kt.low_ns <= 0:
        return us(kt.median_ns)
    return "%s (%s-%s)" % (us(kt.median_ns), us(kt.low_ns), us(kt.high_ns))


# finding 2

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


def _study_adds(ctx):
    return sorted({p.variant for p in ctx.points if p.op == "add" and
                   var.role(p.variant) == var.STUDY})


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
        numbers.append(("effective L2 for streaming", "%s (between %s and "
                        "%s: median over the study's add variants of where "
                        "the share of reads served by L2 falls through "
                        "%.0f%%) = %.2fx the nominal L2" % (
                            bytes_label(eff[0]), bytes_label(eff[1]),
                            bytes_label(eff[2]), F2_SHARE_PCT,
                            eff[0] / l2)))
    limit = eff[0] if eff else F2_FIT_FRACTION * l2
    exceed, never, spill_bad, untested = [], [], [], []
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
            never.append("%s (at most %.2fx DRAM, at %s%s%s)" % (
                v, r, bytes_label(p.footprint_bytes),
                " with %.0f%% of reads from L2" % share
                if share is not None else "",
                "; " + story if story else ""))
    eff_text = ("The effective L2 for streaming is %s (%.2fx the nominal "
                "%s): beyond it the reads come from DRAM. " % (
                    bytes_label(eff[0]), eff[0] / l2, bytes_label(l2))
                if eff else "")
    deciding = "effective L2 %s of %s; %d of %d study adds exceed DRAM " \
        "in L2" % (bytes_label(eff[0]) if eff else "n/a", bytes_label(l2),
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
        fails.append("Never above DRAM speed while its data is in L2: %s. "
                     "The data is in L2, so the memory level is not the "
                     "limit: the kernel does not issue enough bytes per "
                     "instruction or keep enough in flight" % "; ".join(
                         never))
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


# finding 3

def finding_3(sctx):
    part, ctx = sctx.part(stu.ARTICLE, stu.SWEEP)
    if ctx is None:
        return _finding(3, UNTESTABLE, [], "No run.")
    run = ctx.run
    all_sizes = sorted({p.n for p in ctx.points})
    if not all_sizes:
        return _finding(3, UNTESTABLE, [], "No points.", part=part)
    n = all_sizes[-1]
    pts, cache = at_size(ctx, n)
    # The claim is the study's: its variants alone decide it, and its
    # fp16/fp32 ratio is theirs (ewbench's own kernels, cub and PyTorch
    # would carry it otherwise).
    pts = [p for p in pts if var.role(p.variant) == var.STUDY]
    if not pts:
        return _finding(3, UNTESTABLE, [], "No study variant at the "
                        "largest size (%s)." % size_label(n), part=part)
    if run.l2_bytes and min(p.footprint_bytes for p in pts) < run.l2_bytes:
        return _finding(3, UNTESTABLE, [], "At the largest size (%s) some "
                        "footprint still fits in L2 (%s); the claim needs "
                        "DRAM-resident data." % (size_label(n),
                                                 bytes_label(run.l2_bytes)),
                        part=part)
    shares = []
    for p in pts:
        ceiling = model.run_dram_ceiling(run, p.op)
        if ceiling is None:
            return _finding(3, UNTESTABLE, [], "No DRAM ceiling (neither "
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
        return _finding(3, HOLDS, numbers, "Every variant reaches %.0f-%.0f%% "
                        "of its DRAM ceiling and fp16 add takes %s the time "
                        "of fp32." % (lowest[1], highest[1],
                                      ratio(time_ratio)), deciding, part)
    short = [(p, s) for p, s, _ in shares
             if s < F3_MIN_PCT or s < F3_MIN_OF_MAX * highest[1]]
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
    text += _in_flight_contrast(ctx, [p for p, _ in short],
                                [p for p, s, _ in shares if s >= F3_MIN_PCT])
    return _finding(3, FAILS, numbers, text, deciding, part)


def _in_flight_contrast(ctx, short, full):
    """A sentence contrasting loads in flight of slow and fast variants."""
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
        return ""
    ranges = (min(slow), max(slow), min(fast), max(fast))
    if max(slow) < min(fast):
        return (" The variants that fall short keep %.0f-%.0f KiB of loads "
                "in flight per SM against %.0f-%.0f KiB for those at the "
                "ceiling: too few bytes in flight to cover DRAM latency "
                "(Little's law)." % ranges)
    return (" Loads in flight per SM: %.0f-%.0f KiB for the variants that "
            "fall short, %.0f-%.0f KiB for those at the ceiling; the ranges "
            "overlap, so bytes in flight alone do not explain the gap (see "
            "the verdict of each)." % ranges)


# finding 4

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
        return _finding(4, UNTESTABLE, [], "Needs the counter row %s "
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
        return _finding(4, UNTESTABLE, numbers, "None of the pairs %s has "
                        "the counter on both sides." % ", ".join(missing) +
                        waste, deciding, part)
    note = (" Not tested (variant or counter missing): %s." %
            ", ".join(missing)) if missing else ""
    if failures:
        return _finding(4, FAILS, numbers, "; ".join(failures) + "." + note +
                        waste, deciding, part)
    return _finding(4, HOLDS, numbers, "The wide loads ask for the expected "
                    "multiple of bytes per warp load instruction (the bytes "
                    "the kernel reads over its global load instructions)." +
                    note + waste, deciding, part)


# finding 5

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
    128/256 wins, or '' when the model does not explain it."""
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


def f5_tiers(judged, l2_bytes):
    """'' when every sweep of the judged gives one answer, else per size
    tier (L2: the best point's footprint below the L2; DRAM) and launch
    mode, how many sweeps are beyond their limit and the worst ratio."""
    groups = {}
    for beyond, slack, _, _, best, _ in judged:
        tier = "L2" if l2_bytes and best.footprint_bytes < l2_bytes \
            else "DRAM"
        groups.setdefault((tier, best.launch), []).append((beyond, slack))
    answers = {any(b for b, _ in g) for g in groups.values()}
    if len(answers) < 2:
        return ""
    return "; ".join("%s tier, %s launches: %d of %d sweeps beyond the "
                     "limit (worst %.3fx)" % (
                         tier, launch, sum(b for b, _ in g), len(g),
                         max(x for _, x in g))
                     for (tier, launch), g in sorted(groups.items()))


def finding_5(sctx):
    part, ctx = None, None
    for name in (stu.BLOCKS,) + stu.PARTS:
        if name in sctx.parts and block_sweeps(sctx.parts[name]):
            part, ctx = name, sctx.parts[name]
            break
    if ctx is None:
        return _finding(5, UNTESTABLE, [], "Every variant was timed at one "
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
            numbers.append((label, "blocks %s: none of 128/256 tested" %
                            blocks))
            continue
        good = min(safe, key=lambda p: p.time_median_ns)
        slack = good.time_median_ns / best.time_median_ns
        # The tolerance, or the noise rule's limit where the two points
        # scatter more than it can resolve.
        limit = 1 + max(100 * (F5_TOLERANCE - 1), noise.separation_pct(
            timing.row_time(best), timing.row_time(good), floor)) / 100
        judged.append((slack > limit, slack, limit, label, best, good))
        worst = max(rows, key=lambda p: p.time_median_ns)
        numbers.append((label, "best %d (%s); best of 128/256: %d, %.3fx "
                        "its time (limit %.3fx); worst %d, %.2fx" % (
                            best.block, gbps(best.bandwidth), good.block,
                            slack, limit, worst.block,
                            worst.time_median_ns / best.time_median_ns)))
        if slack > limit:
            mechanism = _rate_text(rows, best, good) \
                if best.block > good.block else ""
            if mechanism:
                numbers.append(("%s mechanism" % label, mechanism))
            fit = block_rate(rows, good.block) if mechanism else None
            failures.append("%s: block %d is %.0f%% faster than the best "
                            "of 128/256 (%d)%s" % (
                                label, best.block, 100 * (slack - 1),
                                good.block, ": the GPU launches about %.0f "
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
        return _finding(5, UNTESTABLE, numbers, "No block sweep here "
                        "includes 128 or 256 at a size that is not "
                        "launch-bound." + note, part=part)
    # The deciding sweep: the worst beyond its limit, else the worst.
    _, slack, limit, label, best, good = max(judged, key=lambda j: j[:2])
    tiers = f5_tiers(judged, ctx.run.l2_bytes)
    deciding = "worst: %s, %d/%d is %.3fx the best block (%d); limit " \
        "%.3fx; %d sweeps%s" % (label, F5_SAFE_BLOCKS[0], F5_SAFE_BLOCKS[1],
                                slack, best.block, limit, len(judged),
                                "; " + tiers if tiers else "")
    if failures:
        return _finding(5, FAILS, numbers, ("The answer differs by tier: "
                                            "%s. " % tiers if tiers else "")
                        + "; ".join(failures) + "." + note, deciding, part)
    return _finding(5, HOLDS, numbers, "In all %d sweeps the better of 128 "
                    "and 256 threads is within %.0f%% of the best block "
                    "size%s." % (len(judged), 100 * (F5_TOLERANCE - 1),
                                 ", or within the noise" if noisy else "") +
                    note,
                    deciding, part)


# margins against a tolerance

def _beyond_tolerance(a, b, tolerance, floor):
    """How far the difference of KernelTime b from a lies beyond a
    tolerance (a fraction): (excess %, noise limit %, excess in units of
    the limit); excess < 0: inside the tolerance, |units| <= 1: within
    the noise of the line."""
    m = noise.margin(a, b, floor)
    excess = abs(m.difference_pct) - 100.0 * tolerance
    return excess, m.limit_pct, \
        excess / m.limit_pct if m.limit_pct > 0 else float("inf")


def _gap_text(gap):
    excess, limit, units = gap
    return "%.1f %% %s the limit, %.1fx the noise limit" % (
        abs(excess), "beyond" if excess > 0 else "inside", abs(units))


def _share_margin(point, ceiling, threshold_pct, floor):
    """A point's share of a ceiling against a threshold, in units of the
    share's uncertainty (the row's interval widened by the noise floor):
    '26.0 points below, 87x its uncertainty'."""
    kt = timing.row_time(point)
    spread = kt.half_width_pct + floor.pct_at(kt.median_ns)
    share = 100.0 * point.bandwidth / ceiling.value
    sigma = share * spread / 100.0
    diff = share - threshold_pct
    return "%.1f points %s, %s its uncertainty" % (
        abs(diff), "above" if diff >= 0 else "below",
        "%.0fx" % (abs(diff) / sigma) if sigma > 0 else "beyond")


# finding 6

def finding_6(sctx):
    part, ctx = sctx.part(stu.ARTICLE, stu.SWEEP, stu.BLOCKS)
    if ctx is None:
        return _finding(6, UNTESTABLE, [], "No run.")
    all_sizes = sorted({p.n for p in ctx.points if p.op == "relu"})
    if not all_sizes:
        return _finding(6, UNTESTABLE, [], "No ReLU points.", part=part)
    n = all_sizes[-1]
    pts, cache = at_size(ctx, n, op="relu")
    by_variant = {p.variant: p for p in pts}
    naive, vector = by_variant.get(F6_NAIVE), by_variant.get(F6_VECTOR)
    if naive is None or vector is None:
        return _finding(6, UNTESTABLE, [], "Needs both %s and %s at the "
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
    if abs(gap[2]) <= 1:
        return _finding(6, BORDERLINE, numbers, "The two kernels are %s "
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
        return _finding(6, FAILS, numbers, explanation + note, deciding, part)
    return _finding(6, HOLDS, numbers, "Naive and vectorised ReLU are within "
                    "%.0f%% of each other%s." % (
                        100 * F6_TOLERANCE,
                        " and PyTorch matches them" if torch else "") + note,
                    deciding, part)


JUDGES = (finding_1, finding_2, finding_3, finding_4, finding_5, finding_6)


def evaluate(study, sctx=None):
    """All six findings, in order, of a Study (or of one run)."""
    sctx = sctx or make_context(study)
    return [judge(sctx) for judge in JUDGES]

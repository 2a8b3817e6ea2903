"""Experiments: each verdict at the DRAM tier tested by the change it
predicts, measured.

A study's experiments/ run (scripts/report.sh) times, at the article's
largest size, warm, with stream launches, in one run: every study variant
at its published block and at 2x and 4x it (more work per block, fewer
blocks), and the probes (kernels/probe.def), each a study variant's own
loads, 2x and 4x as many per thread at its block (more bytes in flight).
For each study variant at that size, its verdict (on the article's point,
whose counters place it) says which of these should help and how much:

  latency-bound       more bytes in flight per thread: its probes must
                      rise towards the concurrency curve's bandwidth at k
                      x its loads in flight (curve.py), capped by the
                      block-launch roof of the probe's smaller grid and
                      the DRAM ceiling
  block-launch-bound  more work per block: its 2x and 4x blocks must rise
  occupancy-bound     towards the lower of the block-launch roof of the
                      new grid and the curve at its loads in flight with
                      the resident threads Little's law on blocks gives
                      the new block (model/blocks.py: the new slots'
                      threads x the share of a block's warps still
                      running, which falls as blocks hold more warps)
  DRAM-bound          nothing may help: no probe, no larger block, no
                      sibling of the article moving the same bytes is
                      faster beyond the noise and by more than
                      MATERIAL_PCT

Every trial's prediction is scored (score()) against a two-sided Band
around it, as wide as the model's own measured error where nothing
changed: the p90 of |measured / predicted - 1| over the experiments'
bases, each predicted from its own counters at its own loads and block
(at least MATERIAL_PCT):

  confirmed          inside the band, and moving the predicted way beyond
                     the noise and MATERIAL_PCT where the prediction moves
                     from the base by more than MATERIAL_PCT
  direction right,   outside the band, moving the predicted way
  size off
  refuted            not moving the predicted way (or, where none was
                     predicted, landing outside the band)

Above the band the roof the prediction took as binding (the DRAM ceiling,
the concurrency curve, the block-launch roof) is named as one that did
not bind.  A verdict's experiment takes the outcome of the best of its
own trials (DRAM-bound: confirmed when nothing rises beyond the noise and
MATERIAL_PCT and no sibling moving the same bytes is faster by more,
refuted otherwise); a best own trial that rose beyond the noise and
MATERIAL_PCT is direction right, size off even where its prediction
(flat, or a fall) was refuted: the change rose as the verdict says, by
a size the model missed, and "no rise" is said only where none rose.
A refuted verdict is replaced by what the experiment showed: the
verdict whose change rose the most (bytes in flight: latency-bound;
work per block: block-launch-bound); a grid-stride kernel
that nothing lifted, at the concurrency curve's top (the curve's own
kernel is a persistent grid too): GRID_TOP; else undetermined.  Other
verdicts (issue, L2, fixed cost, launch) predict nothing these changes
test, and are left as they are; their trials are scored all the same.
A grid-stride kernel has no probes (variants.probes_of): a probe is
not its kernel; its larger blocks keep its threads (grid x block is
fixed) and are predicted its own bandwidth.  A verdict whose own change
rose into another roof, which the other lever's change lifts, is
CO_LIMITED (co_limited()).  The curve's predictions never fall past its
peak (curve.OnCurve.reachable).

A user's kernel (user_experiments) is tested the same way where its run
holds the change: its points at 2x and 4x its block (`--block`), the
work-per-block lever.  A cause that cannot be fixed from outside is
tested where the run also holds the family generated for the same op
(`--kernel K.cu --elementwise OP.cu`): the generated member that makes
exactly the change the cause names, at the kernel's own size, cache
state, launch and block (fix_member()), is the trial (FIX; for
latency-bound, BYTES), its measured bandwidth scored like every other
trial against the prediction of that member (member_prediction(): the
curve at its own word and words a thread).  Where the run has no such member,
the verdict says which run would test it (fix_command()).
"""

from dataclasses import dataclass, replace
from typing import Optional

import numpy as np

from ..core import compare
from ..core import select as sel
from ..core import variants as var
from ..core.units import gbps
from ..core.validate.contract import DTYPE_BYTES
from ..whatif import GENERATED_PREFIX, SHAPES, member
from . import model
from .model import blocks, calibration, curve
from .model.facts import user_faults
from .model.faults import coalesced_faster
from .model.rules import MAX_SINGLE_PASS_READ_BYTES

MATERIAL_PCT = model.MATERIAL_PCT    # the rules' and the experiments'
# The band's width: this quantile of the model's |error| on the bases.
BAND_QUANTILE = 0.9
BAND_QUANTILE_NAME = "p90"

CONFIRMED = "confirmed"
SIZE_OFF = "direction right, size off"
REFUTED = "refuted"
OUTCOMES = (CONFIRMED, SIZE_OFF, REFUTED)
# A prediction's outcome has the same three names.
HIT, MISS = CONFIRMED, REFUTED

# What a refuted DRAM-bound grid-stride kernel at the curve's top is.
GRID_TOP = "persistent-grid-bound"
# A kernel whose own change rose into the next roof, which the other
# lever's change lifts (co_limited()).
CO_LIMITED = "co-limited"

# The roofs a prediction is the lowest of.
ROOF_DRAM = "DRAM ceiling"
ROOF_CURVE = "concurrency curve"
ROOF_BLOCKS = "block-launch roof"
# A grid-stride kernel at another block with the same threads: nothing
# it keeps in flight changes (model.blocks).
ROOF_SAME = "its own residency"
# A fault's fix predicts these (model/faults.py), where the curve cannot
# place the member that tests it (_fix_prediction()).
ROOF_COALESCED = "bandwidth of the run's fastest whole-sector kernel"
ROOF_RESIDENT = "resident blocks (Little's law)"

BYTES = "bytes in flight"
BLOCKS = "work per block"
# A fault's fix (model/faults.py), made by a generated member of the op.
FIX = "generated fix"
# What each verdict says should help; None: that nothing should.
HELPS = {model.LATENCY_BOUND: BYTES, model.BLOCK_LAUNCH_BOUND: BLOCKS,
         model.OCCUPANCY_BOUND: BLOCKS, model.DRAM_BOUND: None,
         model.UNCOALESCED: FIX, model.MISALIGNED: FIX,
         model.GRID_LIMITED: FIX}
# The verdict a change that helped stands for.
SHOWS = {BYTES: model.LATENCY_BOUND, BLOCKS: model.BLOCK_LAUNCH_BOUND}
# The roof each verdict says binds: a change that lifts it and is then
# predicted to stop at another roof meets the next one.
OWN_ROOF = {model.LATENCY_BOUND: ROOF_CURVE, model.OCCUPANCY_BOUND: ROOF_CURVE,
            model.BLOCK_LAUNCH_BOUND: ROOF_BLOCKS}


@dataclass(frozen=True)
class Trial:
    """One change, measured beside its base in the same run."""
    kind: str               # BYTES or BLOCKS
    what: str               # "2x the loads per thread (add_f32_ilp2)"
    point: object           # its row of the experiments run
    factor: int             # 2 or 4
    predicted: Optional[float]  # byte/s the model gives it; None: no model
    change: object          # compare.Change from the base
    roof: Optional[str] = None  # the roof the prediction is (ROOFS)
    score: Optional["Score"] = None  # its prediction scored (score())

    @property
    def change_pct(self):
        return self.change.bandwidth_pct

    @property
    def rose(self):
        """Faster beyond the noise and by more than MATERIAL_PCT."""
        return self.change.flag == compare.FASTER and \
            (self.change_pct or 0.0) > MATERIAL_PCT


@dataclass(frozen=True)
class Experiment:
    variant: str
    base: object            # the variant at its published block, same run
    verdict: object         # model.Verdict of the article's point
    trials: tuple           # Trial, every change measured for the variant
    outcome: Optional[str]  # OUTCOMES; None: the verdict predicts nothing
    final: str              # the verdict once the experiment has spoken
    text: str               # what was predicted, what was measured
    refused: tuple = ()     # its rows no DRAM could serve (refused())
    band: Optional["Band"] = None  # the band its trials were scored in
    to_test: str = ""       # a user's kernel: the run that would test
    #                         its fix, where this run could not

    @property
    def own(self):
        """The trials of the change the verdict says should help (for
        DRAM-bound: every trial, none of which may)."""
        helps = HELPS.get(self.verdict.name)
        return tuple(t for t in self.trials
                     if helps is None or t.kind == helps)


# predictions

def _block_roof(run, point, floor_ns, latency_ns):
    """byte/s if launching the grid's blocks (at the measured rate of its
    block size), one launch and one load's round trip were all it took;
    None without a measured rate."""
    rate = model.measured_block_rate(run.ceilings, point.block)
    if rate is None or not point.grid:
        return None
    ns = point.grid / rate.value * 1e9 + (floor_ns or 0.0) + \
        (latency_ns or 0.0)
    return point.bytes_moved / (ns * 1e-9)


def run_spread(run, articles):
    """The median warp-lifetime spread (model.blocks) of the article's
    points among `articles` whose slots hold their residency: the spread
    a kernel held by launches is given at a larger block; None if none.
    A grid-stride loop's blocks live as long as the kernel: its fill
    says nothing of its warps' spread, and it is left out."""
    most = run.device.get("max_threads_per_sm")
    spreads = []
    for a in articles:
        occ, _ = model.occupancy(run, a)
        if model.kib_in_flight_per_sm(a, occ, most) is None:
            continue
        h = blocks.held(run, a, occ) if most else None
        if h is not None and h.spread is not None:
            spreads.append(h.spread)
    return float(np.median(spreads)) if spreads else None


def predict(run, article_point, trial_point, kind, factor, dram,
            spread=None, base=None):
    """Prediction the model gives `trial_point`, from the article's point
    of its base (counters: occupancy, requested bytes per load): the
    lowest of the DRAM ceiling, the block-launch roof of its grid and the
    concurrency curve at its loads in flight (a larger block: at the
    resident threads Little's law on blocks gives, model.blocks, with
    `spread` the run's where the kernel's own is not known); a
    grid-stride kernel at another block, same threads: `base`'s own
    bandwidth (ROOF_SAME); None when the curve cannot place it."""
    occ, _ = model.occupancy(run, article_point)
    most = run.device.get("max_threads_per_sm")
    kib = model.kib_in_flight_per_sm(article_point, occ, most)
    if kib is None and kind == BLOCKS and base is not None and \
            trial_point.grid and article_point.grid and \
            trial_point.grid * trial_point.block == \
            article_point.grid * article_point.block:
        return Prediction(base.bandwidth, ROOF_SAME)
    if kib is None or dram is None:
        return None
    if kind == BYTES:
        kib *= factor
    else:
        held = blocks.held(run, article_point, occ)
        resident = blocks.resident_threads(
            run.device, held, trial_point.block, spread) \
            if held is not None else None
        if resident is None or not occ:
            return None
        kib *= resident / (occ / 100.0 * most)
    request = sel.metric(run, article_point,
                         sel.M_LD_REQUESTED_BYTES_PER_INST)
    placed = model.place(run.ceilings, article_point.op, request, kib, dram,
                         calibration.series_for(run, article_point.variant))
    if placed is None:
        return None
    return _lowest_roof(run, trial_point, dram, placed.reachable)


def _lowest_roof(run, trial_point, dram, on_curve):
    """The Prediction: the lowest of the DRAM ceiling, the curve's
    `on_curve` byte/s and the block-launch roof of the trial's grid."""
    floor_ns = (model.measured_launch_floor(run.ceilings, "graph") or
                model.Bound(0.0, "", False)).value
    latency = (run.ceilings or {}).get("dram_latency")
    # ties go to the first: the curve is already capped at the ceiling
    roofs = [(dram.value, ROOF_DRAM), (on_curve, ROOF_CURVE)]
    roof = _block_roof(run, trial_point, floor_ns,
                       latency.value if latency is not None else None)
    if roof is not None:
        roofs.append((roof, ROOF_BLOCKS))
    value, name = min(roofs, key=lambda r: r[0])
    return Prediction(value, name)


# scoring a prediction

@dataclass(frozen=True)
class Prediction:
    value: float            # byte/s
    roof: str               # ROOFS: the one that binds


@dataclass(frozen=True)
class Band:
    """The two-sided band around a prediction inside which a measurement
    confirms it: +-width, the model's own measured error where it had
    nothing to predict but the kernel as measured (its experiments' bases,
    each predicted from its own counters at its own loads and block), at
    least MATERIAL_PCT."""
    width: float            # a fraction: 0.06 is ±6 %
    errors: tuple           # |measured / predicted - 1| of each base

    def text(self):
        return "±%.1f %%: the %s of the model's |error| on the %d " \
            "experiments' bases (each kernel as measured, predicted from " \
            "its own counters), at least %.0f %%" % (
                100 * self.width, BAND_QUANTILE_NAME, len(self.errors),
                MATERIAL_PCT)


def band_of(errors):
    """The Band of these base errors; with none, MATERIAL_PCT alone."""
    errors = tuple(sorted(errors))
    width = float(np.quantile(errors, BAND_QUANTILE)) if errors else 0.0
    return Band(max(width, MATERIAL_PCT / 100.0), errors)


@dataclass(frozen=True)
class Score:
    outcome: str            # HIT, SIZE_OFF or MISS
    ratio: float            # measured / predicted
    note: str               # "" or why (a roof that did not bind)


def _direction(pct):
    """+1, -1 or 0: a move of pct % is one beyond MATERIAL_PCT."""
    if pct > MATERIAL_PCT:
        return 1
    if pct < -MATERIAL_PCT:
        return -1
    return 0


def _moved(change):
    """+1, -1 or 0: the measured move, beyond the noise and MATERIAL_PCT."""
    if change.flag not in (compare.FASTER, compare.SLOWER):
        return 0
    return _direction(change.bandwidth_pct or 0.0)


def score(trial, base, band):
    """The Score of a trial's prediction against its measurement, or None
    without a prediction.  HIT: inside the band and, where the prediction
    moves from the base by more than MATERIAL_PCT, measured moving that
    way beyond the noise; SIZE_OFF: outside the band but moving the
    predicted way; MISS: it does not move the predicted way (or moves where
    none was predicted, beyond the band).  Above the band, the prediction's
    binding roof is named as one that did not bind."""
    if trial.predicted is None or trial.predicted <= 0:
        return None
    ratio = trial.point.bandwidth / trial.predicted
    inside = abs(ratio - 1.0) <= band.width
    wanted = _direction(100.0 * (trial.predicted / base.bandwidth - 1.0))
    moved = _moved(trial.change)
    if wanted == 0:
        outcome = HIT if inside else MISS
    elif moved == wanted:
        outcome = HIT if inside else SIZE_OFF
    else:
        outcome = MISS
    note = ""
    if ratio > 1.0 + band.width and trial.roof:
        note = "above the %s it said binds: that roof did not bind" % \
            trial.roof
    return Score(outcome, ratio, note)


# the experiments of a study

def _trial(kind, what, point, factor, prediction, base):
    return Trial(kind, what, point, factor,
                 prediction.value if prediction else None,
                 compare.compare_points(base, point),
                 prediction.roof if prediction else None)


def _trials(exp_run, article_run, article_point, base, dram, spread=None):
    out = []
    for probe in var.probes_of(base.variant):
        rows = [p for p in exp_run.points if p.variant == probe.id and
                p.n == base.n and p.cache == base.cache and
                p.launch == base.launch and p.block == base.block and
                p.check != "fail"]
        factor = probe.loads
        for p in rows:
            out.append(_trial(BYTES, "%dx the loads per thread (%s)" % (
                factor, probe.id), p, factor, predict(
                    article_run, article_point, p, BYTES, factor, dram),
                base))
    for p in exp_run.points:
        if p.variant != base.variant or p.n != base.n or \
                p.cache != base.cache or p.launch != base.launch or \
                not p.block or not base.block or p.block <= base.block or \
                p.block % base.block or p.check == "fail":
            continue
        factor = p.block // base.block
        out.append(_trial(BLOCKS, "block %d (%dx)" % (p.block, factor), p,
                          factor, predict(article_run, article_point, p,
                                          BLOCKS, factor, dram, spread,
                                          base), base))
    return tuple(out)


def refused(run, points):
    """The points of run faster than DRAM could serve them
    (model.impossible): no evidence for or against a verdict."""
    return tuple(p for p in points if model.impossible(run, p))


def refused_text(run, points):
    """'add_f32_ilp2 at 335200 GB/s' for each, and the bound."""
    return "%s: faster than DRAM could serve them (the spec peak %s, by " \
        "more than %.0f %% after the writes a window may miss), refused as " \
        "evidence" % (", ".join("%s at %s" % (p.variant, gbps(p.bandwidth))
                                for p in points),
                      gbps(run.spec_dram_bandwidth), model.SPEC_EXCESS_PCT)


def _faster_sibling(ctx, point):
    """The fastest sibling of the article's point (same op, dtype, size,
    cache, launch) faster beyond the noise and by more than MATERIAL_PCT,
    with its Change; (None, None)."""
    best = None
    for q in ctx.points:
        if q is point or model.sibling_key(q) != model.sibling_key(point):
            continue
        change = compare.compare_points(point, q)
        if change.flag == compare.FASTER and \
                (change.bandwidth_pct or 0.0) > MATERIAL_PCT and \
                (best is None or q.bandwidth > best[0].bandwidth):
            best = q, change
    return best or (None, None)


def _trial_text(t):
    text = "%s: %s (%+.1f %%)" % (t.what, gbps(t.point.bandwidth),
                                  t.change_pct or 0.0)
    if t.predicted is not None:
        text += ", predicted %s" % gbps(t.predicted)
    if t.score is not None:
        text += " (x%.2f, %s%s)" % (t.score.ratio, t.score.outcome,
                                    "; " + t.score.note if t.score.note
                                    else "")
    return text


def _outcome_of(t):
    """The experiment's outcome when its best trial, of the change its
    verdict says lifts it, is t: the trial's score; but a trial that rose
    beyond the noise and MATERIAL_PCT is SIZE_OFF where its prediction
    was refuted or where there is none: it rose as the verdict says, by
    a size the model did not give (the trial's own score, with the roof
    that did not bind, stays in the text)."""
    if t.score is not None and (t.score.outcome != MISS or not t.rose):
        return t.score.outcome
    return SIZE_OFF if t.rose else REFUTED


def judge(verdict, base, trials, sibling=None, sibling_change=None):
    """(outcome, final verdict, text) of one variant's experiment: every
    trial is in the text, predicted beside measured."""
    helps = HELPS.get(verdict.name, "n/a")
    if helps == "n/a":
        return None, verdict.name, ""
    if helps is None:           # DRAM-bound: nothing may help
        risen = [t for t in trials if t.rose]
        if sibling is not None:
            beaten = "%s is %+.1f %% faster (%s)" % (
                sibling.variant, sibling_change.bandwidth_pct,
                gbps(sibling.bandwidth))
        else:
            beaten = None
        if not risen and beaten is None:
            return CONFIRMED, verdict.name, (
                "nothing measured beats it beyond the noise and %.0f %%: "
                "%s" % (MATERIAL_PCT, "; ".join(_trial_text(t)
                                                for t in trials) or
                        "no change was run, and no sibling is faster"))
        best = max(risen, key=lambda t: t.point.bandwidth, default=None)
        final = SHOWS[best.kind] if best is not None else model.UNKNOWN
        parts = [_trial_text(t) for t in trials]
        if beaten:
            parts.append(beaten)
        return REFUTED, final, "not DRAM-bound: " + "; ".join(parts)
    own = [t for t in trials if t.kind == helps]
    others = [t for t in trials if t.kind != helps]
    also = "; also: " + "; ".join(_trial_text(t) for t in others) \
        if others else ""
    if not own:
        return None, verdict.name, "no %s change of its own kernel was " \
            "run for it%s" % (helps, also)
    best = max(own, key=lambda t: t.point.bandwidth)
    text = "; ".join(_trial_text(t) for t in own)
    outcome = _outcome_of(best)
    if outcome != REFUTED:
        return outcome, verdict.name, text + also
    risen = [t for t in others if t.rose]
    if risen:
        top = max(risen, key=lambda t: t.point.bandwidth)
        return REFUTED, SHOWS[top.kind], text + ": no rise" + also
    return REFUTED, model.UNKNOWN, text + ": no rise" + also


def co_limited(verdict, outcome, trials):
    """The text saying why the experiment found the verdict co-limited,
    or None: its own change rose the predicted way (confirmed, or
    direction right), the model predicts its best own trial to stop at a
    roof other than the verdict's own (lifting the one roof meets the
    next), and a change of the other lever, the one that lifts that next
    roof, rose too beyond the noise and MATERIAL_PCT.  Both roofs bind
    within what one change of either lever moves."""
    helps = HELPS.get(verdict.name)
    own_roof = OWN_ROOF.get(verdict.name)
    if helps is None or own_roof is None or outcome not in (CONFIRMED,
                                                             SIZE_OFF):
        return None
    own = [t for t in trials if t.kind == helps]
    other = [t for t in trials if t.kind != helps and t.rose]
    if not own or not other:
        return None
    best = max(own, key=lambda t: t.point.bandwidth)
    if not best.rose or best.roof in (None, own_roof, ROOF_SAME):
        return None
    lift = max(other, key=lambda t: t.point.bandwidth)
    return "co-limited: lifting the %s (%s: %+.1f %%) meets the %s, " \
        "which the other lever lifts (%s: %+.1f %%)" % (
            own_roof, best.what, best.change_pct, best.roof, lift.what,
            lift.change_pct)


def tested_verdict(e):
    """The Verdict of an experiment's point once the experiment has
    spoken: its name the final one, its rule the original's with the
    experiment beside it."""
    if e.outcome is None:
        if e.final == e.verdict.name:
            if e.to_test:
                return model.Verdict(e.final, "%s. %s" % (e.verdict.rule,
                                                          e.to_test))
            return e.verdict
        return model.Verdict(e.final, "the rules said %s (%s); %s" % (
            e.verdict.name, e.verdict.rule, e.text))
    if e.final in (e.verdict.name, CO_LIMITED):
        return model.Verdict(e.final, "%s. Experiment (%s): %s" % (
            e.verdict.rule, e.outcome, e.text))
    return model.Verdict(e.final, "the rules said %s (%s). The "
                         "experiment refuted it: %s" % (
                             e.verdict.name, e.verdict.rule, e.text))


def _grid_top(run, base, final, text):
    """(final, text) for an undetermined grid-stride kernel (by the rules,
    or a refuted DRAM-bound one that nothing lifted): at the concurrency
    curve's top (within MATERIAL_PCT), the top the curve's own kernel, a
    persistent grid-stride loop too, reaches, it is GRID_TOP; else as it
    was."""
    shape = var.STUDY_SHAPES.get(base.variant)
    series = curve.reference(run.ceilings, curve.SHAPE.get(base.op))
    if shape is None or not shape[3] or series is None:
        return final, text
    top = series.top
    share = base.bandwidth / top.bandwidth
    if share < 1 - MATERIAL_PCT / 100.0:
        return final, text
    return GRID_TOP, (text + "; " if text else "") + "it moves %.1f %% of the concurrency " \
        "curve's top (%s, %s), what the curve's own persistent grid-stride " \
        "kernel streams at best: a persistent grid, not DRAM, sets it" % (
            100 * share, top.name, gbps(top.bandwidth))


def study_experiments(sctx):
    """variant -> Experiment for every study variant at the article's
    largest size (warm, stream) that the experiments run measured at its
    published block; {} without an experiments run.  Every trial's
    prediction is scored against the Band of the model's error on the
    bases."""
    exp_run = getattr(sctx.study, "experiments", None)
    ctx = sctx.parts.get("article")
    if exp_run is None or ctx is None:
        return {}
    run = ctx.run
    found = []
    for base in exp_run.points:
        if var.role(base.variant) != var.STUDY or base.check == "fail":
            continue
        article = [p for p in ctx.points if p.variant == base.variant and
                   p.n == base.n and p.cache == base.cache and
                   p.launch == base.launch and p.block == base.block]
        if not article:
            continue
        a = article[0]
        verdict = ctx.verdicts.get(a.key)
        if verdict is None:
            continue
        dram = model.run_dram_ceiling(run, a.op)
        found.append((base, a, verdict, dram))
    # A base no DRAM could serve predicts nothing: it sets no band either.
    errors = []
    for base, a, _, dram in found:
        own = predict(run, a, base, BYTES, 1, dram)
        if own is not None and own.value > 0 and \
                not refused(exp_run, (base,)):
            errors.append(abs(base.bandwidth / own.value - 1.0))
    band = band_of(errors)
    spread = run_spread(run, [a for _, a, _, _ in found])
    out = {}
    for base, a, verdict, dram in found:
        trials = tuple(replace(t, score=score(t, base, band)) for t in
                       _trials(exp_run, run, a, base, dram, spread))
        bad = refused(exp_run, (base,) + tuple(t.point for t in trials))
        if base in bad:
            out[base.variant] = Experiment(base.variant, base, verdict, (),
                                           None, verdict.name,
                                           refused_text(exp_run, bad), bad,
                                           band)
            continue
        trials = tuple(t for t in trials if t.point not in bad)
        sibling, change = _faster_sibling(ctx, a) \
            if HELPS.get(verdict.name, "n/a") is None else (None, None)
        outcome, final, text = judge(verdict, base, trials, sibling, change)
        both = co_limited(verdict, outcome, trials)
        if both is not None:
            final, text = CO_LIMITED, text + "; " + both
        if final == model.UNKNOWN:
            final, text = _grid_top(run, base, final, text)
        if bad:
            text += ("; " if text else "") + refused_text(exp_run, bad)
        out[base.variant] = Experiment(base.variant, base, verdict, trials,
                                       outcome, final, text, bad, band)
    return out


# the model's error

@dataclass(frozen=True)
class ErrorRow:
    lever: str              # BYTES, BLOCKS, or ALL_LEVERS
    count: int              # predictions scored
    median_pct: Optional[float]  # median |measured / predicted - 1|, %
    p90_pct: Optional[float]
    misses: int             # outcome not CONFIRMED


ALL_LEVERS = "both levers"


def scored_trials(experiments):
    """(variant, Trial) of every scored prediction, once per measured
    point and change: a probe two study variants share (abs_f32 and
    abs_f32_functor) is one prediction per variant, since each predicts
    it from its own counters."""
    return tuple((v, t) for v, e in sorted(experiments.items())
                 for t in e.trials if t.score is not None)


def error_table(experiments):
    """ErrorRow per lever and for both: count, median and p90 of the
    model's |error| over every scored prediction."""
    scored = scored_trials(experiments)
    rows = []
    for lever in (BYTES, BLOCKS, ALL_LEVERS):
        ts = [t for _, t in scored if lever in (ALL_LEVERS, t.kind)]
        errs = [100.0 * abs(t.score.ratio - 1.0) for t in ts]
        rows.append(ErrorRow(
            lever, len(ts), float(np.median(errs)) if errs else None,
            float(np.quantile(errs, 0.9)) if errs else None,
            sum(t.score.outcome != HIT for t in ts)))
    return tuple(rows)


# the fix of a user's kernel, made by a generated member of its op

# The members' words beside the element's own, and words a thread
# (whatif.member; docs/user-kernels.md: v16 or v32, v64, v128; k1-k8).
MEMBER_WIDE_BITS = (64, 128)
MEMBER_WORDS = (1, 2, 4, 8)


def _geometry(run, point):
    """(shape, bits, words) a generated member of the kernel's own access
    would be named by: the word a thread loads (its warp's requested bytes
    a load instruction / 32), the words a thread loads per input (a
    single pass: its load instructions a warp / inputs; a kernel whose
    threads loop loads one word an input an iteration, and its member is
    the grid-stride one); None where a counter is missing or no member
    has that width."""
    size = DTYPE_BYTES.get(point.dtype)
    request = sel.metric(run, point, sel.M_LD_REQUESTED_BYTES_PER_INST)
    if not size or not request or not point.grid or not point.block:
        return None
    bits = int(round(request / 32.0 * 8))
    read = point.bytes_moved - point.n * size
    inputs = int(round(read / float(point.n * size)))
    if bits not in (8 * size,) + MEMBER_WIDE_BITS or inputs < 1:
        return None
    if read / (point.grid * point.block) > MAX_SINGLE_PASS_READ_BYTES:
        return "stride", bits, 1
    loads = sel.metric(run, point, sel.M_LD_INST_PER_WARP)
    words = max([k for k in MEMBER_WORDS if loads and k <= loads / inputs],
                default=1)
    return "tile", bits, words


def fix_target(run, point, cause):
    """(shape, bits, words) of the generated member that makes exactly
    the change the cause names, and a phrase of that change; None where
    the cause names none: uncoalesced or misaligned access, the same
    shape, word and words a thread, coalesced and aligned (every member
    is); grid-limited, the grid-stride member (its grid one wave of the
    GPU); latency-bound, twice the words a thread."""
    shape = _geometry(run, point)
    if shape is None:
        return None
    kind, bits, words = shape
    if cause in (model.UNCOALESCED, model.MISALIGNED):
        return shape, "coalesced and aligned, as its %d-bit words, %d " \
            "an input a thread, %s" % (bits, words, SHAPES[kind])
    if cause == model.GRID_LIMITED:
        return ("stride", bits, words), "grid-stride over a grid of one " \
            "wave, as its %d-bit words, %d an input a thread" % (bits, words)
    if cause == model.LATENCY_BOUND and 2 * words in MEMBER_WORDS:
        return (kind, bits, 2 * words), "2x the loads per thread, %d " \
            "%d-bit words an input, %s" % (2 * words, bits, SHAPES[kind])
    return None


def fix_member(run, point, target):
    """The run's checked generated member named by target at the point's
    size, dtype, cache state, launch and block, moving its bytes; None."""
    for q in run.points:
        if q.variant.startswith(GENERATED_PREFIX) and \
                tuple(member(q.variant) or ()) == target and \
                (q.n, q.dtype, q.cache, q.launch, q.block,
                 q.bytes_moved) == (point.n, point.dtype, point.cache,
                                    point.launch, point.block,
                                    point.bytes_moved) and \
                q.check in (None, "pass") and q.bandwidth:
            return q
    return None


def member_prediction(run, point, member_point, dram):
    """The Prediction of a generated member run in place of the user's
    point (same size, block, cache state and launch), from what its name
    says it loads: the lowest of the DRAM ceiling, the block-launch roof
    of its grid and the concurrency curve at its own request (32 of its
    words a warp load) and its own loads in flight per SM, a thread's
    inputs x words x word bytes (a grid-stride or persistent member's, an
    iteration's) times the threads resident per SM:

      tile, bulk    the user's point's achieved occupancy: the same
                    block, the same launch; the fix changes what each
                    thread loads, not how many threads are resident
      stride, runs  its grid's threads per SM (a one-wave grid, resident
                    for the whole kernel), at most the SM's slots

    A one-tile member is read on the curve scaled to the op's DRAM ceiling
    (OnCurve.reachable), as predict() reads every one-tile kernel; a
    looping member on the curve as measured: the curve's own kernel is a
    persistent grid, and its shortfall against one-tile kernels is that
    shape's (on the H200 reference, add_f32x4_grid, 64 KiB of 512-byte
    requests in flight per SM, measured 4122 GB/s where the curve reads
    4101).  None where the curve, the counters or the device record
    cannot place it."""
    found = member(member_point.variant)
    size = DTYPE_BYTES.get(point.dtype)
    most = run.device.get("max_threads_per_sm")
    if found is None or not size or not most or dram is None or \
            not member_point.block:
        return None
    inputs = int(round((point.bytes_moved - point.n * size) /
                       float(point.n * size)))
    one_tile = found.shape in ("tile", "bulk")
    if one_tile:
        occ, _ = model.occupancy(run, point)
        resident = occ / 100.0 * most if occ else None
    else:
        sms = run.device.get("sm_count")
        slots = blocks.slot_threads(run.device, member_point.block)
        resident = min(member_point.grid * member_point.block / float(sms),
                       slots) if sms and slots and member_point.grid \
            else None
    if not resident or inputs < 1:
        return None
    kib = inputs * found.words * found.bits / 8.0 * resident / 1024.0
    placed = model.place(run.ceilings, point.op, 32 * found.bits / 8.0, kib,
                         dram)
    if placed is None:
        return None
    on_curve = placed.reachable if one_tile else \
        min(placed.ceiling, placed.series.bandwidth_at(kib))
    return _lowest_roof(run, member_point, dram, on_curve)


def _fix_prediction(run, point, cause, member_point, dram):
    """The Prediction of the fix made by the generated member
    `member_point`: the member's own (member_prediction(): its word, its
    words a thread); latency-bound's, the curve at twice the loads
    (predict()).  Where the curve cannot place the member, a fault's own
    (model/faults.py: the run's fastest whole-sector kernel, or Little's
    law on resident blocks up to the DRAM ceiling), its roof named so;
    None without one."""
    if cause == model.LATENCY_BOUND:
        return predict(run, point, member_point, BYTES, 2, dram)
    own = member_prediction(run, point, member_point, dram)
    if own is not None:
        return own
    fault = next((f for f in user_faults(run, point,
                                         model.block_slots(run, point), dram)
                  if f.name == cause), None)
    if fault is None or not fault.predicted:
        return None
    if cause == model.GRID_LIMITED:
        roof = ROOF_DRAM if dram is not None and \
            fault.predicted >= dram.value else ROOF_RESIDENT
    else:
        roof = ROOF_COALESCED
    return Prediction(fault.predicted, roof)


def fix_trial(run, point, cause, dram):
    """(Trial or None, target, change phrase): the generated member that
    makes the cause's fix, measured beside the point, with the fix's
    prediction; (None, None, None) where the cause names no member."""
    found = fix_target(run, point, cause)
    if found is None:
        return None, None, None
    target, change = found
    q = fix_member(run, point, target)
    if q is None:
        return None, target, change
    kind = BYTES if cause == model.LATENCY_BOUND else FIX
    factor = 2 if kind == BYTES else 1
    return _trial(kind, "%s (%s, generated)" % (change, q.variant), q,
                  factor, _fix_prediction(run, point, cause, q, dram),
                  point), target, change


def fix_command(run, point, target, change):
    """The one line that says which run would test the fix: the user's
    kernel again, with the op's family generated beside it."""
    entry = next((e for e in run.manifest.get("user_kernels") or ()
                  if isinstance(e, dict) and e.get("variant") ==
                  point.variant), {})
    kernel = entry.get("file") or "K.cu"
    if entry.get("function"):
        kernel += ":" + entry["function"]
    per = " --elems-per-thread %d" % entry["elems_per_thread"] \
        if isinstance(entry.get("elems_per_thread"), int) and \
        entry["elems_per_thread"] > 1 else ""
    # the kernel the fault's prediction is, where it is one
    faster = coalesced_faster(run, point)
    beside = " -v %s" % faster[0] if faster else ""
    shape, bits, words = target
    return "Its fix (%s) is untested: no generated member of its op in " \
        "this run. `ewbench run --kernel %s%s --elementwise OP.cu -s %d " \
        "--cache %s --block %d%s` tests it (OP.cu: your op as a " \
        "per-element function, docs/user-kernels.md), with the member " \
        "gen:FUNCTION:%s_v%d_k%d" % (
            change, kernel, per, point.n, point.cache, point.block, beside,
            shape, bits, words)


# the experiments of a user's kernel

def user_experiments(ctx):
    """point key -> Experiment for each point of a user's kernel (at its
    published block) whose run also holds it at 2x, 4x ... that block,
    same size, cache state and launch (`ewbench run --kernel ... --block
    LIST`): its verdict's change made from outside, predicted and scored
    as the study's are.  The band is the model's error on the run's own
    points at the bases' sizes, each predicted from its own counters at
    its own block."""
    run = ctx.run
    users = [p for p in ctx.points
             if var.role(p.variant) == var.USER and p.key in ctx.verdicts]
    # The spread of warp lifetimes a larger block is predicted with: that
    # of the run's kernels at the users' sizes, cache states and launches,
    # as the study's experiments take it of theirs.
    shapes = {(p.n, p.cache, p.launch) for p in users}
    spread = run_spread(run, [q for q in ctx.points if
                              (q.n, q.cache, q.launch) in shapes]) \
        if users else None
    bases, untested, out = [], {}, {}
    for p in users:
        dram = model.run_dram_ceiling(run, p.op)
        verdict = ctx.verdicts[p.key]
        trials = _trials(run, run, p, p, dram, spread)
        fix, target, change = fix_trial(run, p, verdict.name, dram)
        if fix is not None:
            trials += (fix,)
        elif target is not None:
            untested[p.key] = fix_command(run, p, target, change)
        if trials:
            bases.append((p, dram, trials))
        elif p.key in untested:     # nothing measured: the line alone
            out[p.key] = Experiment(p.variant, p, verdict, (), None,
                                    verdict.name, "",
                                    to_test=untested[p.key])
    if not bases:
        return out
    shapes = {(p.n, p.cache, p.launch) for p, _, _ in bases}
    # The generated members are the fixes' trials: they set no band.
    errors = []
    for q in ctx.points:
        if (q.n, q.cache, q.launch) not in shapes or \
                q.variant.startswith(GENERATED_PREFIX):
            continue
        own = predict(run, q, q, BYTES, 1, model.run_dram_ceiling(run, q.op))
        if own is not None and own.value > 0 and not refused(run, (q,)):
            errors.append(abs(q.bandwidth / own.value - 1.0))
    band = band_of(errors)
    for p, dram, trials in bases:
        verdict = ctx.verdicts[p.key]
        trials = tuple(replace(t, score=score(t, p, band)) for t in trials)
        bad = refused(run, (p,) + tuple(t.point for t in trials))
        trials = tuple(t for t in trials if t.point not in bad)
        outcome, final, text = judge(verdict, p, trials)
        both = co_limited(verdict, outcome, trials)
        if both is not None:
            final, text = CO_LIMITED, text + "; " + both
        if bad:
            text += ("; " if text else "") + refused_text(run, bad)
        out[p.key] = Experiment(p.variant, p, verdict, trials, outcome,
                                final, text, bad, band,
                                untested.get(p.key, ""))
    return out

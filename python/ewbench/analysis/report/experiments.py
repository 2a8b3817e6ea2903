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
                      new grid and the curve at its loads in flight with k
                      x its resident threads (up to the theoretical
                      occupancy of the new block)
  DRAM-bound          nothing may help: no probe, no larger block, no
                      sibling of the article moving the same bytes is
                      faster beyond the noise and by more than
                      MATERIAL_PCT

Judged against the variant at its published block in the same run (the
noise rule, as `compare` applies it, and MATERIAL_PCT):

  confirmed          its own change rises beyond the noise, by more than
                     MATERIAL_PCT and by at least HALF_RISE of the rise
                     predicted (DRAM-bound: nothing does)
  confirmed in part  it rises beyond both, but less than that: a second
                     limit comes sooner than the model says
  refuted            it does not rise (DRAM-bound: something does)

A refuted verdict is replaced by what the experiment showed: the verdict
whose change rose the most (bytes in flight: latency-bound; work per
block: block-launch-bound), else undetermined.  Other verdicts (issue,
L2, fixed cost, launch) predict nothing these changes test, and are left
as they are.
"""

from dataclasses import dataclass
from typing import Optional

from ..core import compare
from ..core import select as sel
from ..core import variants as var
from ..core.units import gbps
from . import model

MATERIAL_PCT = 3.0
HALF_RISE = 0.5

CONFIRMED = "confirmed"
IN_PART = "confirmed in part"
REFUTED = "refuted"
OUTCOMES = (CONFIRMED, IN_PART, REFUTED)

BYTES = "bytes in flight"
BLOCKS = "work per block"
# What each verdict says should help; None: that nothing should.
HELPS = {model.LATENCY_BOUND: BYTES, model.BLOCK_LAUNCH_BOUND: BLOCKS,
         model.OCCUPANCY_BOUND: BLOCKS, model.DRAM_BOUND: None}
# The verdict a change that helped stands for.
SHOWS = {BYTES: model.LATENCY_BOUND, BLOCKS: model.BLOCK_LAUNCH_BOUND}


@dataclass(frozen=True)
class Trial:
    """One change, measured beside its base in the same run."""
    kind: str               # BYTES or BLOCKS
    what: str               # "2x the loads per thread (add_f32_ilp2)"
    point: object           # its row of the experiments run
    factor: int             # 2 or 4
    predicted: Optional[float]  # byte/s the model gives it; None: no model
    change: object          # compare.Change from the base

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


def _resident_threads(run, block, achieved_threads, factor):
    """Resident threads per SM at blocks of `block` threads: the base's
    achieved count times `factor` (blocks launch at the same rate, each
    `factor` times larger), at most what the SM holds of such blocks."""
    most = run.device.get("max_threads_per_sm")
    if not most or not block:
        return None
    per_sm = most // block
    limit = run.device.get("max_blocks_per_sm")
    if limit:
        per_sm = min(per_sm, limit)
    full = per_sm * block
    if achieved_threads is None:
        return full
    return min(full, achieved_threads * factor)


def predict(run, article_point, trial_point, kind, factor, dram):
    """byte/s the model gives `trial_point`, from the article's point of
    its base (counters: occupancy, requested bytes per load): the lowest
    of the DRAM ceiling, the block-launch roof of its grid and the
    concurrency curve at its loads in flight; None when the curve cannot
    place it."""
    occ, _ = model.occupancy(run, article_point)
    most = run.device.get("max_threads_per_sm")
    kib = model.kib_in_flight_per_sm(article_point, occ, most)
    if kib is None or dram is None:
        return None
    if kind == BYTES:
        kib *= factor
    else:
        achieved = occ / 100.0 * most if occ is not None and most else None
        resident = _resident_threads(run, trial_point.block, achieved,
                                     factor)
        if resident is None or not achieved:
            return None
        kib *= resident / achieved
    request = sel.metric(run, article_point,
                         sel.M_LD_REQUESTED_BYTES_PER_INST)
    placed = model.place(run.ceilings, article_point.op, request, kib, dram)
    if placed is None:
        return None
    floor_ns = (model.measured_launch_floor(run.ceilings, "graph") or
                model.Bound(0.0, "", False)).value
    latency = (run.ceilings or {}).get("dram_latency")
    roofs = [dram.value, placed.bandwidth]
    roof = _block_roof(run, trial_point, floor_ns,
                       latency.value if latency is not None else None)
    if roof is not None:
        roofs.append(roof)
    return min(roofs)


# the experiments of a study

def _trials(exp_run, article_run, article_point, base, dram):
    out = []
    for probe in var.probes_of(base.variant):
        rows = [p for p in exp_run.points if p.variant == probe.id and
                p.n == base.n and p.cache == base.cache and
                p.launch == base.launch and p.block == base.block and
                p.check != "fail"]
        factor = probe.loads
        for p in rows:
            out.append(Trial(BYTES, "%dx the loads per thread (%s)" % (
                factor, probe.id), p, factor, predict(
                    article_run, article_point, p, BYTES, factor, dram),
                compare.compare_points(base, p)))
    for p in exp_run.points:
        if p.variant != base.variant or p.n != base.n or \
                p.cache != base.cache or p.launch != base.launch or \
                not p.block or not base.block or p.block <= base.block or \
                p.block % base.block or p.check == "fail":
            continue
        factor = p.block // base.block
        out.append(Trial(BLOCKS, "block %d (%dx)" % (p.block, factor), p,
                         factor, predict(article_run, article_point, p,
                                         BLOCKS, factor, dram),
                         compare.compare_points(base, p)))
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
    return text


def judge(verdict, base, trials, sibling=None, sibling_change=None):
    """(outcome, final verdict, text) of one variant's experiment."""
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
        parts = [_trial_text(t) for t in risen]
        if beaten:
            parts.append(beaten)
        return REFUTED, final, "not DRAM-bound: " + "; ".join(parts)
    own = [t for t in trials if t.kind == helps]
    if not own:
        return None, verdict.name, "no %s change was run for it" % helps
    best = max(own, key=lambda t: t.point.bandwidth)
    others = [t for t in trials if t.kind != helps and t.rose]
    if best.rose:
        rise = best.point.bandwidth - base.bandwidth
        wanted = (best.predicted - base.bandwidth) if best.predicted \
            else None
        outcome = CONFIRMED if wanted is None or wanted <= 0 or \
            rise >= HALF_RISE * wanted else IN_PART
        text = "; ".join(_trial_text(t) for t in own)
        if outcome == IN_PART:
            text += "; it rose less than half the predicted %+.1f %%" % (
                100.0 * wanted / base.bandwidth)
        if others:
            text += "; also: " + "; ".join(_trial_text(t) for t in others)
        return outcome, verdict.name, text
    text = "; ".join(_trial_text(t) for t in own) + ": no rise"
    if others:
        top = max(others, key=lambda t: t.point.bandwidth)
        text += "; instead %s" % _trial_text(top)
        return REFUTED, SHOWS[top.kind], text
    return REFUTED, model.UNKNOWN, text


def tested_verdict(e):
    """The Verdict of an experiment's point once the experiment has
    spoken: its name the final one, its rule the original's with the
    experiment beside it."""
    if e.outcome is None:
        return e.verdict
    if e.final == e.verdict.name:
        return model.Verdict(e.final, "%s. Experiment (%s): %s" % (
            e.verdict.rule, e.outcome, e.text))
    return model.Verdict(e.final, "the rules said %s (%s). The "
                         "experiment refuted it: %s" % (
                             e.verdict.name, e.verdict.rule, e.text))


def study_experiments(sctx):
    """variant -> Experiment for every study variant at the article's
    largest size (warm, stream) that the experiments run measured at its
    published block; {} without an experiments run."""
    exp_run = getattr(sctx.study, "experiments", None)
    ctx = sctx.parts.get("article")
    if exp_run is None or ctx is None:
        return {}
    run = ctx.run
    out = {}
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
        trials = _trials(exp_run, run, a, base, dram)
        bad = refused(exp_run, (base,) + tuple(t.point for t in trials))
        if base in bad:
            out[base.variant] = Experiment(base.variant, base, verdict, (),
                                           None, verdict.name,
                                           refused_text(exp_run, bad), bad)
            continue
        trials = tuple(t for t in trials if t.point not in bad)
        sibling, change = _faster_sibling(ctx, a) \
            if HELPS.get(verdict.name, "n/a") is None else (None, None)
        outcome, final, text = judge(verdict, base, trials, sibling, change)
        if bad:
            text += ("; " if text else "") + refused_text(exp_run, bad)
        out[base.variant] = Experiment(base.variant, base, verdict, trials,
                                       outcome, final, text, bad)
    return out

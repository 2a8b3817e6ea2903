"""No point label of a shipped reference is contradicted by ewbench's own
criteria (issue 51), recomputed here from the reference's CSVs rather than
taken from the rules that gave the labels:

  DRAM-bound      no sibling moving the same bytes (same op, dtype, size,
                  cache, launch) is faster beyond the noise and by more
                  than the experiments' MATERIAL_PCT: their refutation
                  criterion
  latency-bound   not below LATENCY_FLOOR of the concurrency curve's own
                  prediction for its loads in flight: the curve cannot
                  say that more bytes in flight is what it lacks
  fixed-cost-bound  the fitted fixed cost and the bytes the timed window
                  moved (as the DRAM rules count them) at the serving
                  level's ceiling explain FIXED_COST_SHARE of the time

The references are rendered (tests/references.sh) with the same analysis:
a label contradicted here is a label in a committed report."""

import os

import pytest

from ewbench.analysis.core import compare
from ewbench.analysis.core import study as stu
from ewbench.analysis.report import experiments as ex
from ewbench.analysis.report import model
from ewbench.analysis.report.findings import common

TOP = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
REFERENCES = ("nvidia-h100", "nvidia-h200")
LATENCY_FLOOR = 0.9


def _facts(ctx, points):
    """point key -> PointFacts of these points of the Context, as
    classify_run builds them (each point's from the whole run)."""
    run = ctx.run
    siblings = model.sibling_groups(run)
    return {p.key: model.point_facts(
        run, p, ctx.fits, siblings, None,
        model.measured_block_rate(run.ceilings, p.block))
        for p in points}


def contradicted(path):
    """[(variant, n, cache, launch, label, why)] of the article's labels
    that the criteria above contradict."""
    sctx = common.make_context(stu.open_study(path))
    ctx = sctx.parts[stu.ARTICLE]
    return contradicted_in(ctx, ctx.points)


def contradicted_in(ctx, points):
    """contradicted()'s criteria on these points of a Context."""
    facts = _facts(ctx, points)
    out = []
    for p in points:
        label = ctx.verdicts[p.key].name
        f = facts[p.key]
        why = None
        if label == model.DRAM_BOUND:
            for q in ctx.points:
                if q is p or model.sibling_key(q) != model.sibling_key(p):
                    continue
                c = compare.compare_points(p, q)
                if c.flag == compare.FASTER and \
                        (c.bandwidth_pct or 0.0) > ex.MATERIAL_PCT:
                    why = "%s is %+.1f %% faster" % (q.variant,
                                                     c.bandwidth_pct)
                    break
        elif label == model.LATENCY_BOUND and f.on_curve is not None and \
                f.bandwidth < LATENCY_FLOOR * f.on_curve.bandwidth:
            why = "%.2f of the curve's prediction" % (
                f.bandwidth / f.on_curve.bandwidth)
        elif label == model.FIXED_COST_BOUND and f.fixed_ns:
            served = f.l2_ceiling if model.rules._from_l2(f) else \
                f.dram_ceiling
            moved = f.window.bytes if f.window is not None else \
                f.bytes_moved
            share = (f.fixed_ns + moved / served.value * 1e9) / f.time_ns
            if share < model.FIXED_COST_SHARE:
                why = "the window's bytes explain %.0f %%" % (100 * share)
        if why:
            out.append((p.variant, p.n, p.cache, p.launch, label, why))
    return out


@pytest.mark.parametrize("name", REFERENCES)
def test_no_reference_label_is_contradicted_by_its_own_criteria(name):
    path = os.path.join(TOP, "reports", "reference", name)
    if not os.path.isdir(os.path.join(path, "article")):
        pytest.skip("%s is not in this tree" % name)
    found = contradicted(path)
    assert found == [], "%d contradicted: %s" % (len(found), found[:5])

"""The concurrency curve calibrated with the study's own kernels
(report/model/calibration.py, issue 51): a synthetic calibration/ beside
the shipped H200 reference (calibration_fixture.py), whose rows follow a
known curve per family, is read by the model: the calibrated kernels'
predictions are that curve at their loads in flight, unscaled, in both
directions (the bases, the probes' rise, the larger blocks' fall); the
other kernels keep the ceilings' scaled curve; a study without one is
read as before."""

import os
import sys

import pytest

from ewbench.analysis.core import study as stu
from ewbench.analysis.report import experiments as ex
from ewbench.analysis.report import model
from ewbench.analysis.report.findings import common
from ewbench.analysis.report.model import calibration as cal
from ewbench.analysis.report.model.curve import Level

sys.path.insert(0, os.path.dirname(__file__))
import calibration_fixture as fixture  # noqa: E402

TOP = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
H200 = os.path.join(TOP, "reports", "reference", "nvidia-h200")


def test_pooled_never_falls():
    levels = [Level(2.0, 100.0, "a"), Level(4.0, 300.0, "b"),
              Level(4.0, 100.0, "c"), Level(8.0, 150.0, "d"),
              Level(16.0, 400.0, "e"), Level(1.0, 60.0, "f")]
    got = cal.pooled(levels)
    assert [x.kib for x in got] == sorted(x.kib for x in got)
    assert all(a.bandwidth <= b.bandwidth for a, b in zip(got, got[1:]))
    # equal loads in flight merged (b, c: 200), then pooled with d, which
    # falls below it: one level at their mean
    assert [(x.kib, x.bandwidth) for x in got] == [
        (1.0, 60.0), (2.0, 100.0), (16 / 3.0, 550 / 3.0), (16.0, 400.0)]
    assert got[2].name == "b, c, d"


def test_family():
    assert cal.family("add_f32") == "add_f32"
    assert cal.family("add_f32_ilp4") == "add_f32"
    assert cal.family("abs_f32_functor") is None     # not its kernel
    assert cal.family("add_f32x4") is None
    assert cal.family("cub_add_f32") is None


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    if not os.path.isdir(os.path.join(H200, "experiments")):
        pytest.skip("the H200 reference is not in this tree")
    truth = fixture.knee_truth(H200)
    path = fixture.make_study(
        H200, str(tmp_path_factory.mktemp("cal") / "study"), truth)
    before, after = stu.open_study(H200), stu.open_study(path)
    return (before, common.make_context(before), after,
            common.make_context(after), truth)


def test_the_study_reads_its_calibration(studies):
    before, _, after, _, _ = studies
    assert before.calibration == ()
    assert [cal.residency(r) for r in after.calibration] == \
        list(fixture.LEVELS)
    assert ["calibration/residency-%d" % n for n in fixture.LEVELS] == \
        [w for w, _ in after.every_run() if w.startswith("calibration/")]
    # every run of the study lends it to its model
    assert after.run(stu.ARTICLE).calibration is after.calibration
    series = cal.calibrated(after.calibration)
    assert sorted(series) == sorted(fixture.CALIBRATED)
    for s in series.values():
        assert s.residencies == fixture.LEVELS and s.rows == 3 * 8
        assert all(a.bandwidth <= b.bandwidth
                   for a, b in zip(s.levels, s.levels[1:]))


def _article_point(study, variant):
    run = study.run(stu.ARTICLE)
    return run, next(p for p in run.points if p.variant == variant and
                     p.n == 1 << 28 and p.cache == "warm")


def test_predictions_are_the_curve_unscaled(studies):
    _, _, after, actx, truth = studies
    kb = fixture.anchors(H200)
    for base in fixture.CALIBRATED:
        run, a = _article_point(after, base)
        dram = model.run_dram_ceiling(run, a.op)
        exp = actx.experiments[base]
        # its own point: the curve where its counters put it, which the
        # truth passes through its measured bandwidth (ratio 1, where no
        # scaled curve gave it: 0.86-0.96 on this reference)
        own = ex.predict(run, a, exp.base, ex.BYTES, 1, dram)
        assert own.value == pytest.approx(
            min(dram.value, truth(base, kb[base][0])), rel=1e-6)
        assert own.value == pytest.approx(
            min(dram.value, exp.base.bandwidth), rel=1e-6)
        for t in exp.trials:
            if t.kind == ex.BYTES:      # a rise: the curve at k x
                assert t.predicted == pytest.approx(min(
                    dram.value, truth(base, t.factor * kb[base][0])),
                    rel=1e-6)
        placed = model.place(run.ceilings, a.op, 128, kb[base][0], dram,
                             cal.series_for(run, base))
        assert not placed.scaled and placed.reachable == placed.bandwidth
        assert "calibration of %s" % base in placed.text
        assert "scaled" not in placed.text


def test_others_keep_the_scaled_curve(studies):
    _, bctx, _, actx, _ = studies
    for variant in ("add_f16x2", "add_f32x4", "relu_f32x4"):
        if variant not in bctx.experiments:
            continue
        b = [t.predicted for t in bctx.experiments[variant].trials]
        a = [t.predicted for t in actx.experiments[variant].trials]
        assert a == b
    run, a = _article_point(studies[2], "add_f16x2")
    assert cal.series_for(run, "add_f16x2") is None


def test_the_band_narrows_as_designed(studies):
    _, bctx, _, actx, _ = studies
    b = next(iter(bctx.experiments.values())).band
    a = next(iter(actx.experiments.values())).band
    # the four calibrated bases now predicted as measured: their errors
    # leave the band's p90
    assert len(a.errors) == len(b.errors)
    assert sum(e < 1e-6 for e in a.errors) >= 4
    assert a.width < b.width
    # their larger blocks, over-predicted by the scaled curve (0.82-0.91),
    # now predicted on the curve through their own measurements
    for base in fixture.CALIBRATED:
        for t in actx.experiments[base].trials:
            if t.kind == ex.BLOCKS:
                old = next(o for o in bctx.experiments[base].trials
                           if o.kind == ex.BLOCKS and o.factor == t.factor)
                assert t.predicted < old.predicted


def test_the_rules_read_it(studies):
    """add_f16 at 2^28 on the H200 moves 0.86 of what the scaled curve
    allows its loads in flight: not latency-bound by the rules, its
    experiment not run.  On a curve its own kernels measured through it,
    it is, and its probes test it."""
    _, bctx, after, actx, _ = studies
    _, a = _article_point(after, "add_f16")
    before = bctx.parts["article"].verdicts[a.key]
    now = actx.parts["article"].verdicts[a.key]
    assert before.name != model.LATENCY_BOUND
    assert now.name == model.LATENCY_BOUND
    assert "on the calibration of add_f16 and its probes (1-8 resident " \
        "blocks per SM, 24 rows)" in now.rule
    assert actx.experiments["add_f16"].outcome in (ex.CONFIRMED,
                                                   ex.SIZE_OFF)


def test_the_report_says_which_curve(studies):
    from ewbench.analysis.report.page import predictions as pr
    _, bctx, _, actx, _ = studies
    said = [b for b in pr.section(actx) if "their own calibration" in
            getattr(b, "text", "")]
    assert len(said) == 1 and "`add_f16` (24 rows" in said[0].text
    assert "1-8 resident blocks per SM" in said[0].text
    assert not [b for b in pr.section(bctx) if "calibration" in
                getattr(b, "text", "")]


def test_the_figure_draws_it(studies, tmp_path):
    from ewbench.analysis.report.plots import concurrency
    after = studies[2]
    drawn = concurrency.plot_concurrency(after.run(stu.ARTICLE),
                                         str(tmp_path))
    assert drawn
    svg = open(os.path.join(str(tmp_path), "concurrency.svg"),
               encoding="utf-8").read()
    for family in fixture.CALIBRATED:
        assert family in svg
    assert "read unscaled" in svg

"""The concurrency curve measured with the study's own kernels
(report/model/calibration.py, issue 51): a synthetic calibration/ beside
the shipped H200 reference (calibration_fixture.py), whose rows follow a
known curve per family.  The study reads it; its held-out error is each
kernel's own point against the rest of its family, never the point
itself; the model's predictions and verdicts do not move with it (held
out, the H200's measured calibration read its kernels 1-13 % low, worse
than the ceilings' scaled curve: docs/analysis.md, "Calibrating the
concurrency curve"); the report says so and the figure draws it."""

import os
import sys

import pytest

from ewbench.analysis.core import study as stu
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
    where = tmp_path_factory.mktemp("cal")
    path = fixture.make_study(H200, str(where / "study"), truth)
    plain = fixture.plain_study(H200, str(where / "plain"))
    before, after = stu.open_study(plain), stu.open_study(path)
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


def test_predictions_and_verdicts_do_not_move_with_it(studies):
    _, bctx, _, actx, _ = studies
    for variant, e in bctx.experiments.items():
        assert [t.predicted for t in actx.experiments[variant].trials] == \
            [t.predicted for t in e.trials], variant
    assert next(iter(actx.experiments.values())).band == \
        next(iter(bctx.experiments.values())).band
    before, after = bctx.parts["article"], actx.parts["article"]
    for key, verdict in before.verdicts.items():
        assert after.verdicts[key] == verdict, key


def test_held_out_leaves_the_point_itself_out(studies):
    _, _, after, _, truth = studies
    held = cal.held_out(after.calibration)
    kb = fixture.anchors(H200)
    # every calibrated kernel once, at its top level
    assert sorted(h.variant for h in held) == sorted(
        v for r in after.calibration for v in {p.variant for p in r.points}
        if cal.family(v) is not None and r is after.calibration[-1])
    assert all(h.residency == max(fixture.LEVELS) for h in held)
    for h in held:
        series = cal.calibrated(after.calibration, (h.variant, 256))[
            cal.family(h.variant)]
        # the point's own row is not in its series ...
        assert not any(level.name.startswith(h.variant + " at %d " %
                                             h.residency)
                       for level in series.levels)
        # ... and the prediction is that series at its loads in flight
        assert h.predicted == pytest.approx(series.bandwidth_at(h.kib))
    # a base's own point lies on the known curve through its measurement
    base = next(h for h in held if h.variant == "add_f16")
    assert base.measured == pytest.approx(
        truth("add_f16", kb["add_f16"][0]), rel=1e-6)


def test_the_report_says_what_it_measured(studies):
    from ewbench.analysis.report.page import predictions as pr
    _, bctx, _, actx, _ = studies
    said = [b for b in pr.section(actx) if "The study's calibration" in
            getattr(b, "text", "")]
    assert len(said) == 1 and "`add_f16` (24 rows" in said[0].text
    assert "1-8 resident blocks per SM" in said[0].text
    assert "held out" in said[0].text
    assert "the model places every point on the ceilings' curve, " \
        "scaled" in said[0].text
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
    assert "not read by the model" in svg

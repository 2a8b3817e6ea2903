"""Experiments (report/experiments.py): each verdict is judged by the change
it predicts, measured beside its base in one run.  The numbers are the
H100's of issue 39's first study (2^28, warm)."""

import pytest

from ewbench.analysis.core.load import Point
from ewbench.analysis.core import compare
from ewbench.analysis.core import variants as var
from ewbench.analysis.report import experiments as ex
from ewbench.analysis.report import model
from ewbench.analysis.core.load import load_run

N = 1 << 28


def point(variant, gbps, block=256, grid=None, op="add", dtype="f32"):
    moved = 12 * N if op == "add" and dtype == "f32" else 6 * N \
        if op == "add" else 8 * N
    t = moved / (gbps * 1e9) * 1e9
    return Point(run_id="r", variant=variant, op=op, dtype=dtype, n=N,
                 block=block, cache="warm", launch="stream",
                 grid=grid or N // block, footprint_bytes=moved,
                 bytes_moved=moved, flops=N, iters=50, time_median_ns=t,
                 time_min_ns=None, time_max_ns=None, time_mean_ns=None,
                 time_stddev_ns=None, activity_median_ns=None,
                 bandwidth_median_bytes_per_s=None,
                 bandwidth_max_bytes_per_s=None, spec_dram_pct=None,
                 check="pass", time_source="kernel",
                 time_ci_low_ns=0.999 * t, time_ci_high_ns=1.001 * t)


# The H100 reference's band: the p90 of the model's error on its bases.
BAND = ex.band_of([0.057])


def trial(kind, base, p, factor=2, predicted=None, roof=ex.ROOF_CURVE):
    t = ex.Trial(kind, "%dx" % factor, p, factor, predicted,
                 compare.compare_points(base, p), roof)
    return ex.replace(t, score=ex.score(t, base, BAND))


LATENCY = model.Verdict(model.LATENCY_BOUND, "rule")
BLOCK = model.Verdict(model.BLOCK_LAUNCH_BOUND, "rule")
DRAM = model.Verdict(model.DRAM_BOUND, "rule")


def test_probes_multiply_a_study_variants_own_loads():
    ids = [p.id for p in var.probes_of("add_f32")]
    assert ids == ["add_f32_ilp2", "add_f32_ilp4"]
    # the same load shape: abs_f32_grid and abs_f32_functor share abs_f32's
    assert [p.id for p in var.probes_of("abs_f32_functor")] == \
        ["abs_f32_ilp2", "abs_f32_ilp4"]
    # a probe is one tile per block: not a grid-stride kernel's loads
    assert var.probes_of("abs_f32_grid") == ()
    assert var.probes_of("add_f16x8") == () and var.probes_of("cub") == ()
    assert var.role("add_f16x2_ilp2") == var.PROBE
    assert all(p.block == 128 for p in var.probes_of("add_f16x2"))


def test_latency_bound_confirmed_when_more_bytes_in_flight_rise():
    base = point("add_f32", 2720)
    trials = (trial(ex.BYTES, base, point("add_f32_ilp2", 3098),
                    predicted=3058e9),
              trial(ex.BLOCKS, base, point("add_f32", 2631, block=512)))
    outcome, final, text = ex.judge(LATENCY, base, trials)
    assert (outcome, final) == (ex.CONFIRMED, model.LATENCY_BOUND)
    assert "3098 GB/s (+13.9 %), predicted 3058 GB/s (x1.01, confirmed)" \
        in text
    # every trial is shown, the one that fell too
    assert "also: 2x: 2631 GB/s (-3.3 %)" in text


def test_a_rise_outside_the_band_is_direction_right_size_off():
    # add_f16x2 at block 128 -> 256: +7.4 % where the model said +19.8 %
    base = point("add_f16x2", 2532, block=128, dtype="f16")
    trials = (trial(ex.BLOCKS, base, point("add_f16x2", 2719, block=256,
                                           dtype="f16"), predicted=3034e9),
              trial(ex.BYTES, base, point("add_f16x2_ilp2", 3080,
                                          block=128, dtype="f16")))
    outcome, final, text = ex.judge(BLOCK, base, trials)
    assert (outcome, final) == (ex.SIZE_OFF, model.BLOCK_LAUNCH_BOUND)
    assert "predicted 3034 GB/s (x0.90, direction right, size off)" in text
    assert "also: 2x: 3080 GB/s" in text


def test_a_verdict_whose_change_does_not_rise_is_refuted_and_replaced():
    base = point("add_f32", 2720)
    flat = (trial(ex.BLOCKS, base, point("add_f32", 2725, block=512)),
            trial(ex.BYTES, base, point("add_f32_ilp2", 3098)))
    outcome, final, text = ex.judge(BLOCK, base, flat)
    assert (outcome, final) == (ex.REFUTED, model.LATENCY_BOUND)
    assert "no rise" in text and "also: 2x: 3098" in text
    # nothing rose: undetermined
    outcome, final, _ = ex.judge(BLOCK, base, flat[:1])
    assert (outcome, final) == (ex.REFUTED, model.UNKNOWN)


def test_dram_bound_refuted_by_a_faster_change_or_sibling():
    base = point("add_f32", 2720)
    risen = (trial(ex.BYTES, base, point("add_f32_ilp2", 3098)),)
    outcome, final, text = ex.judge(DRAM, base, risen)
    assert (outcome, final) == (ex.REFUTED, model.LATENCY_BOUND)
    assert text.startswith("not DRAM-bound: 2x: 3098 GB/s")
    cub = point("cub_add_f32", 3077)
    outcome, final, text = ex.judge(DRAM, base, (), cub,
                                    compare.compare_points(base, cub))
    assert (outcome, final) == (ex.REFUTED, model.UNKNOWN)
    assert "cub_add_f32 is +13.1 % faster" in text


def test_dram_bound_confirmed_when_nothing_beats_it_materially():
    # relu_f32x4 at 4x its block: +0.5 %, not the 3 % that would matter
    base = point("relu_f32x4", 3029, op="relu")
    small = (trial(ex.BLOCKS, base, point("relu_f32x4", 3044, block=1024,
                                          op="relu"), factor=4),)
    assert not small[0].rose
    outcome, final, _ = ex.judge(DRAM, base, small)
    assert (outcome, final) == (ex.CONFIRMED, model.DRAM_BOUND)


def test_other_verdicts_predict_nothing():
    base = point("add_f32", 2720)
    v = model.Verdict(model.ISSUE_BOUND, "rule")
    assert ex.judge(v, base, ()) == (None, model.ISSUE_BOUND, "")


def test_a_tested_verdict_carries_its_experiment():
    base = point("add_f32", 2720)
    e = ex.Experiment("add_f32", base, DRAM, (), ex.REFUTED,
                      model.LATENCY_BOUND, "not DRAM-bound: 2x: 3098 GB/s")
    v = ex.tested_verdict(e)
    assert v.name == model.LATENCY_BOUND
    assert v.rule.startswith("the rules said DRAM-bound (rule). The "
                             "experiment refuted it")
    kept = ex.tested_verdict(ex.Experiment(
        "add_f32", base, LATENCY, (), ex.CONFIRMED, model.LATENCY_BOUND,
        "2x: up"))
    assert kept.name == model.LATENCY_BOUND and \
        kept.rule == "rule. Experiment (confirmed): 2x: up"


# numbers no DRAM could serve (issue 55, cause 7)

def _experiments_part(study_dir, speedup):
    """study_dir with an experiments/ part: the fixture, its add_f32x4_grid
    rows made add_f32's 2x probe at add_f32's block, those at 2^28
    `speedup` times faster than add_f32 (warm)."""
    import shutil
    from conftest import FIXTURE, rewrite, scale_times
    exp = study_dir / "experiments"
    shutil.copytree(FIXTURE, exp)
    (exp / "ceilings.csv").unlink()
    for name in ("timing.csv", "metrics.csv"):
        rewrite(exp / name, lambda t: __import__("re").sub(
            r",add_f32x4_grid,add,f32,(\d+),64,",
            r",add_f32_ilp2,add,f32,\1,256,", t))
    base = next(p for p in load_run(str(exp)).points
                if (p.variant, p.n, p.cache, p.launch) ==
                ("add_f32", N, "warm", "stream"))
    probe = next(p for p in load_run(str(exp)).points
                 if (p.variant, p.n, p.cache, p.launch) ==
                 ("add_f32_ilp2", N, "warm", "stream"))
    scale_times(exp, {("add_f32_ilp2", N, cache): base.time_median_ns /
                      probe.time_median_ns / speedup
                      for cache in ("warm", "cold")})
    return load_run(str(exp))


def test_a_probe_faster_than_dram_is_refused_as_evidence(study_dir):
    from ewbench.analysis.core import study as stu
    from ewbench.analysis.report import findings as fnd
    exp = _experiments_part(study_dir, 100.0)
    e = fnd.make_context(stu.load_study(str(study_dir))).experiments[
        "add_f32"]
    probe = next(p for p in exp.points if p.variant == "add_f32_ilp2" and
                 p.n == N and p.cache == e.base.cache and
                 p.launch == "stream")
    assert model.impossible(exp, probe)
    assert probe in e.refused and all(t.point is not probe for t in e.trials)
    assert "add_f32_ilp2 at %s: faster than DRAM could serve them" % (
        __import__("ewbench.analysis.core.units", fromlist=["gbps"]).gbps(
            probe.bandwidth)) in e.text
    assert "refused as evidence" in e.text


def test_a_probe_within_what_dram_serves_is_evidence(study_dir):
    from ewbench.analysis.core import study as stu
    from ewbench.analysis.report import findings as fnd
    _experiments_part(study_dir, 1.05)
    e = fnd.make_context(stu.load_study(str(study_dir))).experiments[
        "add_f32"]
    assert e.refused == () and "refused" not in e.text


def test_the_bound_allows_the_writes_a_window_misses():
    spec = 3.35e12
    # every write of an add missed: 1.5x the spec, within the excess
    assert not model.beyond_dram(1.5 * spec, spec, 1 / 3)
    assert model.beyond_dram(1.5 * 1.11 * spec, spec, 1 / 3)
    assert not model.beyond_dram(1e30, None, 0.5)     # no spec: no bound


def test_a_curve_row_faster_than_dram_is_no_level():
    """One concurrency-curve row at 1e30 B/s became every series' top and
    rewrote 19 points' verdicts."""
    from ewbench.analysis.core import validate
    from conftest import ROOT
    ceilings = load_run(ROOT + "/reports/reference/nvidia-h100/ceilings"
                        ).ceilings
    before = model.curves(ceilings)
    name = validate.inflight_name("copy", 16, 128)
    bad = dict(ceilings)
    bad[name] = __import__("dataclasses").replace(ceilings[name], value=1e30)
    assert [r.name for r in model.impossible_levels(bad)] == [name]
    after = model.curves(bad)
    assert after[("copy", 128)].top.bandwidth == max(
        lv.bandwidth for lv in before[("copy", 128)].levels
        if lv.name != name)
    assert name not in {lv.name for lv in after[("copy", 128)].levels}
    assert model.impossible_levels(ceilings) == []


def test_threats_name_the_refused_rows(study_dir):
    from ewbench.analysis.core import document as doc
    from ewbench.analysis.core import study as stu
    from ewbench.analysis.report import findings as fnd
    from ewbench.analysis.report.page import threats
    _experiments_part(study_dir, 100.0)
    st = stu.load_study(str(study_dir))
    md = doc.render_markdown(threats.threats_section(
        st, fnd.make_context(st)))
    assert "`experiments/` rows refused as evidence" in md
    assert "add\\_f32\\_ilp2@256Mi warm at" in md.replace("\n", " ") or \
        "add_f32_ilp2@256Mi warm at" in md.replace("\n", " ")


def test_a_prediction_is_scored_against_a_two_sided_band():
    base = point("add_f32", 2720)
    # inside the band, moving the predicted way: confirmed
    hit = trial(ex.BYTES, base, point("add_f32_ilp2", 3000), predicted=3100e9)
    assert hit.score.outcome == ex.CONFIRMED and hit.score.note == ""
    # above it: the size is off, and the curve it took to bind did not
    high = trial(ex.BYTES, base, point("add_f32_ilp4", 3300),
                 predicted=2900e9)
    assert high.score.outcome == ex.SIZE_OFF
    assert high.score.ratio == pytest.approx(3300 / 2900.0)
    assert "concurrency curve it said binds: that roof did not bind" in \
        high.score.note
    # inside the band but moving the other way (add_f32's block 512 on
    # the H100: predicted 2920, measured 2633 from 2720): refuted
    fell = trial(ex.BLOCKS, base, point("add_f32", 2633, block=512),
                 predicted=2920e9)
    assert abs(fell.score.ratio - 1) < 0.11 and \
        fell.score.outcome == ex.REFUTED
    # no move predicted (within 3 %), none made: confirmed inside the band
    flat = trial(ex.BLOCKS, base, point("add_f32", 2725, block=512),
                 predicted=2700e9)
    assert flat.score.outcome == ex.CONFIRMED
    # no prediction, no score
    assert trial(ex.BYTES, base, point("add_f32_ilp2", 3000)).score is None


def test_the_band_is_the_p90_of_the_bases_error_at_least_material():
    errors = [0.01 * k for k in range(1, 11)]      # 1 % ... 10 %
    assert ex.band_of(errors).width == pytest.approx(0.091)
    assert ex.band_of([0.001, 0.002]).width == ex.MATERIAL_PCT / 100
    assert ex.band_of([]).width == ex.MATERIAL_PCT / 100
    assert "±9.1 %: the p90" in ex.band_of(errors).text()


def test_the_error_table_counts_every_scored_prediction_per_lever():
    base = point("add_f32", 2720)
    trials = (trial(ex.BYTES, base, point("add_f32_ilp2", 3000),
                    predicted=3000e9),
              trial(ex.BLOCKS, base, point("add_f32", 2400, block=512),
                    predicted=3000e9),
              trial(ex.BLOCKS, base, point("add_f32", 2400, block=1024)))
    e = ex.Experiment("add_f32", base, LATENCY, trials, ex.CONFIRMED,
                      model.LATENCY_BOUND, "", BAND)
    rows = {r.lever: r for r in ex.error_table({"add_f32": e})}
    assert (rows[ex.BYTES].count, rows[ex.BYTES].misses) == (1, 0)
    assert rows[ex.BYTES].median_pct == pytest.approx(0.0)
    assert (rows[ex.BLOCKS].count, rows[ex.BLOCKS].misses) == (1, 1)
    assert rows[ex.BLOCKS].median_pct == pytest.approx(20.0)
    assert rows[ex.ALL_LEVERS].count == 2      # the unpredicted one is not


def test_the_first_screen_says_why_an_experiment_was_not_scored():
    from types import SimpleNamespace
    from ewbench.analysis.report.page import first
    base = point("abs_f32_grid", 2822)
    # abs_f32_grid: latency-bound, no change of its own kernel adds bytes
    # in flight (its probes are not its kernel)
    grid = ex.Experiment("abs_f32_grid", base, LATENCY, (), None,
                         model.LATENCY_BOUND, "no bytes in flight change "
                         "of its own kernel was run for it")
    assert first._experiment(SimpleNamespace(experiment=grid)) == \
        "not tested: no bytes in flight change of its own kernel was run " \
        "for it"
    unknown = ex.Experiment("x", base, model.Verdict(model.UNKNOWN, "r"),
                            (), None, model.UNKNOWN, "")
    assert first._experiment(SimpleNamespace(experiment=unknown)) == \
        "none: an undetermined verdict predicts nothing these changes test"
    top = ex.Experiment("add_f32x4_grid", base,
                        model.Verdict(model.UNKNOWN, "r"), (), None,
                        ex.GRID_TOP, "it moves 99.8 % of the curve's top")
    assert first._experiment(SimpleNamespace(experiment=top)).startswith(
        "**persistent-grid-bound** (the rules said undetermined)")

"""The launch-floor fit and every verdict rule, on crafted inputs."""

import dataclasses

import numpy as np
import pytest

from ewbench.analysis.core import validate as validate_names

from ewbench.analysis.report import model
from ewbench.analysis.core import noise
from ewbench.analysis.core.load import Ceiling, Point

GB = 1e9
MiB = 1 << 20


def make_point(**over):
    base = dict(run_id="r", variant="v", op="add", dtype="f32", n=1 << 20,
                block=256, cache="warm", launch="stream", grid=4096,
                footprint_bytes=12 * MiB, bytes_moved=12 * MiB,
                flops=1 << 20, iters=100, time_median_ns=5000.0,
                time_min_ns=None, time_max_ns=None, time_mean_ns=None,
                time_stddev_ns=None, activity_median_ns=None, bandwidth_median_bytes_per_s=None,
                bandwidth_max_bytes_per_s=None, spec_dram_pct=None,
                check="pass")
    base.update(over)
    return Point(**base)


# fit

def test_fit_recovers_known_launch_floor_and_bandwidth():
    v = np.array([1, 4, 16, 64, 256]) * 12 * MiB
    t = 3000.0 + v / 3.0e12 * 1e9
    fit = model.fit_launch_model(v, t)
    assert fit.t0_ns == pytest.approx(3000.0, rel=1e-9)
    assert fit.bandwidth == pytest.approx(3.0e12, rel=1e-9)
    assert fit.l2_bandwidth is None
    assert fit.max_rel_residual < 1e-9
    assert fit.usable


def test_fit_with_noise_stays_close():
    rng = np.random.default_rng(7)
    v = np.geomspace(1 * MiB, 3 << 30, 12)
    t = (2500.0 + v / 2.0e12 * 1e9) * (1 + rng.normal(0, 0.01, len(v)))
    fit = model.fit_launch_model(v, t)
    assert fit.t0_ns == pytest.approx(2500.0, rel=0.05)
    assert fit.bandwidth == pytest.approx(2.0e12, rel=0.03)


def test_fit_two_levels_shares_t0():
    v = np.array([1, 2, 4, 64, 256, 1024]) * MiB * 3.0
    in_l2 = v < 50 * MiB
    bw = np.where(in_l2, 8.0e12, 3.0e12)
    t = 2000.0 + v / bw * 1e9
    fit = model.fit_launch_model(v, t, in_l2)
    assert fit.t0_ns == pytest.approx(2000.0, rel=1e-6)
    assert fit.bandwidth == pytest.approx(3.0e12, rel=1e-6)
    assert fit.l2_bandwidth == pytest.approx(8.0e12, rel=1e-6)
    assert fit.predict_ns(v[0], True) == pytest.approx(t[0])
    # one slope through both levels would miss t0 badly
    single = model.fit_launch_model(v, t)
    assert abs(single.t0_ns - 2000.0) > 100


def test_fit_needs_two_sizes_and_flags_bad_intercepts():
    assert model.fit_launch_model([100, 100], [5.0, 6.0]) is None
    assert model.fit_launch_model([100], [5.0]) is None
    v = np.array([1.0, 2.0]) * 1e9
    fit = model.fit_launch_model(v, [1000.0, 500.0])    # time falls: slope < 0
    assert fit.bandwidth is None and not fit.usable
    fit = model.fit_launch_model(v, [100.0, 1100.0])    # t0 < 0
    assert fit.t0_ns < 0 and not fit.usable


def test_fit_series_groups_by_variant_block_cache():
    pts = [make_point(variant=var, n=n, cache=c, bytes_moved=12 * n,
                      footprint_bytes=12 * n,
                      time_median_ns=1000.0 + 12 * n / 2.0e12 * 1e9)
           for var in ("a", "b") for c in ("warm", "cold")
           for n in (1 << 24, 1 << 26, 1 << 28)]
    fits = model.fit_series(pts, l2_bytes=50 * MiB)
    assert set(fits) == {(v, 256, c, "stream") for v in "ab"
                         for c in ("warm", "cold")}
    assert fits[("a", 256, "warm", "stream")].bandwidth == \
        pytest.approx(2.0e12)


def test_fit_with_as_many_points_as_parameters_is_not_a_floor():
    # Three sizes, one in L2 (warm): t0, B_dram and B_l2 fit exactly.
    v = [12 * MiB, 192 * MiB, 3072 * MiB]
    fit = model.fit_launch_model(v, [5000.0, 70000.0, 1000000.0],
                                 [True, False, False])
    assert (fit.points, fit.parameters) == (3, 3)
    assert fit.max_rel_residual < 1e-9
    assert not fit.usable and "exact fit" in fit.unusable_reason
    # One level, three points, two parameters: usable.
    fit = model.fit_launch_model(v, [5000.0, 70000.0, 1000000.0])
    assert fit.parameters == 2 and fit.usable


def test_launch_floor_follows_the_launch_mode():
    c = {"launch_stream": Ceiling("launch_stream", 4000.0, "ns", None, None),
         "launch_graph": Ceiling("launch_graph", 800.0, "ns", None, None)}
    assert model.measured_launch_floor(c, "stream").value == 4000.0
    assert model.measured_launch_floor(c, "graph").value == 800.0
    assert model.measured_launch_floor({}, "graph") is None


def test_served_by_l2():
    assert model.served_by_l2(make_point(), 50 * MiB)
    assert not model.served_by_l2(make_point(cache="cold"), 50 * MiB)
    assert not model.served_by_l2(make_point(footprint_bytes=60 * MiB),
                                  50 * MiB)
    assert not model.served_by_l2(make_point(), None)


# ceilings

def ceilings(**values):
    return {k: Ceiling(k, v, "byte/s", None, None) for k, v in values.items()}


def test_dram_ceiling_prefers_measured_per_op():
    c = ceilings(dram_add=3.0e12, dram_copy=2.9e12)
    assert model.dram_ceiling(c, 3.35e12, "add").source == "measured dram_add"
    assert model.dram_ceiling(c, 3.35e12, "relu").value == 2.9e12
    only_add = ceilings(dram_add=3.0e12)
    assert model.dram_ceiling(only_add, 3.35e12, "abs").value == 3.0e12
    spec = model.dram_ceiling(None, 3.35e12, "add")
    assert (spec.value, spec.measured) == (3.35e12, False)
    assert "spec" in spec.source
    assert model.dram_ceiling({}, None, "add") is None


# verdict rules

DRAM = model.Bound(3.0e12, "measured dram_add", True)


def facts(**over):
    base = dict(time_ns=100e3, bytes_moved=200 * MiB,
                footprint_bytes=200 * MiB,
                bandwidth=2.0e12, l2_bytes=50 * MiB, dram_ceiling=DRAM,
                launch_floor_ns=2500.0, launch_floor_source="measured")
    base.update(over)
    return model.PointFacts(**base)


def test_launch_bound_within_factor_of_floor():
    v = model.classify(facts(time_ns=4400.0, bandwidth=2.6e12))
    assert v.name == model.LAUNCH_BOUND
    assert "4.40 µs <= 90% of 2.0 x launch floor 2.50 µs (measured)" in \
        v.rule
    # within LAUNCH_BAND of the limit, below or above: not launch-bound
    assert model.rule_launch(facts(time_ns=4600.0)) is None
    assert model.rule_launch(facts(time_ns=5100.0)) is None


def test_launch_bound_fallback_without_floor():
    f = facts(time_ns=9000.0, launch_floor_ns=None, launch_floor_source=None)
    v = model.classify(f)
    assert v.name == model.LAUNCH_BOUND and "no launch floor known" in v.rule
    f = facts(time_ns=11000.0, launch_floor_ns=None)
    assert model.rule_launch(f) is None


# The L2 ceiling of these two (the H100's measured l2_read, as L2 below).
L2_H100 = model.Bound(7.9e12, "measured l2_read", True)


def test_l2_bound_by_bandwidth_above_dram():
    v = model.classify(facts(footprint_bytes=24 * MiB, bandwidth=4.5e12,
                             l2_ceiling=L2_H100))
    assert v.name == model.L2_BOUND
    assert "footprint 24 MiB < L2 50 MiB" in v.rule
    assert "4500 GB/s > DRAM ceiling 3000 GB/s" in v.rule


def test_l2_bound_by_dram_bytes():
    # below the DRAM ceiling, at 53 % of an L2 ceiling of 5 TB/s
    v = model.classify(facts(footprint_bytes=24 * MiB, bandwidth=2.65e12,
                             dram_bytes=10 * MiB, l2_ceiling=model.Bound(
                                 5.0e12, "measured l2_read", True)))
    assert v.name == model.L2_BOUND
    assert "= 5% of bytes moved (< 50%)" in v.rule


def test_never_l2_bound_without_a_measured_l2_ceiling():
    """The footprint says where the data came from, not what set the
    time: without a measured L2 ceiling nothing tests the half of it the
    rule needs (issue 52: a user's 1Mi add at a tenth of the H200's L2
    ceiling was called L2-bound so)."""
    f = facts(footprint_bytes=24 * MiB, bandwidth=4.5e12)
    assert model.rule_l2(f) is None
    v = model.classify(f)
    assert v.name == model.UNKNOWN
    assert "no measured L2 ceiling" in v.rule


def test_not_l2_bound_when_footprint_exceeds_l2_or_data_from_dram():
    assert model.rule_l2(facts(footprint_bytes=60 * MiB,
                               bandwidth=4.5e12)) is None
    assert model.rule_l2(facts(footprint_bytes=24 * MiB, bandwidth=2.0e12,
                               dram_bytes=150 * MiB)) is None
    assert model.rule_l2(facts(l2_bytes=None, bandwidth=4.5e12)) is None


def test_dram_bound_at_80_percent():
    v = model.classify(facts(bandwidth=2.5e12))
    assert v.name == model.DRAM_BOUND
    assert "83% of DRAM ceiling 3000 GB/s (measured dram_add) >= 80%" in v.rule
    # within 2.5 % of 80 %, either side: too close to call, said so
    for near in (2.39e12, 2.4e12, 2.45e12):
        assert model.rule_dram(facts(bandwidth=near)) is None
    assert "borderline DRAM-bound" in model.rules.rule_fallback(
        facts(bandwidth=2.45e12)).rule
    assert model.rule_dram(facts(bandwidth=2.47e12)) is not None
    assert model.rule_dram(facts(dram_ceiling=None)) is None


def test_occupancy_bound():
    v = model.classify(facts(bandwidth=1.8e12, occupancy_pct=45.0,
                             bytes_per_inst=10.0))
    assert v.name == model.OCCUPANCY_BOUND      # before issue-bound
    assert "achieved occupancy 45% < 50%" in v.rule
    assert "60% of DRAM ceiling" in v.rule
    v = model.classify(facts(bandwidth=1.8e12, occupancy_pct=50.0,
                             occupancy_kind="theoretical"))
    assert v.name != model.OCCUPANCY_BOUND


def test_issue_bound_needs_a_leaner_sibling_at_the_ceiling():
    v = model.classify(facts(bandwidth=1.5e12, occupancy_pct=80.0,
                             bytes_per_inst=9.6,
                             full_speed_bytes_per_inst=14.0))
    assert v.name == model.ISSUE_BOUND
    assert "9.6 bytes moved per issued warp instruction < 16" in v.rule
    assert model.rule_issue(facts(bytes_per_inst=16.0,
                                  full_speed_bytes_per_inst=40.0)) is None
    # A sibling reaches the ceiling with about as few bytes per
    # instruction (cub_add_f16: 7 B): the issue rate is not the limit.
    assert model.rule_issue(facts(bytes_per_inst=7.1,
                                  full_speed_bytes_per_inst=7.0)) is None
    # No sibling at the ceiling: nothing shows that issue is the limit.
    assert model.rule_issue(facts(bytes_per_inst=7.1)) is None


def test_far_below_the_best_sibling_is_not_dram_bound():
    # 83 % of the ceiling, but a sibling moves the same bytes at 100 %.
    f = facts(bandwidth=2.49e12, best_sibling="add_f16x8_ilp2",
              best_sibling_bandwidth=3.0e12, occupancy_pct=17.0,
              faster_sibling=("add_f16x8_ilp2", 20.5))
    assert model.rule_dram(f) is None
    v = model.classify(f)
    assert v.name == model.OCCUPANCY_BOUND
    assert "83% of the best sibling add_f16x8_ilp2" in v.rule
    # 95 % of a sibling that is not faster beyond the noise and 3 %
    near = facts(bandwidth=2.85e12, best_sibling="x",
                 best_sibling_bandwidth=3.0e12)
    assert model.classify(near).name == model.DRAM_BOUND
    assert "no sibling moving the same bytes is faster beyond the noise " \
        "and 3%" in model.classify(near).rule
    # the experiments' criterion: 3.5 % faster beyond the noise refutes it
    assert model.rule_dram(dataclasses.replace(
        near, faster_sibling=("x", 3.5))) is None


def test_warm_slower_than_cold_is_launch_bound():
    v = model.classify(facts(time_ns=13e3, cold_time_ns=8e3,
                             launch_floor_ns=4000.0))
    # cold_time_ns is set only for warm points slower than cold beyond
    # the noise (point_facts); classify_run shows it on a run.
    assert v.name == model.LAUNCH_BOUND and "host-timing artefact" in v.rule


def test_fallback_names_what_it_saw():
    v = model.classify(facts(bandwidth=1.5e12, occupancy_pct=80.0,
                             bytes_per_inst=40.0, kib_in_flight_per_sm=12.0))
    assert v.name == model.UNKNOWN == "undetermined"
    assert v.rule.startswith("no rule separates the causes; measured: "
                             "bandwidth 1500 GB/s = 50%")
    assert "about 12 KiB of loads in flight per SM" in v.rule


def test_dram_bound_wins_over_counters():
    v = model.classify(facts(bandwidth=2.7e12, occupancy_pct=30.0,
                             bytes_per_inst=5.0))
    assert v.name == model.DRAM_BOUND


def test_kib_in_flight():
    p = make_point(n=1 << 24, bytes_moved=12 << 24, grid=(1 << 24) // 256,
                   block=256)
    # 8 read bytes per thread x 0.5 x 2048 threads = 8 KiB
    assert model.kib_in_flight_per_sm(p, 50.0, 2048) == pytest.approx(8.0)
    looped = make_point(n=1 << 28, bytes_moved=12 << 28, grid=132, block=256)
    assert model.kib_in_flight_per_sm(looped, 50.0, 2048) is None
    assert model.kib_in_flight_per_sm(make_point(grid=None), 50.0, 2048) \
        is None


def test_classify_run_gives_every_point_a_rule(fixture_run):
    verdicts = model.classify_run(fixture_run)
    assert len(verdicts) == len(fixture_run.points)
    assert all(v.name in model.VERDICTS and v.rule for _, v in verdicts)
    names = {v.name for _, v in verdicts}
    # The fixture's L2-resident points run at 36-47 % of its L2 ceiling:
    # not L2-bound, and never DRAM-bound (their data came from L2).
    assert {model.LAUNCH_BOUND, model.FIXED_COST_BOUND, model.DRAM_BOUND,
            model.OCCUPANCY_BOUND} <= names
    assert model.L2_BOUND not in names


def test_verdicts_agree_with_siblings(fixture_run):
    """No DRAM-bound point is far below its best sibling, and no point is
    issue-bound while a DRAM-bound sibling issues about as many
    instructions per byte."""
    from ewbench.analysis.core import select as sel
    verdicts = dict((p.key, v) for p, v in model.classify_run(fixture_run))
    groups = {}
    for p in fixture_run.points:
        groups.setdefault(model.sibling_key(p), []).append(p)
    for group in groups.values():
        best = max(p.bandwidth for p in group)
        bound = [p for p in group
                 if verdicts[p.key].name == model.DRAM_BOUND]
        for p in bound:
            assert p.bandwidth >= (model.SIBLING_FRACTION -
                                   model.SIBLING_BAND) * best
        leanest = [sel.metric(fixture_run, p, sel.M_BYTES_PER_INST)
                   for p in bound]
        leanest = min([v for v in leanest if v is not None], default=None)
        for p in group:
            if verdicts[p.key].name == model.ISSUE_BOUND and \
                    leanest is not None:
                assert sel.metric(
                    fixture_run, p, sel.M_BYTES_PER_INST) < \
                    model.ISSUE_MARGIN * leanest


def test_fit_drops_an_l2_slope_resting_on_one_size():
    v = np.array([12, 192, 3072]) * MiB * 1.0
    in_l2 = v < 50 * MiB
    t = np.array([20000.0, 70000.0, 1.05e6])     # odd first point
    fit = model.fit_launch_model(v, t, in_l2)
    assert fit.l2_bandwidth is None and fit.bandwidth is not None


def test_a_fit_faster_than_the_spec_is_not_a_floor():
    v = np.array([1, 4, 16, 64]) * 12 * MiB
    t = 3000.0 + v / 3.6e12 * 1e9 * np.array([1.0, 1.01, 0.99, 1.0])
    pts = [make_point(n=int(x) // 12, bytes_moved=int(x),
                      footprint_bytes=int(x), cache="cold", time_median_ns=y)
           for x, y in zip(v, t)]
    fit = model.fit_series(pts, 50 * MiB, spec=3.35e12)[
        ("v", 256, "cold", "stream")]
    assert not fit.usable and "above the spec peak" in fit.unusable_reason
    fit = model.fit_series(pts, 50 * MiB, spec=4.0e12)[
        ("v", 256, "cold", "stream")]
    assert fit.usable


def test_rows_above_the_dram_ceiling_are_explained_or_flagged():
    from ewbench.analysis.core.load import Ceiling, MetricValue, Run
    n = 16 << 20                       # 192 MiB: past a 50 MiB L2
    moved = 12 * n
    fast = make_point(n=n, cache="cold", bytes_moved=moved,
                      footprint_bytes=moved,
                      time_median_ns=moved / 3.2e12 * 1e9)
    other = dataclasses.replace(fast, variant="w")
    near = dataclasses.replace(fast, variant="near",
                               time_median_ns=moved / 3.06e12 * 1e9)
    ok = dataclasses.replace(fast, variant="ok",
                             time_median_ns=moved / 2.9e12 * 1e9)
    warm_l2 = make_point(variant="l2", cache="warm", n=1 << 20)
    output = moved / 3
    metrics = {fast.key: {"dram__bytes_write.sum": MetricValue(
        0.5 * output, "byte", "cupti")},
        other.key: {"dram__bytes_write.sum": MetricValue(
            output, "byte", "cupti")},
        near.key: {"dram__bytes_write.sum": MetricValue(
            output, "byte", "cupti")}}
    run = Run("x", {"run_id": "r", "device": {"l2_bytes": 50 * MiB}},
              (fast, other, ok, warm_l2, near), metrics,
              {"dram_add": Ceiling("dram_add", 3.0e12, "byte/s", None,
                                   None)})
    above = {a.point.variant: a for a in model.above_dram_ceiling(
        run, noise.run_floor(run))}
    assert set(above) == {"v", "w", "near"}   # not ok, not the L2 point
    assert above["v"].kind == model.WRITES_IN_L2 and \
        "50% of its output" in above["v"].reason
    # all output in DRAM and 2 % above: faster than the ceiling's kernel
    assert above["near"].kind == model.BEATS_CEILING and \
        "2.0% faster than the ceiling's kernel" in above["near"].reason
    # all output in DRAM and 6.7 % above: too far to be a better kernel
    assert not above["w"].explained and "do not explain" in \
        above["w"].reason
    assert above["v"].share == pytest.approx(3.2 / 3.0)


# The H100's curve (call 1 of issue 39, add, 128-byte requests), GB/s.
H100_ADD_R128 = ((2, 836), (4, 1474), (8, 2222), (12, 2533), (16, 2774),
                 (24, 2799), (32, 2744), (48, 2715), (64, 2668),
                 (128, 2628))


def _curve(shape="add", request=128, levels=H100_ADD_R128):
    return {name: Ceiling(name, gb * 1e9, "byte/s", None, None, 0.2)
            for name, gb in ((validate_names.inflight_name(shape, k,
                                                           request), gb)
                             for k, gb in levels)}


def _on_curve(kib, request=128, op="add", dram=3.06e12):
    return model.place(_curve(), op, request, kib,
                       model.Bound(dram, "measured dram_add", True))


def test_curve_reads_between_its_levels():
    series = model.curves(_curve())[("add", 128)]
    assert series.top.bandwidth == 2799e9
    # linear between 8 and 12 KiB; proportional below 2; flat above 128
    assert series.bandwidth_at(10) == pytest.approx((2222 + 2533) / 2 * 1e9)
    assert series.bandwidth_at(1) == pytest.approx(418e9)
    assert series.bandwidth_at(500) == 2628e9
    # 95 % of the top (2659 GB/s): between 12 and 16 KiB
    assert 12 < series.kib_for(0.95) < 16
    # the share of the top, applied to the op's DRAM ceiling
    placed = _on_curve(12.2)
    assert placed.exact and placed.share == pytest.approx(
        series.bandwidth_at(12.2) / 2799e9)
    assert placed.bandwidth == pytest.approx(placed.share * 3.06e12)
    # another request size: the nearest measured, said so
    other = _on_curve(12.2, request=64)
    assert not other.exact and "nearest" in other.text
    assert model.place({}, "add", 128, 12.0, 3e12) is None
    assert model.place(_curve(), "relu", 128, 12.0, 3e12) is None  # no copy


def test_curve_predictions_scale_by_the_largest_requests_top():
    """A persistent grid streams below the one-tile ceilings: the 512-byte
    series' top is the scale; 64-byte requests top out lower still, and
    the prediction keeps that."""
    c = dict(_curve(request=512, levels=((2, 770), (8, 2162), (24, 2899),
                                         (64, 2878))),
             **_curve(request=64, levels=((2, 857), (8, 2155), (16, 2584),
                                          (64, 2204))))
    placed = model.place(c, "add", 64, 8.0, model.Bound(3.06e12, "x", True))
    assert placed.share == pytest.approx(2155 / 2584)
    assert placed.bandwidth == pytest.approx(2155e9 * 3.06e12 / 2899e9)
    assert placed.requests_limit == pytest.approx(2584 / 2899)
    assert "requests of 64 bytes top out at 89% of the 512-byte ones'" in \
        placed.text
    top = model.place(c, "add", 512, 24.0, model.Bound(3.06e12, "x", True))
    assert top.bandwidth == 3.06e12 and top.requests_limit is None


def test_latency_bound_on_the_curve_and_the_dram_band():
    """The H100's add_f32 at 2^28: 12.2 KiB in flight reach 91 % of the
    curve's top, 2784 GB/s of dram_add's 3061; it moves 2720: latency-
    bound, where Little's law at 80 % called it DRAM-bound (band)."""
    dram = model.Bound(3.06e12, "measured dram_add", True)
    base = dict(time_ns=1e6, bytes_moved=3 << 30, footprint_bytes=3 << 30,
                l2_bytes=50 * MiB, dram_ceiling=dram, launch_floor_ns=2000.0,
                best_sibling="cub_add_f32", best_sibling_bandwidth=3.077e12,
                occupancy_pct=76.0, faster_sibling=("cub_add_f32", 13.1))
    f = model.PointFacts(bandwidth=2.72e12, kib_in_flight_per_sm=12.2,
                         on_curve=_on_curve(12.2, dram=3.06e12), **base)
    v = model.classify(f)
    assert v.name == model.LATENCY_BOUND
    assert "12 KiB of loads in flight" in v.rule and "2782 GB/s" in v.rule
    assert "the curve reaches 95% of its top at 14 KiB" in v.rule
    # far faster than its loads in flight allow: the estimate is not
    # trusted; with cub 13 % faster, not DRAM-bound either
    f = dataclasses.replace(f, on_curve=_on_curve(8.0, dram=3.06e12))
    assert model.rule_latency(f) is None
    assert model.classify(f).name == model.UNKNOWN
    # enough in flight by the curve: not latency-bound, even with stalls
    f = dataclasses.replace(f, on_curve=_on_curve(24.0, dram=3.06e12),
                            stalls=(("long_scoreboard", 90.0),))
    assert model.rule_latency(f) is None
    # 84 % of the best sibling, nothing else: undetermined
    f = dataclasses.replace(f, bandwidth=0.84 * 3.077e12, stalls=())
    assert model.classify(f).name == model.UNKNOWN


def test_not_latency_bound_below_its_curve():
    # A kernel well short of what its 6.2 KiB in flight allow (2020 GB/s
    # of this ceiling, 0.84 of it): its loads in flight allow more than it
    # moves, so they are not what it lacks, by the curve or the stalls.
    f = facts(bandwidth=1.70e12, kib_in_flight_per_sm=6.2,
              on_curve=_on_curve(6.2, dram=3.0e12), occupancy_pct=77.0,
              stalls=(("long_scoreboard", 90.0),))
    assert f.bandwidth / f.on_curve.bandwidth < 1 - model.CURVE_TOLERANCE
    assert model.rule_latency(f) is None
    assert model.classify(f).name != model.LATENCY_BOUND
    # at 0.91 of it: latency-bound
    f = dataclasses.replace(f, bandwidth=0.91 * f.on_curve.bandwidth)
    assert model.classify(f).name == model.LATENCY_BOUND


def test_not_latency_bound_past_the_knee_where_the_curve_falls():
    # The curve falls past its peak (its own grid's: 2628 GB/s at 128 KiB,
    # 0.94 of its 2799 top); a point there holds far more than the 12-16
    # KiB the knee needs (the H200's abs_f32_tma at 2^28: 60 KiB where 15
    # suffice): no shortfall of loads in flight, whatever its share.
    placed = _on_curve(200.0)
    assert placed.share < model.CURVE_ENOUGH
    f = facts(bandwidth=1.05 * placed.bandwidth, kib_in_flight_per_sm=200.0,
              on_curve=placed, occupancy_pct=95.0)
    assert model.rule_latency(f) is None
    assert model.classify(f).name != model.LATENCY_BOUND
    # below the knee, the same share is a shortfall
    short = _on_curve(8.0)
    assert short.share < model.CURVE_ENOUGH
    f = facts(bandwidth=1.05 * short.bandwidth, kib_in_flight_per_sm=8.0,
              on_curve=short, occupancy_pct=95.0)
    assert model.rule_latency(f).name == model.LATENCY_BOUND


def test_occupancy_never_for_a_grid_under_one_wave_nor_a_met_curve():
    # 13 cold 1Mi points on the H100: 128-512 blocks against 1056 slots
    low = dict(occupancy_pct=30.0, grid=512, block_slots=1056)
    assert model.rule_occupancy(facts(**low)) is None
    assert model.rule_occupancy(facts(**dict(low, grid=4096))).name == \
        model.OCCUPANCY_BOUND
    met = dict(low, grid=4096, on_curve=_on_curve(30.0, dram=3.0e12))
    assert model.rule_occupancy(facts(**met)) is None


L2 = model.Bound(7.9e12, "measured l2_read", True)


def test_l2_bound_only_within_reach_of_the_l2_ceiling():
    # add_f32x4_ilp4 at 1Mi warm on the H100: 12.6 MB in 2.46 us, 5.1 TB/s
    # = 65 % of l2_read; the fitted fixed cost explains the rest
    small = dict(time_ns=2460.0, bytes_moved=12582912,
                 footprint_bytes=12582912, bandwidth=12582912 / 2.46e-6,
                 l2_ceiling=L2, launch_floor_ns=782.0)
    v = model.classify(facts(**small, fixed_ns=900.0,
                             fixed_source="its series' fitted intercept"))
    assert v.name == model.FIXED_COST_BOUND and "0.90 µs" in v.rule
    # no fixed cost to speak of: L2-bound at 65 % of its ceiling
    assert model.classify(facts(**small)).name == model.L2_BOUND
    # explaining 79 %, within 5 % below the rule's 80 %: not fixed-cost,
    # and (were it to fall through) borderline
    near = facts(**dict(small, time_ns=3000.0, bandwidth=12582912 / 3e-6),
                 fixed_ns=780.0, fixed_source="fit")
    assert model.rule_fixed_cost(near) is None
    assert "borderline fixed-cost-bound" in \
        model.rules.rule_fallback(near).rule
    # at 40 % of the L2 ceiling, above DRAM: neither L2- nor DRAM-bound
    slow = dict(small, time_ns=4000.0, bandwidth=12582912 / 4e-6)
    v = model.classify(facts(**slow))
    assert v.name == model.UNKNOWN and "below 50%" in v.rule


def model_run(ceilings):
    from ewbench.analysis.core.load import Run
    return Run("x", {"run_id": "r", "device": {"sm_count": 132}}, (), None,
               ceilings)


def test_stall_reasons_decide_latency_and_issue():
    dram = model.Bound(3.0e12, "measured dram_add", True)
    base = dict(time_ns=1e6, bytes_moved=3 << 30, footprint_bytes=3 << 30,
                l2_bytes=50 * MiB, dram_ceiling=dram, launch_floor_ns=2000.0,
                best_sibling="fast", best_sibling_bandwidth=2.9e12,
                occupancy_pct=90.0, bandwidth=2.0e12)
    assert model.classify(model.PointFacts(**base)).name == model.UNKNOWN
    waits = (("long_scoreboard", 70.0), ("not_selected", 10.0),
             ("wait", 5.0))
    v = model.classify(model.PointFacts(stalls=waits, **base))
    assert v.name == model.LATENCY_BOUND and "long_scoreboard 70%" in v.rule
    busy = (("not_selected", 40.0), ("math_pipe_throttle", 30.0),
            ("long_scoreboard", 20.0))
    v = model.classify(model.PointFacts(stalls=busy, **base))
    assert v.name == model.ISSUE_BOUND
    mixed = (("long_scoreboard", 30.0), ("not_selected", 30.0),
             ("wait", 30.0))
    v = model.classify(model.PointFacts(stalls=mixed, **base))
    assert v.name == model.UNKNOWN and "top warp stalls" in v.rule


def test_stalls_decide_without_a_curve():
    # The H100's add_f16 at 2^28 in a study without the concurrency curve:
    # 87 % of stalls wait on loads while a sibling moving the same bytes is 1.7x faster:
    # the memory system has room, the kernel keeps too few loads in flight.
    dram = model.Bound(3.06e12, "measured dram_add", True)
    base = dict(time_ns=885e3, bytes_moved=3 << 29, footprint_bytes=3 << 29,
                l2_bytes=50 * MiB, dram_ceiling=dram, launch_floor_ns=2000.0,
                best_sibling="cub_add_f16", best_sibling_bandwidth=3.08e12,
                occupancy_pct=77.0, kib_in_flight_per_sm=6.0,
                bandwidth=1.82e12, faster_sibling=("cub_add_f16", 69.2))
    waits = (("long_scoreboard", 87.0), ("wait", 5.0),
             ("short_scoreboard", 3.0))
    assert model.classify(model.PointFacts(**base)).name == model.UNKNOWN
    v = model.classify(model.PointFacts(stalls=waits, **base))
    assert v.name == model.LATENCY_BOUND
    # 87 of the 95 % stalled: 92 % of stalls
    assert "92% of warp stalls wait on a global load's result" in v.rule
    assert "59% of the best sibling cub_add_f16" in v.rule
    # At 83 % of the ceiling but 82 % of its sibling (add_f16x2): the
    # sibling still shows room.
    f = model.PointFacts(stalls=waits, **dict(base, bandwidth=2.53e12))
    assert model.classify(f).name == model.LATENCY_BOUND
    # A DRAM-bound kernel waits on loads just as much: at 98 % of its
    # sibling (not faster beyond the noise and 3 %) and 99 % of the
    # ceiling there is no room, and the stalls decide nothing.
    f = model.PointFacts(stalls=waits, **dict(
        base, bandwidth=0.98 * 3.08e12, faster_sibling=None))
    v = model.classify(f)
    assert v.name == model.DRAM_BOUND
    # Issue stalls outweighing the waits: not latency-bound.
    busy = (("long_scoreboard", 50.0), ("lg_throttle", 30.0),
            ("not_selected", 25.0))
    f = model.PointFacts(stalls=busy, **base)
    assert model.rule_latency(f) is None
    assert model.classify(f).name == model.ISSUE_BOUND


def test_block_launch_bound_beats_occupancy_bound():
    """Issue 30: a point that launches blocks at the GPU's block-launch
    rate with block slots empty is block-launch-bound, not occupancy- or
    latency-bound (stall reasons, per active warp, cannot see empty
    slots)."""
    ceiling = model.Bound(1.66e9, "measured block_rate_b32", True)
    # 2^20 blocks at 1.66 blocks/ns: 631.7 us, + 2.5 us for one launch
    at_rate = dict(time_ns=635e3, bandwidth=2.5e12, occupancy_pct=16.0,
                   theoretical_occupancy_pct=50.0, grid=1 << 20,
                   block_rate=1.65e9, block_rate_ceiling=ceiling,
                   best_sibling="cub_add_f16", best_sibling_bandwidth=3.05e12,
                   faster_sibling=("cub_add_f16", 22.0))
    v = model.classify(facts(**at_rate))
    assert v.name == model.BLOCK_LAUNCH_BOUND
    assert "1048576 blocks at the block-launch ceiling 1.66 blocks/ns " \
        "(measured block_rate_b32) take 632 µs, with one launch's fixed " \
        "cost 2.50 µs (measured): 100% of its 635 µs" in v.rule
    assert "achieved occupancy 16% of a theoretical 50%" in v.rule
    # the fitted intercept, where there is one, not the launch floor
    v = model.classify(facts(**dict(at_rate, fixed_ns=1900.0,
                                    fixed_source="its series' fitted "
                                    "intercept")))
    assert "with one launch's fixed cost 1.90 µs (its series' fitted " \
        "intercept)" in v.rule
    # launching its blocks takes 70 % of the time: the occupancy rule
    v = model.classify(facts(**dict(at_rate, time_ns=900e3)))
    assert v.name == model.OCCUPANCY_BOUND
    # slots full: launching blocks is not what holds it back
    v = model.classify(facts(**dict(at_rate, occupancy_pct=45.0)))
    assert v.name == model.OCCUPANCY_BOUND
    # a small grid in the same time: the block rate is not the limit
    v = model.classify(facts(**dict(at_rate, grid=1000)))
    assert v.name != model.BLOCK_LAUNCH_BOUND
    # DRAM-bound stays DRAM-bound where its blocks are not the limit
    # (at 95 % of cub, not faster beyond the noise and 3 %)
    v = model.classify(facts(**dict(at_rate, time_ns=900e3,
                                    bandwidth=2.9e12, faster_sibling=None)))
    assert v.name == model.DRAM_BOUND


def test_block_rate_ceiling_from_the_run_needs_agreement():
    def pt(variant, block, time_ns, grid=1 << 20):
        return make_point(variant=variant, block=block, grid=grid,
                          time_median_ns=time_ns, n=grid * block)
    run = model_run({})
    one = dataclasses.replace(run, points=(pt("a", 32, 600e3),
                                           pt("b", 256, 900e3)))
    # one kernel alone at the top: no shared limit shown
    assert model.block_rate_ceiling(one) is None
    two = dataclasses.replace(run, points=one.points + (
        pt("c", 128, 610e3),))
    c = model.block_rate_ceiling(two)
    assert c is not None and not c.measured
    assert c.value == pytest.approx((1 << 20) / 600e-6)
    assert "a@32, c@128" in c.source
    # a ceiling measured at the point's block size wins; at another
    # size the run's own rate stands in
    measured = dataclasses.replace(two, ceilings={"block_rate_b256": Ceiling(
        "block_rate_b256", 2.0e9, "block/s", None, None)})
    assert model.block_rate_ceiling(measured, 256).value == 2.0e9
    assert model.block_rate_ceiling(measured, 128).value == c.value
    assert model.block_rate_ceiling(measured).value == c.value


def test_issue_rule_abstains_near_its_limit():
    lean = dict(best_sibling="fast", best_sibling_bandwidth=2.9e12,
                occupancy_pct=90.0, bandwidth=1.7e12,
                full_speed_bytes_per_inst=14.9)
    limit = model.ISSUE_MARGIN * 14.9
    # well below the limit: issue-bound
    v = model.classify(facts(bytes_per_inst=0.9 * limit, **lean))
    assert v.name == model.ISSUE_BOUND
    # 1 % below or above it: borderline, said so
    for bpi in (0.99 * limit, 1.01 * limit):
        v = model.classify(facts(bytes_per_inst=bpi, **lean))
        assert v.name == model.UNKNOWN and "borderline issue-bound" in v.rule
    # well above: neither
    v = model.classify(facts(bytes_per_inst=1.2 * limit, **lean))
    assert v.name == model.UNKNOWN and "borderline" not in v.rule


def test_launch_rule_abstains_near_its_limit():
    base = dict(bytes_moved=12 << 20, footprint_bytes=12 << 20,
                l2_bytes=50 * MiB, launch_floor_ns=3000.0,
                launch_floor_source="measured launch_stream",
                bandwidth=2.0e12)
    # 5 % below 2 x 3 us: launch-bound on one host, not on the next
    for t in (5700.0, 6300.0):
        v = model.classify(model.PointFacts(time_ns=t, **base))
        assert v.name != model.LAUNCH_BOUND
    v = model.classify(model.PointFacts(time_ns=5700.0, **dict(
        base, l2_bytes=1 * MiB)))
    assert v.name == model.UNKNOWN and "borderline launch-bound" in v.rule
    # well below: launch-bound
    v = model.classify(model.PointFacts(time_ns=5000.0, **base))
    assert v.name == model.LAUNCH_BOUND


def test_a_kernel_duration_is_held_against_the_gpus_launch_cost():
    # A kernel's own duration: launch_graph (0.8 us), not the host's 4 us
    # stream interval, which is not in it.
    ceilings = {name: Ceiling(name, value, unit, None, None) for name,
                value, unit in (("launch_graph", 800.0, "ns"),
                                ("launch_stream", 4000.0, "ns"),
                                ("block_rate_b256", 1.6e9, "block/s"))}
    run = model_run(ceilings)
    point = make_point(variant="add_f32", block=256, grid=4096,
                       n=4096 * 256, time_median_ns=3500.0,
                       time_source="kernel")
    assert model.launch_floor(run, point, {}) == (
        800.0, "measured launch_graph")
    # a time from host events holds the host's launch path
    events = dataclasses.replace(point, time_source="events")
    assert model.launch_floor(run, events, {})[0] == 4000.0


def test_a_small_grid_is_block_launch_bound_when_its_launch_fills_the_time():
    rate = model.Bound(1.6e9, "measured block_rate_b256", True)
    base = dict(bytes_moved=12 * MiB, footprint_bytes=12 * MiB,
                l2_bytes=50 * MiB, launch_floor_ns=800.0,
                launch_floor_source="measured launch_graph",
                block_rate_ceiling=rate, grid=4096,
                dram_ceiling=model.Bound(3.0e12, "measured dram_add", True))
    # 0.8 us + 4096 / 1.6 blocks/ns = 3.36 us of a 3.6 us kernel: 93 %
    f = model.PointFacts(time_ns=3600.0, bandwidth=12 * MiB / 3.6e-6,
                         **base)
    v = model.classify(f)
    assert v.name == model.BLOCK_LAUNCH_BOUND and "93%" in v.rule
    # the same grid in a 6 us kernel: its launch is not what sets it
    f = model.PointFacts(time_ns=6000.0, bandwidth=12 * MiB / 6e-6, **base)
    assert model.classify(f).name != model.BLOCK_LAUNCH_BOUND
    # 3.36 us of a 4 us kernel (84 %): not alone; with the last block's
    # loads (0.35 us of measured dram_latency), 93 %: block-launch-bound
    slow = dict(time_ns=4000.0, bandwidth=12 * MiB / 4e-6, **base)
    assert model.classify(model.PointFacts(**slow)).name != \
        model.BLOCK_LAUNCH_BOUND
    v = model.classify(model.PointFacts(load_latency_ns=350.0, **slow))
    assert v.name == model.BLOCK_LAUNCH_BOUND and \
        "one load's 0.35 µs (measured dram_latency): 93%" in v.rule


def test_a_warm_point_inside_the_l2_is_never_dram_bound():
    dram = model.Bound(4.4e12, "measured dram_add", True)
    base = dict(time_ns=1800.0, bytes_moved=6 * MiB, footprint_bytes=6 * MiB,
                l2_bytes=60 * MiB, dram_ceiling=dram, bandwidth=3.7e12,
                launch_floor_ns=500.0,
                best_sibling="fast", best_sibling_bandwidth=3.8e12)
    assert model.classify(model.PointFacts(cache="warm", **base)).name == \
        model.UNKNOWN
    # cold: the flush sent it to DRAM
    assert model.classify(model.PointFacts(cache="cold", **base)).name == \
        model.DRAM_BOUND
    # counters saw DRAM move most of its bytes: DRAM may bound it
    assert model.classify(model.PointFacts(
        cache="warm", dram_bytes=5.0 * MiB, **base)).name == \
        model.DRAM_BOUND


def test_a_point_above_the_ceiling_is_judged_on_the_bytes_its_window_moved():
    """Issue 40: 16Mi cold points were DRAM-bound at 105-116 % of the
    ceiling (add_f16_tma: 115.7 %, 45 % of its output written to DRAM in
    the window).  The verdict counts only the bytes the window moved: the
    reads and the 45 % of the output written, 94.5 % of the ceiling; and
    no point is DRAM-bound farther above 100 % than a faster kernel than
    the ceiling's explains."""
    from ewbench.analysis.core.load import Ceiling, MetricValue, Run
    n = 16 << 20
    moved = 6 * n                   # fp16 add: 96 MiB, past a 50 MiB L2
    late = make_point(variant="late", dtype="f16", n=n, cache="cold",
                      bytes_moved=moved, footprint_bytes=moved,
                      grid=None, time_median_ns=moved / (1.157 * 3e12) * 1e9)
    blind = dataclasses.replace(late, variant="blind")   # no write counter
    beats = dataclasses.replace(late, variant="beats",
                                time_median_ns=moved / (1.012 * 3e12) * 1e9)
    output = moved / 3
    metrics = {late.key: {"dram__bytes_write.sum": MetricValue(
        0.45 * output, "byte", "cupti")},
        beats.key: {"dram__bytes_write.sum": MetricValue(
            output, "byte", "cupti")}}
    run = Run("x", {"run_id": "r", "device": {"l2_bytes": 50 * MiB}},
              (late, blind, beats), metrics,
              {"dram_add": Ceiling("dram_add", 3.0e12, "byte/s", None,
                                   None)})
    window = model.late_writes(run, late)
    assert window.written == pytest.approx(0.45)
    assert window.bytes == pytest.approx(moved * (2 / 3 + 0.45 / 3))
    assert model.late_writes(run, blind) is None
    verdicts = {p.variant: v for p, v in model.classify_run(run)}
    # beats is alone in its run: late and blind, moving the same bytes,
    # finish 14 % sooner, and beside them it is not DRAM-bound
    assert verdicts["beats"].name != model.DRAM_BOUND
    alone = dataclasses.replace(run, points=(beats,))
    verdicts["beats"] = model.classify_run(alone)[0][1]
    assert verdicts["late"].name == model.DRAM_BOUND
    assert "45% of its output written to DRAM inside the window" in \
        verdicts["late"].rule and "= 94% of DRAM ceiling" in \
        verdicts["late"].rule, verdicts["late"].rule
    # 115.7 % with nothing to say the window moved less: not DRAM-bound
    assert verdicts["blind"].name != model.DRAM_BOUND
    # all of its output inside the window, 1.2 % above: DRAM-bound, and
    # the rule says why it may stand above the ceiling
    assert verdicts["beats"].name == model.DRAM_BOUND and \
        "101.2% of the ceiling, above it by less than 3%" in \
        verdicts["beats"].rule
    # a point of warm data in L2 is not judged on its DRAM writes
    warm = make_point(variant="l2", cache="warm")
    assert model.late_writes(Run("x", run.manifest, (warm,), {
        warm.key: {"dram__bytes_write.sum": MetricValue(0.0, "byte",
                                                          "cupti")}},
        run.ceilings), warm) is None


def test_a_cold_point_whose_writes_stay_in_l2_is_named_for_it():
    """Issue 51: 16Mi cold points whose window wrote part of their output
    were undetermined; the regime is named."""
    w = model.Window(bytes=160 * MiB, written=0.45, time_ns=60e3)
    f = facts(cache="cold", window=w, bandwidth=3.3e12, time_ns=60e3,
              faster_sibling=("x", 5.0))
    v = model.classify(f)
    assert v.name == model.WRITES_DEFERRED
    assert "45% of its output written to DRAM inside the window" in v.rule
    # warm, or inside the L2: not this regime
    assert model.rule_writes_deferred(dataclasses.replace(
        f, cache="warm")) is None
    assert model.rule_writes_deferred(dataclasses.replace(
        f, footprint_bytes=10 * MiB)) is None


def test_a_fit_gives_its_fixed_cost_only_when_it_holds():
    """Issue 51: 3-point cold fits distorted by writes left in L2 (a DRAM
    slope above the measured ceiling) or far off their points gave the
    fixed-cost rule its intercept."""
    good = model.fit.LaunchFit(2000.0, 3.0e12, None, 4, 0.04)
    assert model.fit_holds(good, DRAM)
    # a slope 5 % above the 3000 GB/s ceiling: the times miss bytes
    steep = dataclasses.replace(good, bandwidth=1.05 * DRAM.value)
    assert not model.fit_holds(steep, DRAM)
    assert model.fit_holds(steep)           # no ceiling to judge it by
    loose = dataclasses.replace(good, max_rel_residual=0.2)
    assert not model.fit_holds(loose, DRAM)
    p = make_point(variant="v", block=256, cache="cold")
    fits = {model.fit.series_key(p): steep}
    # its own intercept is not used: the median of the run's usable fits
    # stands in (one distorted series moves a median little)
    assert model.fixed_cost(p, fits, None, DRAM)[1].startswith(
        "median fitted t0")
    assert model.fixed_cost(p, fits)[1] == "its series' fitted intercept"

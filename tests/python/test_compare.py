"""compare flags a planted 20 % regression, not a 0.1 % wobble, by the
one noise rule of noise.py."""

import dataclasses
import math
import os

import pytest

from ewbench.analysis.core import compare
from ewbench.analysis.core import noise
from ewbench.analysis.core import timing
from ewbench.analysis.core.load import load_run
from conftest import rewrite, scale_times


plant = scale_times


def test_planted_regression_is_flagged_and_wobble_is_not(fixture_dir,
                                                          run_copy):
    slow = ("add_f32", 1 << 24, "warm")
    wobble = ("add_f32", 1 << 28, "warm")
    plant(run_copy, {slow: 1.20, wobble: 1.001})
    a, b = load_run(fixture_dir), load_run(str(run_copy))
    result = compare.compare_runs(a, b)
    assert len(result.changes) == len(a.points)
    flags = {(c.a.variant, c.a.n, c.a.cache, c.a.block): c
             for c in result.changes}
    regression = flags[slow + (256,)]
    assert regression.flag == compare.SLOWER
    assert abs(regression.time_pct - 20.0) < 1e-6
    assert abs(regression.bandwidth_pct + 100 * (1 - 1 / 1.2)) < 1e-6
    assert flags[wobble + (256,)].flag == compare.SAME
    assert [c for c in result.changes if c.flag] == [regression]
    text = compare.render_markdown(result, a, b)
    assert "1 slower, 0 faster" in text and "SLOWER" in text


def test_faster_is_flagged_too(fixture_dir, run_copy):
    plant(run_copy, {("relu_f32", 1 << 28, "cold"): 0.8})
    result = compare.compare_runs(load_run(fixture_dir),
                                  load_run(str(run_copy)))
    assert [c.flag for c in result.changes if c.flag] == [compare.FASTER]


def test_threshold_rule(fixture_run):
    p = fixture_run.points[0]
    quiet = dataclasses.replace(p, time_stddev_ns=0.0, time_min_ns=None,
                                time_max_ns=None)
    # no scatter: the run-to-run floor on both sides decides (the noise
    # model at this median: the run's GPU's floor, or one timer step)
    floor = noise.point_floor(p)
    f = floor.pct_at(p.time_median_ns)
    assert compare.compare_points(quiet, quiet).threshold_pct == \
        pytest.approx(2 * f)
    # schema 1: CI = median +- 1.96 x sqrt(pi/2) x sd / sqrt(iters)
    noisy = dataclasses.replace(p, time_stddev_ns=0.1 * p.time_median_ns)
    half = 1.96 * (math.pi / 2) ** 0.5 * 10.0 / math.sqrt(p.iters)
    assert compare.compare_points(noisy, noisy).threshold_pct == \
        pytest.approx(2 * (half + f))
    ranged = dataclasses.replace(p, time_stddev_ns=None, time_min_ns=100.0,
                                 time_max_ns=500.0)
    t = timing.row_time(ranged)
    assert t.source == timing.EVENTS and t.high_ns - t.median_ns == \
        pytest.approx(1.96 * (math.pi / 2) ** 0.5 * 100.0 /
                      math.sqrt(p.iters))
    # schema 2: the row's own CI, not the spread
    kernel = dataclasses.replace(p, time_source="kernel",
                                 time_ci_low_ns=p.time_median_ns - 10,
                                 time_ci_high_ns=p.time_median_ns + 30,
                                 time_stddev_ns=0.5 * p.time_median_ns)
    slower = dataclasses.replace(kernel, time_median_ns=p.time_median_ns *
                                 1.05, time_ci_low_ns=p.time_median_ns *
                                 1.05 - 10, time_ci_high_ns=p.time_median_ns
                                 * 1.05 + 10)
    c = compare.compare_points(kernel, slower)
    assert c.flag == compare.SLOWER
    assert c.threshold_pct == pytest.approx(
        100 * (40 + floor.ns(p.time_median_ns) +
               floor.ns(1.05 * p.time_median_ns)) / p.time_median_ns)


def test_unmatched_points_and_notes(fixture_dir, run_copy):
    def drop_first_row(text):
        lines = text.split("\n")
        return "\n".join(lines[:1] + lines[2:])
    rewrite(run_copy / "timing.csv", drop_first_row)
    os.remove(run_copy / "metrics.csv")     # its rows name the dropped point
    a, b = load_run(fixture_dir), load_run(str(run_copy))
    result = compare.compare_runs(a, b)
    assert len(result.only_a) == 1 and not result.only_b
    assert any("fixture" in n for n in result.notes)


def test_one_noise_rule_for_compare_contest_and_fleet(fixture_run):
    # compare's flag is noise.separated on the rows' CIs
    p = fixture_run.points[0]
    noisy = dataclasses.replace(p, time_stddev_ns=0.04 * p.time_median_ns)
    ta, tb = timing.row_time(noisy), timing.row_time(p)
    assert compare.compare_points(noisy, p).threshold_pct == \
        pytest.approx(noise.separation_pct(ta, tb, noise.point_floor(p)))
    a = timing.KernelTime(100.0, 99.0, 101.0, timing.KERNEL)
    b = timing.KernelTime(103.5, 102.5, 104.5, timing.KERNEL)
    assert noise.separated(a, b, noise.Floor(0.0))
    assert not noise.separated(a, b, noise.Floor(1.0))
    assert noise.separation_pct(a, b, noise.Floor(1.0)) == pytest.approx(
        1.0 + 1.0 + 1.0 + 1.035)
    # the timer step is a floor of its own: 2 ns here outweighs 1 %
    assert noise.separation_pct(a, b, noise.Floor(1.0, 2.0)) == \
        pytest.approx(1.0 + 2.0 + 1.0 + 2.0)
    # repeats (contest) and the fleet keep the spread rule
    assert noise.noise_limit_pct(None, None) == noise.UNKNOWN_PCT
    assert noise.noise_limit_pct(None, None, floor_pct=3.0,
                                 unknown_pct=None) == 3.0
    assert noise.noise_limit_pct(0.5, None) == noise.DRIFT_PCT
    assert noise.noise_limit_pct(1.0, None) == 3.0
    assert noise.noise_limit_pct(1.0, 1.0, floor_pct=0.0) == \
        pytest.approx(3 * 2 ** 0.5)
    assert noise.beyond_noise(-2.5, 2.0) and not noise.beyond_noise(2.0, 2.0)
    # the other modules take the constants from noise.py, not their own
    from ewbench.analysis.contest import rank as contest
    from ewbench.analysis.fleet import answers as fleet_answers
    assert fleet_answers.SIGMAS is noise.SIGMAS
    for module in (compare, contest, fleet_answers):
        for name in ("MIN_CHANGE_PCT", "UNKNOWN_NOISE_PCT", "WIN_RATIO",
                     "MAX_SPREAD_PCT"):
            assert not hasattr(module, name), (module.__name__, name)


def test_the_noise_model_widens_for_short_kernels():
    """Issue 30: the floor is max(F % of the median, one timer step), F
    per GPU from repeated studies, the largest measured F standing in for
    a GPU without them."""
    h100 = noise.gpu_floor("NVIDIA H100 80GB HBM3", 32.0)
    assert h100.measured and h100.pct == noise.MEASURED_FLOOR_PCT[
        "NVIDIA H100 80GB HBM3"]
    assert h100.pct_at(1e6) == pytest.approx(h100.pct)
    assert h100.pct_at(2000.0) == pytest.approx(1.6)      # 32 ns of 2 µs
    other = noise.gpu_floor("NVIDIA GeForce RTX 5090")
    assert not other.measured and other.pct == noise.UNMEASURED_FLOOR_PCT
    assert "no repeated studies" in other.describe()
    # two kernels 40 ns apart at 2 µs: within one 32 ns step on each
    # side, apart without the step
    a = timing.KernelTime(2000.0, 2000.0, 2000.0, timing.KERNEL)
    b = timing.KernelTime(2040.0, 2040.0, 2040.0, timing.KERNEL)
    assert not noise.separated(a, b, h100)
    assert noise.separated(a, b, noise.gpu_floor("NVIDIA H100 80GB HBM3"))
    m = noise.margin(a, b, h100)
    assert not m.beyond and m.units < 1 and "noise limit" in m.text()

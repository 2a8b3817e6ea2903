"""compare flags a planted 20 % regression, not a 0.1 % wobble, by the
one noise rule of noise.py."""

import dataclasses
import os

import pytest

from ewbench.analysis import compare, noise
from ewbench.analysis.load import load_run
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
    # no scatter: the 2 % floor decides
    assert compare.threshold_ns(quiet, quiet) == \
        0.02 * quiet.time_median_ns
    noisy = dataclasses.replace(p, time_stddev_ns=0.1 * p.time_median_ns)
    assert abs(compare.threshold_ns(noisy, noisy) -
               3 * (2 ** 0.5) * 0.1 * p.time_median_ns) < 1e-6
    ranged = dataclasses.replace(p, time_stddev_ns=None, activity_median_ns=None, time_min_ns=100.0,
                                 time_max_ns=500.0)
    assert compare.noise_ns(ranged) == 100.0
    unknown = dataclasses.replace(p, time_stddev_ns=None, activity_median_ns=None, time_min_ns=None,
                                  time_max_ns=None)
    assert compare.threshold_ns(unknown, unknown) == \
        0.05 * unknown.time_median_ns


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
    # compare's limit is noise.noise_limit_pct on spreads in % of median_a
    p = fixture_run.points[0]
    noisy = dataclasses.replace(p, time_stddev_ns=0.04 * p.time_median_ns)
    assert compare.threshold_ns(noisy, p) == pytest.approx(
        noise.noise_limit_pct(4.0, noise.spread_pct(p)) / 100 *
        p.time_median_ns)
    assert noise.noise_limit_pct(None, None) == noise.UNKNOWN_PCT
    assert noise.noise_limit_pct(None, None, floor_pct=3.0,
                                 unknown_pct=None) == 3.0
    assert noise.noise_limit_pct(0.5, None) == noise.DRIFT_PCT
    assert noise.noise_limit_pct(1.0, None) == 3.0
    assert noise.noise_limit_pct(1.0, 1.0, floor_pct=0.0) == \
        pytest.approx(3 * 2 ** 0.5)
    assert noise.beyond_noise(-2.5, 2.0) and not noise.beyond_noise(2.0, 2.0)
    # the other modules take the constants from noise.py, not their own
    from ewbench.analysis import contest, fleet_answers
    assert fleet_answers.SIGMAS is noise.SIGMAS
    for module in (compare, contest, fleet_answers):
        for name in ("MIN_CHANGE_PCT", "UNKNOWN_NOISE_PCT", "WIN_RATIO",
                     "MAX_SPREAD_PCT"):
            assert not hasattr(module, name), (module.__name__, name)

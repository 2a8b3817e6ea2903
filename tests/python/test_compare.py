"""compare flags a planted 20 % regression, not a 0.1 % wobble."""

import dataclasses
import os

from analysis import compare
from analysis.load import load_run
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

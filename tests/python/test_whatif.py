"""The what-if's ranking (python/ewbench/analysis/whatif.py, over
core/generated.py): generated members ranked by kernel time beside the
user's kernel, the best built-in and cub; a member whose check failed is
never ranked, and one the run left untimed (its check failed: no row) is
not either; the winner's margin by the run's noise rule; every member
predicted from the measured ceilings where the run has them, shown
beside its measurement."""

import dataclasses
import os
import re
import statistics

import numpy as np
import pytest

from ewbench.analysis import whatif
from ewbench.analysis.core import generated as gen
from ewbench.analysis.core import noise
from ewbench.analysis.core import study as stu
from ewbench.analysis.core.load import Point
from ewbench.analysis.report import user_experiments as ux
from ewbench.analysis.report import whatif as section
from ewbench.analysis.report.model import blocks
from conftest import ROOT


def point(variant, ns, block=256, check="pass", n=1 << 28, half=0.001):
    """A warm stream row of `variant` whose kernel median is ns, with a
    95 % interval of +-half of it."""
    return Point(run_id="r", variant=variant, op="custom", dtype="f32", n=n,
                 block=block, cache="warm", launch="stream", grid=None,
                 footprint_bytes=12 * n, bytes_moved=12 * n, flops=0,
                 iters=20, time_median_ns=ns, time_min_ns=None,
                 time_max_ns=None, time_mean_ns=None, time_stddev_ns=None,
                 activity_median_ns=None, bandwidth_median_bytes_per_s=None,
                 bandwidth_max_bytes_per_s=None, spec_dram_pct=None,
                 check=check, time_source="kernel",
                 time_ci_low_ns=ns * (1 - half),
                 time_ci_high_ns=ns * (1 + half))


FLOOR = noise.gpu_floor("NVIDIA H100 80GB HBM3")  # F 0.2 %


def test_ranked_by_time_user_and_peers_beside():
    pts = [point("gen:add:tile_v128_k%d" % k, 1000.0 + 10 * k)
           for k in (1, 2, 4, 8)]
    pts += [point("gen:add:runs_v32_k1", 2000.0),
            point("gen:add:stride_v64_k2", 1500.0),
            point("user:my_add", 3000.0), point("add_f32x4_ilp4", 1005.0),
            point("cub_add_f32", 1030.0, block=None)]
    rows, win, count = whatif.ranking(pts, FLOOR)
    assert count == 6
    assert [r[2] for r in rows] == [
        "gen:add:tile_v128_k1", "gen:add:tile_v128_k2",
        "gen:add:tile_v128_k4", "gen:add:tile_v128_k8",
        "gen:add:stride_v64_k2", "user:my_add", "add_f32x4_ilp4",
        "cub_add_f32"]
    # Places among every point of the group: the built-in (1005 ns) is
    # first, cub (1030) fourth.
    assert [r[0] for r in rows] == [2, 3, 5, 6, 7, 9, 1, 4]
    assert [r[1] for r in rows][-3:] == ["user", "built-in", "cub"]
    # 1010 against 1020: 0.99 %, beyond +-0.1 % intervals and the floor.
    assert win.beyond and abs(win.difference_pct - 100 / 101) < 1e-9


def test_a_failing_member_is_never_ranked():
    """The deliberately wrong op: its members fail their check.  A row
    marked fail is left out however fast it is; with none passing there
    is no table at all."""
    good = point("gen:add:tile_v128_k4", 1000.0)
    wrong = point("gen:add:tile_v128_k8", 10.0, check="fail")
    rows, _, count = whatif.ranking(
        [p for p in [good, wrong] if gen._passed(p)], FLOOR)
    assert count == 1 and [r[2] for r in rows] == ["gen:add:tile_v128_k4"]
    assert whatif.groups([wrong, point("add_f32x4", 5.0)]) == {}
    # A relu moves fewer bytes than the generated add: not beside it.
    relu = dataclasses.replace(point("relu_f32x4", 1.0),
                               bytes_moved=8 << 28)
    assert relu not in whatif.groups([good, relu])[
        (1 << 28, "f32", "warm", "stream")]
    grouped = whatif.groups([good, wrong, point("add_f32x4", 5.0)])
    assert [p.variant for p in grouped[(1 << 28, "f32", "warm", "stream")]] == [
        "gen:add:tile_v128_k4", "add_f32x4"]


def test_within_the_noise_says_so():
    pts = [point("gen:f:a", 1000.0, half=0.01),
           point("gen:f:b", 1001.0, half=0.01)]
    _, win, _ = whatif.ranking(pts, FLOOR)
    assert not win.beyond
    assert "borderline" in win.text()


def test_header_from_run_json():
    manifest = {"elementwise": {
        "file": "op_add.cu", "function": "add", "inputs": 2, "dtype": "f32",
        "arch": "sm_90", "nvrtc": "13.0", "compile_s": 2.5,
        "checked_against": "generated", "variants": ["gen:add:x"] * 36},
        "wall_s": {"total": 41.25}}
    assert whatif._header(manifest) == (
        "op_add.cu:add, 2 input(s) of f32: 36 kernels compiled for sm_90 "
        "in 2.50 s (NVRTC 13.0), checked against generated; the run took "
        "41.2 s")
    # From the compile cache: its seconds are the entry's reading, not a
    # compile's, so the header says where the kernels came from instead.
    manifest["elementwise"].update(cached=True, compile_s=0.01)
    assert whatif._header(manifest) == (
        "op_add.cu:add, 2 input(s) of f32: 36 kernels for sm_90 from the "
        "compile cache (NVRTC 13.0), checked against generated; the run "
        "took 41.2 s")
    assert whatif._header({}) is None


def test_every_shape_of_the_family_is_a_member():
    # the ids src/opgen/family.c gives, the bulk-copy shape among them
    assert whatif.member("gen:add:bulk_v128_k2") == \
        whatif.Member("bulk", 128, 2)
    # the one-stage bulk-copy shape, at CCCL's f32 add design point
    assert whatif.member("gen:add:bulkone_v32_k3") == \
        whatif.Member("bulkone", 32, 3)
    assert whatif.member("gen:f:runs_v16_k8") == whatif.Member("runs", 16, 8)
    assert whatif.member("gen:add:warp_v128_k2") is None
    assert set(whatif.SHAPES) == {"tile", "stride", "runs", "bulk",
                                  "bulkone"}


# Every member predicted, on the committed H200 rows (elementwise/add and
# the ceilings measured a minute before them in the same call)

USERS = os.path.join(ROOT, "reports", "reference",
                     "nvidia-h200-user-kernels")
ADD = os.path.join(USERS, "elementwise", "add")
CEILINGS = os.path.join(USERS, "userfaults", "ceilings")


def _add_run(ceilings=CEILINGS):
    if not os.path.isdir(ADD) or not os.path.isdir(CEILINGS):
        pytest.skip("the H200 user-kernels reference is not here")
    return stu.open_study(ADD, ceilings).main


def test_every_member_is_predicted_and_shown_beside_its_measurement(
        monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))   # no cache
    run = _add_run()
    predict, source = section.predictor(run)
    assert source.startswith("the ceilings run 2026")
    text = whatif.render(run, predict=predict, source=source)
    pts = next(iter(gen.groups(run.points).values()))
    errors = section.prediction_errors(pts, predict)
    # all 220 members, one-tile ones at their block's slots (no counters)
    assert len(errors) == 220
    line = next(x for x in text.split("\n") if x.startswith("Predicted "))
    err = sorted(s.error for s in errors)
    assert "220 of 220 members" in line
    assert "by %.1f %% at the median" % (100 * statistics.median(err)) in line
    # p90 as the report's error table takes it (experiments.error_table)
    assert "%.1f %% at p90" % (100 * float(np.quantile(err, 0.9))) in line
    assert "within ±3 %%: %d" % sum(e <= 0.03 for e in err) in line
    # the winner's row: its prediction and measured / predicted
    winner = next(x for x in text.split("\n") if re.match(r"\s+1\s", x))
    w = next(p for p in pts if p.variant == "gen:add:bulkone_v32_k3" and
             p.block == 256)
    got = ux.candidate_prediction(run, w)
    assert winner.split()[-2:] == ["%.0f" % (got.value / 1e9),
                                   "%.3f" % (w.bandwidth / got.value)]
    # a built-in, cub and the user's kernel are not predicted here
    for who in ("user", "built-in", "cub"):
        row = next(x for x in text.split("\n") if " %s " % who in x)
        assert row.split()[-2:] == ["-", "-"]


def test_without_measured_ceilings_nothing_is_predicted(monkeypatch,
                                                         tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if not os.path.isdir(ADD):
        pytest.skip("the H200 user-kernels reference is not here")
    run = stu.open_study(ADD).main
    predict, source = section.predictor(run)
    assert predict is None
    text = whatif.render(run, predict=predict, source=source)
    assert "Not predicted: no measured ceilings of this GPU" in text
    assert "Predicted from" not in text


def test_a_one_tile_member_without_counters_is_read_at_its_slots():
    run = _add_run()
    q = next(p for p in run.points if p.variant == "gen:add:tile_v32_k1"
             and p.block == 1024)
    slots = blocks.slot_threads(run.device, 1024)
    got = ux.candidate_prediction(run, q)
    add = dataclasses.replace(q, op="add")
    dram = ux.model.dram_ceiling(run.ceilings, run.spec_dram_bandwidth,
                                 "add")
    assert got == ux.member_prediction(run, add, add, dram, slots)
    # 2048 threads an SM assumed; measured far below (x0.78): the
    # member's register cap, not the slots, holds it at 1024
    assert q.bandwidth / got.value < 0.8


def test_the_command_line(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    _add_run()
    assert whatif.main([ADD, "3", "--ceilings", CEILINGS]) == 0
    out = capsys.readouterr().out
    assert "Predicted from the ceilings run" in out
    assert whatif.main([ADD, "--ceilings"]) == 2
    assert whatif.main([ADD, "three"]) == 2
    assert "usage:" in capsys.readouterr().err

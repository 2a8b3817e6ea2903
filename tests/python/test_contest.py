"""contest: medians and spreads over repeats, the 1 % / 0.5 % win rule,
and the command end to end on three copies of the fixture run."""

import dataclasses
import json
import shutil

import pytest

from analysis import contest
from analysis.__main__ import EXIT_DATA, EXIT_OK, main
from analysis.load import DataError, load_run
from conftest import FIXTURE, rewrite


def entry(variant, bandwidths, block=256, n=1 << 28, dtype="f32",
          cache="warm", launch="stream"):
    return contest.Entry(variant, "add", dtype, n, block, cache, launch,
                         tuple(bandwidths))


def test_median_and_spread_over_three_repeats():
    e = entry("add_f32x4", [3.00e12, 3.03e12, 2.97e12])
    assert e.repeats == 3
    assert e.bandwidth == 3.00e12
    assert e.spread_pct == pytest.approx(2.0)
    assert e.origin == contest.EWBENCH and e.label == "add_f32x4@256"
    assert entry("cub_add_f32", [1.0]).origin == contest.CUB
    assert entry("torch_add_f32", [1.0], block=None).label == "torch_add_f32"


def test_gather_takes_keys_of_every_run(fixture_run):
    # the fixture at 1x and at 1/1.002 of its bandwidth, one row dropped
    slower = dataclasses.replace(fixture_run, points=tuple(
        dataclasses.replace(p, bandwidth_median_bytes_per_s=p.bandwidth /
                            1.002) for p in fixture_run.points[1:]))
    entries, notes = contest.gather([fixture_run, fixture_run, slower])
    adds = [p for p in fixture_run.points if p.op == "add"]
    assert len(entries) == len(adds) - 1
    first = fixture_run.points[0]
    assert first.key not in {(e.variant, e.n, e.block, e.cache, e.launch)
                             for e in entries}
    assert any("1 add point not in every run" in n and first.variant
               in n for n in notes)
    for e in entries:
        assert e.spread_pct == pytest.approx(100 * (1 - 1 / 1.002))
    # a point that failed its check in one run competes in none
    wrong = dataclasses.replace(fixture_run, points=tuple(
        dataclasses.replace(p, check="fail") if i == 0 else p
        for i, p in enumerate(fixture_run.points)))
    entries, notes = contest.gather([fixture_run, wrong])
    assert len(entries) == len(adds) - 1
    assert any("failed the correctness check" in n for n in notes)


def test_win_rule():
    peer = entry("cub_add_f32", [3.000e12, 2.991e12, 3.006e12])  # 0.5 %
    quiet_peer = entry("cub_add_f32", [3.000e12, 2.997e12, 3.006e12])
    assert quiet_peer.spread_pct == pytest.approx(0.3)
    best = entry("add_f32x4", [3.060e12, 3.051e12, 3.0602e12])
    assert best.bandwidth / quiet_peer.bandwidth == pytest.approx(1.02)
    assert best.spread_pct < 0.5
    win = contest.judge(best, quiet_peer)
    assert win.claimable and win.standing == "ahead"
    # the same lead with a 0.8 % spread on our side: not claimable
    noisy = entry("add_f32x4", [3.060e12, 3.0355e12, 3.060e12])
    assert noisy.spread_pct == pytest.approx(0.8, abs=0.01)
    claim = contest.judge(noisy, quiet_peer)
    assert not claim.claimable and claim.standing == "ahead"
    assert "spread of add_f32x4@256" in claim.reason
    # a peer spread of exactly 0.5 % is not below 0.5 %
    assert not contest.judge(best, peer).claimable
    behind = contest.judge(entry("add_f32", [2.97e12] * 3), quiet_peer)
    assert behind.ratio == pytest.approx(0.99)
    assert not behind.claimable and behind.standing == "behind"
    level = contest.judge(entry("add_f32", [3.015e12] * 3), quiet_peer)
    assert level.standing == "level" and not level.claimable
    one = contest.judge(entry("add_f32x4", [3.06e12]),
                        entry("cub_add_f32", [3.0e12]))
    assert not one.claimable and "one repeat" in one.reason


def test_contest_ranks_blocks_and_goals():
    found = contest.contests((
        entry("add_f32", [2.0e12] * 3, block=128),
        entry("add_f32", [2.5e12] * 3, block=256),
        entry("add_f32x4", [3.2e12] * 3, block=64),
        entry("cub_add_f32", [3.1e12] * 3),
        entry("torch_add_f32", [3.0e12] * 3, block=None),
        entry("add_f16", [1.0e12] * 3, dtype="f16"),
    ), [load_run(FIXTURE)])
    assert [(c.dtype, c.n) for c in found] == [("f32", 1 << 28),
                                               ("f16", 1 << 28)]
    f32 = found[0]
    assert [e.label for e in f32.ranked] == [
        "add_f32x4@64", "add_f32@256", "add_f32@128"]
    assert f32.peer.variant == "cub_add_f32"
    assert f32.claim.claimable  # 3.2 / 3.1 with no spread
    assert "256.0 MiB" not in f32.tier_label and "L2" in f32.tier_label
    verdicts = {(g.name, g.dtype): g.verdict
                for g in contest.goals(found, spec=3.35e12)}
    assert verdicts[("G1", "f32")] == contest.MET
    assert verdicts[("G2", "f32")] == contest.MET          # 95.5 %
    assert verdicts[("G1", "f16")] == contest.UNDECIDED    # no peers
    assert verdicts[("G2", "f16")] == contest.NOT_MET
    assert verdicts[("G3", "f32")] == contest.UNDECIDED


def test_l2_tier_from_size_choices(run_copy):
    path = run_copy / "run.json"
    manifest = json.load(open(path))
    manifest["settings"]["size_choices"] = [
        {"footprint_bytes_per_element": 12, "tier": "l2", "n": 1 << 22,
         "reason": "test"}]
    json.dump(manifest, open(path, "w"))
    run = load_run(str(run_copy))
    assert contest.tier_of(run, "f32", 1 << 22)[0] == "l2"
    assert contest.tier_of(run, "f16", 1 << 22)[0] is None
    assert contest.l2_tier_sizes(run) == {"f32": 1 << 22}
    # no graph rows in the fixture: G3 stays undecided, saying why
    _, _, found, goal_list = contest.analyse([run, run])
    g3 = [g for g in goal_list if g.name == "G3" and g.dtype == "f32"][0]
    assert g3.verdict == contest.UNDECIDED and "graph" in g3.numbers


def scale_times(directory, factor):
    """Every row slower by factor: time columns up, bandwidths down."""
    def edit(text):
        lines = text.split("\n")
        header = lines[0].split(",")
        times = [header.index(c) for c in (
            "time_median_ns", "time_min_ns", "time_max_ns", "time_mean_ns")]
        rates = [header.index(c) for c in (
            "bandwidth_median_bytes_per_s", "bandwidth_max_bytes_per_s",
            "spec_dram_pct")]
        for i, line in enumerate(lines[1:], 1):
            f = line.split(",")
            if len(f) < len(header):
                continue
            for c in times:
                if f[c]:
                    f[c] = "%.17g" % (float(f[c]) * factor)
            for c in rates:
                if f[c]:
                    f[c] = "%.17g" % (float(f[c]) / factor)
            lines[i] = ",".join(f)
        return "\n".join(lines)
    rewrite(directory / "timing.csv", edit)


def test_command_end_to_end(tmp_path, capsys):
    dirs = []
    for i in range(3):
        d = tmp_path / ("round-%d" % (i + 1))
        shutil.copytree(FIXTURE, d)
        dirs.append(d)
    scale_times(dirs[1], 1.002)
    out = tmp_path / "contest.md"
    assert main(["contest"] + [str(d) for d in dirs] +
                ["-o", str(out)]) == EXIT_OK
    printed = capsys.readouterr().out
    text = out.read_text(encoding="utf-8")
    assert text == printed
    assert "R = 3" in text and "fixture" in text
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) == 6 and cells[1][:2] in ("G1", "G2", "G3"):
            rows[(cells[1][:2], cells[2])] = cells[3]
    # fixture at 2^28 warm: add_f32x4 3062 GB/s (91.3 % of spec) behind
    # cub_add_f32 3095 GB/s; f16 has no cub
    assert rows[("G1", "f32")] == "not met"
    assert rows[("G2", "f32")] == "not met"
    assert rows[("G1", "f16")] == "undecided"
    assert rows[("G3", "f32")] == "undecided"
    assert rows[("G3", "f16")] == "undecided"
    assert "0.20 %" in text      # the 1.002 copy is the spread
    assert "### f32 add, n = 256Mi" in text
    assert "best add_f32x4@64 is -1.1 % vs the faster peer (cub_add_f32)" \
        in text


def test_one_repeat_says_spread_unknown(capsys):
    assert main(["contest", FIXTURE]) == EXIT_OK
    text = capsys.readouterr().out
    assert "R = 1" in text and "spread is unknown" in text
    assert "| unknown |" in text


def test_different_device_exits_three(run_copy, capsys):
    path = run_copy / "run.json"
    manifest = json.load(open(path))
    manifest["device"]["name"] = "NVIDIA H200"
    json.dump(manifest, open(path, "w"))
    assert main(["contest", FIXTURE, str(run_copy)]) == EXIT_DATA
    err = capsys.readouterr().err
    assert "NVIDIA H200" in err and "one GPU" in err
    with pytest.raises(DataError):
        contest.gather([load_run(FIXTURE), load_run(str(run_copy))])

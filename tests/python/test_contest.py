"""contest: medians and spreads over repeats, margins judged by the noise
rule, the Markdown and JSON outputs end to end on copies of the fixture,
and the project's goals judged apart by scripts/contest-goals.py."""

import dataclasses
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

from ewbench.analysis.contest import rank as contest
from ewbench.analysis.contest import page as contest_report
from ewbench.analysis.core import noise
from ewbench.analysis.__main__ import EXIT_DATA, EXIT_OK, main
from ewbench.analysis.core.load import DataError, PointKey, load_run
from conftest import FIXTURE, ROOT, rewrite

GOALS_PATH = os.path.join(ROOT, "scripts", "contest-goals.py")


def goals_module():
    spec = importlib.util.spec_from_file_location("contest_goals",
                                                  GOALS_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entry(variant, bandwidths, block=256, n=1 << 28, dtype="f32",
          cache="warm", launch="stream"):
    return contest.Entry(PointKey(variant, n, block, cache, launch), "add",
                         dtype, tuple(bandwidths))


def test_median_and_spread_over_three_repeats():
    e = entry("add_f32x4", [3.00e12, 3.03e12, 2.97e12])
    assert e.repeats == 3
    assert e.bandwidth == 3.00e12
    assert e.spread_pct == pytest.approx(1.0)       # sd 0.03e12
    assert e.origin == contest.EWBENCH and e.label == "add_f32x4@256"
    assert entry("cub_add_f32", [1.0]).origin == contest.CUB
    assert entry("cub_add_f32", [1.0]).spread_pct is None
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
    assert first.key not in {e.key for e in entries}
    assert any("1 add point not in every run" in n and first.variant
               in n for n in notes)
    for e in entries:
        assert e.spread_pct == pytest.approx(
            noise.repeat_spread_pct(e.bandwidths))
    # a point that failed its check in one run competes in none
    wrong = dataclasses.replace(fixture_run, points=tuple(
        dataclasses.replace(p, check="fail") if i == 0 else p
        for i, p in enumerate(fixture_run.points)))
    entries, notes = contest.gather([fixture_run, wrong])
    assert len(entries) == len(adds) - 1
    assert any("failed the correctness check" in n for n in notes)


def test_margin_is_judged_by_the_noise_rule():
    quiet_peer = entry("cub_add_f32", [3.000e12, 2.997e12, 3.006e12])
    best = entry("add_f32x4", [3.090e12, 3.081e12, 3.0902e12])
    m = contest.judge(best, quiet_peer)
    assert m.margin_pct == pytest.approx(3.0)
    assert m.limit_pct == pytest.approx(noise.noise_limit_pct(
        best.spread_pct, quiet_peer.spread_pct, floor_pct=0.0))
    # without a floor, 3 sigma of the rounds decide
    assert m.limit_pct == pytest.approx(3 * (best.spread_pct ** 2 +
                                             quiet_peer.spread_pct ** 2)
                                        ** 0.5)
    assert m.limit_pct < 1.0 and m.standing == contest.AHEAD
    # the same lead with a spread of 1.5 % on our side: within the noise
    noisy = entry("add_f32x4", [3.090e12, 3.000e12, 3.180e12])
    m = contest.judge(noisy, quiet_peer)
    assert m.limit_pct == pytest.approx(3 * (noisy.spread_pct ** 2 +
                                             quiet_peer.spread_pct ** 2)
                                        ** 0.5)
    assert m.limit_pct > m.margin_pct and m.standing == contest.LEVEL
    # a 1 % lead over quiet rounds (spread 0.15 %) is a lead; the same
    # 1 % over a peer whose rounds scatter by 1 % is not
    assert contest.judge(entry("add_f32", [3.03e12] * 3),
                         quiet_peer).standing == contest.AHEAD
    loud_peer = entry("cub_add_f32", [3.0e12, 2.97e12, 3.03e12])
    assert contest.judge(entry("add_f32", [3.03e12] * 3),
                         loud_peer).standing == contest.LEVEL
    behind = contest.judge(entry("add_f32", [2.9e12] * 3), quiet_peer)
    assert behind.ratio == pytest.approx(2.9 / 3.0)
    assert behind.standing == contest.BEHIND
    # one repeat: the rule's stand-in for an unknown spread
    one = contest.judge(entry("add_f32x4", [3.12e12]),
                        entry("cub_add_f32", [3.0e12]))
    assert one.limit_pct == noise.UNKNOWN_PCT and one.standing == \
        contest.LEVEL
    assert contest.judge(best, None).standing == contest.NO_PEER


def test_contest_limit_holds_the_cross_host_floor():
    """Issue 40: the DRAM tier's limit was 3x the rounds' spread with no
    floor, +-0.02 %, ten times tighter than the 0.2 % four H100 hosts
    need: a lead of 0.1 % over quiet rounds was 'ahead' on one host."""
    h100 = noise.gpu_floor("NVIDIA H100 80GB HBM3", 32.0)
    peer = entry("cub_add_f32", [3.0000e12, 3.0002e12, 2.9998e12])
    best = entry("add_f32_tma_st", [3.0030e12, 3.0032e12, 3.0028e12])
    assert contest.judge(best, peer).standing == contest.AHEAD
    m = contest.judge(best, peer, h100)
    assert m.limit_pct == pytest.approx(0.2) and \
        m.standing == contest.LEVEL
    # short kernels: the floor is the timer step at their median time
    short = entry("add_f32", [3.0e12] * 3, n=1 << 16)
    assert contest.floor_pct(h100, short) == pytest.approx(
        100 * 32.0 / short.time_ns)


def test_contest_says_how_many_were_searched_and_scores_held_out():
    """Issue 40: ewbench's fastest is the best of every configuration
    measured, chosen on the rounds that score it; the page says how many,
    and scores the winner on the rounds it was not chosen on."""
    peer = entry("cub_add_f32", [3.00e12, 3.00e12, 3.00e12])
    lucky = entry("add_f32", [3.20e12, 2.95e12, 2.95e12], block=128)
    steady = entry("add_f32", [3.03e12, 3.03e12, 3.03e12], block=256)
    found = contest.contests((lucky, steady, peer), [load_run(FIXTURE)])
    c = found[0]
    assert c.searched == 2 and c.best.label == "add_f32@256"
    h = c.held_out
    # round 1: chosen on rounds 2-3 (steady), +1 %; rounds 2 and 3:
    # chosen on rounds with round 1 in them (lucky at 3.075 / 2.95 ...)
    assert h.chosen == ("add_f32@256", "add_f32@128", "add_f32@128")
    assert h.margins_pct == pytest.approx((1.0, -1.6667, -1.6667),
                                          abs=1e-3)
    assert h.margin_pct == pytest.approx(-1.6667, abs=1e-3)
    assert "add_f32@256, of 2 configurations, is +1.0 %" in \
        contest_report.summary_line(c)
    assert "Scored on the rounds it was not chosen on: -1.7 % " \
        "(add_f32@128 chosen in 2 of 3 rounds)" in \
        contest_report.summary_line(c)


def test_contest_ranks_blocks():
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
    assert f32.winner.label == "add_f32x4@64"
    assert f32.margin.standing == contest.AHEAD     # +3.2 %, no spread
    assert "256.0 MiB" not in f32.tier_label and "L2" in f32.tier_label
    assert found[1].margin.standing == contest.NO_PEER


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
    _, _, found = contest.analyse([run, run])
    assert {(c.dtype, c.tier) for c in found if c.n == 1 << 22} == {
        ("f32", "l2"), ("f16", None)}


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


@pytest.fixture
def rounds(tmp_path):
    dirs = []
    for i in range(3):
        d = tmp_path / ("round-%d" % (i + 1))
        shutil.copytree(FIXTURE, d)
        dirs.append(d)
    scale_times(dirs[1], 1.002)
    return dirs


def test_command_end_to_end(rounds, tmp_path, capsys):
    out = tmp_path / "contest.md"
    assert main(["contest"] + [str(d) for d in rounds] +
                ["-o", str(out)]) == EXIT_OK
    printed = capsys.readouterr().out
    text = out.read_text(encoding="utf-8")
    assert text == printed
    assert "R = 3" in text and "FIXTURE DATA" in text
    assert "## Who wins" in text and "## Goals" not in text
    for word in ("G1", "G2", "G3", "goal", "93 %", "1.01"):
        assert word not in text, word
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) == 15 and cells[1] in ("f32", "f16"):
            rows[(cells[1], cells[2], cells[4], cells[5])] = cells[6:14]
    # fixture at 2^28 warm: add_f32x4 3062 GB/s, 1.1 % behind cub_add_f32
    # 3095 GB/s, beyond 3 sigma of their rounds (0.49 %) but within the
    # cross-host floor of a GPU without repeated studies (the fixture's
    # name is none measured: 1.1 %); f16 torch 13 % ahead of ewbench
    assert rows[("f32", "256Mi", "warm", "stream")][:7] == [
        "cub_add_f32", "add_f32x4@64", "3", "cub_add_f32", "-1.1 %",
        "±1.10 %", "level: within the noise"]
    assert rows[("f16", "256Mi", "warm", "stream")][-2:] == [
        "torch_add_f16 ahead", "-13.3 % (add_f16x2@128 chosen in 3 of 3 "
        "rounds)"]
    assert "### f32 add, n = 256Mi" in text
    assert "best add_f32x4@64, of 3 configurations, is -1.1 % vs the " \
        "faster peer (cub_add_f32)" in " ".join(text.split())
    # the spread: sd of (1, 1/1.002, 1) in % of the median
    assert "| 0.12 % |" in text


def test_json_output_carries_every_number(rounds, capsys):
    assert main(["contest", "--json"] + [str(d) for d in rounds]) == EXIT_OK
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == contest_report.JSON_SCHEMA
    assert doc["repeats"] == 3 and len(doc["runs"]) == 3
    floor = noise.run_floor(load_run(FIXTURE))
    assert doc["rule"] == {"sigmas": noise.SIGMAS,
                           "floor_gpu_pct": floor.pct,
                           "floor_step_ns": floor.step_ns,
                           "unknown_pct": noise.UNKNOWN_PCT}
    c = [c for c in doc["contests"] if (c["dtype"], c["n"], c["cache"]) ==
         ("f32", 1 << 28, "warm")][0]
    assert c["ranked"][0]["label"] == "add_f32x4@64"
    assert len(c["ranked"][0]["bandwidths_bytes_per_s"]) == 3
    assert c["peer"] == "cub" and c["standing"] == contest.LEVEL
    assert c["searched"] == 3 and c["floor_pct"] == pytest.approx(1.1)
    assert c["held_out"]["chosen"] == ["add_f32x4@64"] * 3
    assert c["margin_pct"] == pytest.approx(-1.08, abs=0.01)


def test_one_repeat_says_spread_unknown(capsys):
    assert main(["contest", FIXTURE]) == EXIT_OK
    text = capsys.readouterr().out
    assert "R = 1" in text and "spread is unknown" in text
    assert "| unknown |" in text and "±5.00 %" in text


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


def test_reference_contests_are_rendered_by_the_tool():
    # contest.md of each reference is what the command writes today
    for gpu in ("nvidia-h100", "nvidia-h200"):
        folder = os.path.join(ROOT, "reports", "reference", gpu, "contest")
        names = sorted(d for d in os.listdir(folder)
                       if d.startswith("round-"))
        cwd = os.getcwd()
        os.chdir(folder)
        try:
            runs = [load_run(d) for d in names]
        finally:
            os.chdir(cwd)
        _, notes, found = contest.analyse(runs)
        with open(os.path.join(folder, "contest.md"), encoding="utf-8") as f:
            text = f.read()
        assert text == contest_report.render_markdown(runs, notes, found), gpu
        # the rule it states is the rule it applies: the cross-host floor
        assert "spread_peer²), floor) (the noise rule, docs/analysis.md), " \
            "the floor the cross-host spread of this GPU, %g %%" % \
            noise.run_floor(runs[0]).pct in " ".join(text.split())


# the project's goals, apart from the tool

def contest_json(found_entries, tiers=None, spec=3.35e12, repeats=3):
    """A contest JSON like the command's, from (dtype, n, cache, launch,
    [entries]) groups."""
    run = load_run(FIXTURE)
    found = contest.contests(found_entries, [run])
    doc = contest_report.to_json([run] * repeats, (), found)
    doc["spec_dram_bandwidth_bytes_per_s"] = spec
    for c in doc["contests"]:
        c["tier"] = (tiers or {}).get((c["dtype"], c["n"]))
    return doc


def verdicts(doc, dram_n=1 << 28):
    cg = goals_module()
    return {(name, dtype): verdict
            for name, _, dtype, verdict, _ in cg.judge(doc, dram_n)}


def test_goals_on_contest_json():
    cg = goals_module()
    doc = contest_json((
        entry("add_f32x4", [3.2e12, 3.201e12, 3.199e12], block=64),
        entry("cub_add_f32", [3.1e12] * 3),
        entry("torch_add_f32", [3.0e12] * 3, block=None),
        entry("add_f16", [1.0e12] * 3, dtype="f16"),
        entry("add_f32x4", [6.0e12] * 3, n=1 << 21, launch="graph"),
        entry("cub_add_f32", [5.0e12] * 3, n=1 << 21, launch="graph"),
    ), tiers={("f32", 1 << 21): "l2"})
    v = verdicts(doc)
    assert v[("G1", "f32")] == cg.MET        # 1.032x, spreads 0.06 %, 0
    assert v[("G2", "f32")] == cg.MET        # 95.5 % of spec
    assert v[("G3", "f32")] == cg.MET
    assert v[("G1", "f16")] == cg.UNDECIDED  # no peers
    assert v[("G2", "f16")] == cg.NOT_MET
    assert v[("G3", "f16")] == cg.UNDECIDED  # no l2 tier
    # a spread of 0.5 % (max - min over median) on the peer misses G1
    noisy = contest_json((
        entry("add_f32x4", [3.2e12] * 3, block=64),
        entry("cub_add_f32", [3.1e12, 3.0845e12, 3.1e12]),
        entry("torch_add_f32", [3.0e12] * 3, block=None)))
    assert verdicts(noisy)[("G1", "f32")] == cg.NOT_MET


def run_goals(path, *extra):
    return subprocess.run([sys.executable, GOALS_PATH, str(path)] +
                          list(extra), capture_output=True, text=True,
                          check=False)


def test_goals_script_exit_codes(rounds, tmp_path, capsys):
    cg = goals_module()
    out = tmp_path / "contest.json"
    assert main(["contest", "--json"] + [str(d) for d in rounds] +
                ["-o", str(out)]) == EXIT_OK
    capsys.readouterr()
    proc = run_goals(out)
    # the fixture misses G1 f32 (behind cub) and G2 (91.3 % of spec)
    assert proc.returncode == cg.EXIT_MISSED, proc.stderr
    assert "G1 f32 NOT MET" in proc.stdout and "G3 f32 UNDECIDED" in \
        proc.stdout
    met = tmp_path / "met.json"
    met.write_text(json.dumps(contest_json((
        entry("add_f32x4", [3.2e12] * 3, block=64),
        entry("cub_add_f32", [3.1e12] * 3),
        entry("torch_add_f32", [3.0e12] * 3, block=None),
        entry("add_f32x4", [6.0e12] * 3, n=1 << 21, launch="graph"),
        entry("cub_add_f32", [5.0e12] * 3, n=1 << 21, launch="graph"),
        entry("add_f16x8", [3.2e12] * 3, dtype="f16"),
        entry("cub_add_f16", [3.1e12] * 3, dtype="f16"),
        entry("torch_add_f16", [3.0e12] * 3, dtype="f16", block=None),
        entry("add_f16x8", [6.0e12] * 3, dtype="f16", n=1 << 22,
              launch="graph"),
        entry("cub_add_f16", [5.0e12] * 3, dtype="f16", n=1 << 22,
              launch="graph"),
    ), tiers={("f32", 1 << 21): "l2", ("f16", 1 << 22): "l2"})))
    assert run_goals(met).returncode == cg.EXIT_MET
    undecided = json.loads(met.read_text())
    undecided["contests"] = [c for c in undecided["contests"]
                             if c["launch"] != "graph"]
    met.write_text(json.dumps(undecided))
    assert run_goals(met).returncode == cg.EXIT_UNDECIDED


@pytest.mark.parametrize("text, message", [
    ('{"schema": "ewbench-contest/1",\n "contests": [}', ":2: expected "
     "JSON"),
    ('{"schema": "other"}', ":1: expected the output of `ewbench "
     "contest --json`"),
    ('{"schema": "ewbench-contest/1", "contests": [{"dtype": "f32"}]}',
     ": expected every contest with dtype"),
])
def test_goals_script_bad_input_exits_three(tmp_path, text, message):
    path = tmp_path / "c.json"
    path.write_text(text)
    proc = run_goals(path)
    assert proc.returncode == goals_module().EXIT_BAD_INPUT
    assert ("contest-goals: %s%s" % (path, message)) in proc.stderr
    assert "Traceback" not in proc.stderr
    assert run_goals(path, "--dram-n", "0").returncode == \
        goals_module().EXIT_USAGE


def test_held_out_names_the_same_entry_under_any_hash_seed():
    """Two entries chosen in 2 of 5 rounds each: the page names the one
    chosen first, whatever PYTHONHASHSEED (a set's order named either)."""
    code = ("import sys; sys.path.insert(0, %r)\n"
            "from ewbench.analysis.contest import rank, page\n"
            "h = rank.HeldOut(5.0, (1, 2, 3, 4, 5), ('b@1', 'a@2', 'a@2', "
            "'b@1', 'c@3'), rank.LEVEL)\n"
            "c = type('C', (), {'held_out': h})()\n"
            "print(page.held_out_text(c))\n" % os.path.join(ROOT, "python"))
    seen = {subprocess.run([sys.executable, "-c", code], check=True,
                           capture_output=True, text=True,
                           env=dict(os.environ, PYTHONHASHSEED=str(seed))
                           ).stdout.strip() for seed in range(6)}
    assert seen == {"+5.0 % (b@1 chosen in 2 of 5 rounds)"}

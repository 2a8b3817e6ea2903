"""ewbench fleet-report: members, outliers with evidence, failed
members, broken input, one GPU, sorting, the output directory claim.

The fleets are copies of the shipped H200 reference runs
(fleet_fixtures.py), one member slowed down where a test needs an
outlier; run.json says fixture, so every report says FIXTURE DATA.
"""

import json
import os
import pathlib

import pytest

from ewbench.analysis.fleet import members as fleet
from ewbench.analysis.fleet import answers as fleet_answers
from ewbench.analysis.core import placement
from ewbench.analysis.core import validate
from ewbench.analysis.__main__ import EXIT_DATA, EXIT_OK, EXIT_USAGE, main
from ewbench.analysis.core.load import load_run
from conftest import rewrite, unwrapped
from fleet_fixtures import (CEILINGS_SOURCE, make_fleet_dir,
                            make_fleet_study, set_ceiling_spread)

FOUR = ["nodeA-gpu0", "nodeA-gpu1", "nodeB-gpu0", "nodeB-gpu1"]


def _report(root, capsys):
    """Render root's fleet report; (what it printed, the report dir)."""
    assert main(["fleet", str(root)]) == EXIT_OK
    return capsys.readouterr().out, pathlib.Path(root) / "report"


@pytest.fixture
def slow_study(tmp_path):
    """Four GPUs on two nodes, nodeA-gpu1 at 90 % speed and throttled,
    nodeB-gpu2 failed (fleet.json)."""
    return make_fleet_study(
        str(tmp_path / "fleet"), FOUR, slow={"nodeA-gpu1": 0.9},
        failed={"nodeB-gpu2": "CUDA error: uncorrectable ECC error"})


def reference_dram_add_gbps():
    """The DRAM ceiling (dram_add) of the run the fixtures copy, in GB/s."""
    return load_run(CEILINGS_SOURCE).ceilings["dram_add"].value / 1e9


def _row(md, name):
    return next(line for line in md.splitlines()
                if line.startswith("| %s |" % name))


def test_members_found_across_phases(slow_study):
    f = fleet.open_fleet(slow_study)
    assert f.is_study
    assert [m.name for m in f.members] == FOUR
    for m in f.members:
        assert m.phases == ("ceilings", "run")
        assert m.run.ceilings is not None         # from ceilings/<name>/
        assert m.run.points
    assert [x.name for x in f.failed] == ["nodeB-gpu2"]
    assert f.hosts == ["nodeA", "nodeB"]


def test_slowed_member_is_the_outlier_with_evidence(slow_study, capsys):
    printed, out = _report(slow_study, capsys)
    assert "outlier: nodeA-gpu1" in printed
    assert printed.count("outlier:") == 1
    md = unwrapped((out / "report.md").read_text(encoding="utf-8"))
    assert "FIXTURE DATA" in md
    # the table: the slow one flagged, an unperturbed one not
    assert "**outlier**" in _row(md, "nodeA-gpu1")
    assert "3976\u00a0(-10.0\u00a0%)" in _row(md, "nodeA-gpu1")
    assert _row(md, "nodeA-gpu0").endswith("| ok |")
    assert _row(md, "nodeB-gpu1").endswith("| ok |")
    # the evidence sentence: counters, NVML, the reading
    sentence = next(line for line in md.splitlines()
                    if line.startswith("**nodeA-gpu1**"))
    assert "SM clock" in sentence and "(-10.0 %)" in sentence
    assert "NVML start → end: SM clock 1980 → 1782 MHz" in sentence
    assert "temperature 35 → 87 °C" in sentence
    assert "throttle reasons sw_thermal_slowdown" in sentence
    assert "Likely: a lower SM clock" in sentence
    dram = reference_dram_add_gbps()
    assert "DRAM ceiling %.0f GB/s (-10.0 %% from the median %.0f" % (
        0.9 * dram, dram) in sentence
    # the figure: an SVG beside the report, the PNG inside the HTML
    assert os.listdir(out / "figures") == ["fleet_deviation.svg"]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "data:image/png;base64," in html


def test_small_difference_is_not_an_outlier(tmp_path):
    root = make_fleet_study(str(tmp_path / "f"), FOUR[:3],
                            slow={"nodeA-gpu1": 0.98})
    judged = fleet_answers.judge(fleet.open_fleet(root))
    assert judged.outlier_members == []
    cell = judged.cells["nodeA-gpu1"]["dram"]
    assert cell.deviation_pct == pytest.approx(-2.0, abs=0.01)
    assert not cell.outlier


def test_spread_widens_the_limit(slow_study):
    judged = fleet_answers.judge(fleet.open_fleet(slow_study))
    for m in judged.fleet.members:
        for k in fleet_answers.KEYS:
            c = judged.cells[m.name][k.name]
            assert c.threshold_pct >= fleet_answers.OUTLIER_PCT


def test_a_ceilings_spread_widens_its_limit(tmp_path):
    """The DRAM ceilings of one GPU of three 6 % low: an outlier by the 3 %
    floor alone where no spread was recorded, not when the samples scatter
    by 2 % (limit 3 x sqrt(2² + 2²) = 8.5 %)."""
    root = make_fleet_study(str(tmp_path / "f"), FOUR[:3],
                            slow={"nodeA-gpu1": 0.94})
    for spread, outlier, limit in ((None, True, fleet_answers.OUTLIER_PCT),
                                   (2.0, False, 3 * 8 ** 0.5)):
        for name in FOUR[:3]:
            set_ceiling_spread(os.path.join(root, "ceilings", name), spread)
        cell = fleet_answers.judge(fleet.open_fleet(root)).cells[
            "nodeA-gpu1"]["dram"]
        assert cell.deviation_pct == pytest.approx(-6.0, abs=0.01)
        assert cell.threshold_pct == pytest.approx(limit, abs=0.01)
        assert cell.outlier == outlier


def test_failed_member_is_listed_with_its_reason(slow_study, capsys):
    printed, out = _report(slow_study, capsys)
    assert "failed: nodeB-gpu2: CUDA error: uncorrectable ECC error" in \
        printed
    md = unwrapped((out / "report.md").read_text(encoding="utf-8"))
    assert "### Failed members" in md
    assert "**nodeB-gpu2** (`run/`): failed (exit 1) — CUDA error: " \
        "uncorrectable ECC error" in md
    assert "| nodeB-gpu2 |" not in md           # not a row of the table
    assert "**1 member failed**" in md


def test_broken_member_file_exits_three_with_file_and_line(slow_study,
                                                           capsys):
    timing = os.path.join(slow_study, "run", "nodeB-gpu1", "timing.csv")
    rewrite(timing, lambda t: t.replace(",pass\n", ",maybe\n", 1))
    assert main(["fleet", slow_study]) == EXIT_DATA
    err = capsys.readouterr().err
    assert "%s:2: column check: expected one of pass, fail" % timing in err
    assert "Traceback" not in err


def test_broken_fleet_json_exits_three(tmp_path, capsys):
    root = make_fleet_dir(str(tmp_path / "f"), FOUR[:2],
                          failed={"nodeA-gpu5": "lost"})
    path = os.path.join(root, "fleet.json")
    rewrite(path, lambda t: t.replace('"exit_code": 1', '"exit_code": "x"'))
    assert main(["fleet", root]) == EXIT_DATA
    err = capsys.readouterr().err
    assert path + ":" in err and "exit_code to be an integer" in err


def test_single_member_fleet(tmp_path, capsys):
    root = make_fleet_study(str(tmp_path / "one"), ["solo-gpu0"])
    printed, out = _report(root, capsys)
    assert "outlier" not in printed
    md = unwrapped((out / "report.md").read_text(encoding="utf-8"))
    assert "**The fleet has one GPU**" in md
    assert "one GPU: no comparison" in _row(md, "solo-gpu0")
    assert "%.0f" % reference_dram_add_gbps() in _row(md, "solo-gpu0")
    assert "| fleet median |" not in md
    assert not os.path.exists(out / "figures" / "fleet_deviation.svg")


def test_rows_sorted_by_host_then_number(tmp_path):
    names = ["nodeB-gpu1", "nodeA-gpu10", "nodeB-gpu0", "nodeA-gpu2"]
    root = make_fleet_study(str(tmp_path / "f"), names)
    f = fleet.open_fleet(root)
    assert [m.name for m in f.members] == [
        "nodeA-gpu2", "nodeA-gpu10", "nodeB-gpu0", "nodeB-gpu1"]


def test_rank_members_and_a_plain_fleet_directory(tmp_path, capsys):
    names = ["n2-rank3", "n1-rank1", "n1-rank0", "n2-rank2"]
    root = make_fleet_dir(str(tmp_path / "f"), names,
                          slow={"n2-rank2": 0.85})
    printed, out = _report(root, capsys)
    assert "outlier: n2-rank2" in printed
    md = unwrapped((out / "report.md").read_text(encoding="utf-8"))
    order = [md.index("| %s |" % n) for n in
             ("n1-rank0", "n1-rank1", "n2-rank2", "n2-rank3")]
    assert order == sorted(order)
    # no ceilings run in a plain fleet directory: those cells are "—"
    assert _row(md, "n1-rank0").split(" | ")[5:8] == ["—", "—", "—"]


def test_missing_placement_and_nvml_show_dashes(tmp_path, capsys):
    root = make_fleet_dir(str(tmp_path / "f"), FOUR[:3],
                          slow={"nodeA-gpu1": 0.9}, nvml=False)
    for name in FOUR[:3]:
        path = os.path.join(root, name, "run.json")
        manifest = json.load(open(path))
        del manifest["placement"]
        manifest["device"]["pci_bus_id"] = None
        json.dump(manifest, open(path, "w"))
    printed, out = _report(root, capsys)
    md = unwrapped((out / "report.md").read_text(encoding="utf-8"))
    assert _row(md, "nodeA-gpu0").split(" | ")[3:5] == ["—", "—"]
    assert "No NVML readings in its run.json." in md


def test_two_gpus_both_flagged_and_said_why(tmp_path):
    root = make_fleet_dir(str(tmp_path / "f"), FOUR[:2],
                          slow={"nodeA-gpu1": 0.8})
    judged = fleet_answers.judge(fleet.open_fleet(root))
    assert len(judged.outlier_members) == 2
    from ewbench.analysis.fleet import page as fleet_report
    _, blocks = fleet_report.build_document(judged, None)
    assert any("With two GPUs the median is their mean" in
               getattr(b, "text", "") for b in blocks)


def test_output_directory_is_claimed(slow_study, tmp_path, capsys):
    foreign = tmp_path / "busy"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    assert main(["fleet", slow_study, "-o", str(foreign)]) == EXIT_USAGE
    assert "did not write (notes.txt)" in capsys.readouterr().err
    assert main(["fleet", slow_study, "-o", slow_study]) == EXIT_USAGE
    member = os.path.join(slow_study, "run", "nodeA-gpu0")
    assert main(["fleet", slow_study, "-o", member]) == EXIT_USAGE
    # a second rendering replaces the first
    assert main(["fleet", slow_study]) == EXIT_OK
    assert main(["fleet", slow_study]) == EXIT_OK


def test_not_a_fleet_exits_three(tmp_path, fixture_dir, capsys):
    assert main(["fleet", fixture_dir]) == EXIT_DATA
    assert "got a run directory" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["fleet", str(empty)]) == EXIT_DATA
    assert "expected a fleet directory" in capsys.readouterr().err


def test_placement_keys_validated_tolerantly(tmp_path):
    root = make_fleet_dir(str(tmp_path / "f"), FOUR[:1])
    path = os.path.join(root, FOUR[0], "run.json")
    manifest = json.load(open(path))
    # null everywhere is fine
    manifest["placement"] = {k: None for k in manifest["placement"]}
    manifest["placement"]["nvml"] = {"status": "ok", "start": None, "end": {
        "sm_clock_mhz": None, "clock_event_reasons": 36}}
    json.dump(manifest, open(path, "w"), indent=1)
    run = fleet.open_fleet(root).members[0]
    assert run.place.numa_node is None
    assert run.place.end.throttle_reasons == ("sw_power_cap",
                                              "sw_thermal_slowdown")
    # a wrong type is refused with its line
    manifest["placement"]["numa_node"] = "zero"
    json.dump(manifest, open(path, "w"), indent=1)
    with pytest.raises(validate.DataError) as e:
        fleet.open_fleet(root)
    assert e.value.path == path and e.value.line is not None
    assert "placement.numa_node" in str(e.value)


def test_placement_reader_never_raises():
    for manifest in (None, [], {}, {"placement": 3},
                     {"placement": {"nvml": {"start": 1}}},
                     {"placement": {"numa_node": True}}):
        placement.read(manifest)
    p = placement.read({"placement": {"launcher": "slurm", "rank": 4,
                                      "node": "n7"}})
    assert (p.launcher, p.rank, p.node) == ("slurm", 4, "n7")
    assert placement.throttle_names("none") == ()
    assert placement.slowdowns(("gpu_idle", "hw_slowdown")) == \
        ("hw_slowdown",)


def test_every_member_failed(tmp_path, capsys):
    root = tmp_path / "f"
    root.mkdir()
    (root / "fleet.json").write_text(json.dumps({
        "schema": "ewbench-fleet/1", "members": [
            {"name": "h-gpu0", "status": "failed", "exit_code": 5,
             "reason": "no usable GPU"},
            {"name": "h-gpu1", "status": "interrupted", "exit_code": 130,
             "reason": None}]}))
    printed, out = _report(root, capsys)
    assert "failed: h-gpu0: no usable GPU" in printed
    md = unwrapped((out / "report.md").read_text(encoding="utf-8"))
    assert "# ewbench fleet: 0 GPUs" in md
    assert "**h-gpu1**: interrupted (exit 130) — no reason recorded" in md

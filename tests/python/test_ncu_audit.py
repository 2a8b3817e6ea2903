"""The ncu audit (python/ewbench/analysis/ncu_audit.py): Nsight Compute's
details CSV read as ncu writes it, each rule with an estimate mapped to the
change ewbench measured, the rules without one listed, and docs/ncu-audit.md
holding the table the code prints from the committed files."""

import csv
import os
import re

import pytest

from conftest import ROOT
from ewbench.analysis import ncu_audit
from ewbench.analysis.core.validate import DataError

STUDY = os.path.join(ROOT, "reports", "reference", "nvidia-h200")
NCU = os.path.join(ROOT, "reports", "reference", "nvidia-h200-user-kernels",
                   "ncu", "ncurules-details.csv")
DOC = os.path.join(ROOT, "docs", "ncu-audit.md")
HEADER = ('"ID","Kernel Name","Block Size","Rule Name","Estimated Speedup '
          'Type","Estimated Speedup","Rule Description"')


def write_csv(tmp_path, *rows, preamble=""):
    path = tmp_path / "details.csv"
    path.write_text(preamble + HEADER + "\n" + "".join(r + "\n" for r in rows))
    return str(path)


def estimate(rule, kernel="add_f32", block=256, pct=10.0):
    return ncu_audit.Estimate(kernel, block, rule, "global", pct, "", 2)


@pytest.fixture(scope="module")
def audited():
    return ncu_audit.audit(ncu_audit.read_estimates(NCU),
                           ncu_audit.read_points(
                               os.path.join(STUDY, "experiments")))


def test_the_real_csv_gives_the_timed_launch_of_each_kernel():
    with open(NCU, newline="") as f:
        rows = list(csv.DictReader(f))
    with_estimate = [r for r in rows if r["Estimated Speedup"]]
    estimates = ncu_audit.read_estimates(NCU)
    # Each kernel profiled twice (check launch, timed launch): half the
    # rows with an estimate are the timed launch's.
    assert len(estimates) * 2 == len(with_estimate)
    assert len({e.kernel for e in estimates}) == 12
    timed = {}
    for r in rows:
        kernel = ncu_audit.variant_of(r["Kernel Name"])
        timed[kernel] = max(timed.get(kernel, 0), int(r["ID"]))
    for e in estimates:
        line = rows[e.line - 2]
        assert int(line["ID"]) == timed[e.kernel]
        assert float(line["Estimated Speedup"]) == e.pct
        assert line["Rule Name"] == e.rule
    assert {e.kind for e in estimates} == {"global", "local"}


def test_quoting_thousands_and_ncu_log_lines(tmp_path):
    path = write_csv(
        tmp_path,
        '"0","ewb_add_f32(const float *, float *)","(256, 1, 1)","CPIStall",'
        '"global","7",""',
        "==WARNING== a log line of ncu's amid the rows",
        '"1","ewb_add_f32(const float *, float *)","(256, 1, 1)","CPIStall",'
        '"global","1,234.5","stalls, ""quoted"", a comma"',
        preamble="==PROF== Connected to process 1\n")
    # the last launch of the kernel only, its line in the file
    (e,) = ncu_audit.read_estimates(path)
    assert (e.kernel, e.block, e.pct, e.line) == ("add_f32", 256, 1234.5, 5)
    assert ncu_audit.number("1,447,535") == 1447535


def test_bad_input_names_file_and_line(tmp_path, capsys):
    path = write_csv(tmp_path,
                     '"x","ewb_add_f32()","(256, 1, 1)","CPIStall","global",'
                     '"5",""')
    with pytest.raises(DataError, match=r"details\.csv:2: expected"):
        ncu_audit.read_estimates(path)
    empty = tmp_path / "empty.csv"
    empty.write_text("==PROF== nothing profiled\n")
    assert ncu_audit.main([STUDY, str(empty)]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "empty.csv: expected an ncu" in err
    assert ncu_audit.main([STUDY, str(tmp_path / "absent.csv")]) == 2


def test_every_rule_of_the_real_csv_is_in_the_table(audited):
    assert {r.estimate.rule for r in audited} <= set(ncu_audit.RULES)


def test_a_rule_without_a_measured_change_is_listed_not_dropped():
    points = {("add_f32", 256): (100.0, 12), ("add_f32", 512): (80.0, 12)}
    unknown, unmeasured, no_probe, blocks = ncu_audit.audit(
        [estimate("SomeFutureRule"), estimate("MemoryL2Compression"),
         estimate("CPIStall"), estimate("AchievedOccupancy")], points)
    assert (unknown.change, unknown.why) == (None, "not in the table")
    assert unmeasured.change is None and unmeasured.measured_pct is None
    assert no_probe.change == ncu_audit.LOADS
    assert no_probe.measured_pct is None
    # block 512 measured (20 % of the time saved), block 1024 absent
    assert (blocks.trial, blocks.measured_pct) == ("block 512",
                                                   pytest.approx(20.0))
    assert blocks.ratio == pytest.approx(2.0)
    text = ncu_audit.render([unknown, unmeasured, no_probe, blocks])
    for rule in ("SomeFutureRule", "MemoryL2Compression", "CPIStall"):
        assert "| add_f32 | %s | global | 10.0 %% |" % rule in text
    assert "4 rules with an estimate; 1 set beside a measured change, " \
        "3 not measured." in text


def test_a_change_moving_other_bytes_is_not_measured():
    points = {("add_f32", 256): (100.0, 12), ("add_f32", 512): (80.0, 24)}
    (row,) = ncu_audit.audit([estimate("AchievedOccupancy")], points)
    assert row.measured_pct is None


def test_measured_gains_are_the_predictions_csvs(audited):
    """The block and probe gains agree with the study's predictions.csv
    (the report's base and measured bandwidths of the same trials)."""
    with open(os.path.join(STUDY, "report", "predictions.csv"),
              newline="") as f:
        scored = {}
        for p in csv.DictReader(f):
            m = re.match(r"block (\d+)|\dx the loads per thread \((\w+)\)",
                         p["change"])
            trial = "block %s" % m.group(1) if m.group(1) else m.group(2)
            scored[(p["variant"], trial)] = 100.0 * (
                1 - float(p["base_bytes_per_s"]) /
                float(p["measured_bytes_per_s"]))
    compared = 0
    for r in audited:
        key = (r.estimate.kernel, r.trial)
        if r.change in (ncu_audit.BLOCKS, ncu_audit.LOADS) and key in scored:
            assert r.measured_pct == pytest.approx(scored[key], abs=0.01)
            compared += 1
    assert compared >= 10


def test_the_doc_holds_the_codes_table(audited):
    with open(DOC) as f:
        doc = f.read()
    m = re.search(r"<!-- ncu-audit: begin[^\n]*-->\n(.*?)<!-- ncu-audit: "
                  r"end -->", doc, re.S)
    assert m, "docs/ncu-audit.md has no generated table"
    assert m.group(1) == ncu_audit.render(audited)
    assert sum(r.ratio is not None for r in audited) >= 10

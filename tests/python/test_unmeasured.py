"""Metrics a GPU does not have (run.json counters.left_out and
counters.collected): loading them, the stall shares over the reasons
present, and the report's "Not measured on this GPU" note with what each
gap leaves undecided (analysis/report/unmeasured.py)."""

import glob
import json
import os
import re
import shutil

import pytest

from ewbench.analysis.core import derived
from ewbench.analysis.report import model
from ewbench.analysis.report import plots
from ewbench.analysis.report import page as report
from ewbench.analysis.core import study
from ewbench.analysis.report import findings as fnd
from ewbench.analysis.core import select as sel
from ewbench.analysis.report import unmeasured as um
from ewbench.analysis.__main__ import EXIT_DATA, main
from ewbench.analysis.core.load import DataError, load_run
from conftest import FIXTURE, PACKAGE, make_study_dir, rewrite, unwrapped

RUN_ID = "20261121T204512Z-fixture-h100"
STALL = "smsp__warp_issue_stalled_%s_per_warp_active.pct"
IMC = STALL % "imc_miss"
F16 = ("add_f16", 268435456, 256, "warm", "stream")
DRAM_READ = "dram__bytes_read.sum"


def edit_counters(run_dir, **members):
    """Set members of run.json's counters object."""
    path = os.path.join(str(run_dir), "run.json")
    with open(path, encoding="utf-8") as f:
        manifest = json.load(f)
    manifest["counters"].update(members)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2)


def drop_metrics(run_dir, names):
    """Remove every metrics.csv row of these metrics, as a chip without
    them leaves them unwritten."""
    rewrite(os.path.join(str(run_dir), "metrics.csv"), lambda t: "".join(
        line for line in t.splitlines(True)
        if line.split(",")[8:9] != [] and line.split(",")[8] not in names))


def add_stalls(root, rows):
    part = root / "stalls"
    shutil.copytree(FIXTURE, part)
    os.remove(part / "ceilings.csv")
    lines = ["run_id,variant,op,dtype,n,block,cache,launch,metric,value,"
             "unit,source"]
    for metric, value in rows:
        lines.append("%s,%s,add,f16,%d,%d,%s,%s,%s,%r,%%,cupti" % (
            (RUN_ID,) + F16 + (metric, value)))
    (part / "metrics.csv").write_text("\n".join(lines) + "\n")
    return part


def render(root, out, plot_study=plots.plot_study):
    md, html, judged = report.write_report(study.load_study(str(root)),
                                           str(out), plot_study)
    with open(md, encoding="utf-8") as f:
        text = f.read()
    with open(html, encoding="utf-8") as f:
        return text, f.read(), judged


# (a) stall shares over the reasons present

WAITS = [(STALL % "long_scoreboard", 80.0), (STALL % "not_selected", 8.0),
         (STALL % "wait", 4.0), (STALL % "selected", 2.0)]


@pytest.mark.parametrize("imc", [None, 0.0])
def test_stall_shares_are_over_the_reasons_present(study_dir, imc):
    rows = WAITS + ([(IMC, imc)] if imc is not None else [])
    stalls = add_stalls(study_dir, rows)
    if imc is None:
        edit_counters(stalls, left_out=[{
            "metric": IMC, "reason": "GB202 has no such metric"}])
    s = study.load_study(str(study_dir))
    article = s.run(study.ARTICLE)
    point = next(p for p in article.points if p.key == F16)
    shares = sel.stall_shares(article, point)
    assert [r for r, _ in shares if r == "imc_miss"] == (
        [] if imc is None else ["imc_miss"])
    facts = model.point_facts(article, point, {})
    reasons = {r for r, _ in facts.stalls}
    assert facts.stall_share(reasons) == pytest.approx(1.0)
    assert facts.stall_share(model.LATENCY_STALLS) == pytest.approx(80 / 92)


def test_a_missing_stall_reason_leaves_the_verdict_as_a_zero_one(tmp_path):
    verdicts = {}
    for imc in (None, 0.0):
        root = tmp_path / ("with" if imc is not None else "without")
        make_study_dir(root)
        add_stalls(root, WAITS + ([(IMC, imc)] if imc is not None else []))
        sctx = fnd.make_context(study.load_study(str(root)))
        verdicts[imc] = sctx.parts[study.ARTICLE].verdicts[F16]
    assert verdicts[None] == verdicts[0.0]
    assert verdicts[None].name == model.LATENCY_BOUND


def test_pure_facts_without_a_reason_decide_alike():
    dram = model.Bound(3.0e12, "measured dram_add", True)
    base = dict(time_ns=1e6, bytes_moved=3 << 30, footprint_bytes=3 << 30,
                l2_bytes=50 << 20, dram_ceiling=dram, launch_floor_ns=2000.0,
                best_sibling="fast", best_sibling_bandwidth=2.9e12,
                occupancy_pct=90.0, bandwidth=2.0e12)
    # largest first, as select.stall_shares gives them
    present = (("long_scoreboard", 60.0), ("not_selected", 30.0),
               ("wait", 10.0), ("imc_miss", 0.0))
    absent = tuple(r for r in present if r[0] != "imc_miss")
    a = model.classify(model.PointFacts(stalls=present, **base))
    b = model.classify(model.PointFacts(stalls=absent, **base))
    assert a == b and a.name == model.LATENCY_BOUND
    f = model.PointFacts(stalls=absent, **base)
    assert f.stall_share({r for r, _ in absent}) == pytest.approx(1.0)


# the table covers what the analysis reads

def test_every_metric_the_report_reads_is_in_the_table():
    """Every select.M_* constant read outside select.py, every one read
    by select.py's own functions, and every metric name spelled in a
    module of the study report, is a name unmeasured.USES knows (or a
    derived metric whose inputs it knows): a new reader must say what it
    decides."""
    known = um.reads()
    source_dir = os.path.join(PACKAGE, "analysis")
    found = set()
    for path in glob.glob(os.path.join(source_dir, "**", "*.py"),
                          recursive=True):
        name = os.path.basename(path)
        if os.path.basename(os.path.dirname(path)) == "fleet" or \
                name == "unmeasured.py":
            continue                    # the fleet report; the table itself
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if name == "select.py":
            text = text.split("\ndef ", 1)[1]   # the functions, not the names
            found |= set(re.findall(r"\b(M_[A-Z0-9_]+)\b", text))
        else:
            found |= set(re.findall(r"\bsel\.(M_[A-Z0-9_]+)\b", text))
            literal = re.findall(r"[\"']((?:dram|lts|l1tex|smsp|sm|gpu|"
                                 r"derived|launch)__[A-Za-z0-9_.]+)[\"']",
                                 text)
            assert not [m for m in literal if m not in known], (name, literal)
    assert found
    for constant in found:
        value = getattr(sel, constant)
        for metric in (value if isinstance(value, tuple) else (value,)):
            assert metric in known or metric in derived.INPUTS, constant
    assert um.STALL_FAMILY in known


def test_derived_metrics_resolve_to_what_they_cannot_do_without():
    assert um.feeds(DRAM_READ) >= {DRAM_READ, sel.M_DRAM_READ_FRACTION}
    # read_bytes is the point's fact: only the instruction counter is
    # required for the requested bytes; the sector bytes need the bytes
    assert derived.INPUTS[sel.M_LD_REQUESTED_BYTES_PER_INST] == {
        "smsp__sass_inst_executed_op_global_ld.sum"}
    assert derived.INPUTS[sel.M_LD_BYTES_PER_INST] == {
        "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum",
        "smsp__sass_inst_executed_op_global_ld.sum"}
    assert um.STALL_FAMILY in um.feeds(IMC)


# (b) a left-out metric renders the note

def test_left_out_dram_read_is_named_with_what_it_leaves(study_dir, tmp_path):
    for part in ("article", "sweep"):
        edit_counters(study_dir / part, left_out=[{
            "metric": DRAM_READ, "reason": "GB10B has no such metric"}],
            collected={"gpu__time_duration.sum": "gpu__time_duration.sum",
                       "dram__bytes_write.sum": "dram__bytes_op_write.sum"})
        drop_metrics(study_dir / part, {DRAM_READ, "derived__dram_bandwidth"})
    md, html, _ = render(study_dir, tmp_path / "out")
    md = unwrapped(md)
    assert "### Not measured on this GPU" in md
    row = next(line for line in md.splitlines()
               if line.startswith("| `%s`" % DRAM_READ))
    assert "`article/`, `sweep/`" in row
    assert "GB10B has no such metric" in row
    assert "Finding 2" in row and "derived__dram_read_fraction" in row
    assert "L2-bound verdicts" in row and "cache-tier figure" in row
    # one line near the first screen, before the contents
    first = md.split("## Contents")[0]
    line = next(x for x in first.splitlines()
                if x.startswith("**Not measured on this GPU**"))
    assert "`%s`" % DRAM_READ in line and "Finding 2" in line
    assert "(#not-measured-on-this-gpu)" in line     # its heading's anchor
    # the chip's own names, where it collected an entry under one
    assert "`dram__bytes_write.sum` as `dram__bytes_op_write.sum`" in md
    assert "Not measured on this GPU" in html and 'id="not-measured"' in html


def test_a_missing_stall_reason_leaves_nothing_undecided(study_dir,
                                                         tmp_path):
    stalls = add_stalls(study_dir, WAITS)
    edit_counters(stalls, left_out=[{
        "metric": IMC, "reason": "GB202 has no such metric"}])
    # Words only: the figures come from the parts but stalls/, the fixture
    # study's (test_runs_without_the_members_render_as_with_nothing_left_out
    # draws them).
    md, _, _ = render(study_dir, tmp_path / "out", lambda *args: {})
    row = next(line for line in md.splitlines()
               if line.startswith("| `%s`" % IMC))
    assert "nothing: the warp stall shares are taken over the 3 reasons " \
        "this chip has" in row
    # nothing the findings or verdicts use is missing: no first-screen line
    assert "**Not measured on this GPU**" not in md


def test_counters_unavailable_name_what_they_leave(run_copy, tmp_path):
    edit_counters(run_copy, status="unavailable", enabled=False,
                  reason="CUPTI could not open the profiler")
    os.remove(run_copy / "metrics.csv")
    out = tmp_path / "out"
    report.write_report(study.open_study(str(run_copy)), str(out),
                        plots.plot_study)
    md = (out / "report.md").read_text(encoding="utf-8")
    row = next(line for line in md.splitlines()
               if line.startswith("| every counter"))
    assert "counters unavailable: CUPTI could not open the profiler" in row
    assert "Finding 4: not testable" in row
    assert "**Not measured on this GPU**" in md.split("## Contents")[0]


# (c) runs written before the members render as before

def without_pictures(html):
    """The page without its embedded images' bytes."""
    return re.sub(r"data:image/[a-z+]+;base64,[A-Za-z0-9+/=]+", "data:",
                  html)



def test_runs_without_the_members_render_as_with_nothing_left_out(
        study_dir, tmp_path, figures_once):
    # The fixture's study as it is: its figures drawn once a session
    # (conftest.FiguresDrawnOnce); the runs with the members, drawn.
    before, before_html, _ = render(study_dir, tmp_path / "a",
                                    figures_once.plot_study)
    assert "Not measured" not in before and "not-measured" not in before_html
    assert um.survey(study.load_study(str(study_dir))) == []
    for part in ("article", "sweep", "blocks"):
        with open(study_dir / part / "run.json", encoding="utf-8") as f:
            metrics = json.load(f)["counters"]["metrics"]
        edit_counters(study_dir / part, left_out=[],
                      collected={m: m for m in metrics})
    after, after_html, _ = render(study_dir, tmp_path / "b")
    assert after == before
    # The text, not the pictures: two renders of the same figures can
    # differ in a few pixels (seen once in five on the fixture).
    assert without_pictures(after_html) == without_pictures(
        before_html.replace(str(tmp_path / "a"), str(tmp_path / "b")))


def test_old_run_json_loads_with_nothing_left_out(fixture_run):
    assert "left_out" not in fixture_run.manifest["counters"]
    assert fixture_run.left_out == () and fixture_run.collected == {}


# (d) malformed members are refused cleanly

@pytest.mark.parametrize("members, message", [
    ({"left_out": "dram__bytes_read.sum"},
     r"expected counters\.left_out to be a list, got \"dram"),
    ({"left_out": [{"reason": "GB10B has no such metric"}]},
     r"expected counters\.left_out\[0\]\.metric to be present"),
    ({"left_out": [{"metric": 7, "reason": "x"}]},
     r"expected counters\.left_out\[0\]\.metric to be a non-empty string"),
    ({"left_out": [{"metric": DRAM_READ, "reason": ["x"]}]},
     r"expected counters\.left_out\[0\]\.reason to be a string or null"),
    ({"collected": ["dram__bytes_read.sum"]},
     r"expected counters\.collected to be an object, got a list"),
    ({"collected": {DRAM_READ: None}},
     r"expected counters\.collected\.dram__bytes_read\.sum to be a "
     r"non-empty string, got null"),
])
def test_malformed_members_are_bad_data(run_copy, members, message):
    edit_counters(run_copy, **members)
    with pytest.raises(DataError, match=r"run\.json:\d+: " + message):
        load_run(str(run_copy))


def test_malformed_left_out_exits_three_without_a_traceback(run_copy,
                                                            capsys):
    edit_counters(run_copy, left_out="dram__bytes_read.sum")
    assert main(["report", str(run_copy), "-o",
                 str(run_copy / "out")]) == EXIT_DATA
    err = capsys.readouterr().err
    assert re.search(r"run\.json:\d+: expected counters\.left_out to be a "
                     r"list", err)
    assert "Traceback" not in err

"""Every step of `make report` timed: scripts/report.sh writes the study's
steps.json (checked by validate.check_steps, read as study.Study.steps,
shown in the report's Method), and serves every round's torch rows from
one PyTorch process (`ewbench torch --serve`).  scripts/report.sh runs
here on a stand-in ewbench (a shell script: each part a copy of the
fixture run, every event appended to one log) whose `torch` is
tests/python/torch_standin.py: the real server and the real script, the
GPU and PyTorch stood in for."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from ewbench.analysis.core import document as doc
from ewbench.analysis.core import study as stu
from ewbench.analysis.core import validate
from ewbench.analysis.core.load import DataError
from ewbench.analysis.report.page import method
from conftest import FIXTURE, ROOT

STANDIN = os.path.join(ROOT, "tests", "python", "torch_standin.py")

STEPS = {
    "schema": "ewbench-steps/1", "started_utc": "2026-12-01T10:00:00Z",
    "steps": [
        {"name": "ceilings", "kind": "part", "dirs": ["ceilings"],
         "start_s": 0.0, "seconds": 3.1, "exit_code": 0},
        {"name": "article", "kind": "part", "dirs": ["article"],
         "start_s": 3.1, "seconds": 9.7, "exit_code": 0},
        {"name": "torch 1", "kind": "peer", "dirs": ["article"],
         "start_s": 12.8, "seconds": 6.0, "exit_code": 0},
        {"name": "render", "kind": "render", "dirs": ["report"],
         "start_s": 18.8, "seconds": 5.5, "exit_code": 0}]}


def write_steps(directory, doc_):
    (directory / "steps.json").write_text(json.dumps(doc_, indent=2))


def markdown(blocks):
    return doc.render_markdown(blocks)


def flat(text):
    """The text with every run of white space one space (report.md wraps
    its paragraphs)."""
    return " ".join(text.split())


# steps.json: the contract, the study, the page

def test_steps_load_in_order_and_measuring_spans_them(study_dir):
    write_steps(study_dir, STEPS)
    s = stu.load_study(str(study_dir))
    assert [step.name for step in s.steps] == ["ceilings", "article",
                                                "torch 1", "render"]
    assert s.steps[2] == stu.Step("torch 1", "peer", ("article",), 12.8,
                                  6.0, 0)
    # first part's start to the last measuring step's end: render is not
    assert s.measuring_s == pytest.approx(18.8)


def test_method_shows_the_steps(study_dir):
    before = markdown(method.method_section(stu.load_study(str(study_dir))))
    assert "Steps" not in before            # no steps.json: as before
    write_steps(study_dir, STEPS)
    text = markdown(method.method_section(stu.load_study(str(study_dir))))
    assert "18.8 s of measuring, from the first part's start" in flat(text)
    assert "its first rendering took 5.5 s" in flat(text)
    assert "| torch 1 | `article/` | 12.8 s | 6.0 s |" in flat(text)
    failed = dict(STEPS, steps=STEPS["steps"][:1] + [
        dict(STEPS["steps"][1], exit_code=1)])
    write_steps(study_dir, failed)
    text = markdown(method.method_section(stu.load_study(str(study_dir))))
    assert "| article (exit 1) | `article/` |" in flat(text)
    assert "rendering" not in text
    # the rest of the section is what it was without steps.json
    for line in before.split("\n"):
        assert line in text


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(schema="ewbench-steps/2"),
     "expected schema 'ewbench-steps/1', got \"ewbench-steps/2\""),
    (lambda d: d["steps"][1].update(kind="measure"),
     ":17: expected steps[1].kind to be one of part, peer, render, got "
     "\"measure\""),
    (lambda d: d["steps"][0].update(seconds=-1),
     "expected steps[0].seconds to be a non-negative finite number"),
    # 1e308 s summed to "inf s of measuring" (issue 55, cause 13)
    (lambda d: d["steps"][1].update(seconds=1e308),
     ":22: expected steps[1].seconds within a study's length (start_s + "
     "seconds at most 31622400 s, 366 days), got 1e+308"),
    (lambda d: d["steps"][0].update(start_s=4e7),
     "expected steps[0].start_s within a study's length"),
    (lambda d: d["steps"][2].pop("start_s"),
     "expected steps[2].start_s to be present"),
    (lambda d: d.pop("steps"), "expected steps to be present"),
])
def test_bad_steps_json_is_refused_with_its_line(study_dir, edit, message):
    bad = json.loads(json.dumps(STEPS))
    edit(bad)
    write_steps(study_dir, bad)
    with pytest.raises(DataError) as e:
        stu.load_study(str(study_dir))
    assert message in str(e.value)
    assert str(e.value).startswith(str(study_dir / "steps.json") + ":")


def test_steps_json_that_is_not_a_file_is_refused(study_dir):
    os.mkdir(study_dir / "steps.json")
    with pytest.raises(DataError, match="expected a regular file"):
        stu.load_study(str(study_dir))


# scripts/report.sh on a stand-in ewbench

FAKE_EWBENCH = r"""#!/bin/sh
# A stand-in ewbench for scripts/report.sh: every event on $LOG.
case $1 in
info)	echo "device 0: NVIDIA H100 80GB HBM3"; exit 0 ;;
list)	echo "add_f32 add f32 study"; echo "add_f16 add f16 study"; exit 0 ;;
torch)	shift; exec "$PY" "$STANDIN" --log "$LOG" $TORCH_FLAGS "$@" ;;
report)	mkdir -p "$4" && echo report >"$4/report.html"; exit 0 ;;
esac
prev= out=
for a; do [ "$prev" = -o ] && out=$a; prev=$a; done
echo "part begin $(basename "$out")" >>"$LOG"
mkdir -p "$(dirname "$out")"
cp -r "$FIXTURE" "$out"
grep -v ',torch_' "$FIXTURE/timing.csv" >"$out/timing.csv"
echo "part end $(basename "$out")" >>"$LOG"
"""


def run_report(tmp_path, torch_flags=""):
    fake = tmp_path / "ewbench"
    fake.write_text(FAKE_EWBENCH)
    fake.chmod(0o755)
    log = tmp_path / "events.log"
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = dict(os.environ, EWBENCH=str(fake), PYTHON=sys.executable,
               PY=sys.executable, STANDIN=STANDIN, LOG=str(log),
               FIXTURE=FIXTURE, TORCH_FLAGS=torch_flags, TMPDIR=str(temp))
    proc = subprocess.run(["sh", os.path.join(ROOT, "scripts", "report.sh"),
                           ROOT, str(tmp_path / "reports")], env=env,
                          capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The FIFOs' folder is gone, and nothing was left in TMPDIR.
    assert os.listdir(temp) == []
    studies = os.listdir(tmp_path / "reports")
    assert len(studies) == 1 and studies[0].startswith(
        "nvidia-h100-80gb-hbm3-")
    study = tmp_path / "reports" / studies[0]
    return proc, log.read_text().splitlines(), study


def test_report_serves_every_round_from_one_torch_between_the_parts(
        tmp_path):
    proc, events, study = run_report(tmp_path)
    # One PyTorch, started after the article (whose host launch path a
    # core busy importing could move) ...
    assert events.count("torch import") == 1
    assert events.index("torch import") > events.index("part end article")
    events.remove("torch import")
    # ... preparing its GPU (no kernel: its context and its profiler's
    # first session) once the parts with counters have ended, beside the
    # experiments and the first round, ...
    prepared = [e for e in events if e in ("torch gpu", "torch profiler")]
    assert prepared == ["torch gpu", "torch profiler"]
    assert events.index("torch gpu") > events.index("part end stalls")
    assert events.index("torch profiler") < events.index(
        "torch measure begin article round-1")
    events = [e for e in events if e not in prepared]
    # ... and measuring each round's rows right after it, never while a
    # part runs.
    parts = ["ceilings", "article", "sweep", "blocks", "stalls",
             "experiments"]
    assert events == [e for p in parts for e in (
        "part begin " + p, "part end " + p)] + [
        "part begin round-1", "part end round-1",
        "torch measure begin article round-1", "torch measure end",
        "torch release",             # PyTorch's cache back to the driver
        "part begin round-2", "part end round-2",
        "torch measure begin round-2", "torch measure end", "torch release",
        "part begin round-3", "part end round-3",
        "torch measure begin round-3", "torch measure end", "torch release"]
    # The rows are in each run's peer-torch.csv, as `ewbench torch` by
    # hand writes them; the server's lines were shown.
    for run in ("article", "repeats/round-1", "repeats/round-2",
                "repeats/round-3"):
        assert validate.present(str(study / run / "peer-torch.csv"))
        assert "wrote 30 rows to %s" % (study / run / "peer-torch.csv") \
            in proc.stdout
    # Every step timed, in order, in steps.json, which the analysis reads.
    steps = stu.load_steps(str(study))
    assert [(s.name, s.kind, s.dirs) for s in steps] == [
        ("ceilings", "part", ("ceilings",)),
        ("article", "part", ("article",)),
        ("sweep", "part", ("sweep",)), ("blocks", "part", ("blocks",)),
        ("stalls", "part", ("stalls",)),
        ("experiments", "part", ("experiments",)),
        ("repeat 1", "part", ("repeats/round-1",)),
        ("torch 1", "peer", ("article", "repeats/round-1")),
        ("repeat 2", "part", ("repeats/round-2",)),
        ("torch 2", "peer", ("repeats/round-2",)),
        ("repeat 3", "part", ("repeats/round-3",)),
        ("torch 3", "peer", ("repeats/round-3",)),
        ("render", "render", ("report",))]
    assert all(s.exit_code == 0 for s in steps)
    for a, b in zip(steps, steps[1:]):
        assert a.start_s + a.seconds <= b.start_s + 0.0015
    for step in steps:
        assert "report: %s in " % step.name in proc.stdout
    assert not [f for f in os.listdir(study) if f.startswith(".")]


def test_report_without_torch_skips_its_rows_once(tmp_path):
    proc, events, study = run_report(tmp_path, "--no-torch")
    assert events.count("torch import failed") == 1
    assert not [e for e in events if e.startswith("torch measure")]
    assert proc.stdout.count("report: torch peer rows skipped") == 1
    assert "cannot run here: PyTorch is not installed" in proc.stderr
    steps = stu.load_steps(str(study))
    torch = [s for s in steps if s.kind == "peer"]
    assert [(s.name, s.exit_code) for s in torch] == [("torch 1", 1)]
    assert [s.name for s in steps if s.kind == "part"][-1] == "repeat 3"
    assert not os.path.exists(study / "article" / "peer-torch.csv")
    shutil.rmtree(study)

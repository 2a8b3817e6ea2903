"""The one rule of every analysis command's output directory (issue 41,
item 1; issue 42, items 3, 5 and 9): a command never deletes or
overwrites a file it did not write; a swap is all or nothing even when a
rename fails part way; what a killed render left is cleaned by the next;
a plot worker that dies is one line.  Each test names its item."""

import os
import re
import shutil
import signal
import subprocess
import sys

import pytest

from ewbench.analysis.__main__ import (EXIT_ERROR, EXIT_OK, EXIT_USAGE,
                                      main)
from ewbench.analysis.core import atomic
from conftest import ROOT
from fleet_fixtures import make_fleet_dir

from test_faults import files_of, mark_previous

PROG = "python3 -m ewbench.analysis"


def fleet(tmp_path):
    return make_fleet_dir(str(tmp_path / "f"), ["h-gpu0", "h-gpu1"],
                          slow={"h-gpu1": 0.8})


def render(command, source, out):
    return main([command, str(source), "-o", str(out)])


def previous_output(command, source, out, fixture_report):
    """out made to hold what `command source -o out` writes: for report,
    the fixture run's report, rendered once a session, copied
    (conftest.fixture_report); a fleet report is rendered (its figure
    from figures_once where the test has command_and_source)."""
    if command == "report":
        shutil.copytree(fixture_report, out)
    else:
        assert render(command, source, out) == EXIT_OK


@pytest.fixture(params=["report", "fleet-report"])
def command_and_source(request, run_copy, tmp_path,
                       report_figures_drawn_once):
    """(command, source), the report's figures and the fleet report's
    drawn once a session (conftest.FiguresDrawnOnce: these tests are of
    the output directory, not of the figures)."""
    source = run_copy if request.param == "report" else fleet(tmp_path)
    return request.param, source


# Issue 41, item 1: `report -o DIR` deleted everything in DIR/figures/
# (fleet-report too); a user's files in DIR or DIR/figures are a reason to
# refuse, and nothing is changed.

@pytest.mark.parametrize("placed", [
    ["figures/mine.svg", "figures/notes.txt"], ["notes.txt"],
    ["figures/deeper/x.svg"]])
def test_foreign_files_in_the_output_are_refused_and_kept(
        command_and_source, tmp_path, fixture_report, capsys, placed):
    command, source = command_and_source
    out = tmp_path / "out"
    previous_output(command, source, out, fixture_report)
    for name in placed:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text("the user's own %s\n" % name)
    before = mark_previous(out)
    capsys.readouterr()
    assert render(command, source, out) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("%s %s: will not write into %s: it holds files "
                          "this command did not write (" % (PROG, command,
                                                            out)), err
    assert err.count("\n") == 1
    for name in placed:
        assert name.split("/")[-1] in err or "deeper" in err
    assert files_of(out) == before


def test_foreign_files_in_a_fresh_output_are_refused(run_copy, tmp_path,
                                                     capsys):
    out = tmp_path / "paper"
    (out / "figures").mkdir(parents=True)
    (out / "figures" / "mine.svg").write_text("<svg/>")
    assert render("report", run_copy, out) == EXIT_USAGE
    assert "figures/mine.svg" in capsys.readouterr().err
    assert sorted(os.listdir(out)) == ["figures"]
    assert os.listdir(out / "figures") == ["mine.svg"]


# Issue 42, item 5: a user's file named `figures` (it was replaced, exit
# 0) or a directory named report.html (a part-way swap) in -o: refused
# before anything is written.

@pytest.mark.parametrize("kind", ["file figures", "dir report.html",
                                  "link report.md"])
def test_an_output_name_taken_by_something_else_is_refused(
        command_and_source, tmp_path, fixture_report, capsys, kind):
    command, source = command_and_source
    out = tmp_path / "out"
    previous_output(command, source, out, fixture_report)
    what, name = kind.split()
    target = out / name
    if target.is_dir():
        for f in target.iterdir():
            f.unlink()
        target.rmdir()
    else:
        target.unlink()
    if what == "file":
        target.write_text("a user's notes")
    elif what == "dir":
        target.mkdir()
    else:
        target.symlink_to(tmp_path / "elsewhere.md")
    before = files_of(out)
    capsys.readouterr()
    assert render(command, source, out) == EXIT_USAGE
    assert "did not write (%s" % name in capsys.readouterr().err
    assert files_of(out) == before
    assert os.path.isdir(target) == (what == "dir")


# Issue 42, item 5: a rename that fails part way through the swap puts
# back what was swapped: the previous output stays exactly as it was.

@pytest.mark.parametrize("failing", [1, 2, 3, 4, 5, 6])
def test_a_rename_failing_part_way_leaves_the_previous_output(
        command_and_source, tmp_path, fixture_report, monkeypatch, capsys,
        failing):
    command, source = command_and_source
    out = tmp_path / "out"
    previous_output(command, source, out, fixture_report)
    before = mark_previous(out)
    real = atomic._rename
    count = {"renames": 0}

    def rename(src, dst):
        # The swap's renames, in order: each name set aside, then the new
        # one moved in (figures, report.md, report.html: six).
        if str(dst).startswith(str(out)) or ".previous-" in str(dst):
            count["renames"] += 1
            if count["renames"] == failing:
                raise OSError(5, "Input/output error", dst)
        real(src, dst)
    monkeypatch.setattr(atomic, "_rename", rename)
    assert render(command, source, out) == EXIT_ERROR
    err = capsys.readouterr().err
    assert "Input/output error" in err and err.count("\n") == 1, err
    assert files_of(out) == before
    assert sorted(os.listdir(out)) == ["figures", "report.html",
                                       "report.md"]


# Issue 42, item 9: the staging directory of a render killed outright
# (SIGKILL) is removed by the next render; one a render beside it is
# still writing is not.

def dead_pid():
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_killed_renders_staging_is_cleaned_by_the_next(command_and_source,
                                                         tmp_path,
                                                         fixture_report):
    command, source = command_and_source
    out = tmp_path / "out"
    previous_output(command, source, out, fixture_report)
    host = atomic._host()
    dead = out / (".render-%s-%d-abc_12.tmp" % (host, dead_pid()))
    alive = out / (".render-%s-%d-xyz_34.tmp" % (host, os.getppid()))
    other_host = out / (".render-elsewhere-%d-q.tmp" % dead_pid())
    for stage in (dead, alive, other_host):
        (stage / "figures").mkdir(parents=True)
        (stage / "report.md").write_text("half a report")
    assert render(command, source, out) == EXIT_OK
    assert not dead.exists()
    assert alive.exists() and other_host.exists()


def test_a_sigkilled_render_leaves_a_staging_the_next_one_removes(
        run_copy, tmp_path, report_figures_drawn_once):
    out = tmp_path / "out"
    env = dict(os.environ, MPLBACKEND="Agg")
    child = subprocess.Popen([sys.executable, "-m", "ewbench.analysis",
                              "report", str(run_copy), "-o", str(out)],
                             cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL,
                             start_new_session=True)
    for _ in range(600):
        if out.is_dir() and any(atomic.is_stage(n)
                                for n in os.listdir(out)):
            break
        if child.poll() is not None:
            pytest.fail("the render ended before its staging was seen")
        subprocess.run(["sleep", "0.05"])
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    assert [n for n in os.listdir(out) if atomic.is_stage(n)]
    assert render("report", run_copy, out) == EXIT_OK
    assert sorted(os.listdir(out)) == ["figures", "report.html", "report.md"]


# Issue 42, item 3: a plot worker killed (the OOM killer, a kill -9) is one
# line naming how it ended, not a 29-line traceback; the previous report
# stays.

def test_a_killed_plot_worker_is_one_line(run_copy, tmp_path, monkeypatch,
                                          capsys, fixture_report):
    from ewbench.analysis.report.plots import study as plot_study
    out = tmp_path / "out"
    previous_output("report", run_copy, out, fixture_report)
    before = mark_previous(out)
    parent = os.getpid()
    draw = plot_study._draw_one

    def killed(job):
        if os.getpid() != parent and job[0].__name__ == "plot_blocks":
            os.kill(os.getpid(), signal.SIGKILL)
        return draw(job)
    monkeypatch.setattr(plot_study, "_draw_one", killed)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    capsys.readouterr()
    assert render("report", run_copy, out) == EXIT_ERROR
    err = capsys.readouterr().err
    # the fixture draws 6 figures (the curve and the roofline among them)
    assert re.fullmatch(r"%s report: 1 of [4-9] figures were not drawn: "
                        r"their worker process was killed by SIGKILL \(the "
                        r"kernel's out-of-memory killer, or a kill -9\)\n" %
                        re.escape(PROG), err), err
    assert files_of(out) == before

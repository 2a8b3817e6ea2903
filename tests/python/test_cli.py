"""ewbench.analysis's command line: exit codes and messages."""

import json
import os
import re
import subprocess
import sys

import pytest

from ewbench.analysis import cli
from ewbench.analysis.report import findings
from ewbench.analysis.__main__ import (EXIT_DATA, EXIT_ERROR, EXIT_OK,
                                       EXIT_SLOWER, EXIT_USAGE, main)
from ewbench.analysis.core import study
from conftest import ROOT, rewrite, scale_times

COMMANDS = ("report", "compare", "contest", "fleet-report", "timeline",
            "torch")


def test_help_exits_zero(capsys):
    assert main(["--help"]) == EXIT_OK
    assert "report" in capsys.readouterr().out
    for command in COMMANDS:
        assert main([command, "--help"]) == EXIT_OK
        page = capsys.readouterr().out
        # One layout: usage, options, then its own exit statuses and
        # examples, not every command's.
        assert page.startswith("usage: python3 -m ewbench.analysis %s " %
                               command), page
        assert page.index("options:") < page.index("exit status:") < \
            page.index("examples:"), page
        assert ("  6 " in page) == (command == "compare"), page
        assert ("  5 " in page) == (command == "torch"), page
        examples = page.split("examples:")[1]
        assert examples.count("ewbench.analysis %s " % command) == \
            examples.count("ewbench.analysis "), page


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "torch"])
def test_unknown_option_shows_the_commands_usage(capsys, command):
    """`report --bogus` (issue 54): the command's own usage line and its
    name, not the overview's."""
    required = ["-o", "t.png"] if command == "timeline" else []
    assert main([command, "--bogus", "x", "y"] + required) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("usage: python3 -m ewbench.analysis %s " % command), err
    assert "error: unrecognized arguments: --bogus" in err, err
    assert "COMMAND ..." not in err, err


def test_one_exit_status_table():
    """ewbench's statuses (src/base/ewbench.h) mean the same here; the slower
    compare has its own, not 5 (no usable GPU) that a script may read as
    'skip'."""
    with open(os.path.join(ROOT, "src", "base", "ewbench.h")) as f:
        header = f.read()
    c_codes = dict(re.findall(r"EWB_EXIT_(\w+) = (\d+)", header))
    assert int(c_codes["USAGE"]) == cli.EXIT_USAGE
    assert int(c_codes["NODEV"]) == cli.EXIT_NO_GPU
    assert EXIT_SLOWER == 6 and str(EXIT_SLOWER) not in c_codes.values()
    for command, codes in cli.EXITS.items():
        assert set(codes) <= set(cli.EXIT_TEXT), command


def test_examples_name_runs_as_ewbench_names_them(capsys):
    """ewbench-<gpu slug>-<UTC time> (src/run/claim.c), a study
    reports/<gpu slug>-<UTC time> (scripts/report.sh)."""
    assert main(["report", "--help"]) == EXIT_OK
    examples = capsys.readouterr().out.split("examples:")[1]
    named = re.findall(r"(?:reports/|ewbench-(?:ceilings-)?)[\w-]+", examples)
    assert len(named) == 3, examples
    for name in named:
        assert re.fullmatch(r"(reports/|ewbench-(ceilings-)?)[a-z0-9]+"
                            r"(-[a-z0-9]+)*-\d{8}-\d{6}", name), name


def test_report_help_and_refusal_name_the_same_parts(capsys, tmp_path):
    assert main(["report", "--help"]) == EXIT_OK
    page = " ".join(capsys.readouterr().out.split())
    assert study.LAYOUT in page
    for part in study.PARTS + (study.CEILINGS, study.REPEATS):
        assert part + "/" in study.LAYOUT
    assert main(["report", str(tmp_path)]) == EXIT_DATA
    assert study.LAYOUT in capsys.readouterr().err


@pytest.mark.parametrize("command, path, what", [
    (["report"], "nope", "directory"),
    (["report", "FIXTURE", "--ceilings"], "nope", "directory"),
    (["fleet-report"], "nope", "directory"),
    (["compare", "FIXTURE"], "nope", "directory"),
    (["contest", "FIXTURE"], "nope", "directory"),
    (["timeline", "-o", "t.png"], "nope.json", "file"),
    (["torch", "--dry-run"], "nope", "directory"),
])
def test_a_missing_path_is_a_usage_error(command, path, what, fixture_dir,
                                         tmp_path, capsys):
    missing = str(tmp_path / path)
    argv = [fixture_dir if a == "FIXTURE" else a for a in command]
    assert main(argv + [missing]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err == "python3 -m ewbench.analysis %s: %s: no such %s\n" % (
        command[0], missing, what)
    assert not os.path.exists(missing)


def test_a_file_for_a_directory_is_a_usage_error(fixture_dir, capsys):
    csv = os.path.join(fixture_dir, "timing.csv")
    assert main(["compare", fixture_dir, csv]) == EXIT_USAGE
    assert "%s: not a directory" % csv in capsys.readouterr().err


def test_a_shipped_reference_is_not_written_into_by_default(capsys):
    for command, name in (("report", "nvidia-h100"),
                          ("report", "nvidia-h100/article"),
                          ("fleet-report", "fleet-nvidia-h200x2")):
        path = os.path.join(ROOT, "reports", "reference", name)
        before = sorted(os.listdir(path))
        assert main([command, path]) == EXIT_USAGE
        err = capsys.readouterr().err
        assert "reports/reference/%s/" % name in err and "-o OUTDIR" in err
        assert sorted(os.listdir(path)) == before
    assert study.shipped_reference(os.path.join(ROOT, "tests")) is None


@pytest.mark.parametrize("command, name, use", [
    ("fleet-report", "nvidia-h200", "`ewbench report %s`"),
    ("fleet-report", "nvidia-h200/repeats", "`ewbench report %s`"),
    ("fleet-report", "nvidia-h200/contest", "`ewbench contest %s`"),
    ("report", "fleet-nvidia-h200x2", "`ewbench fleet-report %s`"),
    ("compare", "nvidia-h200", "`ewbench compare %s %s`")])
def test_the_wrong_command_for_a_folder_names_the_right_one(
        command, name, use, tmp_path, capsys):
    """One line naming the command that reads the folder, and no advice
    to remove anything: a study's parts, a contest's rounds and repeats
    are one GPU's runs, not copies."""
    path = os.path.join(ROOT, "reports", "reference", name)
    right = {"nvidia-h200/repeats": os.path.dirname(path),
             "nvidia-h200/contest": os.path.join(path, "round-*")}.get(
                 name, path)
    if command == "compare":
        other = os.path.join(ROOT, "reports", "reference", "nvidia-h100")
        args = [command, path, other]
        right = (os.path.join(path, "article"),
                 os.path.join(other, "article"))
    else:
        args = [command, path, "-o", str(tmp_path / "out")]
    assert main(args) == EXIT_DATA
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and use % right in err
    assert "remove" not in err
    assert not (tmp_path / "out").exists()


def test_examples_name_shipped_references_from_anywhere(tmp_path,
                                                        monkeypatch, capsys):
    """--help's and the README's reports/reference/... from a folder
    without one (an installed copy's user): taken from the package's
    shipped references, a pattern (round-?) expanded there (issue 54)."""
    monkeypatch.chdir(tmp_path)
    assert main(["compare", "reports/reference/nvidia-h100/article",
                 "reports/reference/nvidia-h200/article"]) == EXIT_OK
    assert main(["contest", "reports/reference/nvidia-h200/contest/"
                 "round-?"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "round-5" in out and "round-?" not in out
    # A folder of one's own of that name wins (here: holds no run), and a
    # name the references lack stays missing.
    (tmp_path / "reports" / "reference" / "nvidia-h100" / "article").mkdir(
        parents=True)
    assert main(["compare", "reports/reference/nvidia-h100/article",
                 "reports/reference/nvidia-h200/article"]) == EXIT_DATA
    err = capsys.readouterr().err
    assert err.startswith("%s: reports/reference/nvidia-h100/article/run.json"
                          % cli.command_name("compare")), err
    assert main(["compare", "reports/reference/nvidia-h100/article",
                 "reports/reference/nvidia-h999/article"]) == EXIT_USAGE
    assert "reports/reference/nvidia-h999/article: no such directory" in \
        capsys.readouterr().err


def test_shipped_reference_is_the_last_such_place(tmp_path):
    """A clone under another reports/reference/ names its own."""
    inner = tmp_path / "reports" / "reference" / "clone" / "reports" / \
        "reference" / "gpu" / "article"
    inner.mkdir(parents=True)
    assert study.shipped_reference(str(inner)) == \
        "reports/reference/gpu/article"
    assert study.shipped_reference(str(tmp_path / "reports")) is None


def test_usage_errors_exit_two(capsys):
    assert main([]) == EXIT_USAGE
    assert main(["frobnicate"]) == EXIT_USAGE
    assert main(["report"]) == EXIT_USAGE
    assert main(["compare", "onlyone"]) == EXIT_USAGE


def test_bad_data_exits_three_with_file_and_line(run_copy, capsys):
    rewrite(run_copy / "metrics.csv",
            lambda t: t.replace(",cupti\n", ",cupti,oops\n", 1))
    assert main(["report", str(run_copy)]) == EXIT_DATA
    err = capsys.readouterr().err
    assert "%s:2: expected 12 fields, got 13" % (run_copy / "metrics.csv") \
        in err


def test_wrong_schema_exits_three(run_copy, capsys):
    path = run_copy / "run.json"
    manifest = json.load(open(path))
    manifest["schema_version"] = 99
    json.dump(manifest, open(path, "w"))
    assert main(["compare", str(run_copy), str(run_copy)]) == EXIT_DATA
    assert "expected schema_version 1 or 2, got 99" in capsys.readouterr().err


def test_report_command_writes_outputs(fixture_dir, tmp_path, capsys,
                                       report_figures_drawn_once):
    out = tmp_path / "rep"
    assert main(["report", fixture_dir, "-o", str(out)]) == EXIT_OK
    assert (out / "report.md").exists() and (out / "report.html").exists()
    # Only the SVGs stay beside the report: the PNGs are inside the HTML.
    figures = os.listdir(out / "figures")
    assert len(figures) >= 3 and all(f.endswith(".svg") for f in figures)
    printed = capsys.readouterr().out
    assert printed.count("finding ") == len(findings.NUMBERS)


def test_report_command_reads_a_study_directory(study_dir, capsys,
                                                report_figures_drawn_once):
    assert main(["report", str(study_dir)]) == EXIT_OK
    assert (study_dir / "report" / "report.html").exists()
    printed = capsys.readouterr().out
    assert "finding 5: holds" in printed or "finding 5: does not" in printed
    assert main(["report", str(study_dir), "--ceilings",
                 str(study_dir / "ceilings")]) == EXIT_USAGE


def test_compare_fail_on_slower(fixture_dir, run_copy, tmp_path, capsys):
    """Exit 6: not 5, which says 'no usable GPU'."""
    scale_times(run_copy, {("add_f32", 1 << 20, "warm"): 1.34})
    out = tmp_path / "cmp.md"
    assert main(["compare", fixture_dir, str(run_copy), "-o",
                 str(out)]) == EXIT_OK
    assert main(["compare", "--fail-on-slower", fixture_dir,
                 str(run_copy)]) == EXIT_SLOWER
    assert "SLOWER" in out.read_text()
    assert main(["compare", "--fail-on-slower", fixture_dir,
                 fixture_dir]) == EXIT_OK


def test_module_entry_point_runs(fixture_dir):
    proc = subprocess.run([sys.executable, "-m", "ewbench.analysis", "compare",
                           fixture_dir, fixture_dir], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "0 slower, 0 faster" in proc.stdout


def test_missing_numpy_says_how_to_install_it(fixture_dir, tmp_path):
    code = ("import sys\nsys.modules['numpy'] = None\n"
            "from ewbench.analysis.__main__ import main\n"
            "sys.exit(main(['report', %r, '-o', %r]))" % (
                str(fixture_dir), str(tmp_path / "r")))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, check=False)
    assert proc.returncode == EXIT_ERROR
    assert "has no numpy: apt-get install python3-numpy" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("args", [
    ["report", "RUN", "-o", "a", "-o", "b"],
    ["report", "RUN", "--ceilings", "RUN", "--ceilings", "RUN"],
    ["fleet-report", "RUN", "--out", "a", "-o", "b"],
    ["compare", "RUN", "RUN", "-o", "a", "-o", "b"],
    ["compare", "RUN", "RUN", "--fail-on-slower", "--fail-on-slower"],
    ["contest", "RUN", "-o", "a", "--out=b"],
    ["timeline", "t.json", "--span", "1", "--span", "2", "-o", "t.png"],
    ["torch", "--dry-run", "--dry-run", "RUN"],
])
def test_an_option_given_twice_is_a_usage_error(args, fixture_dir, tmp_path,
                                                capsys, monkeypatch):
    """The second -o was taken silently, the last one winning (issue 54,
    item 11)."""
    monkeypatch.chdir(tmp_path)
    args = [fixture_dir if a == "RUN" else a for a in args]
    assert main(args) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "given twice; it is taken once" in err
    assert not os.path.exists("a") and not os.path.exists("b")

"""ewbench.analysis's command line: exit codes and messages."""

import json
import os
import subprocess
import sys

from ewbench.analysis.__main__ import (EXIT_DATA, EXIT_ERROR, EXIT_OK,
                                       EXIT_SLOWER, EXIT_USAGE, main)
from conftest import ROOT, rewrite, scale_times


def test_help_exits_zero(capsys):
    assert main(["--help"]) == EXIT_OK
    assert "report" in capsys.readouterr().out
    for command in ("report", "compare", "contest", "fleet-report",
                    "timeline"):
        assert main([command, "--help"]) == EXIT_OK
        page = capsys.readouterr().out
        # Its own exit statuses and examples, not every command's.
        assert "exit status:" in page
        assert ("  5 " in page) == (command == "compare"), page
        examples = page.split("examples:")[1]
        assert examples.count("ewbench.analysis %s " % command) == \
            examples.count("ewbench.analysis "), page


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


def test_report_command_writes_outputs(fixture_dir, tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["report", fixture_dir, "-o", str(out)]) == EXIT_OK
    assert (out / "report.md").exists() and (out / "report.html").exists()
    # Only the SVGs stay beside the report: the PNGs are inside the HTML.
    figures = os.listdir(out / "figures")
    assert len(figures) >= 3 and all(f.endswith(".svg") for f in figures)
    printed = capsys.readouterr().out
    assert printed.count("finding ") == 6


def test_report_command_reads_a_study_directory(study_dir, capsys):
    assert main(["report", str(study_dir)]) == EXIT_OK
    assert (study_dir / "report" / "report.html").exists()
    printed = capsys.readouterr().out
    assert "finding 5: holds" in printed or "finding 5: does not" in printed
    assert main(["report", str(study_dir), "--ceilings",
                 str(study_dir / "ceilings")]) == EXIT_USAGE


def test_compare_fail_on_slower(fixture_dir, run_copy, tmp_path, capsys):
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

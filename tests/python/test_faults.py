"""Faults of the machine, on the analysis side (issue 23): what it reads
must be a regular file, what it writes appears whole or not at all, and
every failure is one line naming the file.  Each test names the symptom
of the issue it covers.

The full-disk tests LD_PRELOAD tests/faults/disk-full.so (built by make
check; tests/python.sh passes its path in EWB_DISK_FULL_SO) into a
python3 -m ewbench.analysis subprocess.
"""

import errno
import json
import os
import shutil
import signal
import subprocess
import sys

import pytest

from ewbench.analysis.fleet import members as fleet
from ewbench.analysis.core import load
from ewbench.analysis.__main__ import (EXIT_DATA, EXIT_ERROR, EXIT_OK,
                                      EXIT_USAGE, main)
from ewbench.analysis.core.validate import DataError
from conftest import FIXTURE, ROOT
from fleet_fixtures import make_fleet_dir

DISK_FULL = os.environ.get("EWB_DISK_FULL_SO", "")
TWO = ["h-gpu0", "h-gpu1"]


def analysis(*args, env=None, timeout=120):
    """python3 -m ewbench.analysis ARGS in a subprocess: (status, stderr)."""
    full_env = dict(os.environ, MPLBACKEND="Agg")
    full_env.update(env or {})
    done = subprocess.run([sys.executable, "-m", "ewbench.analysis"] +
                          list(args),
                          cwd=ROOT, env=full_env, capture_output=True,
                          text=True, timeout=timeout)
    return done.returncode, done.stderr


def disk_full(directory, after):
    """The environment that fills the disk under directory after `after`
    more bytes."""
    if not os.path.isfile(DISK_FULL):
        pytest.skip("EWB_DISK_FULL_SO names no built disk-full.so "
                    "(make check builds it and sets it)")
    return {"LD_PRELOAD": DISK_FULL, "EWB_FULL_DIR": str(directory),
            "EWB_FULL_AFTER": str(after)}


def temporaries(directory):
    return [n for root, _, names in os.walk(directory) for n in names
            if n.endswith(".tmp")]


PREVIOUS = b"<!-- the previous report -->\n"


def mark_previous(out):
    """Mark the report in out so that no re-render can match it: a line
    (PREVIOUS) appended to report.md, report.html and each figure.
    Returns {path: bytes} of every file in out."""
    for path in [out / "report.md", out / "report.html"] + \
            sorted((out / "figures").glob("*.svg")):
        with open(path, "ab") as f:
            f.write(PREVIOUS)
    return files_of(out)


def previous_report(fixture_report, out):
    """The fixture run's report copied into out (conftest.fixture_report),
    marked (mark_previous): {path: bytes} of every file in it."""
    shutil.copytree(fixture_report, out)
    return mark_previous(out)


def files_of(out):
    return {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}


# 4. Outputs are replaced atomically: a full disk or a Ctrl-C part way
# (below) leaves the previous report whole, and says so naming the
# output.  Issue 32: and exactly as it was (it was left changed:
# report.md new beside the old report.html, stray PNGs beside the SVGs),
# whatever failed: a full disk at any point, a file-size limit (ewbench
# ignores SIGXFSZ, so a write fails with EFBIG).

@pytest.mark.parametrize("budget", [0, 20000, 200000, 400000])
def test_full_disk_leaves_the_previous_report_exactly(run_copy, tmp_path,
                                                      fixture_report, budget):
    out = tmp_path / "report"
    before = previous_report(fixture_report, out)
    status, err = analysis("report", str(run_copy), "-o", str(out),
                           env=disk_full(out, budget))
    assert status == EXIT_ERROR, err
    assert "No space left on device" in err and str(out) in err, err
    assert "Traceback" not in err and "[Errno" not in err, err
    # Every file whole, none new, none cut short, no temporary left.
    assert files_of(out) == before
    assert sorted(os.listdir(out)) == ["figures", "report.html", "report.md"]


def under_file_size_limit(limit, *args):
    """python3 -m ewbench.analysis ARGS in a subprocess whose files may
    grow to `limit` bytes, SIGXFSZ ignored as ewbench ignores it (a write
    past the limit fails with EFBIG): the CompletedProcess."""
    import resource

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return subprocess.run([sys.executable, "-m", "ewbench.analysis"] +
                          list(args),
                          cwd=ROOT, env=dict(os.environ, MPLBACKEND="Agg"),
                          capture_output=True, text=True, timeout=120,
                          preexec_fn=limited)


def test_file_size_limit_leaves_the_previous_report_exactly(run_copy,
                                                            tmp_path,
                                                            fixture_report):
    out = tmp_path / "report"
    before = previous_report(fixture_report, out)
    done = under_file_size_limit(150000, "report", str(run_copy), "-o",
                                 str(out))
    assert done.returncode == EXIT_ERROR, done.stderr
    assert "File too large" in done.stderr, done.stderr
    assert files_of(out) == before
    assert sorted(os.listdir(out)) == ["figures", "report.html", "report.md"]


def test_ctrl_c_during_report_keeps_the_previous_report(
        run_copy, tmp_path, fixture_report, monkeypatch, capsys,
        report_figures_drawn_once):
    from ewbench.analysis.core import document
    out = tmp_path / "report"
    shutil.copytree(fixture_report, out)
    html = (out / "report.html").read_bytes()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(document, "render_html", interrupted)
    try:
        status = main(["report", str(run_copy), "-o", str(out)])
    except KeyboardInterrupt:
        status = "a KeyboardInterrupt traceback"
    assert status == 130
    err = capsys.readouterr().err
    assert err.startswith("python3 -m ewbench.analysis report: interrupted") \
        and err.count("\n") == 1
    assert (out / "report.html").read_bytes() == html
    assert temporaries(out) == []


# Issue 32: `ewbench fleet-report` renders into a fresh directory and
# swaps it in whole, as `ewbench report` does (atomic.rendering): a render
# that fails part way leaves the previous fleet report exactly as it was
# (it was left changed: a figure's PNG beside the SVG, report.md new
# beside the old report.html).

PREVIOUS_FLEET = ["figures", "report.html", "report.md"]


def previous_fleet_report(tmp_path):
    """(fleet directory, its report directory, {path: bytes} of every file
    in it): a fleet of two GPUs, one slowed down (so the report has its
    figure), reported and marked so that no re-render can match it."""
    root = make_fleet_dir(str(tmp_path / "f"), TWO, slow={"h-gpu1": 0.8})
    out = tmp_path / "fleet-report"
    assert main(["fleet-report", root, "-o", str(out)]) == EXIT_OK
    assert (out / "figures" / "fleet_deviation.svg").is_file()
    return root, out, mark_previous(out)


def test_fleet_figure_that_fails_leaves_the_previous_fleet_report(
        tmp_path, monkeypatch, capsys):
    from ewbench.analysis.fleet import plots as fleet_plots
    root, out, before = previous_fleet_report(tmp_path)
    drawn = fleet_plots.plot_fleet

    def fails(judged, figures):
        png, svg = drawn(judged, figures)       # the figure's files exist
        raise OSError(errno.ENOSPC, "No space left on device", svg)
    monkeypatch.setattr(fleet_plots, "plot_fleet", fails)
    assert main(["fleet-report", root, "-o", str(out)]) == EXIT_ERROR
    assert "No space left on device" in capsys.readouterr().err
    assert files_of(out) == before
    assert sorted(os.listdir(out)) == PREVIOUS_FLEET


def test_ctrl_c_during_fleet_report_leaves_the_previous_fleet_report(
        tmp_path, monkeypatch, capsys):
    from ewbench.analysis.core import document
    root, out, before = previous_fleet_report(tmp_path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt     # report.md is written, the HTML not
    monkeypatch.setattr(document, "render_html", interrupted)
    assert main(["fleet-report", root, "-o", str(out)]) == 130
    assert "interrupted" in capsys.readouterr().err
    assert files_of(out) == before
    assert sorted(os.listdir(out)) == PREVIOUS_FLEET


def test_file_size_limit_leaves_the_previous_fleet_report(tmp_path):
    root, out, before = previous_fleet_report(tmp_path)
    # The figure's PNG is written, its (larger) SVG is not.
    svg = len(before[out / "figures" / "fleet_deviation.svg"]) - len(PREVIOUS)
    done = under_file_size_limit(svg - 1, "fleet-report", root, "-o",
                                 str(out))
    assert done.returncode == EXIT_ERROR, done.stderr
    assert "File too large" in done.stderr, done.stderr
    assert files_of(out) == before
    assert sorted(os.listdir(out)) == PREVIOUS_FLEET


@pytest.mark.parametrize("budget", [0, 10000, 40000, 60000])
def test_full_disk_leaves_the_previous_fleet_report(tmp_path, budget):
    root, out, before = previous_fleet_report(tmp_path)
    status, err = analysis("fleet-report", root, "-o", str(out),
                           env=disk_full(out, budget))
    assert status == EXIT_ERROR, err
    assert "No space left on device" in err and "Traceback" not in err, err
    assert files_of(out) == before
    assert sorted(os.listdir(out)) == PREVIOUS_FLEET


def test_fleet_report_is_not_refused_for_a_killed_renders_leftovers(
        tmp_path):
    # A render killed outright (SIGKILL) leaves its staging directory: the
    # next one is not refused as "files this command did not write".
    root, out, _ = previous_fleet_report(tmp_path)
    (out / ".render-killed.tmp").mkdir()
    assert main(["fleet-report", root, "-o", str(out)]) == EXIT_OK
    assert b"the previous" not in (out / "report.md").read_bytes()
    assert b"the previous" not in \
        (out / "figures" / "fleet_deviation.svg").read_bytes()


# compare -o and contest -o write one file each, atomically.
@pytest.mark.parametrize("command", ["compare", "contest"])
def test_compare_out_on_a_full_disk_keeps_the_previous_file(tmp_path,
                                                            command):
    previous = tmp_path / ("%s.md" % command)
    previous.write_text("the previous comparison\n")
    status, err = analysis(command, FIXTURE, FIXTURE, "-o", str(previous),
                           env=disk_full(tmp_path, 100))
    assert status == EXIT_ERROR
    assert "%s: No space left on device" % previous in err, err
    assert previous.read_text() == "the previous comparison\n"
    assert temporaries(tmp_path) == []


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    from ewbench.analysis.core import atomic
    target = tmp_path / "out.txt"
    target.write_text("old")

    def fails(f):
        f.write(b"half of it")
        raise OSError(errno.ENOSPC, "No space left on device")
    with pytest.raises(OSError) as e:
        atomic._replace_with(str(target), fails)
    assert e.value.filename == str(target)
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.txt"]


# 6. A dangling or looping symbolic link is not "absent".

@pytest.mark.parametrize("name", ["metrics.csv", "ceilings.csv"])
def test_dangling_link_is_refused_not_absent(run_copy, name):
    os.remove(run_copy / name)
    os.symlink(run_copy / "nowhere.csv", run_copy / name)
    with pytest.raises(DataError) as e:
        load.load_run(str(run_copy))
    assert e.value.path.endswith(name) and "dangling" in str(e.value)


def test_link_loop_is_refused(run_copy):
    os.remove(run_copy / "metrics.csv")
    os.symlink("metrics.csv", run_copy / "metrics.csv")
    with pytest.raises(DataError, match="loop of symbolic links"):
        load.load_run(str(run_copy))


def test_link_to_a_regular_file_is_read(run_copy, tmp_path):
    shutil.move(run_copy / "metrics.csv", tmp_path / "elsewhere.csv")
    os.symlink(tmp_path / "elsewhere.csv", run_copy / "metrics.csv")
    assert load.load_run(str(run_copy)).metrics


def test_dangling_fleet_json_and_member_metrics_are_refused(tmp_path):
    root = make_fleet_dir(str(tmp_path / "f"), TWO)
    os.symlink(os.path.join(root, "gone.json"),
               os.path.join(root, "fleet.json"))
    with pytest.raises(DataError, match="fleet.json.*dangling"):
        fleet.open_fleet(root)
    os.remove(os.path.join(root, "fleet.json"))
    member = os.path.join(root, "h-gpu1", "metrics.csv")
    os.remove(member)
    os.symlink(os.path.join(root, "gone.csv"), member)
    with pytest.raises(DataError, match="h-gpu1/metrics.csv.*dangling"):
        fleet.open_fleet(root)


# 7. One GPU counted twice in a fleet is refused.

@pytest.mark.parametrize("again, member, refusal", [
    (os.symlink, "h-gpu0", "GPU of member h-gpu0 again"),      # linked
    (shutil.copytree, "h-gpu1", "same host and PCI bus id"),   # copied
], ids=["linked", "copied"])
def test_member_linked_to_or_copied_from_another_is_refused(
        tmp_path, again, member, refusal):
    root = make_fleet_dir(str(tmp_path / "f"), TWO)
    again(os.path.join(root, member), os.path.join(root, "h-gpu2"))
    with pytest.raises(DataError, match=refusal):
        fleet.open_fleet(root)


# 9. A FIFO is refused, never waited on.

def test_fifo_as_timing_csv_is_refused_without_hanging(run_copy):
    os.remove(run_copy / "timing.csv")
    os.mkfifo(run_copy / "timing.csv")
    status, err = analysis("report", str(run_copy), timeout=60)
    assert status == EXIT_DATA
    assert "timing.csv: expected a regular file, got a FIFO" in err, err


def test_fifo_as_trace_is_refused_without_hanging(tmp_path):
    os.mkfifo(tmp_path / "trace.json")
    status, err = analysis("timeline", str(tmp_path / "trace.json"), "-o",
                           str(tmp_path / "t.png"), timeout=60)
    assert status == EXIT_DATA
    assert "expected a regular file, got a FIFO" in err, err


# 10. A huge integer is bad data; Ctrl-C is exit 130 (above).

def test_huge_integer_in_run_json_is_bad_data(run_copy, capsys):
    path = run_copy / "run.json"
    text = path.read_text()
    assert '"seed": ' in text
    path.write_text(text.replace('"seed": ', '"seed": %s, "was": ' %
                                 ("9" * 5000), 1))
    assert main(["report", str(run_copy)]) == EXIT_DATA
    err = capsys.readouterr().err
    assert str(path) in err and "sensible size" in err


def test_huge_integer_in_timing_csv_is_bad_data(run_copy):
    def edit(text):
        lines = text.split("\n")
        fields = lines[1].split(",")
        fields[4] = "9" * 5000
        lines[1] = ",".join(fields)
        return "\n".join(lines)
    path = run_copy / "timing.csv"
    path.write_text(edit(path.read_text()))
    with pytest.raises(DataError, match="timing.csv:2: column n"):
        load.load_run(str(run_copy))


# Issue 35: an n that is no count ewbench writes, or that does not divide
# the row's bytes, is blamed on its own row of timing.csv, not on the
# first metrics.csv row that then has no timing row.
@pytest.mark.parametrize("n, why", [
    (10 ** 40, "column n: .*at most 2\\^64 - 1"), (10 ** 39, "column n: .*at most 2\\^64 - 1"),
    (2 ** 64, "column n: .*at most 2\\^64 - 1"),
    (2 ** 64 + 1, "column n: .*at most 2\\^64 - 1"),
    (2 ** 40, "expected footprint_bytes a whole multiple of n"),
    (1048575, "expected footprint_bytes a whole multiple of n")])
def test_wrong_n_in_timing_csv_names_its_row(run_copy, capsys, n, why):
    path = run_copy / "timing.csv"
    lines = path.read_text().split("\n")
    fields = lines[1].split(",")
    fields[4] = str(n)
    lines[1] = ",".join(fields)
    path.write_text("\n".join(lines))
    with pytest.raises(DataError, match="timing.csv:2: " + why):
        load.load_run(str(run_copy))
    assert main(["report", str(run_copy), "-o",
                 str(run_copy / "r")]) == EXIT_DATA
    err = capsys.readouterr().err
    assert "%s:2: " % path in err and "metrics.csv" not in err


# 12. ENOSPC and EEXIST name the path, in one line.

def test_output_that_is_a_file_is_named(run_copy, tmp_path, capsys):
    taken = tmp_path / "report"
    taken.write_text("a file")
    assert main(["report", str(run_copy), "-o", str(taken)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err == ("python3 -m ewbench.analysis report: will not write into "
                   "%s: it exists and is not a directory\n" % taken)
    assert taken.read_text() == "a file"


def test_enospc_names_the_path(tmp_path):
    out = tmp_path / "c.md"
    status, err = analysis("contest", FIXTURE, "-o", str(out),
                           env=disk_full(tmp_path, 0))
    assert status == EXIT_ERROR
    assert err.startswith("python3 -m ewbench.analysis contest: %s" %
                          tmp_path), err
    assert "No space left on device" in err and "[Errno" not in err
    assert err.count("\n") == 1


# 13. Permission denied and interrupted members are what they are.

def test_unreadable_member_is_permission_denied(tmp_path, monkeypatch):
    root = make_fleet_dir(str(tmp_path / "f"), TWO)
    locked = os.path.join(root, "h-gpu1")
    real_stat = os.stat

    def stat(path, *args, **kwargs):
        if str(path).startswith(locked + os.sep):
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_stat(path, *args, **kwargs)
    monkeypatch.setattr(os, "stat", stat)
    loaded = fleet.open_fleet(root)
    assert [m.name for m in loaded.members] == ["h-gpu0"]
    assert [(f.name, f.status) for f in loaded.failed] == \
        [("h-gpu1", fleet.DENIED)]
    assert "cannot be read" in loaded.failed[0].reason


def test_interrupted_member_keeps_its_rows(tmp_path):
    root = make_fleet_dir(str(tmp_path / "f"), TWO)
    run_json = os.path.join(root, "h-gpu1", "run.json")
    with open(run_json, encoding="utf-8") as f:
        doc = json.load(f)
    doc["status"] = "interrupted"
    with open(run_json, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    members = [{"name": n, "dir": n, "host": "h", "device": i,
                "status": "interrupted" if i else "ok",
                "exit_code": 130 if i else 0, "reason": None}
               for i, n in enumerate(TWO)]
    with open(os.path.join(root, "fleet.json"), "w", encoding="utf-8") as f:
        json.dump({"schema": "ewbench-fleet/1", "status": "interrupted",
                   "members": members}, f)
    loaded = fleet.open_fleet(root)
    assert [m.name for m in loaded.members] == TWO
    assert loaded.failed == ()
    assert loaded.members[1].status == "interrupted"
    assert loaded.members[1].run.points


# 8. (analysis side) A bare claim reads as one, not as a schema mismatch.

def test_bare_claim_is_named(tmp_path):
    (tmp_path / "run.json").write_text('{"status": "claimed"}\n')
    with pytest.raises(DataError, match="only the claim of one"):
        load.load_manifest(str(tmp_path / "run.json"))


# Issue 32: a 10 MB device name in run.json took the report minutes to lay
# out.  A name longer than CUDA's cudaDeviceProp::name (256 bytes), and a
# variant id or metric name longer than 1024 bytes, is bad data (exit 3)
# named by its file, line and JSON path or column, before any layout.
def _edit_run_json(run_copy, edit):
    path = run_copy / "run.json"
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc, indent=2))
    return path


def test_huge_device_name_is_bad_data(run_copy, tmp_path, capsys):
    def edit(doc):
        doc["device"]["name"] = "NVIDIA H100 " + "x" * (10 << 20)
    path = _edit_run_json(run_copy, edit)
    assert main(["report", str(run_copy), "-o",
                 str(tmp_path / "out")]) == EXIT_DATA
    err = capsys.readouterr().err
    assert "%s:" % path in err
    assert "expected device.name to be a string of at most 256 bytes" in err
    assert len(err) < 1000
    assert not (tmp_path / "out").exists()


def test_device_name_of_cudas_length_is_read(run_copy):
    def edit(doc):
        doc["device"]["name"] = "\u00e9" * 128           # 256 bytes of UTF-8
    _edit_run_json(run_copy, edit)
    assert load.load_run(str(run_copy)).manifest["device"]["name"] == \
        "\u00e9" * 128


def test_device_name_past_cudas_length_in_bytes_is_bad_data(run_copy):
    def edit(doc):
        doc["device"]["name"] = "\u00e9" * 129           # 258 bytes of UTF-8
    _edit_run_json(run_copy, edit)
    with pytest.raises(DataError, match=r"run.json:\d+: expected "
                       "device.name to be a string of at most 256 bytes"):
        load.load_run(str(run_copy))


def test_huge_variant_in_settings_is_bad_data(run_copy):
    def edit(doc):
        doc["settings"]["variants"].append("v" * (10 << 20))
    _edit_run_json(run_copy, edit)
    with pytest.raises(DataError, match=r"run.json:\d+: expected "
                       r"settings.variants\[\d+\] to be a string of at most "
                       "1024 bytes"):
        load.load_run(str(run_copy))


@pytest.mark.parametrize("name, column", [("timing.csv", "variant"),
                                          ("metrics.csv", "variant"),
                                          ("metrics.csv", "metric")])
def test_huge_name_in_a_csv_is_bad_data(run_copy, name, column):
    path = run_copy / name
    lines = path.read_text().split("\n")
    index = lines[0].split(",").index(column)
    fields = lines[1].split(",")
    fields[index] = "m" * 4096          # the CSV reader takes 131072
    lines[1] = ",".join(fields)
    path.write_text("\n".join(lines))
    with pytest.raises(DataError, match="%s:2: column %s: expected a "
                       "string of at most 1024 bytes" % (name, column)):
        load.load_run(str(run_copy))


# Issue 42, item 12: values no run writes are refused, naming the file and
# the field: tolerances past what `run` takes (data-limits.h), a check
# failure without its fields.
def _with_reference(doc, ulps, rel):
    doc["user_kernels"] = [{
        "variant": "user:mine", "file": "mine.cu", "function": "mine",
        "op": "custom", "dtype": "f32",
        "reference": {"file": "ref.cu", "function": "ref", "ulps": ulps,
                      "rel": rel}}]


@pytest.mark.parametrize("edit, field, expected", [
    (lambda d: _with_reference(d, 0, -1), r"user_kernels\[0\].reference.rel",
     "a number from 0 to 0.25"),
    (lambda d: _with_reference(d, 100000, 0), r"user_kernels\[0\].reference.ulps",
     "a whole number from 0 to 1024"),
    (lambda d: _with_reference(d, 4, 0.5), r"user_kernels\[0\].reference.rel",
     "a number from 0 to 0.25"),
    (lambda d: d["checks"].update(failed=1, failures=[{}]),
     r"checks.failures\[0\]", "variant"),
    (lambda d: d["checks"].update(failed=1, failures=[{
        "variant": "add_f32", "n": 0, "index": 0, "got": 1.0,
        "expected": 2.0, "bad_count": 1}]), r"checks.failures\[0\].n",
     "a positive integer"),
    (lambda d: d["checks"].update(failed=1, failures=[{
        "variant": "add_f32", "n": 10, "index": 0, "got": 1.0,
        "expected": 2.0, "bad_count": 0}]),
     r"checks.failures\[0\].bad_count", "a positive integer"),
])
def test_impossible_run_json_values_are_bad_data(run_copy, capsys, edit,
                                                 field, expected):
    path = _edit_run_json(run_copy, edit)
    with pytest.raises(DataError, match=r"run.json:\d+: .*%s.*%s" % (
            field, expected)):
        load.load_run(str(run_copy))
    assert main(["report", str(run_copy), "-o",
                 str(run_copy / "r")]) == EXIT_DATA
    err = capsys.readouterr().err
    assert "%s:" % path in err and err.count("\n") == 1, err


def test_tolerances_within_what_run_takes_are_read(run_copy):
    _edit_run_json(run_copy, lambda d: _with_reference(d, 1024, 0.25))
    assert load.load_run(str(run_copy)).manifest["user_kernels"]


# Standard output closed or broken (issue 55, cause 4): one line or none,
# exit 130, never a traceback; under ewbench (stops.run_command) too.

AS_EWBENCH = ["-c", "import sys; from ewbench import stops; "
              "sys.argv[0] = 'ewbench'; stops.run_command('ewbench.analysis')"]


def closed_stdout_commands(tmp_path):
    fleet_root = make_fleet_dir(str(tmp_path / "f"), TWO)
    return {"report": ["report", FIXTURE, "-o", str(tmp_path / "r")],
            "compare": ["compare", FIXTURE, FIXTURE],
            "contest": ["contest", FIXTURE, FIXTURE],
            "fleet-report": ["fleet-report", fleet_root, "-o",
                             str(tmp_path / "fr")],
            "torch": ["torch", "--dry-run", FIXTURE]}


@pytest.mark.parametrize("entry", [["-m", "ewbench.analysis"], AS_EWBENCH],
                         ids=["module", "ewbench"])
def test_a_closed_stdout_is_one_line_and_130(tmp_path, entry):
    for name, args in closed_stdout_commands(tmp_path).items():
        proc = subprocess.run([sys.executable] + entry + args, cwd=ROOT,
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True,
                              preexec_fn=lambda: os.close(1), check=False)
        assert proc.returncode == 130, (name, proc.stderr)
        assert proc.stderr.count("\n") == 1 and \
            "standard output is closed" in proc.stderr, (name, proc.stderr)
        assert not os.path.exists(tmp_path / "r"), name   # nothing done


def test_a_broken_stdout_is_a_quiet_130(tmp_path):
    """A reader gone before the first line (| head that exited): under
    python3 -m it was a traceback."""
    for name, args in closed_stdout_commands(tmp_path).items():
        proc = subprocess.Popen([sys.executable, "-m", "ewbench.analysis"] +
                                args, cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        proc.stdout.close()         # long before the first line
        err = proc.stderr.read()
        assert proc.wait(timeout=120) == 130, (name, err)
        assert err == "", (name, err)

"""Peers measured outside the analysis: ewbench.peers.torch_ops writes its own
peer-torch.csv (never timing.csv), atomically; load.py merges peer-*.csv
files into the run, checked like timing.csv."""

import os
import subprocess
import sys

import pytest

from ewbench.analysis.core import load
from ewbench.analysis.core import validate
from ewbench.analysis import cli
from ewbench.analysis.__main__ import main as analysis_main
from ewbench.analysis.core.load import DataError, load_run
from conftest import FIXTURE, PACKAGE, ROOT, rewrite
from ewbench.peers import output
from ewbench.peers import torch_ops as tj


def drop_torch_rows(run_copy):
    rewrite(run_copy / "timing.csv", lambda t: "\n".join(
        l for l in t.split("\n") if ",torch_" not in l))


def torch_lines(directory):
    with open(os.path.join(ROOT, directory, "timing.csv")) as f:
        return [l for l in f if ",torch_" in l]


def peer_csv(run_copy):
    return run_copy / "peer-torch.csv"


# the plan and the rows

def test_plan_covers_sizes_caches_and_skips_present(fixture_run, run_copy):
    assert tj.plan(fixture_run) == []       # fixture: torch in timing.csv
    drop_torch_rows(run_copy)
    jobs = tj.plan(load_run(str(run_copy)))
    assert len(jobs) == 3 * 5 * 2
    assert {j.variant for j in jobs} == {v for v, _, _ in tj.VARIANTS}
    # the fixture's run.json predates settings.timing: ewbench's defaults
    assert {(j.min_samples, j.max_samples, j.target_pct) for j in jobs} == \
        {(20, 2000, 0.5)} and {j.warmup for j in jobs} == {10}


def test_median_interval_matches_ewbench():
    # src/stats.c on 100..1: ranks 40 and 61 (tests/unit/test-stats.c)
    assert tj.median_interval(list(range(100, 0, -1))) == (40.0, 61.0)
    assert tj.median_interval([5, 1, 3]) == (1.0, 5.0)
    job = tj.Job("torch_add_f32", "add", "f32", 1 << 20, "warm", 20, 40,
                 0.5, 10)
    assert tj.stop_reason(job, [1000.0] * 19, 1) == ""
    assert tj.stop_reason(job, [1000.0] * 20, 1) == "ci"   # no scatter
    wide = [1000.0 + 100 * (i % 7) for i in range(20)]
    assert tj.stop_reason(job, wide, 1) == ""
    assert tj.stop_reason(job, wide * 2, 1) == "cap"       # max_samples
    assert tj.stop_reason(job, wide, tj.ROUNDS) == "cap"   # rounds
    slow = [1e6 + 1e5 * (i % 7) for i in range(20)]        # 20 ms > 10
    assert tj.stop_reason(job, slow, 1) == "time"


def test_traffic_matches_data_format():
    assert tj.traffic("add", "f32", 10) == (120, 120, 10)
    assert tj.traffic("add", "f16", 10) == (60, 60, 10)
    assert tj.traffic("relu", "f32", 10) == (80, 80, 0)


def test_rows_go_to_peer_csv_with_timing_columns(run_copy):
    drop_torch_rows(run_copy)
    timing = (run_copy / "timing.csv").read_bytes()
    run = load_run(str(run_copy))
    jobs = tj.plan(run)
    samples = [4000.0, 4100.0, 3900.0, 4050.0]
    intervals = [20000.0, 21000.0, 19500.0]
    output.add_rows(str(peer_csv(run_copy)),
                    [tj.row_values(run, jobs[0], samples, intervals, "cap",
                                   "pass")])
    text = peer_csv(run_copy).read_text()
    assert text.split("\n")[0].split(",") == [
        c.name for c in validate.TIMING_COLUMNS]
    again = load_run(str(run_copy))
    added = [p for p in again.points if p.variant == jobs[0].variant]
    assert len(added) == 1
    p = added[0]
    assert (p.file, p.line) == ("peer-torch.csv", 2)
    assert (p.block, p.grid, p.check) == (None, None, "pass")
    assert p.time_median_ns == 4025.0 and p.time_min_ns == 3900.0
    # the kernels' time; Python's launch path only as the interval
    assert p.time_source == "kernel" and p.stop == "cap"
    assert (p.time_ci_low_ns, p.time_ci_high_ns) == (3900.0, 4100.0)
    assert p.interval_ns == 20000.0 and p.interval_ci_ns == 1000.0
    assert p.bytes_moved == tj.traffic(jobs[0].op, jobs[0].dtype,
                                       jobs[0].n)[1]
    assert p.bandwidth == pytest.approx(p.bytes_moved / 4025e-9)
    # a second batch keeps the first rows as they were
    output.add_rows(str(peer_csv(run_copy)),
                    [tj.row_values(again, jobs[1], samples, [], "ci",
                                   "fail")])
    assert peer_csv(run_copy).read_text().startswith(text)
    assert len(tj.plan(load_run(str(run_copy)))) == len(jobs) - 2
    assert (run_copy / "timing.csv").read_bytes() == timing


def test_atomic_write_leaves_old_file_on_failure(run_copy, monkeypatch):
    path = str(peer_csv(run_copy))
    output.write_atomic(path, "old\n")

    def broken(src, dst):
        raise OSError("disk gone")
    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        output.write_atomic(path, "new\n")
    assert open(path).read() == "old\n"
    assert [f for f in os.listdir(run_copy) if f.startswith(".")] == []


# measuring a run, with the GPU parts faked

class FakeCuda:
    def set_device(self, index):
        pass

    def mem_get_info(self):
        return 1 << 40, 1 << 40

    def empty_cache(self):
        pass

    def get_device_name(self, index):
        return "NVIDIA H100 80GB HBM3"


class FakeTorch:
    __version__ = "2.5.1"
    uint8 = "uint8"

    class version:
        cuda = "12.4"

    cuda = FakeCuda()

    def empty(self, n, dtype, device):
        return None


def fake_gpu(monkeypatch, median=4000.0):
    monkeypatch.setattr(tj, "import_torch", FakeTorch)
    monkeypatch.setattr(tj, "check_device", lambda torch, run: 0)
    monkeypatch.setattr(tj, "measure", lambda torch, jobs, flush, done:
                        done([(job, [median * 0.99, median, median * 1.01],
                               [20e3, 21e3], "ci", "pass") for job in jobs]))


def test_measure_run_writes_peer_files_only(run_copy, monkeypatch):
    drop_torch_rows(run_copy)
    before = {f: (run_copy / f).read_bytes() for f in os.listdir(run_copy)}
    fake_gpu(monkeypatch)
    said = []
    assert tj.measure_runs([str(run_copy)], said.append) == {
        str(run_copy): 30}
    for name, data in before.items():
        assert (run_copy / name).read_bytes() == data, name
    assert sorted(set(os.listdir(run_copy)) - set(before)) == [
        "peer-torch.csv", "peer-torch.json"]
    side = load.peer_sidecar(str(run_copy))
    assert side["torch"] == "2.5.1" and side["rows"] == 30
    assert side["method"] == tj.METHOD
    run = load_run(str(run_copy))
    assert sum(p.file == "peer-torch.csv" for p in run.points) == 30
    # again: nothing left to measure, nothing rewritten
    csv_text = peer_csv(run_copy).read_text()
    assert tj.measure_runs([str(run_copy)], said.append) == {
        str(run_copy): 0}
    assert "nothing to do" in said[-1]
    assert peer_csv(run_copy).read_text() == csv_text


def test_measure_run_skips_points_in_timing_csv(run_copy, monkeypatch):
    # keep the fp32 add rows in timing.csv (a run from before peers/)
    rewrite(run_copy / "timing.csv", lambda t: "\n".join(
        l for l in t.split("\n")
        if ",torch_" not in l or ",torch_add_f32," in l))
    fake_gpu(monkeypatch)
    assert tj.measure_runs([str(run_copy)], lambda s: None) == {
        str(run_copy): 20}
    variants = {l.split(",")[1] for l in
                peer_csv(run_copy).read_text().split("\n")[1:] if l}
    assert variants == {"torch_add_f16", "torch_relu_f32"}


# the command

def test_cli_reports_cannot_run(run_copy, monkeypatch, capsys):
    drop_torch_rows(run_copy)

    def no_torch():
        raise tj.CannotRun("PyTorch is not installed (test)")
    monkeypatch.setattr(tj, "import_torch", no_torch)
    before = (run_copy / "timing.csv").read_bytes()
    # ewbench's "no usable GPU" (5), not 4 ("too large for GPU memory").
    assert tj.main([str(run_copy)], "ewbench torch") == cli.EXIT_NO_GPU == 5
    assert capsys.readouterr().err == "ewbench torch: cannot run here: " \
        "PyTorch is not installed (test)\n"
    assert (run_copy / "timing.csv").read_bytes() == before
    assert not peer_csv(run_copy).exists()


def test_dry_run_needs_no_torch(run_copy, capsys):
    drop_torch_rows(run_copy)
    assert tj.main(["--dry-run", str(run_copy)]) == cli.EXIT_OK
    out = capsys.readouterr().out
    assert out.startswith("%s: would time 30 PyTorch points into %s:\n" % (
        run_copy, run_copy / "peer-torch.csv"))
    assert "  torch_add_f16 n=268435456 cold samples=20-2000 target=0.5% " \
        "max_time=10ms warmup=10\n" in out
    assert tj.main([]) == cli.EXIT_USAGE


def test_dry_run_says_when_there_is_nothing_to_do(capsys):
    """It printed nothing at all (the fixture's torch rows are there)."""
    assert tj.main(["--dry-run", FIXTURE]) == cli.EXIT_OK
    assert capsys.readouterr().out == "%s: every PyTorch point is already " \
        "in timing.csv or peer-torch.csv; nothing to do\n" % FIXTURE


def test_module_bad_data_exits_three_without_traceback(run_copy):
    rewrite(run_copy / "timing.csv", lambda t: t.replace(",pass\n",
                                                         ",maybe\n", 1))
    proc = subprocess.run([sys.executable, "-m", "ewbench.peers.torch_ops",
                           "--dry-run", str(run_copy)], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == cli.EXIT_DATA
    assert "timing.csv:2: column check: expected one of pass, fail" in \
        proc.stderr
    assert "Traceback" not in proc.stderr


def test_run_as_a_file_says_how_to_run_it(run_copy):
    proc = subprocess.run([sys.executable, os.path.join(PACKAGE, "peers",
                                                        "torch_ops.py"),
                           str(run_copy)], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == cli.EXIT_USAGE
    assert "usage: ewbench torch RUN_DIR" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_analysis_takes_torch_as_ewbench_does(run_copy, capsys):
    """README: python3 -m ewbench.analysis takes the same commands (it
    answered 'moved', exit 2)."""
    drop_torch_rows(run_copy)
    assert analysis_main(["torch", "--dry-run", str(run_copy)]) == \
        cli.EXIT_OK
    assert "would time 30 PyTorch points" in capsys.readouterr().out
    assert analysis_main(["torch", "--help"]) == cli.EXIT_OK
    assert capsys.readouterr().out.startswith(
        "usage: python3 -m ewbench.analysis torch ")
    assert analysis_main(["torch", "--bogus", str(run_copy)]) == \
        cli.EXIT_USAGE
    assert "python3 -m ewbench.analysis torch: error:" in \
        capsys.readouterr().err


# loading peer-*.csv

def move_torch_rows(run_copy, name="peer-torch.csv"):
    """The fixture's torch rows moved from timing.csv into a peer file."""
    rows = [l + "\n" for l in
            (run_copy / "timing.csv").read_text().split("\n") if ",torch_"
            in l]
    drop_torch_rows(run_copy)
    header = (run_copy / "timing.csv").read_text().split("\n")[0]
    (run_copy / name).write_text(header + "\n" + "".join(rows))
    return rows


def test_peer_rows_load_like_timing_rows(fixture_run, run_copy):
    move_torch_rows(run_copy)
    run = load_run(str(run_copy))
    key = lambda p: p.key
    assert sorted((p.key, p.time_median_ns) for p in run.points) == sorted(
        (p.key, p.time_median_ns) for p in fixture_run.points)
    assert {p.file for p in run.points if p.variant.startswith("torch_")} \
        == {"peer-torch.csv"}
    assert key(run.points[0]) == key(fixture_run.points[0])


def test_point_in_timing_and_peer_csv_is_refused(run_copy):
    rows = [l for l in (run_copy / "timing.csv").read_text().split("\n")
            if ",torch_" in l]
    header = (run_copy / "timing.csv").read_text().split("\n")[0]
    (run_copy / "peer-torch.csv").write_text(header + "\n" + rows[0] + "\n")
    timing_line = (run_copy / "timing.csv").read_text().split(
        "\n").index(rows[0]) + 1
    with pytest.raises(DataError) as e:
        load_run(str(run_copy))
    assert str(e.value) == "%s:2: expected one row per point; this point " \
        "is also on %s:%d" % (run_copy / "peer-torch.csv",
                              run_copy / "timing.csv", timing_line)


def test_point_in_two_peer_files_is_refused(run_copy):
    move_torch_rows(run_copy)
    (run_copy / "peer-other.csv").write_text(
        (run_copy / "peer-torch.csv").read_text())
    with pytest.raises(DataError, match=r"peer-torch\.csv:2: expected one "
                       r"row per point; this point is also on .*"
                       r"peer-other\.csv:2"):
        load_run(str(run_copy))


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace(",pass\n", ",maybe\n", 1),
     "peer-torch.csv:2: column check: expected one of pass, fail"),
    (lambda t: t[:-1], "peer-torch.csv:31: expected the row to end with "
     "a newline"),
    (lambda t: t.replace("run_id,", "runid,", 1),
     "peer-torch.csv:1: expected header columns"),
])
def test_broken_peer_csv_exits_three(run_copy, capsys, edit, message):
    move_torch_rows(run_copy)
    rewrite(run_copy / "peer-torch.csv", edit)
    assert analysis_main(["compare", str(run_copy), str(run_copy)]) == 3
    assert message in capsys.readouterr().err


def test_peer_run_id_must_be_the_runs(run_copy):
    move_torch_rows(run_copy)
    rewrite(run_copy / "peer-torch.csv", lambda t: t.replace(
        "\n" + t.split("\n")[1].split(",")[0] + ",", "\nother,", 1))
    with pytest.raises(DataError, match=r"peer-torch\.csv:2: expected "
                       r"run_id"):
        load_run(str(run_copy))


def test_sidecar_new_name_then_legacy_name(run_copy):
    assert load.peer_sidecar(str(run_copy)) is None
    (run_copy / "torch-baseline.json").write_text(
        '{"torch": "2.4", "cuda": "12.1", "device": null, "written_utc": '
        'null, "rows": 1, "flush_bytes": 1, "method": "m"}\n')
    assert load.peer_sidecar(str(run_copy))["torch"] == "2.4"
    (run_copy / "peer-torch.json").write_text('{"torch": 2.5}')
    with pytest.raises(DataError, match=r"peer-torch\.json:1: expected "
                       r"torch to be a string or null, got 2\.5"):
        load.peer_sidecar(str(run_copy))


def test_runs_with_torch_in_timing_csv_load(fixture_run):
    """Runs from before peers/ (the test fixture): torch rows appended to
    timing.csv, no peer file."""
    run = load_run(FIXTURE)
    torch_points = [p for p in run.points if p.variant.startswith("torch_")]
    assert len(torch_points) == len(torch_lines(FIXTURE)) > 0
    assert {p.file for p in torch_points} == {"timing.csv"}
    assert load.peer_files(FIXTURE) == []


def test_reference_runs_with_peer_files_load(fixture_run):
    """The studies and contest rounds measured since: torch rows in
    peer-torch.csv, none in timing.csv."""
    for part in ("article", os.path.join("contest", "round-1")):
        for gpu in ("nvidia-h100", "nvidia-h200"):
            d = os.path.join(ROOT, "reports", "reference", gpu, part)
            run = load_run(d)
            torch_points = [p for p in run.points
                            if p.variant.startswith("torch_")]
            assert torch_lines(d) == []
            assert len(torch_points) > 0
            assert {p.file for p in torch_points} == {"peer-torch.csv"}
            assert [os.path.basename(f) for f in load.peer_files(d)] == [
                "peer-torch.csv"]

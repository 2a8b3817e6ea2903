"""Peers measured outside the analysis: ewbench.peers.torch_ops writes its own
peer-torch.csv (never timing.csv), atomically; load.py merges peer-*.csv
files into the run, checked like timing.csv."""

import os
import shutil
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
from ewbench.peers import torch_plan as tp
import torch_standin


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
    assert tp.plan(fixture_run) == []       # fixture: torch in timing.csv
    drop_torch_rows(run_copy)
    jobs = tp.plan(load_run(str(run_copy)))
    assert len(jobs) == 3 * 5 * 2
    assert {j.variant for j in jobs} == {v for v, _, _ in tp.VARIANTS}
    # the fixture's run.json predates settings.timing: ewbench's defaults
    assert {(j.min_samples, j.max_samples, j.target_pct) for j in jobs} == \
        {(20, 2000, 0.5)} and {j.warmup for j in jobs} == {10}


def test_median_interval_matches_ewbench():
    # src/base/stats.c on 100..1: ranks 40 and 61 (tests/unit/test-stats.c)
    assert tp.median_interval(list(range(100, 0, -1))) == (40.0, 61.0)
    assert tp.median_interval([5, 1, 3]) == (1.0, 5.0)
    job = tp.Job("torch_add_f32", "add", "f32", 1 << 20, "warm", 20, 40,
                 0.5, 10)
    assert tp.stop_reason(job, [1000.0] * 19, 1) == ""
    assert tp.stop_reason(job, [1000.0] * 20, 1) == "ci"   # no scatter
    wide = [1000.0 + 100 * (i % 7) for i in range(20)]
    assert tp.stop_reason(job, wide, 1) == ""
    assert tp.stop_reason(job, wide * 2, 1) == "cap"       # max_samples
    assert tp.stop_reason(job, wide, tp.ROUNDS) == "cap"   # rounds
    slow = [1e6 + 1e5 * (i % 7) for i in range(20)]        # 20 ms > 10
    assert tp.stop_reason(job, slow, 1) == "time"


def test_traffic_matches_data_format():
    assert tp.traffic("add", "f32", 10) == (120, 120, 10)
    assert tp.traffic("add", "f16", 10) == (60, 60, 10)
    assert tp.traffic("relu", "f32", 10) == (80, 80, 0)


def test_rows_go_to_peer_csv_with_timing_columns(run_copy):
    drop_torch_rows(run_copy)
    timing = (run_copy / "timing.csv").read_bytes()
    run = load_run(str(run_copy))
    jobs = tp.plan(run)
    samples = [4000.0, 4100.0, 3900.0, 4050.0]
    intervals = [20000.0, 21000.0, 19500.0]
    output.add_rows(str(peer_csv(run_copy)),
                    [tp.row_values(run, jobs[0], samples, intervals, "cap",
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
    assert p.bytes_moved == tp.traffic(jobs[0].op, jobs[0].dtype,
                                       jobs[0].n)[1]
    assert p.bandwidth == pytest.approx(p.bytes_moved / 4025e-9)
    # a second batch keeps the first rows as they were
    output.add_rows(str(peer_csv(run_copy)),
                    [tp.row_values(again, jobs[1], samples, [], "ci",
                                   "fail")])
    assert peer_csv(run_copy).read_text().startswith(text)
    assert len(tp.plan(load_run(str(run_copy)))) == len(jobs) - 2
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

def fake_gpu(monkeypatch):
    torch_standin.install(monkeypatch.setattr)


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


# serving a study's rounds: ewbench torch --serve

STANDIN = os.path.join(ROOT, "tests", "python", "torch_standin.py")


def round_copies(tmp_path, count):
    """count copies of the fixture run without its torch rows: the rounds
    of a study, each with 30 PyTorch points to measure."""
    dirs = []
    for i in range(1, count + 1):
        target = tmp_path / ("round-%d" % i)
        shutil.copytree(FIXTURE, target)
        drop_torch_rows(target)
        dirs.append(str(target))
    return dirs


def test_requests_are_blocks_of_lines_ended_by_an_empty_one():
    lines = ["a\n", "b c\n", "\n", "\n", "d\n"]
    assert list(tj.requests(lines)) == [["a", "b c"], [], ["d"]]
    assert list(tj.requests(["a\n", "\n"])) == [["a"]]
    assert list(tj.requests([])) == []


class Requests:
    """A request stream that notes each line as the server reads it."""

    def __init__(self, lines, events):
        self.lines, self.events = list(lines), events

    def readline(self):
        if not self.lines:
            self.events.append("end of input")
            return ""
        line = self.lines.pop(0)
        self.events.append("read %s" % os.path.basename(line.strip()))
        return line


class Answers:
    """An answer stream that notes each line written and, at each
    answer's end, which rounds had their rows on disk."""

    def __init__(self, events, dirs):
        self.events, self.dirs, self.text = events, dirs, ""

    def write(self, text):
        self.text += text
        if text == "\n":
            self.events.append("answered; rows of %s" % ",".join(
                os.path.basename(d) for d in self.dirs
                if os.path.exists(os.path.join(d, "peer-torch.csv"))))

    def flush(self):
        self.events.append("flush")


def test_serve_imports_once_touches_the_gpu_on_the_first_request(
        tmp_path, monkeypatch):
    dirs = round_copies(tmp_path, 3)
    events = []
    fake_gpu(monkeypatch)
    monkeypatch.setattr(tj, "import_torch", lambda: events.append(
        "import") or torch_standin.FakeTorch())
    monkeypatch.setattr(tj, "check_cuda", lambda torch: events.append(
        "gpu"))
    monkeypatch.setattr(tj.Peer, "release", lambda self: events.append(
        "release"))
    monkeypatch.setattr(tj, "measure", lambda torch, jobs, flush, done: (
        events.append("measure %s" % ",".join(sorted(
            {os.path.basename(j.run_dir) for j in jobs}))),
        torch_standin.fake_measure(torch, jobs, flush, done)))
    answers = Answers(events, dirs)
    tj.serve(tj.Peer(), Requests([dirs[0] + "\n", dirs[1] + "\n", "\n",
                                  dirs[2] + "\n", "\n"], events), answers)
    assert [e for e in events if e != "flush"] == [
        "import",                    # before any request is read
        "read round-1", "read round-2", "read ",
        "gpu",                       # only once a request is whole
        "measure round-1,round-2",   # both runs in one call
        "release",                   # PyTorch's cache back, then ...
        "answered; rows of round-1,round-2",
        "read round-3", "read ",     # the next one only after the answer
        "measure round-3", "release",
        "answered; rows of round-1,round-2,round-3",
        "end of input"]
    # Each answer: the lines `ewbench torch RUN_DIR...` prints, then an
    # empty line, every line flushed as it is written.
    blocks = answers.text.split("\n\n")
    assert blocks[0].endswith("wrote 30 rows to %s\nwrote 30 rows to %s" % (
        os.path.join(dirs[0], "peer-torch.csv"),
        os.path.join(dirs[1], "peer-torch.csv")))
    assert blocks[1].endswith("wrote 30 rows to %s" % os.path.join(
        dirs[2], "peer-torch.csv")) and blocks[2] == ""
    assert events.count("flush") == answers.text.count("\n")
    # The rows are those of `ewbench torch RUN_DIR` by hand.
    by_hand = round_copies(tmp_path / "by-hand", 1)[0]
    assert tj.main([by_hand]) == cli.EXIT_OK
    for d in dirs:
        assert sum(1 for _ in open(os.path.join(d, "peer-torch.csv"))) == \
            sum(1 for _ in open(os.path.join(by_hand, "peer-torch.csv")))
        side = load.peer_sidecar(d)
        assert side["rows"] == 30 and side["method"] == tj.METHOD


def test_serve_prepares_the_gpu_ahead_and_answers_with_an_empty_line(
        tmp_path, monkeypatch):
    dirs = round_copies(tmp_path, 1)
    events = []
    fake_gpu(monkeypatch)
    monkeypatch.setattr(tj, "check_cuda", lambda torch: events.append(
        "gpu"))
    monkeypatch.setattr(tj, "empty_session", lambda torch: events.append(
        "profiler"))
    monkeypatch.setattr(tj, "measure", lambda torch, jobs, flush, done: (
        events.append("measure"),
        torch_standin.fake_measure(torch, jobs, flush, done)))
    answers = Answers(events, dirs)
    tj.serve(tj.Peer(), Requests([tj.PREPARE + "\n", dirs[0] + "\n", "\n",
                                  dirs[0] + "\n", "\n"], events), answers)
    assert [e for e in events if e != "flush"] == [
        "read --prepare", "read round-1", "read ",
        "gpu", "profiler",           # the GPU made ready, no point measured
        "answered; rows of ",        # its answer: the empty line alone
        "read round-1", "read ",
        "measure",                   # the GPU not set up again
        "answered; rows of round-1", "end of input"]
    assert answers.text.startswith("\n")
    assert answers.text.endswith("wrote 30 rows to %s\n\n" % os.path.join(
        dirs[0], "peer-torch.csv"))


def test_serve_answers_an_empty_request_and_keeps_one_gpu(
        tmp_path, monkeypatch):
    dirs = round_copies(tmp_path, 2)
    fake_gpu(monkeypatch)
    answers = Answers([], dirs)
    tj.serve(tj.Peer(), Requests(["\n"], []), answers)
    assert answers.text == "\n"
    indices = iter([0, 1])
    monkeypatch.setattr(tj, "check_device", lambda torch, run: next(indices))
    with pytest.raises(tj.CannotRun, match="this process measures on "
                       "device 0"):
        tj.serve(tj.Peer(), Requests([dirs[0] + "\n", "\n", dirs[1] + "\n",
                                      "\n"], []), Answers([], dirs))


def test_points_may_use_the_blocks_pytorch_holds():
    class Cuda:
        def mem_get_info(self):
            return 10 << 30, 80 << 30

        def memory_reserved(self):
            return 50 << 30

        def memory_allocated(self):
            return 20 << 30
    peer = tj.Peer()
    peer.torch = type("Torch", (), {"cuda": Cuda()})
    assert peer.available_bytes() == 40 << 30


def standin(*args, **kw):
    return subprocess.Popen([sys.executable, STANDIN] + list(args),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def answer(proc):
    """The lines of one answer, read through the pipe as they come."""
    lines = []
    while True:
        line = proc.stdout.readline()
        assert line, "the server ended: %s" % proc.stderr.read()
        if line == "\n":
            return lines
        lines.append(line.rstrip("\n"))


def test_serve_through_pipes_answers_each_request_when_its_rows_are_written(
        tmp_path):
    dirs = round_copies(tmp_path, 2)
    proc = standin("--serve")
    try:
        proc.stdin.write(dirs[0] + "\n\n")
        proc.stdin.flush()
        lines = answer(proc)
        assert lines[-1] == "wrote 30 rows to %s" % os.path.join(
            dirs[0], "peer-torch.csv")
        assert not os.path.exists(os.path.join(dirs[1], "peer-torch.csv"))
        load_run(dirs[0])           # whole: the rows load
        proc.stdin.write(dirs[1] + "\n\n")
        proc.stdin.flush()
        assert answer(proc)[-1].startswith("wrote 30 rows to ")
        proc.stdin.close()
        assert proc.wait(timeout=60) == cli.EXIT_OK
    finally:
        proc.kill()
        proc.wait()


def test_serve_without_torch_ends_before_any_request(tmp_path):
    proc = standin("--no-torch", "--serve")
    try:
        # stdin stays open: it must end without waiting for a request
        assert proc.wait(timeout=60) == cli.EXIT_NO_GPU
        assert "cannot run here: PyTorch is not installed" in \
            proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()


def test_serve_ends_on_bad_data_keeping_earlier_rows(tmp_path):
    dirs = round_copies(tmp_path, 1)
    proc = standin("--serve")
    try:
        out, err = proc.communicate(dirs[0] + "\n\n" + str(tmp_path) +
                                    "/missing\n\n", timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == cli.EXIT_DATA and "Traceback" not in err
    assert out.endswith("wrote 30 rows to %s\n\n" % os.path.join(
        dirs[0], "peer-torch.csv"))
    assert len(load_run(dirs[0]).points) > 30


def test_serve_takes_no_run_dir_nor_dry_run(run_copy, capsys):
    assert tj.main(["--serve", str(run_copy)]) == cli.EXIT_USAGE
    assert tj.main(["--serve", "--dry-run"]) == cli.EXIT_USAGE
    assert capsys.readouterr().err.count("--serve reads its run "
                                         "directories from standard "
                                         "input") == 2


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


def test_a_run_named_twice_is_measured_once(run_copy, monkeypatch, capsys):
    """`r r`, `r r/`, `r ./r` and a link to r wrote every row twice into
    peer-torch.csv, which then loaded nowhere (issue 55, cause 2)."""
    drop_torch_rows(run_copy)
    link = run_copy.parent / "link"
    link.symlink_to(run_copy)
    fake_gpu(monkeypatch)
    monkeypatch.chdir(run_copy.parent)
    names = [str(run_copy), str(run_copy) + "/", "./run", str(link)]
    assert tj.main(names, "ewbench torch") == cli.EXIT_OK
    out = capsys.readouterr().out
    assert out.count("torch_add_f32 n=1048576 warm:") == 1
    assert out.endswith("\nwrote 30 rows to %s\n" % os.path.join(
        str(run_copy), "peer-torch.csv"))
    assert sum(p.file == "peer-torch.csv"
               for p in load_run(str(run_copy)).points) == 30
    assert tj.main(["--dry-run"] + names) == cli.EXIT_OK
    assert capsys.readouterr().out.count("nothing to do") == 1


def test_serve_measures_a_run_named_twice_once(tmp_path):
    dirs = round_copies(tmp_path, 1)
    proc = standin("--serve")
    try:
        out, err = proc.communicate("%s\n%s/\n\n" % (dirs[0], dirs[0]),
                                    timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == cli.EXIT_OK, err
    assert out.count("torch_add_f32 n=1048576 warm:") == 1
    assert out.endswith("\nwrote 30 rows to %s\n\n" % os.path.join(
        dirs[0], "peer-torch.csv"))
    assert sum(p.file == "peer-torch.csv"
               for p in load_run(dirs[0]).points) == 30


# PyTorch failing, undecodable names, hostile paths (issue 55, causes 5, 11)

class FakeOutOfMemory(RuntimeError):
    pass


FakeOutOfMemory.__name__ = "OutOfMemoryError"   # torch.cuda's name


@pytest.mark.parametrize("error, code", [
    (RuntimeError("CUDA error: an illegal memory access was encountered\n"
                  "CUDA kernel errors might be asynchronously reported"),
     cli.EXIT_ERROR),
    (FakeOutOfMemory("CUDA out of memory. Tried to allocate 2.00 GiB"),
     cli.EXIT_NO_MEMORY)])
def test_a_pytorch_failure_is_one_line_and_keeps_rows(run_copy, monkeypatch,
                                                     capsys, error, code):
    drop_torch_rows(run_copy)
    fake_gpu(monkeypatch)

    def failing(torch, jobs, flush, done):
        torch_standin.fake_measure(torch, jobs[:4], flush, done)
        raise error
    monkeypatch.setattr(tj, "measure", failing)
    assert tj.main([str(run_copy)], "ewbench torch") == code
    err = capsys.readouterr().err
    assert err == "ewbench torch: PyTorch failed: %s: %s; peer-torch.csv " \
        "keeps its complete rows\n" % (type(error).__name__,
                                       str(error).split("\n")[0])
    assert sum(p.file == "peer-torch.csv"
               for p in load_run(str(run_copy)).points) == 4


def test_a_pytorch_failure_ends_serve_with_one_line(tmp_path, monkeypatch,
                                                   capsys):
    dirs = round_copies(tmp_path, 1)
    fake_gpu(monkeypatch)

    def failing(torch, jobs, flush, done):
        raise RuntimeError("CUDA error: unspecified launch failure")
    monkeypatch.setattr(tj, "measure", failing)
    monkeypatch.setattr(sys, "stdin", __import__("io").TextIOWrapper(
        __import__("io").BytesIO((dirs[0] + "\n\n").encode())))
    assert tj.main(["--serve"], "ewbench torch") == cli.EXIT_ERROR
    assert capsys.readouterr().err == "ewbench torch: PyTorch failed: " \
        "RuntimeError: CUDA error: unspecified launch failure; " \
        "peer-torch.csv keeps its complete rows\n"


def hostile_copy(tmp_path):
    """The fixture without its torch rows, in a folder whose name is not
    UTF-8 and holds a terminal escape: (bytes path, str path)."""
    raw = os.path.join(os.fsencode(str(tmp_path)), b"run-\xff\x1b[2J")
    shutil.copytree(FIXTURE, raw.decode("utf-8", "surrogateescape"))
    path = os.fsdecode(raw)
    drop_torch_rows(type(tmp_path)(path))
    return raw, path


@pytest.mark.parametrize("serve", [False, True], ids=["argv", "serve"])
def test_undecodable_and_escaping_run_names(tmp_path, serve):
    raw, path = hostile_copy(tmp_path)
    args = [sys.executable, STANDIN] + (["--serve"] if serve else [raw])
    proc = subprocess.run(args, input=raw + b"\n\n" if serve else b"",
                          capture_output=True, check=False)
    assert proc.returncode == cli.EXIT_OK, proc.stderr
    assert b"Traceback" not in proc.stderr and b"\x1b" not in proc.stdout
    assert proc.stdout.split(b"\n")[-3 if serve else -2] == \
        b"wrote 30 rows to " + \
        os.fsencode(str(tmp_path)) + b"/run-\\udcff\\x1b[2J/peer-torch.csv"
    assert sum(p.file == "peer-torch.csv" for p in load_run(path).points) \
        == 30


def test_messages_escape_and_bound_paths(tmp_path, capsys):
    assert tj.main([str(tmp_path / ("\x1b]0;owned\x07" + "x" * 200))] * 1 +
                   [str(tmp_path / ("y" * 100000))], "ewbench torch") == \
        cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "\\x1b]0;owned" in err
    assert len(err) < 2200
    assert tj.main([str(tmp_path / ("y" * 100000))], "ewbench torch") == \
        cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert len(err) < 2200 and "characters)" in err

"""Each symptom of "nothing lost, nothing crashes", as a user meets it
through `python3 -m ewbench.analysis`: bad input ends in `python3 -m
ewbench.analysis COMMAND: FILE:LINE:
message` and exit 3 (or a usage error, exit 2), never a traceback, and
input that breaks the contract is never turned into a wrong number."""

import dataclasses
import gzip
import json
import os
import types

import pytest

from ewbench.analysis.core import compare
from ewbench.analysis.contest import rank as contest
from ewbench.analysis.core import load
from ewbench.analysis.core import noise
from ewbench.analysis.__main__ import EXIT_DATA, EXIT_OK, EXIT_USAGE, main
from ewbench.analysis.core.load import DataError, load_run
from conftest import rewrite, scale_times
from ewbench.peers import output
from ewbench.peers import torch_ops as tj
from ewbench.peers import torch_plan as tp


def set_cell(run_dir, line, column, value):
    """Put value into one cell of timing.csv (line 2 = first row)."""
    def edit(text):
        lines = text.split("\n")
        header = lines[0].split(",")
        fields = lines[line - 1].split(",")
        fields[header.index(column)] = value
        lines[line - 1] = ",".join(fields)
        return "\n".join(lines)
    rewrite(os.path.join(run_dir, "timing.csv"), edit)


def edit_manifest(run_dir, edit):
    path = os.path.join(run_dir, "run.json")
    with open(path, encoding="utf-8") as f:
        manifest = json.load(f)
    edit(manifest)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2)


def data_error(capsys, argv):
    """Run the command; it must exit 3; return the one stderr line."""
    assert main(argv) == EXIT_DATA
    err = capsys.readouterr().err
    assert err.startswith("python3 -m ewbench.analysis %s: " % argv[0]) \
        and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err.strip()


# time 0, n 0 (ZeroDivisionError in findings.py / select.py before)

def test_time_zero_is_refused_with_file_and_line(run_copy, capsys):
    set_cell(run_copy, 2, "time_median_ns", "0")
    err = data_error(capsys, ["report", str(run_copy), "-o",
                              str(run_copy / "rep")])
    assert err == ("python3 -m ewbench.analysis report: %s:2: column time_median_ns: expected a "
                   "positive number, got '0'" % (run_copy / "timing.csv"))


def test_subnormal_time_is_refused_with_file_and_line(run_copy, capsys):
    # 1e-320 ns is positive, but 1e-320 x 1e-9 underflows to 0: the
    # bandwidth check divided by zero (found by test_validate_fuzz).
    set_cell(run_copy, 2, "time_min_ns", "1e-320")
    err = data_error(capsys, ["report", str(run_copy), "-o",
                              str(run_copy / "rep")])
    assert err.endswith("timing.csv:2: expected time_min_ns a time in "
                        "seconds above 0, got 9.9998886718268301e-321 ns"), err


def test_n_zero_is_refused_with_file_and_line(run_copy, capsys):
    set_cell(run_copy, 3, "n", "0")
    err = data_error(capsys, ["report", str(run_copy), "-o",
                              str(run_copy / "rep")])
    assert err.endswith("timing.csv:3: column n: expected a positive "
                        "integer, got '0'")


# NaN or 0 in run.json

def test_nan_in_run_json_names_path_and_line(run_copy, capsys):
    rewrite(run_copy / "run.json", lambda t: t.replace(
        '"l2_bytes": 52428800', '"l2_bytes": NaN'))
    text = (run_copy / "run.json").read_text()
    line = text[:text.index("NaN")].count("\n") + 1
    err = data_error(capsys, ["report", str(run_copy), "-o",
                              str(run_copy / "rep")])
    assert err == ("python3 -m ewbench.analysis report: %s:%d: expected device.l2_bytes to be a "
                   "finite number or null, got NaN (not a JSON number)" %
                   (run_copy / "run.json", line))


@pytest.mark.parametrize("key", ["l2_bytes", "dram_bandwidth_bytes_per_s",
                                 "sm_count", "max_threads_per_sm"])
def test_zero_divisor_in_run_json_is_refused(run_copy, capsys, key):
    edit_manifest(run_copy, lambda m: m["device"].update({key: 0}))
    err = data_error(capsys, ["report", str(run_copy), "-o",
                              str(run_copy / "rep")])
    assert "run.json:" in err
    assert "expected device.%s to be a positive" % key in err
    assert err.endswith("or null, got 0")


# "counters": "x", "settings": "x" (AttributeError before)

@pytest.mark.parametrize("key", ["counters", "settings", "device"])
@pytest.mark.parametrize("command", ["report", "contest", "peers"])
def test_wrong_type_section_in_run_json(run_copy, capsys, key, command):
    edit_manifest(run_copy, lambda m: m.update({key: "x"}))
    argv = {"report": ["report", str(run_copy), "-o", str(run_copy / "r")],
            "contest": ["contest", str(run_copy)],
            "peers": None}[command]
    if argv is None:
        assert tj.main(["--dry-run", str(run_copy)]) == EXIT_DATA
        err = capsys.readouterr().err.strip()
    else:
        err = data_error(capsys, argv)
    assert 'expected %s to be an object, got "x"' % key in err
    assert "%s:" % (run_copy / "run.json") in err


def test_size_choice_of_wrong_type(run_copy, capsys):
    edit_manifest(run_copy, lambda m: m["settings"].update(
        {"size_choices": [{"footprint_bytes_per_element": 12,
                           "tier": "l2", "n": "big"}]}))
    err = data_error(capsys, ["contest", str(run_copy)])
    assert 'expected settings.size_choices[0].n to be a positive integer, ' \
        'got "big"' in err


# deeply nested JSON (RecursionError before)

def test_deeply_nested_run_json(run_copy, capsys):
    rewrite(run_copy / "run.json", lambda t: t.replace(
        '"status":', '"deep": %s,\n"status":' % ("[" * 100000 +
                                                  "]" * 100000), 1))
    err = data_error(capsys, ["compare", str(run_copy), str(run_copy)])
    assert "run.json:" in err and "nested less deeply" in err


# timeline: truncated .gz (EOFError), events without ts or pid

def write_trace(path, events, gz=True):
    data = json.dumps({"traceEvents": events}).encode()
    with open(path, "wb") as f:
        f.write(gzip.compress(data) if gz else data)


RANGE = {"name": "add_f32 n=1Mi", "ph": "X", "pid": 0, "tid": 1,
         "ts": 10.0, "dur": 40.0, "cat": "ewbench", "args": {"depth": 1}}


def test_truncated_gzip_trace(tmp_path, capsys):
    path = tmp_path / "t.json.gz"
    write_trace(path, [RANGE] * 50)
    path.write_bytes(path.read_bytes()[:-20])
    err = data_error(capsys, ["timeline", str(path), "-o",
                              str(tmp_path / "t.png")])
    assert err.startswith("python3 -m ewbench.analysis timeline: %s: expected a complete gzip file" %
                          path)


@pytest.mark.parametrize("key", ["ts", "pid", "dur", "tid"])
def test_trace_event_without_a_field(tmp_path, capsys, key):
    path = tmp_path / "t.json"
    event = {k: v for k, v in RANGE.items() if k != key}
    write_trace(path, [RANGE, event], gz=False)
    err = data_error(capsys, ["timeline", str(path), "-o",
                              str(tmp_path / "t.png")])
    assert err.startswith("python3 -m ewbench.analysis timeline: %s:1: expected traceEvents[1].%s to "
                          "be present" % (path, key))


def test_trace_event_with_text_time(tmp_path, capsys):
    path = tmp_path / "t.json"
    write_trace(path, [dict(RANGE, ts="soon")], gz=False)
    err = data_error(capsys, ["timeline", str(path), "-o",
                              str(tmp_path / "t.png")])
    assert 'expected traceEvents[0].ts to be a non-negative finite ' \
        'number, got "soon"' in err


# median > max, time 0 in compare

def test_median_above_max_is_refused(fixture_dir, run_copy, capsys):
    # Before: compare printed SLOWER +1502303.8 % with Δ GB/s +0.0 %.
    set_cell(run_copy, 2, "time_median_ns", "67218120")
    err = data_error(capsys, ["compare", fixture_dir, str(run_copy)])
    assert err.startswith("python3 -m ewbench.analysis compare: %s:2: expected time_min_ns <= "
                          "time_median_ns <= time_max_ns" %
                          (run_copy / "timing.csv"))


def test_bandwidth_must_match_bytes_over_time(run_copy):
    set_cell(run_copy, 2, "bandwidth_median_bytes_per_s", "1e12")
    with pytest.raises(DataError, match=r"timing\.csv:2: expected "
                       r"bandwidth_median_bytes_per_s = bytes_moved / "
                       r"time_median_ns = "):
        load_run(str(run_copy))


def test_time_zero_is_not_faster(fixture_dir, run_copy, capsys):
    # Before: compare said FASTER -100 %.
    for column in ("time_median_ns", "time_min_ns"):
        set_cell(run_copy, 2, column, "0")
    err = data_error(capsys, ["compare", fixture_dir, str(run_copy)])
    assert ":2: column time_median_ns: expected a positive number" in err


# UTF-8 byte order mark ("missing: run_id" before)

@pytest.mark.parametrize("name", ["timing.csv", "metrics.csv",
                                  "ceilings.csv", "run.json"])
def test_utf8_bom_is_accepted(run_copy, name):
    path = run_copy / name
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    run = load_run(str(run_copy))
    assert len(run.points) == 160 and run.ceilings and run.metrics


def test_utf16_is_named(run_copy, capsys):
    path = run_copy / "timing.csv"
    path.write_bytes(path.read_text().encode("utf-16"))
    err = data_error(capsys, ["compare", str(run_copy), str(run_copy)])
    assert err.endswith("timing.csv:1: expected UTF-8 text, got a UTF-16 "
                        "byte order mark (save the file as UTF-8)")


def test_bad_utf8_names_the_line(run_copy, capsys):
    rewrite(run_copy / "metrics.csv", lambda t: t.replace(",ns,", ",µs,", 1))
    path = run_copy / "metrics.csv"
    data = path.read_bytes()
    path.write_bytes(data.replace("µ".encode(), b"\xb5", 1))
    err = data_error(capsys, ["compare", str(run_copy), str(run_copy)])
    assert "metrics.csv:2: expected UTF-8 text, got byte 0xb5" in err


def test_peer_csv_header_ignores_bom(run_copy):
    path = run_copy / "peer-torch.csv"
    path.write_bytes(b"\xef\xbb\xbf" + (run_copy / "timing.csv").read_bytes()
                     .split(b"\n", 1)[0] + b"\n")
    assert output.existing(str(path))[0][0] == "run_id"


# timeline --span, -o

@pytest.mark.parametrize("span", ["0", "-5", "nan", "inf", "x"])
def test_timeline_span_must_be_positive_finite(tmp_path, capsys, span):
    path = tmp_path / "t.json"
    write_trace(path, [RANGE], gz=False)
    out = tmp_path / "t.png"
    assert main(["timeline", str(path), "--span", span, "-o",
                 str(out)]) == EXIT_USAGE
    assert "--span: expected a" in capsys.readouterr().err
    assert not out.exists()


def test_timeline_span_cuts_the_window(tmp_path, capsys):
    path = tmp_path / "t.json"
    write_trace(path, [RANGE], gz=False)
    out = tmp_path / "t.png"
    assert main(["timeline", str(path), "--span", "0.5", "-o",
                 str(out)]) == EXIT_OK and out.exists()


def test_timeline_without_extension_says_the_real_name(tmp_path, capsys):
    path = tmp_path / "t.json"
    write_trace(path, [RANGE], gz=False)
    out = tmp_path / "noext"
    assert main(["timeline", str(path), "-o", str(out)]) == EXIT_OK
    assert capsys.readouterr().out == "wrote %s.png\n" % out
    assert (tmp_path / "noext.png").exists() and not out.exists()


def test_timeline_refuses_unknown_extension(tmp_path, capsys):
    path = tmp_path / "t.json"
    write_trace(path, [RANGE], gz=False)
    assert main(["timeline", str(path), "-o",
                 str(tmp_path / "t.txt")]) == EXIT_USAGE
    assert "expected a name ending in .png, .svg, .pdf" in \
        capsys.readouterr().err


# cross-file consistency

def test_metrics_row_without_a_timing_point(run_copy, capsys):
    rewrite(run_copy / "metrics.csv", lambda t: t.replace(
        ",add_f32,add,f32,1048576,256,warm,",
        ",add_f32,add,f32,1048577,256,warm,", 1))
    err = data_error(capsys, ["compare", str(run_copy), str(run_copy)])
    assert err.endswith("metrics.csv:2: expected a point of timing.csv, "
                        "got add_f32 n=1048577 block=256 warm, which has no "
                        "timing row")


def test_ceiling_unit_must_fit_the_ceiling(run_copy, capsys):
    rewrite(run_copy / "ceilings.csv", lambda t: t.replace(
        ",2250,ns,", ",2250,byte/s,", 1))
    err = data_error(capsys, ["report", str(run_copy), "-o",
                              str(run_copy / "rep")])
    assert "ceilings.csv:7: expected unit ns for ceiling launch_stream, " \
        "got byte/s" in err


def test_broken_torch_sidecar_is_a_data_error(run_copy):
    # report reads the sidecar (through load.peer_sidecar) for its Method.
    (run_copy / "torch-baseline.json").write_text('{"torch": 2.5}')
    with pytest.raises(DataError, match=r"torch-baseline\.json:1: expected "
                       r"torch to be a string or null, got 2\.5"):
        load.peer_sidecar(str(run_copy))
    (run_copy / "peer-torch.json").write_text('{"torch": "2.5.1"')
    with pytest.raises(DataError, match=r"peer-torch\.json:1: expected "
                       r"valid JSON"):
        load.peer_sidecar(str(run_copy))


def test_contest_rounds_must_agree_on_a_points_work(fixture_dir, run_copy,
                                                    capsys):
    factor = 2.0    # twice the bytes at the same time: twice the bandwidth
    def edit(text):
        lines = text.split("\n")
        header = lines[0].split(",")
        f = lines[1].split(",")
        for name in ("bytes_moved", "bandwidth_median_bytes_per_s",
                     "bandwidth_max_bytes_per_s", "spec_dram_pct"):
            c = header.index(name)
            f[c] = "%.17g" % (float(f[c]) * factor) if "." in f[c] or \
                "e" in f[c] else str(int(f[c]) * int(factor))
        lines[1] = ",".join(f)
        return "\n".join(lines)
    rewrite(run_copy / "timing.csv", edit)
    load_run(str(run_copy))         # each run on its own is consistent
    err = data_error(capsys, ["contest", fixture_dir, str(run_copy)])
    assert err.startswith("python3 -m ewbench.analysis contest: %s:2: expected op, dtype, bytes_moved "
                          "add, f32, 12582912 as in %s" % (
                              run_copy / "timing.csv", fixture_dir))


# warm graph rows: the spread of replay means, not of launches

def graph_point(fixture_run, launch, cache, median, stddev):
    p = fixture_run.points[0]
    return dataclasses.replace(
        p, launch=launch, cache=cache, iters=100, time_median_ns=median,
        time_stddev_ns=stddev, time_min_ns=None, time_max_ns=None,
        bandwidth_median_bytes_per_s=None)


def test_warm_graph_noise_is_scaled_to_one_launch(fixture_run):
    # 10 replays of 10 launches: the median of 10 replay means has a CI
    # sqrt(10) x wider than the median of 100 single launches with the
    # same spread, so an 8 % shift is within the noise of graph rows and
    # beyond it for stream rows (the CI rule, noise.separated).
    a = graph_point(fixture_run, "graph", "warm", 10000.0, 1000.0)
    b = dataclasses.replace(a, time_median_ns=10800.0)
    assert a.launches_per_sample == 10
    assert noise.noise_ns(a) == pytest.approx(1000.0 * 10 ** 0.5)
    assert compare.compare_points(a, b).flag == compare.SAME
    # The same numbers on stream rows (one launch per sample) are a change.
    sa = dataclasses.replace(a, launch="stream")
    sb = dataclasses.replace(b, launch="stream")
    assert sa.launches_per_sample == 1
    assert compare.compare_points(sa, sb).flag == compare.SLOWER
    # Cold graph rows time each launch between its own event nodes.
    cold = dataclasses.replace(a, cache="cold")
    assert cold.launches_per_sample == 1


def test_graph_rows_with_few_iterations_are_per_launch(fixture_run):
    # Below 10 iterations ewbench times every launch of a warm graph alone.
    p = graph_point(fixture_run, "graph", "warm", 10000.0, 100.0)
    assert dataclasses.replace(p, iters=9).launches_per_sample == 1
    assert dataclasses.replace(p, iters=50).launches_per_sample == 5


# torch rows timed like ewbench stream rows

class FakeEvent:
    def __init__(self, log, warmup_ms):
        self.log = log
        self.warmup_ms = warmup_ms

    def record(self):
        self.log.append("event")

    def elapsed_time(self, other):
        return self.warmup_ms


class FakeCuda:
    def __init__(self, log):
        self.log = log
        self.warmup_ms = 0.04       # 2 launches at Python's 20 us pace

    def Event(self, enable_timing):
        assert enable_timing
        return FakeEvent(self.log, self.warmup_ms)

    def synchronize(self):
        self.log.append("sync")

    def empty_cache(self):
        self.log.append("empty_cache")


class FakeMarker:
    def __init__(self, log):
        self.log = log

    def fill_(self, value):
        self.log.append("mark")


class FakeTorch:
    int16 = "int16"

    def __init__(self):
        self.log = []
        self.cuda = FakeCuda(self.log)

    def zeros(self, n, dtype, device):
        assert dtype == "int16"
        return FakeMarker(self.log)

    def equal(self, a, b):
        return True


class FakeFlush:
    def __init__(self, log):
        self.log = log

    def zero_(self):
        self.log.append("flush")


class FakeProfile:
    """torch.profiler.profile: logs where sessions begin and end."""
    def __init__(self, log, activities):
        self.log = log

    def __enter__(self):
        self.log.append("profile")
        self.start = len(self.log)
        return self

    def __exit__(self, *exc):
        self.log.append("end")


def fake_profiled_torch(monkeypatch, kernel_ns):
    """A FakeTorch whose profiler records, for each logged launch, a
    kernel of kernel_ns(i) ns (i counts the launches) every 20 us
    (Python's pace), each flush a 100 us kernel of another name and each
    marker a 1 us one."""
    torch = FakeTorch()
    torch.profiler = types.SimpleNamespace(
        profile=lambda activities: FakeProfile(torch.log, activities),
        ProfilerActivity=types.SimpleNamespace(CUDA="cuda"))

    def launch():
        torch.log.append("launch")
        return object()

    def spans(torch_, prof):
        out, t, i = [], 0, 0
        for what in torch.log[prof.start:]:
            if what == "launch":
                out.append(("add_kernel", t, t + kernel_ns(i)))
                t, i = t + 20000, i + 1
            elif what == "flush":
                out.append(("fill<uchar>", t, t + 100000))
                t += 100000
            elif what == "mark":
                out.append(("fill<short>", t, t + 1000))
                t += 1000
        return out
    monkeypatch.setattr(tj, "make_operands",
                        lambda torch_, job: ((), launch))
    monkeypatch.setattr(tj, "reference", lambda torch_, op, inputs: None)
    monkeypatch.setattr(tj, "kernel_spans", spans)
    return torch


def torch_job(cache, **kw):
    return tp.Job("torch_add_f32", "add", "f32", 1024, cache,
                  **dict(dict(min_samples=20, max_samples=2000,
                              target_pct=0.5, warmup=2), **kw))


def measured(torch, jobs):
    got = []
    tj.measure(torch, jobs, FakeFlush(torch.log), got.extend)
    return {job: rest for job, *rest in got}


def test_torch_rows_time_the_kernels_not_python(monkeypatch):
    torch = fake_profiled_torch(monkeypatch, lambda i: 4000)
    warm, cold = torch_job("warm"), torch_job("cold")
    got = measured(torch, [warm, cold])
    # One session: a marker, then per point its warm-up (timed by events,
    # flushed when cold) and a marked batch; 10 ms at the warm-up's
    # 20 us pace is 500 launches.
    batch = ["mark"] + ["launch"] * 500 + ["mark"]
    assert torch.log.count("profile") == 1
    assert torch.log[:2] == ["profile", "mark"]
    assert torch.log[2:13] == ["event", "launch", "launch", "event",
                               "sync"] + batch[:6]
    assert torch.log.count("launch") == 2 * 2 + 2 * 500
    # The kernels' 4 us, never the host's 20 us nor the flush's 100 us;
    # no scatter, so the rule stops after the first batch.
    for job in (warm, cold):
        durations, intervals, stop, check = got[job]
        assert durations == [4000] * 500 and stop == "ci" and \
            check == "pass"
    # Python's pace is the interval, apart; cold points have none.
    assert got[warm][1] == [20000] * 499 and got[cold][1] == []
    # Freed blocks stay in PyTorch's cache: memory given back to the
    # driver is scrubbed by the GPU while the next point runs.
    assert "empty_cache" not in torch.log


def test_torch_batches_fill_the_time_budget_then_stop(monkeypatch):
    # 1 ms kernels scattered by 20 %: 10 ms at the warm-up's pace is 10
    # launches, so the batch is min_samples; the interval is still too
    # wide after it, but its 20 ms of samples exceed the 10 ms budget: the
    # rule stops on time, with no second session.
    torch = fake_profiled_torch(
        monkeypatch, lambda i: 1_000_000 + 50_000 * (i % 5))
    torch.cuda.warmup_ms = 1.0
    job = torch_job("warm", warmup=1)
    assert tp.batch_size(job, [], 1e6) == 20        # min_samples
    assert tp.batch_size(job, [], 1e3) == tp.BATCH  # 10 ms at 1 us
    got = measured(torch, [job])
    durations, _, stop, _ = got[job]
    assert len(durations) == 20 and stop == "time"
    assert torch.log.count("profile") == 1


def test_torch_points_with_wide_intervals_get_another_session(monkeypatch):
    # 10 us kernels scattered by 30 %: the first batch (500) leaves the
    # interval too wide, so a second session adds to it, up to ROUNDS.
    torch = fake_profiled_torch(
        monkeypatch, lambda i: 10000 + 3000 * ((i * 7919) % 11) / 10)
    job = torch_job("warm", max_time_ms=1000.0)
    got = measured(torch, [job])
    durations, _, stop, _ = got[job]
    assert torch.log.count("profile") >= 2
    assert len(durations) > tp.BATCH
    assert stop in ("ci", "cap")


def test_torch_batch_markers_must_pair():
    # The session opens with a marker (its name is the marker's), then
    # each batch lies between a pair; what lies outside pairs is dropped.
    m = "fill<short>"
    spans = [(m, 0, 1), ("warm-up", 1, 2), (m, 2, 3), ("k", 3, 4), (m, 4, 5),
             ("check", 5, 6), (m, 6, 7), ("k2", 7, 8), (m, 8, 9)]
    assert tj.batches(spans, 2) == [[("k", 3, 4)], [("k2", 7, 8)]]
    with pytest.raises(tj.CannotRun, match="4 batch markers for 3 batches"):
        tj.batches(spans, 3)
    with pytest.raises(tj.CannotRun, match="3 batch markers for 2 batches"):
        tj.batches(spans[:-1], 2)


def test_torch_sidecar_method_says_kernel_times():
    assert "torch.profiler kernel durations" in tj.METHOD
    assert "interval_ns: Python's launch-to-launch time" in tj.METHOD


def test_contest_uses_repeat_spread_not_stddev(fixture_run):
    # The contest's noise rule is the spread of per-run bandwidths, the
    # same for graph and stream rows: stddev changes nothing there.
    quiet = dataclasses.replace(fixture_run, points=tuple(
        dataclasses.replace(p, time_stddev_ns=0.0)
        for p in fixture_run.points))
    _, _, found = contest.analyse([fixture_run, fixture_run])
    _, _, found_quiet = contest.analyse([quiet, quiet])
    assert [c.margin for c in found] == [c.margin for c in found_quiet]

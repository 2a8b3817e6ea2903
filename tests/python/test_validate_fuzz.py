"""Property: whatever is done to a run directory, load_run either returns
a run that obeys the contract or raises DataError naming the file (and,
for a CSV file that exists, a line of it).  Nothing else escapes: no
ZeroDivisionError, AttributeError, RecursionError, UnicodeError, ...

The run directory is a small valid one cut from the checked-in fixture
(6 timing rows, their metrics rows, the ceilings), mutated by hypothesis:
cells replaced (empty, NaN, inf, negative, 0, huge, text, BOM, quotes,
newlines), files truncated, columns deleted, rows duplicated, bytes that
are not UTF-8, run.json broken, deeply nested or given wrong types.
"""

import json
import math
import os
import shutil
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ewbench.analysis import timeline
from ewbench.analysis.core.load import DataError, load_run
from conftest import FIXTURE

TIMING_ROWS = 6
CSV_FILES = ("timing.csv", "metrics.csv", "ceilings.csv")
FUZZ = settings(max_examples=200, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])


def _small_run():
    """{file name: bytes} of a small valid run directory."""
    files = {}
    with open(os.path.join(FIXTURE, "run.json"), "rb") as f:
        files["run.json"] = f.read()
    with open(os.path.join(FIXTURE, "timing.csv"), encoding="utf-8") as f:
        timing = f.read().split("\n")
    kept = timing[1:1 + TIMING_ROWS]
    keys = {tuple(line.split(",")[1:8]) for line in kept}
    files["timing.csv"] = "\n".join(timing[:1] + kept + [""]).encode()
    with open(os.path.join(FIXTURE, "metrics.csv"), encoding="utf-8") as f:
        metrics = f.read().split("\n")
    rows = [line for line in metrics[1:]
            if tuple(line.split(",")[1:8]) in keys]
    files["metrics.csv"] = "\n".join(metrics[:1] + rows + [""]).encode()
    with open(os.path.join(FIXTURE, "ceilings.csv"), "rb") as f:
        files["ceilings.csv"] = f.read()
    return files


SMALL_RUN = _small_run()

CELLS = st.one_of(
    st.sampled_from(["", "nan", "NaN", "inf", "-inf", "-1", "0", "0.0",
                     "1e400", "9" * 400, "-0", "x", "\ufeff", "1.5", '"',
                     '""', "a,b", "\r", "\n", "1e-320", "\x00", "pass",
                     "graph", "warm", "f16", "relu"]),
    st.text(max_size=8),
    st.integers(-10, 10 ** 20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)

JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 10 ** 30),
              st.floats(allow_nan=False), st.text(max_size=6)),
    lambda inner: st.lists(inner, max_size=3) |
    st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6)

# Keys of run.json that the analysis reads, by JSON path.
MANIFEST_PATHS = (
    ("schema_version",), ("run_id",), ("status",), ("argv",), ("fixture",),
    ("device",), ("device", "name"), ("device", "l2_bytes"),
    ("device", "dram_bandwidth_bytes_per_s"), ("device", "sm_count"),
    ("device", "max_threads_per_sm"), ("device", "index"),
    ("device", "sm_clock_khz"), ("settings",), ("settings", "sizes"),
    ("settings", "iters"), ("settings", "warmup"), ("settings", "cache"),
    ("settings", "size_choices"), ("settings", "flush_bytes"),
    ("settings", "seed"), ("counters",), ("counters", "passes"),
    ("counters", "reason"), ("tool",), ("tool", "git_revision"),
)


def _lines(data):
    return data.split(b"\n")


def _join(lines):
    return b"\n".join(lines)


@st.composite
def set_cell(draw, files):
    name = draw(st.sampled_from(CSV_FILES))
    lines = _lines(files[name])
    row = draw(st.integers(0, max(0, len(lines) - 2)))
    fields = lines[row].split(b",")
    column = draw(st.integers(0, max(0, len(fields) - 1)))
    fields[column] = draw(CELLS).encode("utf-8", "surrogatepass")
    lines[row] = b",".join(fields)
    files[name] = _join(lines)


@st.composite
def truncate(draw, files):
    name = draw(st.sampled_from(("run.json",) + CSV_FILES))
    files[name] = files[name][:draw(st.integers(0, len(files[name])))]


@st.composite
def delete_column(draw, files):
    name = draw(st.sampled_from(CSV_FILES))
    lines = _lines(files[name])
    column = draw(st.integers(0, max(0, len(lines[0].split(b",")) - 1)))
    files[name] = _join([b",".join(f for i, f in enumerate(l.split(b","))
                                   if i != column) if l else l
                         for l in lines])


@st.composite
def duplicate_row(draw, files):
    name = draw(st.sampled_from(CSV_FILES))
    lines = _lines(files[name])
    row = draw(st.integers(0, max(0, len(lines) - 2)))
    lines.insert(draw(st.integers(0, max(0, len(lines) - 1))), lines[row])
    files[name] = _join(lines)


@st.composite
def add_bom(draw, files):
    name = draw(st.sampled_from(("run.json",) + CSV_FILES))
    bom = draw(st.sampled_from([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"]))
    files[name] = bom + files[name]


@st.composite
def bad_bytes(draw, files):
    name = draw(st.sampled_from(("run.json",) + CSV_FILES))
    data = files[name]
    at = draw(st.integers(0, len(data)))
    junk = draw(st.sampled_from([b"\xff", b"\xc3", b"\x80\x80", b"\x00",
                                 b"\xed\xa0\x80"]))
    files[name] = data[:at] + junk + data[at:]


@st.composite
def delete_file(draw, files):
    del files[draw(st.sampled_from(("run.json",) + CSV_FILES))]


@st.composite
def manifest_value(draw, files):
    manifest = json.loads(files["run.json"])
    path = draw(st.sampled_from(MANIFEST_PATHS))
    target = manifest
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = draw(JSON_VALUES | st.sampled_from(
        [0, -1, 0.0, 1e308, "x", [], {}, True, float("nan")]))
    files["run.json"] = json.dumps(manifest).encode()


@st.composite
def manifest_nested(draw, files):
    depth = draw(st.sampled_from([50, 5000, 200000]))
    manifest = files["run.json"].decode()
    nested = "[" * depth + "]" * depth
    files["run.json"] = manifest.replace('"argv":', '"argv": %s, "x":' %
                                         nested, 1).encode()


# Byte-level mutations apply to any file; the run.json ones need JSON that
# still parses, so at most one of them comes first.
BYTE_MUTATIONS = (set_cell, truncate, delete_column, duplicate_row, add_bom,
                  bad_bytes, delete_file)
MANIFEST_MUTATIONS = (manifest_value, manifest_nested)


@st.composite
def mutated_run(draw):
    files = dict(SMALL_RUN)
    if draw(st.booleans()):
        draw(draw(st.sampled_from(MANIFEST_MUTATIONS))(files))
    at_least = 1 if files == SMALL_RUN else 0   # mutate something
    for _ in range(draw(st.integers(at_least, 3))):
        mutation = draw(st.sampled_from(BYTE_MUTATIONS))
        try:
            draw(mutation(files))
        except KeyError:
            pass                # the file it wanted to change is gone
    return files


def _check_loaded(run):
    """What the rest of the package relies on after load_run."""
    for p in run.points:
        assert p.n >= 1 and p.bytes_moved >= 1 and p.iters >= 1
        assert math.isfinite(p.time_median_ns) and p.time_median_ns > 0
        if p.time_min_ns is not None and p.time_max_ns is not None:
            tol = 1e-6 * p.time_median_ns
            assert p.time_min_ns - tol <= p.time_median_ns <= \
                p.time_max_ns + tol
        assert p.bandwidth > 0 and math.isfinite(p.bandwidth)
    assert isinstance(run.device, dict)
    assert isinstance(run.manifest.get("settings") or {}, dict)


@FUZZ
@given(mutated_run())
def test_load_succeeds_or_names_the_file(files):
    with tempfile.TemporaryDirectory() as directory:
        for name, data in files.items():
            with open(os.path.join(directory, name), "wb") as f:
                f.write(data)
        try:
            run = load_run(directory)
        except DataError as e:
            named = [os.path.join(directory, n) for n in
                     ("run.json",) + CSV_FILES]
            assert e.path in named, str(e)
            assert str(e).startswith(e.path + (":" if e.line is None else
                                               ":%d:" % e.line))
            name = os.path.basename(e.path)
            if name.endswith(".csv") and name in files:
                total = files[name].count(b"\n") + 1
                assert e.line is not None and 1 <= e.line <= total, str(e)
            return
        _check_loaded(run)


def _trace_bytes(events, gz):
    import gzip
    data = json.dumps({"traceEvents": events}).encode()
    return gzip.compress(data, mtime=0) if gz else data


GOOD_EVENT = {"name": "add_f32 n=1Mi", "ph": "X", "pid": 0, "tid": 1,
              "ts": 10.0, "dur": 40.0, "cat": "ewbench",
              "args": {"depth": 1}}


@st.composite
def mutated_trace(draw):
    events = [dict(GOOD_EVENT), dict(GOOD_EVENT, pid=1, name="k",
                                     args={"variant": "add_f32"})]
    for _ in range(draw(st.integers(1, 3))):
        event = draw(st.sampled_from(events))
        key = draw(st.sampled_from(sorted(GOOD_EVENT) + ["args"]))
        if draw(st.booleans()):
            event.pop(key, None)
        else:
            event[key] = draw(JSON_VALUES)
    gz = draw(st.booleans())
    data = _trace_bytes(events, gz)
    if draw(st.booleans()):
        data = data[:draw(st.integers(0, len(data)))]
    return data


@FUZZ
@given(mutated_trace())
def test_trace_reads_or_names_the_file(data):
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "trace.json.gz")
        with open(path, "wb") as f:
            f.write(data)
        try:
            events = timeline.read_trace(path)
        except DataError as e:
            assert e.path == path and str(e).startswith(path + ":")
            return
        for e in events:
            assert math.isfinite(e.start_us) and math.isfinite(e.dur_us)
            assert isinstance(e.pid, int) and isinstance(e.name, str)


def test_small_run_is_valid():
    """The property above is only worth something if the unmutated run
    loads."""
    with tempfile.TemporaryDirectory() as directory:
        for name, data in SMALL_RUN.items():
            with open(os.path.join(directory, name), "wb") as f:
                f.write(data)
        run = load_run(directory)
        assert len(run.points) == TIMING_ROWS and run.metrics
        shutil.rmtree(directory)

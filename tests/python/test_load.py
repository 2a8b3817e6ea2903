"""Loader: good input, and every way a run directory can be broken."""

import json
import os
import re

import pytest

from ewbench.analysis.core import validate
from ewbench.analysis.core.load import DataError, load_run
from conftest import rewrite


def test_fixture_loads_completely(fixture_run):
    run = fixture_run
    assert run.run_id == "20261121T204512Z-fixture-h100"
    assert run.is_fixture
    assert len(run.points) == 160
    assert run.l2_bytes == 52428800
    assert set(run.ceilings) >= {"dram_add", "dram_copy", "l2_read",
                                 "launch_stream"}
    p = run.points[0]
    assert (p.variant, p.n, p.block, p.cache) == ("add_f32", 1 << 20, 256,
                                                 "warm")
    assert isinstance(p.n, int) and isinstance(p.time_median_ns, float)
    metrics = run.metrics[p.key]
    assert metrics["derived__global_ld_bytes_per_inst"].value == 128.0
    assert metrics["launch__registers_per_thread"].source == "occupancy_api"
    assert run.ceilings["dram_add"].method == "c = a + b, 3 x 1 GiB, float4"


def test_empty_fields_are_none_not_zero(fixture_run):
    torch_rows = [p for p in fixture_run.points
                  if p.variant.startswith("torch_")]
    assert torch_rows
    assert all(p.block is None and p.grid is None for p in torch_rows)
    assert fixture_run.ceilings["l2_read"].spec_value is None


def test_missing_optional_files(run_copy):
    os.remove(run_copy / "metrics.csv")
    os.remove(run_copy / "ceilings.csv")
    run = load_run(str(run_copy))
    assert run.metrics is None and run.ceilings is None
    assert len(run.points) == 160


def test_timing_is_required(run_copy):
    os.remove(run_copy / "timing.csv")
    with pytest.raises(DataError, match=r"timing\.csv: expected a readable"):
        load_run(str(run_copy))


def test_header_only_timing_is_an_empty_run(run_copy):
    rewrite(run_copy / "timing.csv", lambda t: t.split("\n", 1)[0] + "\n")
    os.remove(run_copy / "metrics.csv")
    assert load_run(str(run_copy)).points == ()


def _break_line(path, line_no, edit):
    def change(text):
        lines = text.split("\n")
        lines[line_no - 1] = edit(lines[line_no - 1])
        return "\n".join(lines)
    rewrite(path, change)


@pytest.mark.parametrize("edit, message", [
    (lambda l: l.replace(",add,f32,", ",mul,f32,", 1),
     r"column op: expected one of add, relu, abs, custom, got 'mul'"),
    (lambda l: l.replace(",1048576,", ",1.5,", 1),
     r"column n: expected a positive integer, got '1.5'"),
    # What one column of the row accepted (its op) is still refused in
    # another (read_csv keeps each column's parsed fields apart).
    (lambda l: l.replace(",add,f32,1048576,", ",add,f32,add,", 1),
     r"column n: expected a positive integer, got 'add'"),
    (lambda l: re.sub(r",(warm|cold),", ",tepid,", l, count=1),
     r"column cache: expected one of warm, cold"),
    (lambda l: l.rsplit(",", 1)[0] + ",maybe",
     r"column check: expected one of pass, fail"),
    (lambda l: l + ",extra", r"expected 23 fields, got 24"),
    (lambda l: ",".join(l.split(",")[:10]), r"expected 23 fields, got 10"),
    (lambda l: re.sub(r",100,[0-9.]+,", ",100,-5,", l, count=1),
     r"column time_median_ns: expected a positive number"),
    (lambda l: re.sub(r",100,[0-9.]+,", ",100,nan,", l, count=1),
     r"column time_median_ns: expected a positive number, got 'nan'"),
    (lambda l: re.sub(r",100,[0-9.]+,", ",100,,", l, count=1),
     r"column time_median_ns: expected a value, got an empty field"),
    (lambda l: l.replace("20261121T204512Z-fixture-h100", "other", 1),
     r"expected run_id '20261121T204512Z-fixture-h100'"),
])
def test_malformed_timing_row_names_file_and_line(run_copy, edit, message):
    _break_line(run_copy / "timing.csv", 3, edit)
    with pytest.raises(DataError) as info:
        load_run(str(run_copy))
    text = str(info.value)
    assert text.startswith(str(run_copy / "timing.csv") + ":3: ")
    assert re.search(message, text), text


def test_truncated_last_row(run_copy):
    path = run_copy / "timing.csv"
    rewrite(path, lambda t: t[:-40])
    lines = open(path).read().count("\n")
    with pytest.raises(DataError, match=r"timing\.csv:%d: expected the row "
                       r"to end with a newline \(file truncated\?\)" %
                       (lines + 1)):
        load_run(str(run_copy))


def test_row_cut_short_but_newline_terminated(run_copy):
    path = run_copy / "metrics.csv"
    rewrite(path, lambda t: t.rstrip("\n").rsplit(",", 3)[0] + "\n")
    total = open(path).read().count("\n")
    with pytest.raises(DataError, match=r"metrics\.csv:%d: expected 12 "
                       r"fields, got 9 \(row cut short\?\)" % total):
        load_run(str(run_copy))


def test_missing_header_column(run_copy):
    rewrite(run_copy / "ceilings.csv",
            lambda t: t.replace("spec_value,", "", 1))
    with pytest.raises(DataError, match=r"ceilings\.csv:1: expected header "
                       r"columns .* missing: spec_value"):
        load_run(str(run_copy))


def test_duplicate_point_is_refused(run_copy):
    def dup(text):
        lines = text.split("\n")
        return "\n".join(lines[:3] + [lines[2]] + lines[3:])
    rewrite(run_copy / "timing.csv", dup)
    with pytest.raises(DataError, match=r"timing\.csv:4: expected one row "
                       r"per point; this point is also on line 3"):
        load_run(str(run_copy))


def test_bad_metric_source(run_copy):
    _break_line(run_copy / "metrics.csv", 2,
                lambda l: l.rsplit(",", 1)[0] + ",guess")
    with pytest.raises(DataError, match=r"metrics\.csv:2: column source"):
        load_run(str(run_copy))


def test_wrong_schema_version(run_copy):
    path = run_copy / "run.json"
    manifest = json.load(open(path))
    manifest["schema_version"] = 3
    json.dump(manifest, open(path, "w"), indent=2)
    with pytest.raises(DataError) as info:
        load_run(str(run_copy))
    text = str(info.value)
    assert text.startswith(str(path) + ":2: expected schema_version 1 or 2, got 3")


def test_missing_schema_version(run_copy):
    path = run_copy / "run.json"
    manifest = json.load(open(path))
    del manifest["schema_version"]
    json.dump(manifest, open(path, "w"))
    with pytest.raises(DataError, match="expected schema_version 1 or 2, got no "
                       "schema_version"):
        load_run(str(run_copy))


def test_broken_json_names_the_line(run_copy):
    rewrite(run_copy / "run.json", lambda t: t.replace('"status": "complete"',
                                                       '"status": complete'))
    with pytest.raises(DataError, match=r"run\.json:6: expected valid JSON"):
        load_run(str(run_copy))


def test_device_numbers_are_typed(run_copy):
    path = run_copy / "run.json"
    manifest = json.load(open(path))
    manifest["device"]["l2_bytes"] = "50MB"
    json.dump(manifest, open(path, "w"), indent=2)
    with pytest.raises(DataError, match=r"run\.json:\d+: expected "
                       "device.l2_bytes to be a positive integer or null, "
                       'got "50MB"'):
        load_run(str(run_copy))


def test_unknown_keys_and_columns_are_ignored(run_copy):
    path = run_copy / "run.json"
    manifest = json.load(open(path))
    manifest["future_key"] = {"anything": 1}
    json.dump(manifest, open(path, "w"))

    def add_column(text):
        lines = text.rstrip("\n").split("\n")
        return "\n".join([lines[0] + ",future"] +
                         [l + ",x" for l in lines[1:]]) + "\n"
    rewrite(run_copy / "ceilings.csv", add_column)
    run = load_run(str(run_copy))
    assert run.ceilings["dram_add"].value == 3.06e12


def test_ceilings_from_another_directory(run_copy, tmp_path, fixture_dir):
    os.remove(run_copy / "ceilings.csv")
    run = load_run(str(run_copy), ceilings_from=fixture_dir)
    assert run.ceilings["l2_read"].value == 9.8e12
    with pytest.raises(DataError, match="expected a ceilings.csv"):
        load_run(fixture_dir, ceilings_from=str(run_copy))


def test_not_a_directory(tmp_path):
    with pytest.raises(DataError, match="expected a run directory"):
        load_run(str(tmp_path / "nope"))


COUNT = validate.Column("c", validate.INTEGER)
POSITIVE_COUNT = validate.Column("c", validate.INTEGER, positive=True)
AMOUNT = validate.Column("c", validate.NUMBER)
TIME = validate.Column("c", validate.NUMBER, positive=True)


@pytest.mark.parametrize("text, column, ok", [
    ("12", COUNT, 12), ("0", COUNT, 0), ("1e3", COUNT, None),
    ("-1", COUNT, None), ("1_000", COUNT, None),
    ("0", POSITIVE_COUNT, None), ("1", POSITIVE_COUNT, 1),
    ("2.5e12", AMOUNT, 2.5e12), (".5", AMOUNT, 0.5), ("0", AMOUNT, 0.0),
    ("1_000.0", AMOUNT, None), ("inf", AMOUNT, None), ("1e999", AMOUNT, None),
    (" 1", AMOUNT, None), ("0", TIME, None), ("0.0e0", TIME, None),
    ("1e-3", TIME, 1e-3),
])
def test_parse_field(text, column, ok):
    if ok is None:
        with pytest.raises(ValueError, match="expected"):
            validate.parse_field(text, column)
    else:
        assert validate.parse_field(text, column) == ok


# The schema-2 timing columns (issue 21, columns.def's ADDED lines): their
# values reach Point under the same names, and the kernel-time accessor
# reads them.
def test_schema_2_timing_columns_reach_the_kernel_time(run_copy):
    from ewbench.analysis.core import timing
    added = tuple(c for c in validate.TIMING_COLUMNS
                  if c.added and c.name != "check")
    assert [c.name for c in added][:2] == ["time_source", "time_ci_low_ns"]
    # a schema-1 file still loads: every new field None
    old = load_run(str(run_copy)).points[0]
    assert old.time_source is None and old.interval_ns is None
    assert timing.kernel_time(old).source == timing.EVENTS

    def add_columns(text):
        lines = text.split("\n")
        names = [c.name for c in added]
        lines[0] += "," + ",".join(names)
        values = {"time_source": "kernel", "stop": "ci", "throttle": ""}
        for i in range(1, len(lines)):
            if lines[i]:
                median = float(lines[i].split(",")[13])
                row = dict(values, time_ci_low_ns=repr(median * 0.99),
                           time_ci_high_ns=repr(median * 1.01),
                           interval_ns="9000", interval_ci_ns="30")
                lines[i] += "," + ",".join(str(row.get(n, ""))
                                           for n in names)
        return "\n".join(lines)
    rewrite(run_copy / "timing.csv", add_columns)
    p = load_run(str(run_copy)).points[0]
    assert (p.time_source, p.stop, p.throttle) == ("kernel", "ci", None)
    kt = timing.kernel_time(p)
    assert kt.source == timing.KERNEL and kt.half_width_pct == \
        pytest.approx(1.0)
    assert timing.launch_interval(p).median_ns == 9000.0
    # a value outside the documented set is refused with its line
    rewrite(run_copy / "timing.csv",
            lambda t: t.replace(",kernel,", ",kernal,", 1))
    with pytest.raises(DataError, match=r"timing.csv:2: .*kernal"):
        load_run(str(run_copy))


def test_a_point_key_is_one_type_in_every_file(fixture_run):
    """Point.key, the contest's Entry and a CSV row's key
    (validate.point_key) name a point alike: load.PointKey, which looks
    up the plain tuple a row gives (issue 56)."""
    from ewbench.analysis.contest import rank
    from ewbench.analysis.core.load import PointKey
    p = fixture_run.points[0]
    assert type(p.key) is PointKey
    assert p.key == (p.variant, p.n, p.block, p.cache, p.launch)
    assert fixture_run.metrics[p.key] is fixture_run.metrics[tuple(p.key)]
    entries, _ = rank.gather([fixture_run])
    assert entries and all(type(e.key) is PointKey for e in entries)
    assert {e.key for e in entries} <= {q.key for q in fixture_run.points}


def test_a_replay_rows_sample_holds_the_launches_of_half_a_millisecond():
    # src/run/plan.h: TIMING_REPLAY_NS 0.5 ms, at least 2 launches; the
    # row's median stands in for the warm-up's time per launch.
    import dataclasses
    from ewbench.analysis.core import load
    from test_model import make_point
    p = make_point(time_source="replay", time_median_ns=3300.0,
                   cache="warm")
    assert p.launches_per_sample == 152
    assert dataclasses.replace(p, time_median_ns=50e3).launches_per_sample \
        == 10
    assert dataclasses.replace(p, time_median_ns=750e3) \
        .launches_per_sample == load.REPLAY_MIN_LAUNCHES == 2
    assert dataclasses.replace(p, time_source="kernel") \
        .launches_per_sample == 1


def test_the_replays_constants_are_the_c_sides():
    from conftest import ROOT
    from ewbench.analysis.core import load
    path = os.path.join(ROOT, "src", "run", "plan.h")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    ns = re.search(r"#define TIMING_REPLAY_NS\s+([0-9.e]+)", text).group(1)
    least = re.search(r"#define TIMING_REPLAY_MIN_LAUNCHES\s+(\d+)u",
                      text).group(1)
    assert float(ns) == load.REPLAY_NS
    assert int(least) == load.REPLAY_MIN_LAUNCHES

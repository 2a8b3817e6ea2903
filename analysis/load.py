"""Read and validate one ewbench run directory (docs/data-format.md).

Everything the rest of the package knows about a run comes through
load_run().  The reader is strict: a file that does not follow the contract
is refused with a DataError whose text is `path:line: expected ...`, because
a plot drawn from half-parsed data is worse than no plot.  Rules:

  - run.json must carry the schema_version this package reads;
  - every CSV needs its header, the documented columns (unknown extra
    columns are ignored), one field per column on every row, and a final
    newline (a missing one means the file was cut short);
  - numbers are non-negative and finite; integers have no decimal point;
  - an empty field is "not measured" and becomes None, never 0;
  - op, dtype, cache, launch, check, source, ceiling and unit take only the
    values the contract lists;
  - every row's run_id is the run_id of run.json, and no point (or point and
    metric, or ceiling) appears twice.

metrics.csv and ceilings.csv are optional; their absence is None, which the
rest of the package reads as "no counters" and "no measured ceilings".
"""

import csv
import json
import os
import re
from dataclasses import dataclass
from typing import Optional

SCHEMA_VERSION = 1

OPS = ("add", "relu", "abs")
DTYPES = ("f32", "f16")
DTYPE_BYTES = {"f32": 4, "f16": 2}
CACHES = ("warm", "cold")
LAUNCHES = ("stream", "graph")
CHECKS = ("pass", "fail")
SOURCES = ("cupti", "derived", "occupancy_api")
CEILING_NAMES = ("dram_read", "dram_write", "dram_copy", "dram_add", "l2_read",
    "launch_stream", "launch_graph", "fp32_fma", "fp16_fma")
CEILING_UNITS = ("byte/s", "ns", "flop/s")
STATUSES = ("running", "complete", "interrupted", "failed")

# Column kinds.
STR = "str"
INT = "int"
FLOAT = "float"

# (column, kind, allowed values or None, may be empty)
POINT_KEY_COLUMNS = (
    ("run_id", STR, None, False),
    ("variant", STR, None, False),
    ("op", STR, OPS, False),
    ("dtype", STR, DTYPES, False),
    ("n", INT, None, False),
    ("block", INT, None, True), # empty for library rows with no block
    ("cache", STR, CACHES, False),
    ("launch", STR, LAUNCHES, False),
)
TIMING_COLUMNS = POINT_KEY_COLUMNS + (
    ("grid", INT, None, True),
    ("footprint_bytes", INT, None, False),
    ("bytes_moved", INT, None, False),
    ("flops", INT, None, False),
    ("iters", INT, None, False),
    ("time_median_ns", FLOAT, None, False),
    ("time_min_ns", FLOAT, None, True),
    ("time_max_ns", FLOAT, None, True),
    ("time_mean_ns", FLOAT, None, True),
    ("time_stddev_ns", FLOAT, None, True),
    ("activity_median_ns", FLOAT, None, True),
    ("bandwidth_median_bytes_per_s", FLOAT, None, True),
    ("bandwidth_max_bytes_per_s", FLOAT, None, True),
    ("spec_dram_pct", FLOAT, None, True),
    ("check", STR, CHECKS, True),
)
METRICS_COLUMNS = POINT_KEY_COLUMNS + (
    ("metric", STR, None, False),
    ("value", FLOAT, None, True),
    ("unit", STR, None, False),
    ("source", STR, SOURCES, False),
)
CEILINGS_COLUMNS = (
    ("run_id", STR, None, False),
    ("ceiling", STR, CEILING_NAMES, False),
    ("value", FLOAT, None, False),
    ("unit", STR, CEILING_UNITS, False),
    ("spec_value", FLOAT, None, True),
    ("method", STR, None, True),
)

_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_INTEGER = re.compile(r"^[+-]?\d+$")


class DataError(Exception):
    """Input that breaks the data contract.  str() is `path:line: text`."""

    def __init__(self, path, line, text):
        self.path = path
        self.line = line
        self.text = text
        where = path if line is None else "%s:%d" % (path, line)
        super().__init__("%s: %s" % (where, text))


@dataclass(frozen=True)
class Point:
    """One row of timing.csv.  None means the field was empty."""
    run_id: str
    variant: str
    op: str
    dtype: str
    n: int
    block: Optional[int]
    cache: str
    launch: str
    grid: Optional[int]
    footprint_bytes: int
    bytes_moved: int
    flops: int
    iters: int
    time_median_ns: float
    time_min_ns: Optional[float]
    time_max_ns: Optional[float]
    time_mean_ns: Optional[float]
    time_stddev_ns: Optional[float]
    activity_median_ns: Optional[float]
    bandwidth_median_bytes_per_s: Optional[float]
    bandwidth_max_bytes_per_s: Optional[float]
    spec_dram_pct: Optional[float]
    check: Optional[str]
    line: int = 0

    @property
    def key(self):
        return (self.variant, self.n, self.block, self.cache, self.launch)

    @property
    def bandwidth(self):
        """Median bandwidth in byte/s, from the row or bytes / time."""
        if self.bandwidth_median_bytes_per_s is not None:
            return self.bandwidth_median_bytes_per_s
        if self.time_median_ns and self.time_median_ns > 0:
            return self.bytes_moved / (self.time_median_ns * 1e-9)
        return None


@dataclass(frozen=True)
class MetricValue:
    value: Optional[float]
    unit: str
    source: str


@dataclass(frozen=True)
class Ceiling:
    name: str
    value: float
    unit: str
    spec_value: Optional[float]
    method: Optional[str]


@dataclass(frozen=True)
class Run:
    """A loaded run directory.

    metrics maps a point key to {metric name: MetricValue}; it is None when
    metrics.csv is absent.  ceilings maps a ceiling name to a Ceiling; None
    when ceilings.csv is absent (and no other directory supplied one).
    """
    path: str
    manifest: dict
    points: tuple
    metrics: Optional[dict]
    ceilings: Optional[dict]
    ceilings_path: Optional[str] = None

    @property
    def run_id(self):
        return self.manifest["run_id"]

    @property
    def device(self):
        return self.manifest.get("device") or {}

    @property
    def l2_bytes(self):
        return self.device.get("l2_bytes")

    @property
    def spec_dram_bandwidth(self):
        return self.device.get("dram_bandwidth_bytes_per_s")

    @property
    def is_fixture(self):
        return bool(self.manifest.get("fixture"))


# field and row parsing

def parse_field(text, kind, allowed, may_be_empty):
    """Convert one CSV field; raise ValueError('expected ...') if invalid."""
    if text == "":
        if may_be_empty:
            return None
        raise ValueError("expected a value, got an empty field")
    if kind == INT:
        if not _INTEGER.match(text):
            raise ValueError("expected an integer, got %r" % text)
        value = int(text)
        if value < 0:
            raise ValueError("expected a non-negative integer, got %r" %
                text)
        return value
    if kind == FLOAT:
        if not _NUMBER.match(text):
            raise ValueError("expected a number, got %r" % text)
        value = float(text)
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("expected a finite number, got %r" % text)
        if value < 0:
            raise ValueError("expected a non-negative number, got %r" %
                text)
        return value
    if allowed is not None and text not in allowed:
        raise ValueError("expected one of %s, got %r" %
            (", ".join(allowed), text))
    return text


def _header_map(path, header, columns):
    """Column name -> index; every documented column must be present."""
    seen = {}
    for index, name in enumerate(header):
        if name in seen:
            raise DataError(path, 1, "expected each column once, got "
                "%r twice" % name)
        seen[name] = index
    missing = [c[0] for c in columns if c[0] not in seen]
    if missing:
        raise DataError(path, 1, "expected header columns %s; missing: %s"
            % (",".join(c[0] for c in columns), ", ".join(missing)))
    return seen


def _read_text(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise DataError(path, None, "expected a readable file (%s)" %
            e.strerror) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise DataError(path, line, "expected UTF-8 text") from None
    return text


def read_csv(path, columns):
    """Yield (line number, {column: value}) for each data row of path."""
    text = _read_text(path)
    if text == "":
        raise DataError(path, 1, "expected a header row, got an empty file")
    if not text.endswith("\n"):
        last = text.count("\n") + 1
        raise DataError(path, last, "expected the row to end with a "
            "newline (file truncated?)")
    reader = csv.reader(text.splitlines(keepends=True), strict=True)
    try:
        header = next(reader)
        index = _header_map(path, header, columns)
        line = reader.line_num + 1
        for fields in reader:
            if len(fields) != len(header):
                raise DataError(path, line, "expected %d fields, got %d%s"
                    % (len(header), len(fields),
                    " (row cut short?)" if len(fields) < len(header)
                    else ""))
            row = {}
            for name, kind, allowed, may_be_empty in columns:
                try:
                    row[name] = parse_field(fields[index[name]], kind,
                        allowed, may_be_empty)
                except ValueError as e:
                    raise DataError(path, line, "column %s: %s" %
                        (name, e)) from None
            yield line, row
            line = reader.line_num + 1
    except csv.Error as e:
        raise DataError(path, reader.line_num, "expected RFC 4180 CSV "
            "(%s)" % e) from None


def _check_run_id(path, line, row, run_id):
    if row["run_id"] != run_id:
        raise DataError(path, line, "expected run_id %r (from run.json), "
            "got %r" % (run_id, row["run_id"]))


def _key_of(row):
    return (row["variant"], row["n"], row["block"], row["cache"],
        row["launch"])


# files

def _json_key_line(text, key):
    """Line of the first `"key":` in text, for messages; 1 if not found."""
    match = re.search(r'"%s"\s*:' % re.escape(key), text)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def _check_number(path, text, where, value, integer):
    if value is None:
        return
    ok = isinstance(value, int) if integer else isinstance(value,
        (int, float))
    if not ok or isinstance(value, bool) or value < 0:
        raise DataError(path, _json_key_line(text, where), "expected %s "
            "to be a non-negative %s or null, got %r" % (where,
            "integer" if integer else "number", value))


def load_manifest(path):
    """Parse and check run.json; return it as a dict."""
    text = _read_text(path)
    try:
        manifest = json.loads(text)
    except json.JSONDecodeError as e:
        raise DataError(path, e.lineno, "expected valid JSON (%s)" %
            e.msg) from None
    if not isinstance(manifest, dict):
        raise DataError(path, 1, "expected a JSON object")
    version = manifest.get("schema_version")
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise DataError(path, _json_key_line(text, "schema_version"),
            "expected schema_version %d, got %r (this analysis reads "
            "schema %d only; use the analysis of the ewbench that wrote "
            "the run)" % (SCHEMA_VERSION, version, SCHEMA_VERSION))
    run_id = manifest.get("run_id")
    if not isinstance(run_id, str) or run_id == "":
        raise DataError(path, _json_key_line(text, "run_id"),
            "expected run_id to be a non-empty string")
    status = manifest.get("status")
    if status is not None and status not in STATUSES:
        raise DataError(path, _json_key_line(text, "status"),
            "expected status to be one of %s, got %r" %
            (", ".join(STATUSES), status))
    device = manifest.get("device")
    if device is not None and not isinstance(device, dict):
        raise DataError(path, _json_key_line(text, "device"),
            "expected device to be an object")
    for key in ("l2_bytes", "sm_count", "max_threads_per_sm",
        "memory_bytes"):
        _check_number(path, text, key, (device or {}).get(key), True)
    for key in ("dram_bandwidth_bytes_per_s",):
        _check_number(path, text, key, (device or {}).get(key), False)
    return manifest


def load_timing(path, run_id):
    points = []
    first_line = {}
    for line, row in read_csv(path, TIMING_COLUMNS):
        _check_run_id(path, line, row, run_id)
        key = _key_of(row)
        if key in first_line:
            raise DataError(path, line, "expected one row per point; "
                "this point is also on line %d" % first_line[key])
        first_line[key] = line
        points.append(Point(line=line, **row))
    return tuple(points)


def load_metrics(path, run_id):
    metrics = {}
    first_line = {}
    for line, row in read_csv(path, METRICS_COLUMNS):
        _check_run_id(path, line, row, run_id)
        key = _key_of(row)
        where = (key, row["metric"])
        if where in first_line:
            raise DataError(path, line, "expected one row per point and "
                "metric; %s is also on line %d" % (row["metric"],
                first_line[where]))
        first_line[where] = line
        metrics.setdefault(key, {})[row["metric"]] = MetricValue(
            row["value"], row["unit"], row["source"])
    return metrics


def load_ceilings(path, run_id):
    ceilings = {}
    for line, row in read_csv(path, CEILINGS_COLUMNS):
        _check_run_id(path, line, row, run_id)
        if row["ceiling"] in ceilings:
            raise DataError(path, line, "expected each ceiling once, got "
                "%s again" % row["ceiling"])
        ceilings[row["ceiling"]] = Ceiling(row["ceiling"], row["value"],
            row["unit"], row["spec_value"], row["method"])
    return ceilings


def load_run(directory, ceilings_from=None):
    """Load a run directory.  ceilings_from: another run directory whose
    ceilings.csv to use (e.g. one written by `ewbench ceilings`)."""
    if not os.path.isdir(directory):
        raise DataError(directory, None, "expected a run directory")
    manifest = load_manifest(os.path.join(directory, "run.json"))
    run_id = manifest["run_id"]
    points = load_timing(os.path.join(directory, "timing.csv"), run_id)
    metrics_path = os.path.join(directory, "metrics.csv")
    metrics = None
    if os.path.exists(metrics_path):
        metrics = load_metrics(metrics_path, run_id)
    source = ceilings_from or directory
    ceilings_path = os.path.join(source, "ceilings.csv")
    ceilings = None
    if os.path.exists(ceilings_path):
        owner = run_id
        if ceilings_from:
            owner = load_manifest(os.path.join(source,
                "run.json"))["run_id"]
        ceilings = load_ceilings(ceilings_path, owner)
    elif ceilings_from:
        raise DataError(ceilings_path, None, "expected a ceilings.csv "
            "in the directory given for ceilings")
    return Run(path=directory, manifest=manifest, points=points,
        metrics=metrics, ceilings=ceilings,
        ceilings_path=ceilings_path if ceilings is not None else None)

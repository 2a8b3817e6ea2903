"""The CSV files checked: the columns of timing.csv, metrics.csv,
ceilings.csv, sass.csv and energy.csv (read from columns.def), each field
parsed, and the rules within a row, across rows and files, and across the
rounds of a contest."""

import csv
import math
import os
import re
from dataclasses import dataclass

from .contract import (CACHES, CEILING_NAMES, CEILING_UNIT, CEILING_UNITS,
                       CHECKS, DTYPES, LAUNCHES, LOAD_LEVELS, OPS, REL_TOL,
                       SASS_KINDS, SOURCES, STOPS, TIME_SOURCES, DataError,
                       loaded_bandwidth_name, loaded_latency_name)
from .fields import NAME_MAX, bytes_within
from .files import read_text


COLUMNS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            os.pardir, os.pardir, os.pardir, "defs",
                            "columns.def")
TEXT = "text"
INTEGER = "integer"
NUMBER = "number"


@dataclass(frozen=True)
class Column:
    name: str
    kind: str                   # TEXT, INTEGER or NUMBER
    choices: tuple = None       # the values a TEXT column may take
    optional: bool = False      # may be empty: "not measured"
    added: bool = False         # files written before it lack the column
    positive: bool = False      # > 0 (integers: >= 1); else >= 0
    signed: bool = False        # any finite number (a difference)


def _read_columns(path=COLUMNS_PATH):
    """{"KEY": (Column, ...), "TIMING": ..., "METRICS": ..., "CEILINGS": ...}
    from src/run/columns.def, the description ewbench's writers also read."""
    sets = {"ANY": None, "OPS": OPS, "DTYPES": DTYPES, "CACHES": CACHES,
            "LAUNCHES": LAUNCHES, "CHECKS": CHECKS, "SOURCES": SOURCES,
            "CEILING_NAMES": CEILING_NAMES, "CEILING_UNITS": CEILING_UNITS,
            "TIME_SOURCES": TIME_SOURCES, "STOPS": STOPS,
            "SASS_KINDS": SASS_KINDS}
    kinds = {"TEXT": TEXT, "INTEGER": INTEGER, "NUMBER": NUMBER}
    files = {"KEY": [], "TIMING": [], "METRICS": [], "CEILINGS": [],
             "SASS": [], "ENERGY": []}
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    for m in re.finditer(r"^(\w+)\((\w+), (\w+), (\w+), (\w+)\)", text,
                         re.M):
        file, name, kind, presence, rule = m.groups()
        text_rule = kind == "TEXT"
        files[file].append(Column(
            name, kinds[kind],
            choices=sets[rule] if text_rule else None,
            optional=presence in ("OPTIONAL", "ADDED"),
            added=presence == "ADDED",
            positive=not text_rule and rule == "POSITIVE",
            signed=not text_rule and rule == "SIGNED"))
    return {k: tuple(v) for k, v in files.items()}


_COLUMNS = _read_columns()
POINT_KEY_COLUMNS = _COLUMNS["KEY"]
TIMING_COLUMNS = POINT_KEY_COLUMNS + _COLUMNS["TIMING"]
METRICS_COLUMNS = POINT_KEY_COLUMNS + _COLUMNS["METRICS"]
CEILINGS_COLUMNS = _COLUMNS["CEILINGS"]
SASS_COLUMNS = _COLUMNS["SASS"]
ENERGY_COLUMNS = POINT_KEY_COLUMNS + _COLUMNS["ENERGY"]

# ewbench writes every count as an unsigned 64-bit number: a larger one is
# not a count it wrote (and a field of more digits than that is refused
# before int() meets Python's limit on digits).
MAX_INTEGER = 2 ** 64 - 1
MAX_INTEGER_DIGITS = len(str(MAX_INTEGER)) + 1     # a sign and 20 digits
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_INTEGER = re.compile(r"^[+-]?\d+$")


_BOUNDED_COLUMNS = ("variant", "metric")


def parse_field(field, column):
    """Convert one CSV field; raise ValueError('expected ...') if invalid."""
    if field == "":
        if column.optional:
            return None
        raise ValueError("expected a value, got an empty field")
    if column.kind == INTEGER:
        what = "a positive integer" if column.positive else \
            "a non-negative integer"
        shown = field[:40] + ("..." if len(field) > 40 else "")
        if not _INTEGER.match(field):
            raise ValueError("expected %s, got %r" % (what, shown))
        value = int(field) if len(field) <= MAX_INTEGER_DIGITS else None
        if value is None or value > MAX_INTEGER:
            raise ValueError("expected %s of at most 2^64 - 1 (a count "
                             "ewbench writes), got %r" % (what, shown))
        if value < (1 if column.positive else 0):
            raise ValueError("expected %s, got %r" % (what, field))
        return value
    if column.kind == NUMBER:
        what = "a positive number" if column.positive else \
            "a finite number" if column.signed else "a non-negative number"
        if not _NUMBER.match(field):
            raise ValueError("expected %s, got %r" % (what, field))
        value = float(field)
        if not math.isfinite(value):
            raise ValueError("expected a finite number, got %r" % field)
        if (value < 0 and not column.signed) or \
                (column.positive and value == 0):
            raise ValueError("expected %s, got %r" % (what, field))
        return value
    if column.name in _BOUNDED_COLUMNS and not bytes_within(field, NAME_MAX):
        raise ValueError("expected a string of at most %d bytes, got %r"
                         % (NAME_MAX, field[:40] + "..."))
    if column.choices is not None and field not in column.choices:
        raise ValueError("expected one of %s, got %r" %
                         (", ".join(column.choices), field))
    return field


def _header_map(path, header, columns):
    """Column name -> index; every documented column must be present but
    those added since the first files (columns.def's ADDED)."""
    seen = {}
    for index, name in enumerate(header):
        if name in seen:
            raise DataError(path, 1, "expected each column once, got "
                            "%r twice" % name)
        seen[name] = index
    missing = [c.name for c in columns
               if c.name not in seen and not c.added]
    if missing:
        raise DataError(path, 1, "expected header columns %s; missing: %s"
                        % (",".join(c.name for c in columns),
                           ", ".join(missing)))
    return seen


def read_csv(path, columns):
    """[(line number, {column: value})] for the data rows of path."""
    text_ = read_text(path)
    if text_ == "":
        raise DataError(path, 1, "expected a header row, got an empty file")
    if not text_.endswith("\n"):
        last = text_.count("\n") + 1
        raise DataError(path, last, "expected the row to end with a "
                        "newline (file truncated?)")
    # Rows end at "\n" only (data-format.md); str.splitlines would also
    # break at form feeds and Unicode separators inside a field.
    lines = [line + "\n" for line in text_.split("\n")[:-1]]
    reader = csv.reader(lines, strict=True)
    rows = []
    # parse_field depends on the field and its column alone: a name, an
    # id or a count that repeats down a column (metrics.csv's key, metric
    # and unit on every row) is parsed once a file.  Numbers, which
    # rarely repeat, are not kept.
    seen = {c.name: {} for c in columns if c.kind != NUMBER}
    try:
        header = next(reader)
        index = _header_map(path, header, columns)
        line = reader.line_num + 1
        for fields in reader:
            if len(fields) != len(header):
                raise DataError(path, line, "expected %d fields, got %d%s"
                                % (len(header), len(fields),
                                   " (row cut short?)"
                                   if len(fields) < len(header) else ""))
            row = {}
            for column in columns:
                if column.name not in index:    # an ADDED column, absent
                    row[column.name] = None
                    continue
                field = fields[index[column.name]]
                parsed = seen.get(column.name)
                if parsed is not None and field in parsed:
                    row[column.name] = parsed[field]
                    continue
                try:
                    row[column.name] = parse_field(field, column)
                except ValueError as e:
                    raise DataError(path, line, "column %s: %s" %
                                    (column.name, e)) from None
                if parsed is not None:
                    parsed[field] = row[column.name]
            rows.append((line, row))
            line = reader.line_num + 1
    except csv.Error as e:
        raise DataError(path, reader.line_num, "expected RFC 4180 CSV "
                        "(%s)" % e) from None
    return rows


# rules within a row and across rows and files

def point_key(row):
    return (row["variant"], row["n"], row["block"], row["cache"],
            row["launch"])


def check_run_id(path, line, row, run_id):
    if row["run_id"] != run_id:
        raise DataError(path, line, "expected run_id %r (from run.json), "
                        "got %r" % (run_id, row["run_id"]))


def _close(a, b):
    return math.isclose(a, b, rel_tol=REL_TOL)


def check_timing_row(path, line, row, spec_bandwidth):
    """Relations between the columns of one timing.csv row."""
    # n elements of so many bytes each (data-format.md): a row whose n
    # does not divide its bytes is wrong here, not in metrics.csv.
    n = row["n"]
    # A positive time so small that it is 0 in seconds (x 1e-9) would
    # divide by zero wherever a bandwidth is computed from it.
    for column in ("time_median_ns", "time_min_ns", "time_max_ns",
                   "time_mean_ns"):
        if row[column] is not None and row[column] * 1e-9 == 0.0:
            raise DataError(path, line, "expected %s a time in seconds "
                            "above 0, got %s ns" % (
                                column, _number_text(row[column])))
    for column in ("footprint_bytes", "bytes_moved"):
        if row[column] % n:
            raise DataError(path, line, "expected %s a whole multiple of "
                            "n (n x bytes per element), got %s = %d for "
                            "n = %d" % (column, column, row[column], n))
    low, mid, high = (row["time_min_ns"], row["time_median_ns"],
                      row["time_max_ns"])
    for name, value in (("time_median_ns", mid),
                        ("time_mean_ns", row["time_mean_ns"])):
        if value is None or (low is None and high is None):
            continue
        # The summary numbers come from the same samples; allow a
        # rounding step at either end.
        if ((low is not None and value < low and not _close(value, low)) or
                (high is not None and value > high and
                 not _close(value, high))):
            raise DataError(path, line, "expected time_min_ns <= %s <= "
                            "time_max_ns, got %s <= %.17g <= %s" % (
                                name, _number_text(low), value,
                                _number_text(high)))
    moved = row["bytes_moved"]
    for column, time_column in (
            ("bandwidth_median_bytes_per_s", "time_median_ns"),
            ("bandwidth_max_bytes_per_s", "time_min_ns")):
        bandwidth, time_ns = row[column], row[time_column]
        if bandwidth is None or time_ns is None:
            continue
        expected = moved / (time_ns * 1e-9)
        if not _close(bandwidth, expected):
            raise DataError(path, line, "expected %s = bytes_moved / %s = "
                            "%.17g, got %.17g" % (column, time_column,
                                                  expected, bandwidth))
    pct = row["spec_dram_pct"]
    bandwidth = row["bandwidth_median_bytes_per_s"]
    if pct is not None and bandwidth is not None and spec_bandwidth:
        expected = 100.0 * bandwidth / spec_bandwidth
        if not _close(pct, expected):
            raise DataError(path, line, "expected spec_dram_pct = 100 x "
                            "bandwidth_median_bytes_per_s / run.json "
                            "device.dram_bandwidth_bytes_per_s = %.17g, got "
                            "%.17g" % (expected, pct))


def check_energy_row(path, line, row):
    """Relations between the columns of one energy.csv row: each derived
    column is its readings' arithmetic (src/run/energy-math.c), and a window
    is the point's warm graph replays."""
    if (row["cache"], row["launch"]) != ("warm", "graph"):
        raise DataError(path, line, "expected cache warm and launch graph "
                        "(energy windows replay a graph back to back), got "
                        "%s and %s" % (row["cache"], row["launch"]))
    if row["bytes_per_launch"] % row["n"]:
        raise DataError(path, line, "expected bytes_per_launch a whole "
                        "multiple of n (n x bytes per element), got %d for "
                        "n = %d" % (row["bytes_per_launch"], row["n"]))
    seconds, idle_seconds = row["seconds"], row["idle_seconds"]
    board = row["energy_mj"] * 1e-3 / seconds
    idle = row["idle_energy_mj"] * 1e-3 / idle_seconds
    moved = row["launches"] * row["bytes_per_launch"]
    # (column, expected value, its scale for the tolerance, the rule)
    for column, expected, scale, rule in (
            ("board_w", board, board, "energy_mj / 1000 / seconds"),
            ("idle_w", idle, idle,
             "idle_energy_mj / 1000 / idle_seconds"),
            ("net_w", board - idle, board, "board_w - idle_w"),
            ("pj_per_byte", (board - idle) * seconds / moved * 1e12,
             board * seconds / moved * 1e12,
             "net_w x seconds / (launches x bytes_per_launch) x 10^12"),
            ("bandwidth_bytes_per_s", moved / seconds, moved / seconds,
             "launches x bytes_per_launch / seconds")):
        if abs(row[column] - expected) > REL_TOL * scale:
            raise DataError(path, line, "expected %s = %s = %.17g, got "
                            "%.17g" % (column, rule, expected, row[column]))
    check_energy_physics(path, line, row)


# A window's average draw may pass the power limit in force by this much
# (the limit is enforced over a moving average, and a window's ends lie
# within a counter step of its own): beyond it, the counter jumped or
# stepped backwards (an unsigned difference), not the board.
POWER_LIMIT_MARGIN = 1.25


def check_energy_physics(path, line, row):
    """A window the board could have drawn: neither it nor its idle window
    above the power limit in force by more than POWER_LIMIT_MARGIN, and
    the launches drawing no less than the idle board beyond a counter
    step at each end of both windows (the noise of a kernel that adds
    little keeps its sign within that)."""
    limit = row["power_limit_w"]
    if limit is not None:
        for column, seconds, mj in (
                ("board_w", row["seconds"], row["energy_mj"]),
                ("idle_w", row["idle_seconds"], row["idle_energy_mj"])):
            if row[column] > POWER_LIMIT_MARGIN * limit:
                raise DataError(path, line, "expected %s at most %g x the "
                                "power limit %g W (%.0f mJ over %g s), got "
                                "%.6g W (%d mJ): the energy counter jumped "
                                "or stepped backwards; measure again" % (
                                    column, POWER_LIMIT_MARGIN, limit,
                                    POWER_LIMIT_MARGIN * limit * seconds *
                                    1e3, seconds, row[column], mj))
    step_w = 2 * row["board_w"] / row["updates"] + \
        2 * row["idle_w"] / row["idle_updates"]
    if row["net_w"] < -step_w:
        raise DataError(path, line, "expected board_w no lower than idle_w "
                        "beyond the counter's step at the windows' ends "
                        "(%.3g W), got %.6g W against %.6g W idle: the "
                        "counter or the idle window is wrong; measure "
                        "again" % (step_w, row["board_w"], row["idle_w"]))


def _number_text(value):
    return "(empty)" if value is None else "%.17g" % value


def check_unique(path, line, first_line, key, what):
    """Refuse a second row with the same key; first_line: key -> line."""
    if key in first_line:
        raise DataError(path, line, "expected one row per %s; this %s is "
                        "also on line %d" % (what, what, first_line[key]))
    first_line[key] = line


def check_unique_across(path, line, seen, key, what):
    """check_unique over several files: seen maps key -> (path, line)."""
    if key in seen:
        other, at = seen[key]
        where = "line %d" % at if other == path else "%s:%d" % (other, at)
        raise DataError(path, line, "expected one row per %s; this %s is "
                        "also on %s" % (what, what, where))
    seen[key] = (path, line)


def check_metric_refers_to_point(path, line, row, timed):
    """A metrics row names a timed point: timed maps (variant, n, block,
    cache) to (op, dtype).  Counter rows say launch=stream even for points
    timed as graph launches, so the launch is not compared."""
    key = (row["variant"], row["n"], row["block"], row["cache"])
    if key not in timed:
        raise DataError(path, line, "expected a point of timing.csv, got "
                        "%s n=%d block=%s %s, which has no timing row" % (
                            row["variant"], row["n"],
                            "" if row["block"] is None else row["block"],
                            row["cache"]))
    if timed[key] != (row["op"], row["dtype"]):
        raise DataError(path, line, "expected op, dtype %s, %s as in "
                        "timing.csv for this point, got %s, %s" % (
                            timed[key] + (row["op"], row["dtype"])))


def check_ceiling_unit(path, line, row):
    unit = CEILING_UNIT[row["ceiling"]]
    if row["unit"] != unit:
        raise DataError(path, line, "expected unit %s for ceiling %s, got "
                        "%s" % (unit, row["ceiling"], row["unit"]))


def check_loaded_pairs(path, first_line):
    """A loaded latency and its stream's bandwidth come together (ewbench
    writes both rows or neither); first_line: ceiling -> line."""
    for level in LOAD_LEVELS:
        pair = (loaded_latency_name(level), loaded_bandwidth_name(level))
        for have, lack in (pair, pair[::-1]):
            if have in first_line and lack not in first_line:
                raise DataError(path, first_line[have], "expected a %s row "
                                "beside %s (ewbench ceilings writes both), "
                                "got none" % (lack, have))


def check_rounds(runs):
    """Runs read together as repeats of one plan (contest): one GPU, and a
    point means the same work in every run."""
    first = runs[0]
    name = first.device.get("name")
    for run in runs[1:]:
        if run.device.get("name") != name:
            raise DataError(run.path, None, "expected the device of the "
                            "first run (%r, %s), got %r: repeats of one plan "
                            "run on one GPU" % (name, first.path,
                                                run.device.get("name")))
    seen = {}
    for run in runs:
        for p in run.points:
            work = (p.op, p.dtype, p.bytes_moved)
            if p.key not in seen:
                seen[p.key] = (work, run)
                continue
            first_work, first_run = seen[p.key]
            if work != first_work:
                raise DataError(
                    os.path.join(run.path, p.file), p.line,
                    "expected op, dtype, bytes_moved %s, %s, %d as in %s "
                    "for this point, got %s, %s, %d" % (
                        first_work + (first_run.path,) + work))

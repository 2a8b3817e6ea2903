"""The data contract of docs/data-format.md, checked.

Every file the analysis reads comes through here: run.json, timing.csv,
metrics.csv, ceilings.csv (via load.py), the rounds of a contest, the
torch sidecar and the trace JSON of `timeline`.  A file that breaks the
contract is refused with one DataError whose text is `path:line: expected
...`: the line of the CSV row, or for JSON the line where the offending
value starts, with the value's JSON path (device.l2_bytes,
traceEvents[12].ts) in the message.  Nothing else may escape a reader: an
unreadable file, bytes that are not UTF-8, a cut-off gzip stream, JSON
nested deeper than Python's parser recurses, NaN or Infinity in JSON all
become DataErrors.  A leading UTF-8 byte order mark is accepted (editors
on some systems add one); a UTF-16 one is named in the refusal.

This module knows the contract (columns, value sets, run.json keys) and
the rules; load.py turns what passed into Run and Point objects.
"""

import csv
import errno
import gzip
import json
import math
import os
import re
import stat
import zlib
from dataclasses import dataclass

SCHEMA_VERSION = 2
# Schema 1 (before 2026-11-24) timed each launch with its own pair of CUDA
# events; schema 2 adds the kernels' own times and the launch intervals
# (timing.csv's ADDED columns) and settings.timing.  Both load.
SCHEMA_VERSIONS = (1, 2)

# "custom": a user's own op, checked against its reference kernel
# (--reference, docs/user-kernels.md); bf16 only for such an op.
OPS = ("add", "relu", "abs", "custom")
DTYPES = ("f32", "f16", "bf16")
DTYPE_BYTES = {"f32": 4, "f16": 2, "bf16": 2}
CACHES = ("warm", "cold")
LAUNCHES = ("stream", "graph")
CHECKS = ("pass", "fail")
# timing.csv time_source: CUPTI's kernel records, an event pair per launch,
# events around a replay of a graph of launches.
TIME_SOURCES = ("kernel", "events", "batch")
# timing.csv stop: the stopping rule that ended sampling (or a fixed count).
STOPS = ("ci", "step", "cap", "time", "count")
SOURCES = ("cupti", "derived", "occupancy_api")
# `ewbench ceilings`' block launch rates, one per block size, and its
# DRAM latencies under load, one per offered load (% of dram_copy; full:
# every free block slot), each with the bandwidth of the stream beside
# the chase (docs/ceilings.md).
BLOCK_RATE_BLOCKS = (32, 64, 128, 256, 512, 1024)
LOAD_LEVELS = ("25", "50", "100", "200", "400", "full")


def block_rate_name(block):
    return "block_rate_b%d" % block


def loaded_latency_name(level):
    return "dram_latency_load%s" % level


def loaded_bandwidth_name(level):
    return loaded_latency_name(level) + "_bandwidth"


CEILING_UNIT = {
    "dram_read": "byte/s", "dram_write": "byte/s", "dram_copy": "byte/s",
    "dram_add": "byte/s", "l2_read": "byte/s", "dram_latency": "ns",
    "launch_stream": "ns",
    "launch_graph": "ns", "fp32_fma": "flop/s", "fp16_fma": "flop/s",
}
for _level in LOAD_LEVELS:
    CEILING_UNIT[loaded_latency_name(_level)] = "ns"
    CEILING_UNIT[loaded_bandwidth_name(_level)] = "byte/s"
for _block in BLOCK_RATE_BLOCKS:
    CEILING_UNIT[block_rate_name(_block)] = "block/s"
CEILING_NAMES = tuple(CEILING_UNIT)
CEILING_UNITS = tuple(dict.fromkeys(CEILING_UNIT.values()))
STATUSES = ("running", "complete", "interrupted", "failed")
COUNTER_STATUSES = ("ok", "off", "unavailable")
TIERS = ("latency", "l2", "dram")
# sass.csv kind (scripts/sass.sh): what a global memory instruction does.
SASS_KINDS = ("load", "store", "atomic", "copy")
NVML_STATUSES = ("ok", "unavailable")
LAUNCHERS = ("slurm", "openmpi", "pmix", "ewbench")

# Numbers that are computed from one another (bandwidth = bytes / time)
# are written with 17 significant digits; a writer that rounds harder is
# still within this relative tolerance, a wrong column is not.
REL_TOL = 1e-6

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_GZIP_MAGIC = b"\x1f\x8b"


class DataError(Exception):
    """Input that breaks the data contract.  str() is `path:line: text`
    (just `path: text` when no line applies)."""

    def __init__(self, path, line, text):
        self.path = path
        self.line = line
        self.text = text
        where = path if line is None else "%s:%d" % (path, line)
        super().__init__("%s: %s" % (where, text))


# reading bytes and text

# The kinds of file a path may name besides a regular file, for refusals.
def _kind(mode):
    for test, name in ((stat.S_ISDIR, "a directory"),
                       (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _unreadable(path, error):
    """The DataError for an OSError met reaching path."""
    if isinstance(error, FileNotFoundError) and os.path.islink(path):
        return DataError(path, None, "expected a regular file, got a "
                         "dangling symbolic link (to %s)" % os.readlink(path))
    if error.errno == errno.ELOOP:
        return DataError(path, None, "expected a regular file, got a loop "
                         "of symbolic links")
    if isinstance(error, PermissionError):
        return DataError(path, None, "expected a readable file, got "
                         "permission denied")
    return DataError(path, None, "expected a readable file (%s)" %
                     (error.strerror or error))


def present(path):
    """Is there a file at path?  False when nothing is there (not even a
    link); True for a regular file or a link to one.  Anything else that
    is there (a dangling or looping link, a FIFO, a device, a directory, a
    file that cannot be reached) is a DataError naming it: it is not
    "absent", and reading it could hang."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        if isinstance(e, FileNotFoundError) and not os.path.islink(path):
            return False
        raise _unreadable(path, e) from None
    if not stat.S_ISREG(mode):
        raise DataError(path, None, "expected a regular file, got %s" %
                        _kind(mode))
    return True


def read_bytes(path):
    """The bytes of a regular file (or a link to one).  Opened without
    blocking and checked before reading, so a FIFO is refused, not waited
    on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK |
                     getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise _unreadable(path, e) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise DataError(path, None, "expected a regular file, got %s" %
                            _kind(mode))
        with os.fdopen(fd, "rb") as f:
            fd = None
            return f.read()
    except OSError as e:
        raise _unreadable(path, e) from None
    finally:
        if fd is not None:
            os.close(fd)


def decode_text(path, data):
    """UTF-8 text of a file's bytes, without a leading byte order mark."""
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM):]
    elif data.startswith(_UTF16_BOMS):
        raise DataError(path, 1, "expected UTF-8 text, got a UTF-16 byte "
                        "order mark (save the file as UTF-8)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise DataError(path, line, "expected UTF-8 text, got byte 0x%02x "
                        "at offset %d" % (data[e.start], e.start)) from None


def read_text(path):
    return decode_text(path, read_bytes(path))


def read_text_maybe_gzip(path):
    """Text of a file that may be gzip-compressed (told by its magic
    bytes, not its name)."""
    data = read_bytes(path)
    if data.startswith(_GZIP_MAGIC):
        try:
            data = gzip.decompress(data)
        except (EOFError, OSError, zlib.error) as e:
            raise DataError(path, None, "expected a complete gzip file, got "
                            "a damaged or truncated one (%s)" % e) from None
    return decode_text(path, data)


# JSON

class _NonFinite:
    """Stands in for NaN, Infinity or -Infinity while parsing, so that the
    refusal can name where the value is."""

    def __init__(self, name):
        self.name = name


def _first_non_finite(doc):
    """(JSON path, name) of the first NaN or Infinity in doc, or None.
    Walks with a stack: the document may be as deep as the parser went."""
    stack = [((), doc)]
    while stack:
        at, value = stack.pop()
        if isinstance(value, _NonFinite):
            return at, value.name
        if isinstance(value, dict):
            items = list(value.items())
        elif isinstance(value, list):
            items = list(enumerate(value))
        else:
            continue
        stack.extend((at + (key,), item) for key, item in reversed(items))
    return None


# When the parser gives up on nesting (at Python's recursion limit, about
# 1000 levels), the refusal points at the line where nesting passes this.
DEEPEST_SHOWN = 500


def _too_deep_offset(text):
    """Offset in text where brackets first nest deeper than
    DEEPEST_SHOWN (strings skipped), or None."""
    depth, inside, escaped = 0, False, False
    for offset, char in enumerate(text):
        if inside:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                inside = False
        elif char == '"':
            inside = True
        elif char in "[{":
            depth += 1
            if depth > DEEPEST_SHOWN:
                return offset
        elif char in "]}":
            depth -= 1
    return None


def parse_json(path, text):
    """Parse JSON text.  NaN and Infinity (which Python's json accepts but
    JSON does not have) are refused, and so is nesting deeper than the
    parser can recurse."""
    met = []                    # non-finite constants the parser met

    def constant(name):
        met.append(name)
        return _NonFinite(name)
    try:
        doc = json.loads(text, parse_constant=constant)
    except json.JSONDecodeError as e:
        raise DataError(path, e.lineno, "expected valid JSON (%s)" %
                        e.msg) from None
    except ValueError as e:
        # Python refuses integers of more than 4300 digits
        # (sys.set_int_max_str_digits): not a number any run writes.
        raise DataError(path, None, "expected JSON numbers of a sensible "
                        "size (%s)" % e) from None
    except RecursionError:
        offset = _too_deep_offset(text)
        raise DataError(path, None if offset is None else
                        text.count("\n", 0, offset) + 1,
                        "expected JSON nested less deeply: from this line "
                        "on it is more than %d levels deep, and the parser "
                        "gives up" % DEEPEST_SHOWN) from None
    found = _first_non_finite(doc) if met else None
    if found is not None:       # (None: a duplicate key dropped the value)
        at, name = found
        raise DataError(path, json_line(text, at), "expected %s to be a "
                        "finite number or null, got %s (not a JSON number)"
                        % (_path_text(at), name))
    return doc


def json_line(text, at):
    """Line in text (which parsed) where the value at JSON path `at` (keys
    and list indexes) starts; a missing key gives its object's line.  None
    if the path cannot be followed (the message still names it)."""
    try:
        return _json_line(text, at)
    except (IndexError, ValueError, RecursionError):
        return None


def _json_line(text, at):
    decoder = json.JSONDecoder()
    space = json.decoder.WHITESPACE

    def skip(pos):
        return space.match(text, pos).end()
    pos = skip(0)
    for step in at:
        opener = text[pos]
        closer = "}" if opener == "{" else "]"
        found, index = None, 0
        pos = skip(pos + 1)
        while text[pos] != closer:
            if opener == "{":
                key, pos = json.decoder.scanstring(text, pos + 1)
                pos = skip(skip(pos) + 1)          # past the colon
                if key == step:
                    found = pos                     # the last one wins
            elif index == step:
                found = pos
            _, pos = decoder.raw_decode(text, pos)
            index += 1
            pos = skip(pos)
            if text[pos] == ",":
                pos = skip(pos + 1)
        if found is None:
            break
        pos = found
    return text.count("\n", 0, pos) + 1


def _path_text(at):
    text = ""
    for step in at:
        text += "[%d]" % step if isinstance(step, int) else (
            "." + step if text else step)
    return text or "the document"


def _shown(value):
    """A JSON value as a message shows it: containers by kind only (they
    may be large or deep), scalars as written, shortened."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Mismatch(Exception):
    """A JSON value that does not fit its spec, at JSON path `at`."""

    def __init__(self, at, message):
        super().__init__(message)
        self.at = at
        self.message = message


def _mismatch(at, expected, value):
    return Mismatch(at, "expected %s to be %s, got %s" % (
        _path_text(at), expected, _shown(value)))


class Scalar:
    def __init__(self, expected, accepts):
        self.expected = expected
        self.accepts = accepts

    def check(self, value, at):
        if not self.accepts(value):
            raise _mismatch(at, self.expected, value)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def integer(lowest=0):
    name = {0: "a non-negative integer", 1: "a positive integer"}[lowest]
    return Scalar(name, lambda v: _is_int(v) and v >= lowest)


def number(positive=False):
    if positive:
        return Scalar("a positive finite number",
                      lambda v: _is_number(v) and v > 0)
    return Scalar("a non-negative finite number",
                  lambda v: _is_number(v) and v >= 0)


def _bytes_within(value, most):
    return len(value) <= most // 4 or len(value.encode("utf-8", "replace")) <= most


# The longest names the report lays out: a device's (CUDA's
# cudaDeviceProp::name is 256 bytes), a variant id and a metric name (a
# 10 MB one took the report minutes); longer is bad data.
DEVICE_NAME_MAX = 256
NAME_MAX = 1024


def text(choices=None, nonempty=False, most=None):
    if most is not None:
        return Scalar("a string of at most %d bytes" % most,
                      lambda v: isinstance(v, str) and _bytes_within(v, most))
    if choices:
        return Scalar("one of %s" % ", ".join(choices),
                      lambda v: isinstance(v, str) and v in choices)
    if nonempty:
        return Scalar("a non-empty string",
                      lambda v: isinstance(v, str) and v != "")
    return Scalar("a string", lambda v: isinstance(v, str))


BOOLEAN = Scalar("true or false", lambda v: isinstance(v, bool))


class Nullable:
    def __init__(self, inner):
        self.inner = inner
        self.expected = inner.expected + " or null"

    def check(self, value, at):
        if value is None:
            return
        if isinstance(self.inner, Scalar) and not self.inner.accepts(value):
            raise _mismatch(at, self.expected, value)
        self.inner.check(value, at)


class ListOf:
    def __init__(self, item):
        self.item = item
        self.expected = "a list"

    def check(self, value, at):
        if not isinstance(value, list):
            raise _mismatch(at, self.expected, value)
        for index, element in enumerate(value):
            self.item.check(element, at + (index,))


class MapOf:
    """A JSON object whose keys are free (strings, as JSON's are) and whose
    values all fit one spec: counters.collected, metric -> CUPTI name."""

    def __init__(self, value):
        self.value = value
        self.expected = "an object"

    def check(self, value, at):
        if not isinstance(value, dict):
            raise _mismatch(at, self.expected, value)
        for key, element in value.items():
            self.value.check(element, at + (key,))


class Object:
    """A JSON object with known keys (all optional unless `required`);
    unknown keys are ignored, as data-format.md asks of readers."""

    def __init__(self, fields, required=()):
        self.fields = fields
        self.required = required
        self.expected = "an object"

    def check(self, value, at):
        if not isinstance(value, dict):
            raise _mismatch(at, self.expected, value)
        for name in self.required:
            if name not in value:
                raise Mismatch(at, "expected %s to be present (%s)" % (
                    _path_text(at + (name,)), self.fields[name].expected))
        for name, spec in self.fields.items():
            if name in value:
                spec.check(value[name], at + (name,))


def check_json(path, text, value, spec):
    try:
        spec.check(value, ())
    except Mismatch as e:
        raise DataError(path, json_line(text, e.at), e.message) from None


# run.json: the keys the documentation lists, with the types ewbench
# writes.  Quantities the analysis divides by are positive or null
# ("unknown"), never 0.
_STRING = text()
_STRINGS = ListOf(_STRING)

# Where a run ran and what NVML read at its start and end
# (docs/data-format.md, `placement`).  A fact the machine did not give is
# null; a clock or a power is never 0.
_POSITIVE = Nullable(number(positive=True))
NVML_READING = Object({
    "utc": _STRING,
    "sm_clock_mhz": _POSITIVE, "memory_clock_mhz": _POSITIVE,
    "power_w": _POSITIVE,
    "temperature_c": Nullable(Scalar("a finite number", _is_number)),
    "clock_event_reasons": Nullable(integer()),
})


class Summary:
    """One quantity NVML read through a run (placement.nvml.sampled):
    {min, median, max, count}, each value `value` (a spec), count >= 1,
    min <= median <= max and count at most the run's `samples`."""

    def __init__(self, value):
        self.fields = Object({"min": value, "median": value, "max": value,
                              "count": integer(1)},
                             required=("min", "median", "max", "count"))
        self.expected = "an object of min, median, max and count"

    def check(self, value, at):
        self.fields.check(value, at)
        if not value["min"] <= value["median"] <= value["max"]:
            raise Mismatch(at + ("median",), "expected %s <= %s <= %s, got "
                           "%s, %s and %s" % tuple(
                               [_path_text(at + (k,)) for k in
                                ("min", "median", "max")] +
                               [_shown(value[k]) for k in
                                ("min", "median", "max")]))


class Sampled(Object):
    """placement.nvml.sampled: every count within the readings taken."""

    def check(self, value, at):
        super().check(value, at)
        taken = value["samples"]
        for name in self.fields:
            inner = value.get(name)
            count = inner.get("count") if isinstance(inner, dict) else \
                inner if name == "throttled_samples" else None
            if count is not None and count > taken:
                key = at + ((name, "count") if isinstance(inner, dict)
                            else (name,))
                raise Mismatch(key, "expected %s to be at most the %d "
                               "readings taken (%s), got %s" % (
                                   _path_text(key), taken,
                                   _path_text(at + ("samples",)),
                                   _shown(count)))


_FINITE = Scalar("a finite number", _is_number)
_MHZ = Nullable(Summary(number(positive=True)))
NVML_SAMPLED = Sampled({
    "samples": integer(1),
    "sm_clock_mhz": _MHZ, "memory_clock_mhz": _MHZ,
    "power_w": _MHZ, "temperature_c": Nullable(Summary(_FINITE)),
    "clock_event_reasons": integer(), "throttled_samples": integer(),
    "wall_s": number(),
}, required=("samples",))
NVML = Object({"status": text(NVML_STATUSES), "reason": Nullable(_STRING),
               "max_sm_clock_mhz": _POSITIVE,
               "max_memory_clock_mhz": _POSITIVE,
               # The GPU's settings at the run's start (since 2026-11-26;
               # absent before: not recorded).
               "ecc_enabled": Nullable(BOOLEAN),
               "ecc_pending_enabled": Nullable(BOOLEAN),
               "persistence_mode": Nullable(BOOLEAN),
               "power_limit_w": _POSITIVE,
               "power_limit_default_w": _POSITIVE,
               "power_limit_max_w": _POSITIVE,
               "applications_sm_clock_mhz": _POSITIVE,
               "applications_memory_clock_mhz": _POSITIVE,
               "default_applications_sm_clock_mhz": _POSITIVE,
               "default_applications_memory_clock_mhz": _POSITIVE,
               "start": Nullable(NVML_READING),
               "end": Nullable(NVML_READING),
               "sampled": Nullable(NVML_SAMPLED)})
PLACEMENT = Object({
    "hostname": Nullable(_STRING), "pci_bus_id": Nullable(_STRING),
    "numa_node": Nullable(integer()),
    "launcher": Nullable(text(LAUNCHERS)),
    "rank": Nullable(integer()), "local_rank": Nullable(integer()),
    "node": Nullable(_STRING), "member": Nullable(_STRING),
    "nvml": Nullable(NVML),
})

RUN_JSON = Object({
    "run_id": text(nonempty=True),
    "status": Nullable(text(STATUSES)),
    "command": Nullable(_STRING),
    "argv": ListOf(_STRING),
    "started_utc": Nullable(_STRING),
    "finished_utc": Nullable(_STRING),
    "fixture": BOOLEAN,
    # "recorded for sm_NN" (sass.csv) or "not recorded: why"
    "sass": Nullable(_STRING),
    "tool": Object({"name": _STRING, "version": _STRING,
                    "git_revision": Nullable(_STRING),
                    "cuda_arch": Nullable(_STRING),
                    "cuda_build_version": Nullable(integer()),
                    "nvcc_flags": Nullable(_STRING)}),
    "host": Object({"hostname": _STRING, "os": _STRING, "cpu": _STRING}),
    "versions": Object({"driver": Nullable(integer()),
                        "runtime": Nullable(integer()),
                        "cupti_api": Nullable(integer()),
                        "nvidia_driver": Nullable(text(nonempty=True))}),
    "device": Object({
        "index": integer(),
        "name": Nullable(text(most=DEVICE_NAME_MAX)),
        "uuid": Nullable(_STRING),
        "pci_bus_id": Nullable(_STRING),
        "compute_capability": Nullable(_STRING),
        "sm_count": Nullable(integer(1)),
        "l2_bytes": Nullable(integer(1)),
        "memory_bytes": Nullable(integer(1)),
        "bus_width_bits": Nullable(integer()),
        "memory_clock_khz": Nullable(integer()),
        "sm_clock_khz": Nullable(integer()),
        "dram_bandwidth_bytes_per_s": Nullable(number(positive=True)),
        "max_threads_per_sm": Nullable(integer(1)),
        "max_blocks_per_sm": Nullable(integer(1)),
        "shared_memory_per_sm_bytes": Nullable(integer()),
        "registers_per_sm": Nullable(integer(1)),
        "fp32_lanes_per_sm": Nullable(integer(1)),
        "numa_node": Nullable(Scalar("an integer", _is_int)),
    }),
    "settings": Object({
        "variants": ListOf(text(most=NAME_MAX)),
        "sizes": ListOf(integer(1)),
        "blocks": ListOf(integer(0)),     # 0: "own", the published shape
        "iters": integer(1),
        "warmup": integer(),
        "cache": ListOf(text(CACHES)),
        "seed": integer(),
        "flush_bytes": integer(),
        "timer": _STRING,
        "timing": Object({
            "min_samples": integer(1),
            "max_samples": integer(1),
            "max_time_ms": number(positive=True),
            "target_ci_pct": number(positive=True),
            "ci_confidence_pct": number(positive=True),
            "timer_step_ns": Nullable(number(positive=True)),
        }),
        "launch": ListOf(text(LAUNCHES)),
        "preset": Nullable(_STRING),
        "sweep": BOOLEAN,
        "check_only": BOOLEAN,
        "misalign": BOOLEAN,
        "size_choices": ListOf(Object({
            "footprint_bytes_per_element": integer(1),
            "tier": text(TIERS),
            "n": integer(1),
            "reason": _STRING,
        }, required=("footprint_bytes_per_element", "tier", "n"))),
    }),
    "counters": Object({
        "enabled": BOOLEAN,
        "status": text(COUNTER_STATUSES),
        "reason": Nullable(_STRING),
        "metric_set": Nullable(_STRING),
        "metrics": ListOf(text(most=NAME_MAX)),
        # Per chip (metrics/*.txt entries by meaning): the CUPTI name each
        # entry was collected under, and the entries the chip has no name
        # for, each with why.  Absent in runs before them: none left out.
        "collected": MapOf(text(nonempty=True)),
        "left_out": ListOf(Object({
            "metric": text(nonempty=True),
            "reason": Nullable(_STRING),
        }, required=("metric",))),
        "passes": Nullable(integer(1)),
        "chip": Nullable(_STRING),
        "replay": _STRING,
        "range": _STRING,
    }),
    "checks": Object({
        "passed": integer(),
        "failed": integer(),
        "failures": ListOf(Object({
            "variant": _STRING, "n": integer(), "index": integer(),
            "got": Nullable(Scalar("a finite number", _is_number)),
            "expected": Nullable(Scalar("a finite number", _is_number)),
            "bad_count": integer(),
            "outside": text(("after", "before")),
        })),
    }),
    "user_kernels": ListOf(Object({
        "variant": text(nonempty=True), "file": _STRING,
        "function": _STRING, "symbol": _STRING, "op": text(OPS),
        "dtype": text(DTYPES), "source_sha256": _STRING,
        "cache_key": _STRING, "cached": BOOLEAN, "arch": _STRING,
        "nvrtc": _STRING, "options": _STRINGS,
        "count": text(("uint64", "int64", "uint32", "int32")),
        "elems_per_thread": integer(1), "default_block": integer(1),
        "timeout_s": integer(1), "guard": BOOLEAN,
        "stopped": Nullable(_STRING),
        "inputs": integer(), "in_place": BOOLEAN,
        "bytes_per_element": integer(1),
        "reference": Nullable(Object({
            "file": _STRING, "function": _STRING, "symbol": _STRING,
            "source_sha256": _STRING, "cache_key": _STRING,
            "cached": BOOLEAN,
            "count": text(("uint64", "int64", "uint32", "int32")),
            "ulps": integer(), "rel": Scalar("a finite number", _is_number),
        })),
    }, required=("variant",))),
    "ceilings": Scalar("an object", lambda v: isinstance(v, dict)),
    "placement": Nullable(PLACEMENT),
    "nvml": Nullable(NVML),
}, required=("run_id",))

_MANIFEST_CEILING = Object({
    "value": number(positive=True),
    "unit": text(CEILING_UNITS),
    "spec_value": Nullable(number(positive=True)),
    "method": Nullable(_STRING),
    "spread_pct": Nullable(number()),
}, required=("value", "unit"))


def check_manifest(path, text_):
    """Parse and check run.json text; return it as a dict."""
    manifest = parse_json(path, text_)
    if not isinstance(manifest, dict):
        raise DataError(path, 1, "expected a JSON object, got %s" %
                        _shown(manifest))
    if manifest.get("status") == "claimed" and len(manifest) == 1:
        raise DataError(path, 1, "expected a run, got only the claim of "
                        "one: the ewbench that claimed this directory "
                        "stopped before it measured anything (or still "
                        "runs); no data")
    version = manifest.get("schema_version")
    if version not in SCHEMA_VERSIONS or isinstance(version, bool):
        known = " or ".join(str(v) for v in SCHEMA_VERSIONS)
        raise DataError(path, json_line(text_, ("schema_version",)),
                        "expected schema_version %s, got %s (this analysis "
                        "reads schema %s; use the analysis of the "
                        "ewbench that wrote the run)" % (
                            known, _shown(version)
                            if "schema_version" in manifest
                            else "no schema_version", known))
    check_json(path, text_, manifest, RUN_JSON)
    for name, ceiling in (manifest.get("ceilings") or {}).items():
        if name not in CEILING_UNIT:
            continue                    # a ceiling this analysis does not know
        try:
            _MANIFEST_CEILING.check(ceiling, ("ceilings", name))
        except Mismatch as e:
            raise DataError(path, json_line(text_, e.at), e.message) from None
    return manifest


# peer-torch.json, the sidecar of `ewbench torch` (named
# torch-baseline.json in runs measured before peers/)
SIDECAR = Object({
    "torch": Nullable(_STRING), "cuda": Nullable(_STRING),
    "device": Nullable(_STRING), "written_utc": Nullable(_STRING),
    "rows": integer(), "flush_bytes": integer(), "method": _STRING,
})


def check_sidecar(path, text_):
    doc = parse_json(path, text_)
    check_json(path, text_, doc, SIDECAR)
    return doc


# fleet.json of `ewbench run --device all`: the members it started and how
# each ended (a failed one may have no run directory).  Only the list of
# members is required; a status other than "ok" means no usable run.
FLEET_SCHEMA = "ewbench-fleet/1"
FLEET_JSON = Object({
    "schema": _STRING, "command": Nullable(_STRING),
    "started_utc": Nullable(_STRING), "finished_utc": Nullable(_STRING),
    "launcher": Nullable(_STRING),
    "members": ListOf(Object({
        "name": text(nonempty=True), "dir": Nullable(_STRING),
        "host": Nullable(_STRING), "device": Nullable(integer()),
        "status": Nullable(_STRING),
        "exit_code": Nullable(Scalar("an integer", _is_int)),
        "reason": Nullable(_STRING),
    }, required=("name",))),
}, required=("members",))


def check_fleet_json(path, text_):
    """Parse and check fleet.json; return it as a dict."""
    doc = parse_json(path, text_)
    check_json(path, text_, doc, FLEET_JSON)
    schema = doc.get("schema")
    if schema is not None and schema != FLEET_SCHEMA:
        raise DataError(path, json_line(text_, ("schema",)), "expected "
                        "schema %r, got %s (this analysis reads %s only)" %
                        (FLEET_SCHEMA, _shown(schema), FLEET_SCHEMA))
    return doc


# Chrome trace JSON of `ewbench run --trace` (docs/trace.md).  Complete
# events ("ph": "X") are the ones drawn; others need only be objects.
TRACE_EVENT = Object({
    "ph": _STRING,
    "name": _STRING,
    "cat": _STRING,
})
TRACE_COMPLETE_EVENT = Object({
    "name": _STRING,
    "cat": _STRING,
    "ts": number(),
    "dur": number(),
    "pid": integer(),
    "tid": integer(),
    "args": Nullable(Object({"depth": Nullable(integer()),
                             "variant": Nullable(_STRING)})),
}, required=("ts", "dur", "pid", "tid"))


def check_trace(path, text_):
    """Parse a trace; return its list of events (checked)."""
    doc = parse_json(path, text_)
    spec = Object({"traceEvents": ListOf(TRACE_EVENT)},
                  required=("traceEvents",))
    check_json(path, text_, doc, spec)
    events = doc["traceEvents"]
    for index, event in enumerate(events):
        if event.get("ph") == "X":
            try:
                TRACE_COMPLETE_EVENT.check(event, ("traceEvents", index))
            except Mismatch as e:
                raise DataError(path, json_line(text_, e.at),
                                e.message) from None
    return events


# CSV columns

COLUMNS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            os.pardir, os.pardir, "defs",
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


def _read_columns(path=COLUMNS_PATH):
    """{"KEY": (Column, ...), "TIMING": ..., "METRICS": ..., "CEILINGS": ...}
    from src/columns.def, the description ewbench's writers also read."""
    sets = {"ANY": None, "OPS": OPS, "DTYPES": DTYPES, "CACHES": CACHES,
            "LAUNCHES": LAUNCHES, "CHECKS": CHECKS, "SOURCES": SOURCES,
            "CEILING_NAMES": CEILING_NAMES, "CEILING_UNITS": CEILING_UNITS,
            "TIME_SOURCES": TIME_SOURCES, "STOPS": STOPS,
            "SASS_KINDS": SASS_KINDS}
    kinds = {"TEXT": TEXT, "INTEGER": INTEGER, "NUMBER": NUMBER}
    files = {"KEY": [], "TIMING": [], "METRICS": [], "CEILINGS": [],
             "SASS": []}
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
            positive=not text_rule and rule == "POSITIVE"))
    return {k: tuple(v) for k, v in files.items()}


_COLUMNS = _read_columns()
POINT_KEY_COLUMNS = _COLUMNS["KEY"]
TIMING_COLUMNS = POINT_KEY_COLUMNS + _COLUMNS["TIMING"]
METRICS_COLUMNS = POINT_KEY_COLUMNS + _COLUMNS["METRICS"]
CEILINGS_COLUMNS = _COLUMNS["CEILINGS"]
SASS_COLUMNS = _COLUMNS["SASS"]

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
            "a non-negative number"
        if not _NUMBER.match(field):
            raise ValueError("expected %s, got %r" % (what, field))
        value = float(field)
        if not math.isfinite(value):
            raise ValueError("expected a finite number, got %r" % field)
        if value < 0 or (column.positive and value == 0):
            raise ValueError("expected %s, got %r" % (what, field))
        return value
    if column.name in _BOUNDED_COLUMNS and not _bytes_within(field, NAME_MAX):
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
                try:
                    row[column.name] = parse_field(fields[index[column.name]],
                                                   column)
                except ValueError as e:
                    raise DataError(path, line, "column %s: %s" %
                                    (column.name, e)) from None
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

"""The contract's tables: schema versions, the value sets of the columns
(ops, dtypes, caches, launches, ...), the ceilings with their units, and
DataError, the one refusal every check raises."""

import os
import re

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
TIME_SOURCES = ("kernel", "replay", "events", "batch")
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


# The concurrency curve (kernels/inflight.def): its series (shape, bytes
# per warp load instruction) and levels (KiB of loads in flight per SM).
INFLIGHT_DEF = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            os.pardir, os.pardir, os.pardir, "defs",
                            "inflight.def")


def _read_inflight(path=INFLIGHT_DEF):
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    series = tuple((shape, int(request)) for shape, request in re.findall(
        r"^INFLIGHT_SERIES\((\w+), *(\d+)\)", text, re.M))
    levels = tuple(int(k) for k in re.findall(
        r"^INFLIGHT_LEVEL\((\d+)\)", text, re.M))
    return series, levels


INFLIGHT_SERIES, INFLIGHT_KIB = _read_inflight()


def inflight_name(shape, kib, request):
    """A concurrency-curve row: dram_<shape>_inflight<KiB>k_r<request>."""
    return "dram_%s_inflight%dk_r%d" % (shape, kib, request)


def inflight_fixed_name(shape, kib, request):
    """A curve point's fixed cost (since 2026-11-29): its row's name and
    _fixed_cost."""
    return inflight_name(shape, kib, request) + "_fixed_cost"


CEILING_UNIT = {
    "dram_read": "byte/s", "dram_write": "byte/s", "dram_copy": "byte/s",
    "dram_add": "byte/s", "dram_add_fixed_cost": "ns", "l2_read": "byte/s",
    "dram_latency": "ns",
    "launch_stream": "ns",
    "launch_graph": "ns", "fp32_fma": "flop/s", "fp16_fma": "flop/s",
}
for _level in LOAD_LEVELS:
    CEILING_UNIT[loaded_latency_name(_level)] = "ns"
    CEILING_UNIT[loaded_bandwidth_name(_level)] = "byte/s"
for _block in BLOCK_RATE_BLOCKS:
    CEILING_UNIT[block_rate_name(_block)] = "block/s"
for _shape, _request in INFLIGHT_SERIES:
    for _kib in INFLIGHT_KIB:
        CEILING_UNIT[inflight_name(_shape, _kib, _request)] = "byte/s"
        CEILING_UNIT[inflight_fixed_name(_shape, _kib, _request)] = "ns"
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


class DataError(Exception):
    """Input that breaks the data contract.  str() is `path:line: text`
    (just `path: text` when no line applies)."""

    def __init__(self, path, line, text):
        self.path = path
        self.line = line
        self.text = text
        where = path if line is None else "%s:%d" % (path, line)
        super().__init__("%s: %s" % (where, text))

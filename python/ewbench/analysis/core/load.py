"""Load one ewbench run directory (docs/data-format.md) into objects.

Everything the rest of the package knows about a run comes through
load_run().  Every file is checked by validate.py first, and anything that
breaks the contract is refused with a DataError (`path:line: expected
...`), because a plot drawn from half-parsed data is worse than no plot.
What reaches the rest of the package therefore has n >= 1, times > 0 and
finite, min <= median <= max, bandwidths equal to bytes / time, run_ids
that match run.json, one row per point, and metrics rows that belong to
timed points, attached to the point in every launch mode it was timed in
(attach_launch_modes).  An empty field is "not measured" and becomes None, never 0.

metrics.csv, ceilings.csv and energy.csv are optional; their absence is
None, which the rest of the package reads as "no counters", "no measured
ceilings" and "no energy windows".
Absent means no file at all: a dangling or looping symbolic link, a FIFO
or a device under the name is refused (validate.present), never read as
absent.

Peers measured by other tools (peers/, e.g. `ewbench torch`)
live beside timing.csv in their own peer-<name>.csv files with timing.csv's
columns; their rows join the run's points, checked exactly like timing.csv
rows, and a point may appear in only one row of all these files.  Older
runs carry their torch rows inside timing.csv and load as they are.
"""

import glob
import math
import os
from dataclasses import dataclass, field
from typing import NamedTuple, Optional

from . import derived
from . import noise
from . import validate
from .validate import DataError  # noqa: F401  (what load_run raises)

# Schema 1: warm graph rows time GRAPH_REPLAYS replays of one graph that
# holds iters / GRAPH_REPLAYS launches.
GRAPH_REPLAYS = 10
# Schema 2, time_source "batch" (--no-cupti): a sample is one replay of a
# graph of this many launches (src/run/bench.h, MEASURE_GRAPH_LAUNCHES).
BATCH_GRAPH_LAUNCHES = 16
# Time sources that hold no host (time_source "kernel": CUPTI's records;
# "replay": a graph of the point's launches replayed, the records paused).
GPU_TIMED = ("kernel", "replay")
# A replay-timed row's sample is one replay of enough launches to cover
# REPLAY_NS at the warm-up's time per launch, at least REPLAY_MIN_LAUNCHES
# (src/run/plan.h, TIMING_REPLAY_NS and TIMING_REPLAY_MIN_LAUNCHES).  The
# row does not record that time: its launches are estimated from its
# median (the warm-up's host-paced launches are as long or a little
# longer, so the estimate may hold one launch more).
REPLAY_NS = 0.5e6
REPLAY_MIN_LAUNCHES = 2


def replay_launches(median_ns):
    """Launches in one replay of a replay-timed row of this median time,
    estimated (above)."""
    if not median_ns:
        return REPLAY_MIN_LAUNCHES
    return max(REPLAY_MIN_LAUNCHES, int(math.ceil(REPLAY_NS / median_ns)))

TIMING = "timing.csv"
SASS = "sass.csv"
ENERGY = "energy.csv"
PEER_PREFIX = "peer-"
# The sidecar `analysis torch` wrote before peer-torch.json existed.
LEGACY_TORCH_SIDECAR = "torch-baseline.json"


class PointKey(NamedTuple):
    """What names one point of a run, in every file that has rows of it
    (timing.csv, metrics.csv, energy.csv, a peer's): a tuple, so the
    plain tuple validate.point_key makes of a CSV row looks the same one
    up."""
    variant: str
    n: int
    block: Optional[int]    # None: a library's, which picks its own
    cache: str
    launch: str


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
    # The timing protocol of schema 2 (issue 21; docs/data-format.md):
    # columns that schema-1 rows lack, so None there.  They fill in from
    # src/run/columns.def's TIMING(...) lines of the same names; analysis/
    # timing.py is the one reader that turns them into a kernel's time.
    time_source: Optional[str] = None  # contract.TIME_SOURCES
    time_ci_low_ns: Optional[float] = None  # 95 % CI of the median
    time_ci_high_ns: Optional[float] = None
    time_iqr_ns: Optional[float] = None
    stop: Optional[str] = None              # "ci", "cap" or "time"
    throttle: Optional[str] = None          # NVML clock-event reasons
    interval_ns: Optional[float] = None     # start to start, own launch mode
    interval_ci_ns: Optional[float] = None  # its CI half-width
    queued_interval_ns: Optional[float] = None   # behind a spin kernel
    queued_interval_ci_ns: Optional[float] = None
    graph_interval_ns: Optional[float] = None    # inside one graph
    graph_interval_ci_ns: Optional[float] = None
    batch_ns: Optional[float] = None        # events around the batch
    line: int = 0
    file: str = TIMING         # the CSV file of the run directory it is in
    # The run's noise.Floor (its GPU and timer step), set by load_run;
    # None for a point made elsewhere: noise.point_floor stands in.
    floor: Optional[object] = field(default=None, compare=False,
                                    repr=False)
    # Since 2026-11-26 (issue 30): the lowest clocks NVML read while the
    # row's rounds ran; None without NVML and in older runs.
    sm_clock_min_mhz: Optional[float] = None
    memory_clock_min_mhz: Optional[float] = None
    # Since 2026-11-29 (issue 50): the independent timer of a warm point
    # at the run's smallest or largest size (core/crosscheck.py).
    crosscheck_ns: Optional[float] = None

    @property
    def key(self):
        return PointKey(self.variant, self.n, self.block, self.cache,
                        self.launch)

    @property
    def bandwidth(self):
        """Median bandwidth in byte/s, from the row or bytes / time."""
        if self.bandwidth_median_bytes_per_s is not None:
            return self.bandwidth_median_bytes_per_s
        return self.bytes_moved / (self.time_median_ns * 1e-9)

    @property
    def launches_per_sample(self):
        """Launches behind one timing sample: a warm graph row timed with
        events (schema 1, or time_source "batch") has one sample per
        replay of a graph of launches, so its min, max and stddev describe
        replay means, not single launches.  Every other row times each
        launch alone: kernel records, or an event pair per launch."""
        if self.time_source == "kernel" or self.time_source == "events":
            return 1
        if self.time_source == "replay":
            return replay_launches(self.time_median_ns)
        if self.time_source == "batch":
            return BATCH_GRAPH_LAUNCHES
        if self.launch == "graph" and self.cache == "warm" and \
                self.iters >= GRAPH_REPLAYS:
            return self.iters // GRAPH_REPLAYS
        return 1

    @property
    def kernel_timed(self):
        """Whether time_median_ns is the GPU's own (CUPTI's records, or a
        replay of a graph of launches), not a host-side timer's."""
        return self.time_source in GPU_TIMED


@dataclass(frozen=True)
class MetricValue:
    value: Optional[float]
    unit: str
    source: str


@dataclass(frozen=True)
class SassRow:
    """One row of sass.csv: a global memory instruction in a kernel's
    machine code, and how many copies of it the code holds (every path:
    static, not executed)."""
    variant: str
    arch: str
    kind: str                   # load, store, atomic, copy
    instruction: str            # "LDG.E.128"
    bits: Optional[int]         # one thread's access; None: bulk copies
    count: int


@dataclass(frozen=True)
class EnergyWindow:
    """One row of energy.csv (`ewbench run --energy`): a window of launches
    of one point replayed back to back, with the idle window measured
    before it; None where a reading was not given."""
    run_id: str
    variant: str
    op: str
    dtype: str
    n: int
    block: Optional[int]
    cache: str
    launch: str
    window: int
    grid: Optional[int]
    bytes_per_launch: int
    launches_per_replay: int
    launches: float
    seconds: float
    energy_mj: int
    idle_seconds: float
    idle_energy_mj: int
    board_w: float
    idle_w: float
    net_w: float
    pj_per_byte: float
    bandwidth_bytes_per_s: float
    updates: int
    idle_updates: int
    queue_drained: int
    sm_clock_min_mhz: Optional[float]
    memory_clock_min_mhz: Optional[float]
    temperature_max_c: Optional[float]
    throttle: Optional[str]
    power_limit_w: Optional[float]
    idle_sm_clock_min_mhz: Optional[float]
    idle_temperature_max_c: Optional[float]
    line: int = 0

    @property
    def key(self):
        return PointKey(self.variant, self.n, self.block, self.cache,
                        self.launch)


@dataclass(frozen=True)
class Ceiling:
    name: str
    value: float
    unit: str
    spec_value: Optional[float]
    method: Optional[str]
    spread_pct: Optional[float] = None  # of its samples; None: not recorded


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
    # variant -> (SassRow, ...) from sass.csv; None when the run has none
    # (run.json "sass" says why, where it says anything: sass_note)
    sass: Optional[dict] = None
    # energy.csv's rows (EnergyWindow), in file order; None without it
    energy: Optional[tuple] = None
    # load.Run of its study's calibration/residency-N/ runs (study.py;
    # report/model/calibration.py); () without them
    calibration: tuple = ()

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

    @property
    def sass_note(self):
        """run.json "sass": "recorded for sm_NN", "not recorded: why", or
        None for a run written before ewbench recorded SASS."""
        return self.manifest.get("sass")

    @property
    def counters(self):
        """run.json `counters` ({} when absent)."""
        return self.manifest.get("counters") or {}

    @property
    def counter_status(self):
        """"ok", "off" or "unavailable"; None when run.json does not say."""
        return self.counters.get("status")

    @property
    def left_out(self):
        """((metric, reason), ...): the metric-set entries this run's chip
        has no counter for (counters.left_out), reason None when not
        given; () for runs written before the member existed, which left
        nothing out."""
        return tuple((e["metric"], e.get("reason"))
                     for e in self.counters.get("left_out") or ())

    @property
    def collected(self):
        """{metric: CUPTI name it was collected under on this chip}
        (counters.collected); {} for runs written before the member, whose
        metrics went by their own names."""
        return dict(self.counters.get("collected") or {})


# files

def load_manifest(path):
    """Parse and check run.json; return it as a dict."""
    return validate.check_manifest(path, validate.read_text(path))


def load_timing(path, run_id, spec_bandwidth=None, seen=None, floor=None):
    """The rows of timing.csv or of a peer-<name>.csv file as Points.
    seen: point key -> (path, line) of the files read before, so that a
    point given twice is refused wherever the two rows are; floor: the
    run's noise.Floor, given to every point."""
    seen = {} if seen is None else seen
    points = []
    name = os.path.basename(path)
    for line, row in validate.read_csv(path, validate.TIMING_COLUMNS):
        validate.check_run_id(path, line, row, run_id)
        validate.check_unique_across(path, line, seen,
                                     validate.point_key(row), "point")
        validate.check_timing_row(path, line, row, spec_bandwidth)
        points.append(Point(line=line, file=name, floor=floor, **row))
    return tuple(points)


def peer_paths(directory, name):
    """(peer-<name>.csv, peer-<name>.json) of a run directory: the rows a
    peer tool measured and the sidecar with its versions."""
    stem = os.path.join(directory, PEER_PREFIX + name)
    return stem + ".csv", stem + ".json"


def peer_files(directory):
    """Every peer-*.csv beside timing.csv, in name order."""
    return sorted(glob.glob(os.path.join(glob.escape(directory),
                                         PEER_PREFIX + "*.csv")))


def peer_sidecar(directory, name="torch"):
    """The sidecar of a peer tool as a dict, None when absent; DataError
    when broken.  For torch, runs measured before peers/ have
    torch-baseline.json (same content) instead of peer-torch.json."""
    path = peer_paths(directory, name)[1]
    if not validate.present(path) and name == "torch":
        path = os.path.join(directory, LEGACY_TORCH_SIDECAR)
    if not validate.present(path):
        return None
    return validate.check_sidecar(path, validate.read_text(path))


def load_metrics(path, run_id, points):
    """metrics.csv; every row must belong to one of the timed points."""
    timed = {(p.variant, p.n, p.block, p.cache): (p.op, p.dtype)
             for p in points}
    metrics = {}
    first_line = {}
    for line, row in validate.read_csv(path, validate.METRICS_COLUMNS):
        validate.check_run_id(path, line, row, run_id)
        key = validate.point_key(row)
        validate.check_unique(path, line, first_line, (key, row["metric"]),
                              "point and metric")
        validate.check_metric_refers_to_point(path, line, row, timed)
        metrics.setdefault(key, {})[row["metric"]] = MetricValue(
            row["value"], row["unit"], row["source"])
    complete_derived(metrics, points)
    attach_launch_modes(metrics, points)
    return metrics


# The launch mode of every counter row (docs/data-format.md, `launch`).
COUNTER_LAUNCH = "stream"


def attach_launch_modes(metrics, points):
    """Give each point the counter rows of its launch mode.  ewbench
    writes a point's counters once, with launch COUNTER_LAUNCH (the
    profiler replays a single launch), so a graph point's rows are those
    of its stream key: here, the one place that says so, every point
    whose key has none gets them (the same dict), and one with rows of
    its own keeps them over those.  Every reader then looks a point's
    counters up by its own key."""
    for p in points:
        if p.launch == COUNTER_LAUNCH:
            continue
        counted = metrics.get(p.key._replace(launch=COUNTER_LAUNCH))
        if counted is None:
            continue
        own = metrics.get(p.key)
        metrics[p.key] = counted if own is None else {**counted, **own}


# The source of a derived row that the analysis computed (see below).
COMPLETED = "analysis"


def complete_derived(metrics, points):
    """Add the derived rows of metrics/derived.def that a point lacks but
    whose inputs it has: a run written before the row was defined (the
    shipped references have no requested bytes per load instruction).
    ewbench writes every row it can compute, so for a run of this version
    nothing is added.  The same formula over the same measured rows, with
    source COMPLETED so that a reader can tell.  A written row that the
    formula of today cannot compute from the point's rows was written by
    an older definition and is dropped (derived__global_ld_bytes_per_inst
    once fell back to the requested bytes where the sector bytes were not
    measured)."""
    facts = {(p.variant, p.n, p.block, p.cache): derived.point_facts(
        p.bytes_moved, p.n, validate.DTYPE_BYTES[p.dtype]) for p in points}
    for key, rows in metrics.items():
        values = dict(facts[key[:4]])
        values.update((name, m.value) for name, m in rows.items()
                      if m.source != "derived" and m.value is not None)
        for d in derived.TABLE:
            v = derived.evaluate(d.formula, values)
            if not math.isfinite(v):
                rows.pop(d.name, None)
            elif d.name not in rows:
                rows[d.name] = MetricValue(v, d.unit, COMPLETED)


def load_sass(path, run_id, points, complete=True):
    """sass.csv: variant -> its rows; every row of a timed variant, one
    row per variant, architecture and instruction.  The file lists every
    kernel the plan runs, written before the first is timed: in a run that
    did not complete (interrupted, failed) the rows of variants it never
    timed are left out, not refused."""
    timed = {p.variant for p in points}
    out = {}
    first_line = {}
    for line, row in validate.read_csv(path, validate.SASS_COLUMNS):
        validate.check_run_id(path, line, row, run_id)
        validate.check_unique(path, line, first_line, (
            row["variant"], row["arch"], row["instruction"]),
            "variant, arch and instruction")
        if row["variant"] not in timed:
            if not complete:
                continue
            raise DataError(path, line, "expected a variant the run timed, "
                            "got %r" % row["variant"])
        out.setdefault(row["variant"], []).append(SassRow(
            row["variant"], row["arch"], row["kind"], row["instruction"],
            row["bits"], row["count"]))
    return {k: tuple(v) for k, v in out.items()}


def load_energy(path, run_id, points, windows=None):
    """energy.csv: one row per window of a point; each point one the run
    timed (same variant, size and block, whatever its cache state and
    launch mode), of its op, dtype and bytes per launch; each window one
    of the `windows` run.json's energy.windows says each point had."""
    timed = {(p.variant, p.n, p.block): p for p in points}
    first_line = {}
    out = []
    for line, row in validate.read_csv(path, validate.ENERGY_COLUMNS):
        validate.check_run_id(path, line, row, run_id)
        validate.check_unique(path, line, first_line, (
            validate.point_key(row), row["window"]), "point and window")
        validate.check_energy_row(path, line, row)
        if windows is not None and row["window"] > windows:
            raise DataError(path, line, "expected window 1 to %d (run.json "
                            "energy.windows), got %d" % (windows,
                                                          row["window"]))
        p = timed.get((row["variant"], row["n"], row["block"]))
        if p is None:
            raise DataError(path, line, "expected a point of timing.csv, "
                            "got %s n=%d block=%s, which has no timing row"
                            % (row["variant"], row["n"], "" if row["block"]
                               is None else row["block"]))
        if (p.op, p.dtype, p.bytes_moved) != (
                row["op"], row["dtype"], row["bytes_per_launch"]):
            raise DataError(path, line, "expected op, dtype, "
                            "bytes_per_launch %s, %s, %d as in timing.csv "
                            "for this point, got %s, %s, %d" % (
                                p.op, p.dtype, p.bytes_moved, row["op"],
                                row["dtype"], row["bytes_per_launch"]))
        out.append(EnergyWindow(line=line, **row))
    return tuple(out)


def load_ceilings(path, run_id):
    ceilings = {}
    first_line = {}
    for line, row in validate.read_csv(path, validate.CEILINGS_COLUMNS):
        validate.check_run_id(path, line, row, run_id)
        validate.check_unique(path, line, first_line, row["ceiling"],
                              "ceiling")
        validate.check_ceiling_unit(path, line, row)
        ceilings[row["ceiling"]] = Ceiling(row["ceiling"], row["value"],
                                           row["unit"], row["spec_value"],
                                           row["method"], row["spread_pct"])
    validate.check_loaded_pairs(path, first_line)
    return ceilings


def load_run(directory, ceilings_from=None):
    """Load a run directory.  ceilings_from: another run directory whose
    ceilings.csv to use (e.g. one written by `ewbench ceilings`)."""
    if not os.path.isdir(directory):
        raise DataError(directory, None, "expected a run directory")
    manifest = load_manifest(os.path.join(directory, "run.json"))
    run_id = manifest["run_id"]
    spec = (manifest.get("device") or {}).get("dram_bandwidth_bytes_per_s")
    seen = {}
    floor = noise.manifest_floor(manifest)
    points = load_timing(os.path.join(directory, TIMING), run_id, spec, seen,
                         floor)
    for path in peer_files(directory):
        points += load_timing(path, run_id, spec, seen, floor)
    metrics_path = os.path.join(directory, "metrics.csv")
    metrics = None
    if validate.present(metrics_path):
        metrics = load_metrics(metrics_path, run_id, points)
    sass_path = os.path.join(directory, SASS)
    sass = load_sass(sass_path, run_id, points,
                     manifest.get("status") == "complete") \
        if validate.present(sass_path) else None
    energy_path = os.path.join(directory, ENERGY)
    energy = load_energy(energy_path, run_id, points, (
        manifest.get("energy") or {}).get("windows")) \
        if validate.present(energy_path) else None
    source = ceilings_from or directory
    ceilings_path = os.path.join(source, "ceilings.csv")
    ceilings = None
    if validate.present(ceilings_path):
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
               ceilings_path=ceilings_path if ceilings is not None else None,
               sass=sass, energy=energy)

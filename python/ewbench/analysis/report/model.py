"""The performance model: launch-floor fit, ceilings, bottleneck verdicts.

Everything here is a pure function of its arguments.

Launch-floor fit.  Per series (variant, block, cache, launch) the median
time is
modelled as t = t0 + V / B, V = bytes moved: t0 is the fixed cost of one
launch (the floor no kernel goes under), B the bandwidth of the memory
level that serves the data.  Warm points whose footprint fits in L2 are
served by L2, every other point by DRAM (a cold point's reads come from
DRAM after the flush), so a series that has both gets one shared t0 and two
slopes, B_dram and B_l2; a single-level series gets one slope.  The fit is
least squares on *relative* residuals (each point weighted by 1/t), because
the sizes span three decades and plain least squares would let the largest
size decide t0 alone.  Two slopes need three distinct sizes; with fewer the
fit uses one slope for all points.  An L2 slope resting on a single size
is not reported (that point fits it exactly, whatever it is).  A fit is
used as a launch floor only when it has more points than parameters (three
points and three parameters fit exactly: a zero residual that proves
nothing), a positive intercept and a positive DRAM slope; the others are
kept and reported as not usable, with the reason.

Ceilings.  DRAM: measured (ceilings.csv: dram_add for add, dram_copy for
relu and abs, each falling back to the other) else the theoretical peak
from run.json.  L2: measured l2_read only.  Launch floor (launch_floor):
for a kernel's own duration the measured launch_graph, the GPU's cost of
one launch; for a time from host events launch_stream or launch_graph by
launch mode; else the median usable fitted t0 of the point's cache state
and launch.
Block launch rate: measured block_rate_b<threads> (block_rate_ceiling).
DRAM latency: measured dram_latency alone and dram_latency_load<level>
beside a stream whose bandwidth is its _bandwidth row (loaded_latencies).

Verdict rules, tried in order; the first that fires names the point.
Siblings of a point are the points of the same op, dtype, size, cache
state and launch mode (every variant, peers included).

  launch-bound     at launch scale (cold time <= LAUNCH_FACTOR x the
                   launch floor, or < LAUNCH_ABS_NS without one), warm time
                   above the cold time of the same point by more than the
                   noise (noise.py's rule: the timer saw the GPU wait for
                   the host; at DRAM sizes warm may lose to cold for a real
                   reason, the write-back of the previous launch), or time
                   <= (1 - LAUNCH_BAND) x LAUNCH_FACTOR x launch floor
                   (the fixed cost is at least half the time, beyond the
                   host's drift; within the band: undetermined, said
                   borderline); with no floor known at all, time <
                   LAUNCH_ABS_NS.
  block-launch-bound  grid / the block-launch ceiling at its block size +
                   the launch floor + the measured dram_latency (the last
                   block's loads) >= BLOCK_LAUNCH_SHARE x time, with
                   achieved occupancy < BLOCK_OCCUPANCY_FRACTION x the
                   theoretical where both are measured: launching the
                   kernel and its blocks sets the time, whatever memory
                   serves the data.
  L2-bound         footprint < L2 capacity, and either bandwidth > DRAM
                   ceiling or (counters) DRAM bytes < L2_DRAM_FRACTION x
                   bytes moved: the data came from L2, not DRAM.
  DRAM-bound       bandwidth >= DRAM_FRACTION x DRAM ceiling and >=
                   SIBLING_FRACTION x the best sibling's: a variant far
                   below a sibling that moves the same bytes is not held
                   back by DRAM.  Never for a warm point whose footprint
                   is below L2_DRAM_FRACTION of the L2 unless counters
                   show DRAM moving half its bytes: L2 serves it.
  occupancy-bound  achieved occupancy (theoretical when achieved is not
                   measured) < OCCUPANCY_PCT, and not DRAM-bound.
  latency-bound    loads in flight per SM < (1 - LATENCY_MARGIN) x the low
                   end of what Little's law needs (needed_in_flight: the
                   op's reads at DRAM_FRACTION of the ceiling x the latency
                   measured at that load, latency_at / SMs; without a
                   latency, the fewest a DRAM-bound sibling keeps in
                   flight); or, where that estimate is
                   missing or inside the margin, long-scoreboard stalls
                   >= STALL_DOMINANT of all (metrics/stalls.txt) and above
                   the issue stalls, while the memory system has room:
                   below DRAM_FRACTION of the ceiling, or below
                   SIBLING_FRACTION - SIBLING_BAND of the best sibling.
  issue-bound      issue stalls >= STALL_DOMINANT of all stalls, or bytes
                   moved per issued warp instruction <
                   ISSUE_BYTES_PER_INST and < (1 - ISSUE_BAND) x
                   ISSUE_MARGIN x the fewest
                   of any sibling that is DRAM-bound at the same size (a
                   sibling that reaches the ceiling with about as few bytes
                   per instruction shows that the issue rate is not the
                   limit; with no such sibling nothing shows that it is).
  DRAM-bound       (band) >= DRAM_FRACTION of the ceiling and within
                   SIBLING_BAND below SIBLING_FRACTION of the best sibling,
                   when no rule above fired.
  undetermined     none of the above: the text lists what was measured
                   (DRAM share, best sibling, occupancy, bytes per
                   instruction, loads in flight per SM).

Every verdict carries the rule that fired, with the numbers.
"""

from dataclasses import dataclass, replace
from typing import Optional

import numpy as np

from ..core import compare
from ..core import select as sel
from ..core import validate
from ..core.units import bytes_label, gbps, us

LAUNCH_FACTOR = 2.0
LAUNCH_ABS_NS = 10_000.0
# Within LAUNCH_BAND of LAUNCH_FACTOR x the floor, either side, a point is
# not called launch-bound: a host's stream launch floor (host-event times)
# moves from run to run (2.5-9 % spread within one run on the H100s, 2.8
# to 4.3 us across three H100 hosts), and the GPU-side cost (kernel
# durations) is a floor from empty kernels, short of a real kernel's fixed
# cost by its first loads' latency and last wave's tail.
LAUNCH_BAND = 0.10
L2_DRAM_FRACTION = 0.5
DRAM_FRACTION = 0.80
OCCUPANCY_PCT = 50.0
ISSUE_BYTES_PER_INST = 16.0
SIBLING_FRACTION = 0.90
# A band below SIBLING_FRACTION: a point at 85-90 % of its best sibling
# (and >= DRAM_FRACTION of the ceiling) is DRAM-bound only when no other
# rule explains it, so 89.97 % and 90.4 % no longer get opposite verdicts.
SIBLING_BAND = 0.05
# Latency-bound: bytes in flight per SM short of what Little's law needs
# (bandwidth x latency / SMs) by more than this fraction.
LATENCY_MARGIN = 0.25
# Stall reasons (metrics/stalls.txt) that mean warps wait on memory
# latency, and the share of all stalls they must reach to decide it.
LATENCY_STALLS = ("long_scoreboard",)
ISSUE_STALLS = ("not_selected", "math_pipe_throttle", "dispatch_stall",
                "mio_throttle", "lg_throttle")
STALL_DOMINANT = 0.5
ISSUE_MARGIN = 0.75
# Within ISSUE_BAND of that limit, either side, the point is borderline,
# not issue-bound: the limit rests on which siblings reach the ceiling in
# this run (an H200 relu_f32 at 2^24: 11.1 B against 0.75 x 14.9 = 11.2 B
# in one study, issue-bound; against 0.75 x 14.7 = 11.0 B in the next,
# undetermined).
ISSUE_BAND = 0.05
# Read bytes per launched thread above this mean the thread loops over the
# data, and its loads in flight cannot be told from the totals.
MAX_SINGLE_PASS_READ_BYTES = 64
# Block-launch-bound: its grid at the block-launch ceiling plus one
# launch's cost and one load's round trip is at least BLOCK_LAUNCH_SHARE
# of the time (a floor: the last blocks' stores and tail are not in it,
# so 90 %, not 100 %), and its
# achieved occupancy is below BLOCK_OCCUPANCY_FRACTION of the theoretical
# one (block slots stand empty) where both were measured.  Without a
# measured ceiling, the fastest block rate of the run's grids of at least
# BLOCK_RATE_MIN_GRID blocks stands in when BLOCK_RATE_AGREE points of
# different variants or blocks reach it within BLOCK_RATE_BAND: a shared
# limit, not one kernel's speed.
BLOCK_LAUNCH_SHARE = 0.90
BLOCK_RATE_BAND = 0.05
BLOCK_RATE_MIN_GRID = 1 << 16
BLOCK_OCCUPANCY_FRACTION = 0.75
BLOCK_RATE_AGREE = 2

LAUNCH_BOUND = "launch-bound"
BLOCK_LAUNCH_BOUND = "block-launch-bound"
L2_BOUND = "L2-bound"
DRAM_BOUND = "DRAM-bound"
LATENCY_BOUND = "latency-bound"
OCCUPANCY_BOUND = "occupancy-bound"
ISSUE_BOUND = "issue-bound"
UNKNOWN = "undetermined"
VERDICTS = (LAUNCH_BOUND, L2_BOUND, DRAM_BOUND, BLOCK_LAUNCH_BOUND,
            LATENCY_BOUND, OCCUPANCY_BOUND, ISSUE_BOUND, UNKNOWN)

# Fraction of bytes_moved that is read, per op (add: 2 reads + 1 write;
# relu out of place and abs in place: 1 read + 1 write).
READ_FRACTION = {"add": 2.0 / 3.0, "relu": 0.5, "abs": 0.5}


# launch floor fit

@dataclass(frozen=True)
class LaunchFit:
    t0_ns: float
    bandwidth: Optional[float]      # DRAM-level byte/s; None if slope <= 0
    l2_bandwidth: Optional[float]   # L2-level byte/s; None if not fitted
    points: int
    max_rel_residual: float
    parameters: int = 2
    spec: Optional[float] = None    # the DRAM spec peak, byte/s

    @property
    def unusable_reason(self):
        """Why the fit cannot serve as a launch floor; None when it can."""
        if self.points <= self.parameters:
            return "%d points for %d parameters: an exact fit" % (
                self.points, self.parameters)
        if self.bandwidth is None:
            return "no positive DRAM slope"
        if self.t0_ns <= 0:
            return "negative intercept"
        if self.spec and self.bandwidth > self.spec:
            return ("DRAM slope %s is above the spec peak %s: the times "
                    "miss bytes (cold writes left in L2 and written back "
                    "after the timer stops, docs/metrics.md)" % (
                        gbps(self.bandwidth), gbps(self.spec)))
        return None

    @property
    def usable(self):
        """Good enough to serve as a launch floor."""
        return self.unusable_reason is None

    def predict_ns(self, bytes_moved, in_l2=False):
        bandwidth = self.l2_bandwidth if in_l2 and self.l2_bandwidth \
            else self.bandwidth
        slope = 0.0 if bandwidth is None else 1e9 / bandwidth
        return self.t0_ns + np.asarray(bytes_moved, dtype=float) * slope


def _bandwidth(slope):
    return 1e9 / slope if slope > 0 else None


def fit_launch_model(bytes_moved, times_ns, in_l2=None):
    """Fit t = t0 + V/B on relative residuals, with a second slope for the
    points flagged in_l2 when both levels are present and there are at
    least three distinct V.  None with fewer than two distinct V."""
    v = np.asarray(bytes_moved, dtype=float)
    t = np.asarray(times_ns, dtype=float)
    l2 = np.zeros(len(v), dtype=bool) if in_l2 is None \
        else np.asarray(in_l2, dtype=bool)
    keep = np.isfinite(v) & np.isfinite(t) & (t > 0)
    v, t, l2 = v[keep], t[keep], l2[keep]
    if len(np.unique(v)) < 2:
        return None
    two_levels = l2.any() and (~l2).any() and len(np.unique(v)) >= 3
    if two_levels:
        columns = [np.ones_like(v), np.where(l2, 0.0, v), np.where(l2, v, 0.0)]
    else:
        columns = [np.ones_like(v), v]
    weight = 1.0 / t
    design = np.column_stack(columns) * weight[:, None]
    coef, *_ = np.linalg.lstsq(design, t * weight, rcond=None)
    model = np.column_stack(columns) @ coef
    residual = float(np.max(np.abs(model - t) / t))
    t0 = float(coef[0])
    if two_levels:
        # One L2-level size fits its slope exactly: no evidence, no slope.
        l2_slope = coef[2] if len(np.unique(v[l2])) >= 2 else 0.0
        return LaunchFit(t0, _bandwidth(coef[1]), _bandwidth(l2_slope),
                         int(len(v)), residual, 3)
    if l2.all():
        return LaunchFit(t0, None, _bandwidth(coef[1]), int(len(v)), residual)
    return LaunchFit(t0, _bandwidth(coef[1]), None, int(len(v)), residual)


def series_key(point):
    """The fit series a point belongs to."""
    return (point.variant, point.block, point.cache, point.launch)


def served_by_l2(point, l2_bytes):
    """The fit's level of a point: warm and footprint < L2."""
    return bool(l2_bytes) and point.cache == "warm" and \
        point.footprint_bytes < l2_bytes


def fit_series(points, l2_bytes=None, spec=None):
    """(variant, block, cache, launch) -> LaunchFit for every series that
    has at least two sizes.  spec: the DRAM spec peak (byte/s); a fit whose
    DRAM slope exceeds it is not usable."""
    series = {}
    for p in points:
        series.setdefault(series_key(p), []).append(p)
    fits = {}
    for key, rows in series.items():
        fit = fit_launch_model([p.bytes_moved for p in rows],
                               [p.time_median_ns for p in rows],
                               [served_by_l2(p, l2_bytes) for p in rows])
        if fit is not None:
            fits[key] = replace(fit, spec=spec)
    return fits


# ceilings

@dataclass(frozen=True)
class Bound:
    """A ceiling as used by the analysis, with where it came from."""
    value: float
    source: str
    measured: bool


def dram_ceiling(ceilings, spec_bandwidth, op):
    """Measured DRAM ceiling for op, else the spec peak; None if neither."""
    order = ("dram_add", "dram_copy") if op == "add" else \
        ("dram_copy", "dram_add")
    for name in order:
        if ceilings and name in ceilings and ceilings[name].value > 0:
            return Bound(ceilings[name].value, "measured %s" % name, True)
    return spec_dram(spec_bandwidth)


def spec_dram(spec_bandwidth):
    if spec_bandwidth:
        return Bound(float(spec_bandwidth), "spec (run.json)", False)
    return None


def l2_ceiling(ceilings):
    if ceilings and "l2_read" in ceilings and ceilings["l2_read"].value > 0:
        return Bound(ceilings["l2_read"].value, "measured l2_read", True)
    return None


def measured_launch_floor(ceilings, launch="stream"):
    """The measured launch cost of the launch mode: launch_stream or
    launch_graph; None when not measured."""
    name = "launch_graph" if launch == "graph" else "launch_stream"
    if ceilings and name in ceilings and ceilings[name].value > 0:
        return Bound(ceilings[name].value, "measured %s" % name, True)
    return None


def run_dram_ceiling(run, op):
    return dram_ceiling(run.ceilings, run.spec_dram_bandwidth, op)


def block_rate(point):
    """Blocks launched per second, or None when the grid is not known."""
    if not point.grid or not point.time_median_ns:
        return None
    return point.grid / (point.time_median_ns * 1e-9)


def measured_block_rate(ceilings, block):
    """The measured block launch rate (block/s) for blocks of `block`
    threads (block_rate_b<block>); None where not measured at that size
    or the block size is not known (a peer's launch)."""
    if block is None:
        return None
    name = validate.block_rate_name(block)
    if ceilings and name in ceilings and ceilings[name].value > 0:
        return Bound(ceilings[name].value, "measured %s" % name, True)
    return None


def block_rate_ceiling(run, block=None):
    """The block-launch ceiling (blocks/s) as a Bound: measured for blocks
    of `block` threads (measured_block_rate), else the fastest block rate
    of the run's points with a grid of BLOCK_RATE_MIN_GRID blocks or more
    when BLOCK_RATE_AGREE of them (different variants or blocks) reach it
    within BLOCK_RATE_BAND; else None."""
    if block is not None:
        measured = measured_block_rate(run.ceilings, block)
        if measured is not None:
            return measured
    return _run_block_rate(run)


def _run_block_rate(run):
    rates = [(block_rate(p), p) for p in run.points
             if p.check != "fail" and (p.grid or 0) >= BLOCK_RATE_MIN_GRID]
    rates = [(r, p) for r, p in rates if r]
    if not rates:
        return None
    top = max(r for r, _ in rates)
    near = {(p.variant, p.block) for r, p in rates
            if r >= (1 - BLOCK_RATE_BAND) * top}
    if len(near) < BLOCK_RATE_AGREE:
        return None
    return Bound(top, "the fastest block rate of this run, reached within "
                 "%.0f %% by %s" % (100 * BLOCK_RATE_BAND, ", ".join(
                     sorted("%s@%s" % vb for vb in near))), False)


@dataclass(frozen=True)
class LoadedLatency:
    """The DRAM latency with a stream of `bandwidth` beside the chase."""
    bandwidth: float                    # byte/s read + written; 0: none
    latency: float                      # ns per dependent load
    bandwidth_spread_pct: Optional[float]
    latency_spread_pct: Optional[float]
    source: str                         # the latency's ceiling


def loaded_latencies(ceilings):
    """The measured latency at each load, lightest first: dram_latency at
    no load, then each dram_latency_load<level> with its stream's
    bandwidth (ordered by that bandwidth); () without dram_latency."""
    ceilings = ceilings or {}
    idle = ceilings.get("dram_latency")
    if idle is None:
        return ()
    loaded = []
    for level in validate.LOAD_LEVELS:
        latency = ceilings.get(validate.loaded_latency_name(level))
        stream = ceilings.get(validate.loaded_bandwidth_name(level))
        if latency is not None and stream is not None:
            loaded.append(LoadedLatency(stream.value, latency.value,
                                        stream.spread_pct,
                                        latency.spread_pct, latency.name))
    loaded.sort(key=lambda x: x.bandwidth)
    return (LoadedLatency(0.0, idle.value, None, idle.spread_pct,
                          idle.name),) + tuple(loaded)


@dataclass(frozen=True)
class LatencyAt:
    """The DRAM latency at one bandwidth (latency_at): `latency` read off
    the measured loads, `low`-`high` the range the two measurements around
    it span, each widened by its spread."""
    bandwidth: float        # byte/s read + written
    latency: float          # ns
    low: float
    high: float
    text: str               # how it was got


def _widened(x, sign):
    spread = (x.latency_spread_pct or 0.0) / 100.0
    return x.latency * (1 + sign * spread)


def latency_at(ceilings, bandwidth):
    """The DRAM latency a kernel moving `bandwidth` (read + written) sees,
    from the latencies measured under load (loaded_latencies): linear
    between the two loads whose streams' bandwidths bracket it, the range
    between those two; above the heaviest load its latency, a lower bound
    (the range then open upwards: high = inf).  None without
    dram_latency."""
    curve = loaded_latencies(ceilings)
    if not curve:
        return None
    below = [x for x in curve if x.bandwidth <= bandwidth][-1]
    above = [x for x in curve if x.bandwidth > bandwidth]
    if not above:
        if below.bandwidth == 0.0:
            how = "the unloaded %s (no load measured): a lower bound" % \
                below.source
        else:
            how = "%s (%.0f ns beside %s), the heaviest load measured, " \
                "below this bandwidth: a lower bound" % (
                    below.source, below.latency, gbps(below.bandwidth))
        return LatencyAt(bandwidth, below.latency, _widened(below, -1),
                         float("inf"), how)
    above = above[0]
    share = (bandwidth - below.bandwidth) / \
        (above.bandwidth - below.bandwidth)
    latency = below.latency + share * (above.latency - below.latency)
    return LatencyAt(
        bandwidth, latency, min(_widened(below, -1), _widened(above, -1)),
        max(_widened(below, 1), _widened(above, 1)),
        "%.0f ns between %s (%.0f ns beside %s) and %s (%.0f ns beside "
        "%s)" % (latency, below.source, below.latency,
                 gbps(below.bandwidth), above.source, above.latency,
                 gbps(above.bandwidth)))


# verdicts

@dataclass(frozen=True)
class PointFacts:
    """What the verdict rules look at, for one point."""
    time_ns: float
    bytes_moved: int
    footprint_bytes: int
    bandwidth: float
    l2_bytes: Optional[int] = None
    dram_ceiling: Optional[Bound] = None
    launch_floor_ns: Optional[float] = None
    launch_floor_source: Optional[str] = None
    dram_bytes: Optional[float] = None
    occupancy_pct: Optional[float] = None
    occupancy_kind: str = "achieved"
    bytes_per_inst: Optional[float] = None
    kib_in_flight_per_sm: Optional[float] = None
    cold_time_ns: Optional[float] = None    # warm points slower than their
    #   cold twin beyond the noise: the cold twin's time (else None)
    best_sibling: Optional[str] = None      # fastest sibling's variant
    best_sibling_bandwidth: Optional[float] = None
    full_speed_bytes_per_inst: Optional[float] = None  # lowest of siblings
    #   at this size that are DRAM-bound (None: none is, or no counters)
    full_speed_kib_in_flight: Optional[float] = None   # the fewest of
    #   the DRAM-bound siblings whose loads in flight are known
    full_speed_sibling: Optional[str] = None
    needed_kib_in_flight: Optional[float] = None  # Little's law, per SM
    needed_kib_range: Optional[tuple] = None      # (low, high) of it
    needed_source: str = ""
    stalls: tuple = ()      # ((reason, % of active warps), ...), largest
    #                         first (metrics/stalls.txt)
    grid: Optional[int] = None
    block_rate: Optional[float] = None      # blocks/s
    block_rate_ceiling: Optional[Bound] = None
    theoretical_occupancy_pct: Optional[float] = None
    cache: Optional[str] = None             # warm | cold; None: not known
    load_latency_ns: Optional[float] = None  # measured dram_latency

    def stall_share(self, reasons):
        """The share of all stall cycles spent on these reasons, or None
        without stall counters.  All = the reasons measured (a reason the
        chip lacks is absent, not 0): their shares sum to 1."""
        total = sum(v for _, v in self.stalls)
        if not total:
            return None
        return sum(v for r, v in self.stalls if r in reasons) / total

    @property
    def stall_text(self):
        return "top warp stalls, in %% of active warps: %s" % ", ".join(
            "%s %.0f%%" % (r, v) for r, v in self.stalls[:3]) \
            if self.stalls else ""

    @property
    def dram_pct(self):
        if self.dram_ceiling is None:
            return None
        return 100.0 * self.bandwidth / self.dram_ceiling.value

    @property
    def sibling_share(self):
        """Bandwidth as a fraction of the best sibling's, or None."""
        if not self.best_sibling_bandwidth:
            return None
        return self.bandwidth / self.best_sibling_bandwidth


@dataclass(frozen=True)
class Verdict:
    name: str
    rule: str


def _dram_text(f):
    if f.dram_ceiling is None:
        return "no DRAM ceiling known"
    return "bandwidth %s = %.0f%% of DRAM ceiling %s (%s)" % (
        gbps(f.bandwidth), f.dram_pct, gbps(f.dram_ceiling.value),
        f.dram_ceiling.source)


def _sibling_text(f):
    if f.sibling_share is None or f.best_sibling is None:
        return None
    return "%.0f%% of the best sibling %s (%s)" % (
        100 * f.sibling_share, f.best_sibling,
        gbps(f.best_sibling_bandwidth))


def _occupancy_text(f):
    if f.occupancy_pct is None:
        return None
    return "%s occupancy %.0f%%" % (f.occupancy_kind, f.occupancy_pct)


def _need_text(f):
    """The loads in flight Little's law needs, with its range."""
    text = "%.0f KiB" % f.needed_kib_in_flight
    if f.needed_kib_range:
        low, high = f.needed_kib_range
        text += " (%.0f-%s KiB)" % (low, "%.0f" % high if high < float(
            "inf") else "more")
    return text + " needed to cover DRAM latency: " + f.needed_source


def _in_flight_text(f):
    """Loads in flight per SM, with a sibling's at the ceiling when known;
    None without an estimate."""
    if f.kib_in_flight_per_sm is None:
        return None
    text = "about %.0f KiB of loads in flight per SM" % f.kib_in_flight_per_sm
    if f.full_speed_kib_in_flight is not None:
        text += " (%s at the ceiling: %.0f KiB)" % (
            f.full_speed_sibling, f.full_speed_kib_in_flight)
    return text


def rule_launch(f):
    if f.cold_time_ns:
        return Verdict(LAUNCH_BOUND, "warm %s µs > cold %s µs beyond the "
                       "noise: the timer saw the GPU wait for the host's "
                       "launch (a host-timing artefact, not a kernel "
                       "limit)" % (us(f.time_ns), us(f.cold_time_ns)))
    if f.launch_floor_ns is not None and f.launch_floor_ns > 0:
        if f.time_ns <= (1 - LAUNCH_BAND) * LAUNCH_FACTOR * f.launch_floor_ns:
            return Verdict(LAUNCH_BOUND, "time %s µs <= %.0f%% of %.1f x "
                           "launch floor %s µs (%s)" % (
                               us(f.time_ns), 100 * (1 - LAUNCH_BAND),
                               LAUNCH_FACTOR, us(f.launch_floor_ns),
                               f.launch_floor_source))
        return None
    if f.time_ns < LAUNCH_ABS_NS:
        return Verdict(LAUNCH_BOUND, "time %s µs < %s µs and no launch "
                       "floor known" % (us(f.time_ns), us(LAUNCH_ABS_NS)))
    return None


def rule_l2(f):
    if f.l2_bytes is None or f.footprint_bytes >= f.l2_bytes:
        return None
    fits = "footprint %s < L2 %s" % (bytes_label(f.footprint_bytes),
                                     bytes_label(f.l2_bytes))
    if f.dram_ceiling is not None and f.bandwidth > f.dram_ceiling.value:
        return Verdict(L2_BOUND, "%s and bandwidth %s > DRAM ceiling %s "
                       "(%s)" % (fits, gbps(f.bandwidth),
                                 gbps(f.dram_ceiling.value),
                                 f.dram_ceiling.source))
    if f.dram_bytes is not None and \
            f.dram_bytes < L2_DRAM_FRACTION * f.bytes_moved:
        return Verdict(L2_BOUND, "%s and DRAM bytes %s = %.0f%% of bytes "
                       "moved (< %.0f%%)" % (
                           fits, bytes_label(f.dram_bytes),
                           100.0 * f.dram_bytes / f.bytes_moved,
                           100.0 * L2_DRAM_FRACTION))
    return None


def _served_by_l2(f):
    """A warm point whose data sits well inside the L2 (footprint <
    L2_DRAM_FRACTION x L2, below any effective L2 finding 2 has seen) and
    no counter says DRAM moved half its bytes: DRAM cannot be what bounds
    it, whatever its bandwidth."""
    return f.cache == "warm" and f.l2_bytes is not None and \
        f.footprint_bytes < L2_DRAM_FRACTION * f.l2_bytes and \
        (f.dram_bytes is None or
         f.dram_bytes < L2_DRAM_FRACTION * f.bytes_moved)


def rule_dram(f):
    if f.dram_ceiling is None or _served_by_l2(f):
        return None
    if f.bandwidth < DRAM_FRACTION * f.dram_ceiling.value:
        return None
    share = f.sibling_share
    if share is not None and share < SIBLING_FRACTION:
        return None
    sibling = _sibling_text(f)
    return Verdict(DRAM_BOUND, "%s >= %.0f%%%s" % (
        _dram_text(f), 100 * DRAM_FRACTION,
        "; " + sibling if sibling and share < 1 else ""))


def rule_latency(f):
    """Little's law: to sustain bandwidth B against a latency L a GPU needs
    B x L bytes in flight, B x L / SMs per SM.  Fires when the point keeps
    less than (1 - LATENCY_MARGIN) of that in flight.  Where that estimate
    is missing or inside the margin, the stall counters decide: warps
    waiting mostly on global loads' results (long scoreboard, not issue
    limits) while the memory system has room for more (below
    DRAM_FRACTION of the ceiling, or clearly below a sibling that moves
    the same bytes) keep too few loads in flight to cover its latency.
    Waiting on loads alone decides nothing: a DRAM-bound kernel waits on
    them too."""
    need, have = f.needed_kib_in_flight, f.kib_in_flight_per_sm
    # Short of even the low end of the need's range: the latency
    # measurements around the load cannot explain the shortfall away.
    low = f.needed_kib_range[0] if f.needed_kib_range else need
    if need is not None and have is not None and \
            have < (1 - LATENCY_MARGIN) * low:
        parts = ["about %.0f KiB of loads in flight per SM < %.0f%% of the "
                 "%s" % (have, 100 * (1 - LATENCY_MARGIN), _need_text(f)),
                 _dram_text(f)]
        if _occupancy_text(f):
            parts.append(_occupancy_text(f))
        if f.stall_text:
            parts.append(f.stall_text)
        return Verdict(LATENCY_BOUND, "; ".join(parts))
    waits = f.stall_share(LATENCY_STALLS)
    if waits is None or waits < STALL_DOMINANT or \
            f.stall_share(ISSUE_STALLS) >= waits:
        return None
    room = []
    if f.dram_ceiling is not None and \
            f.bandwidth < DRAM_FRACTION * f.dram_ceiling.value:
        room.append(_dram_text(f) + " (< %.0f%%)" % (100 * DRAM_FRACTION))
    share = f.sibling_share
    if share is not None and share < SIBLING_FRACTION - SIBLING_BAND:
        room.append(_sibling_text(f))
    if not room:
        return None
    parts = ["%.0f%% of warp stalls wait on a global load's result (long "
             "scoreboard) while the memory system has room for more (%s): "
             "too few loads in flight to cover its latency" % (
                 100 * waits, "; ".join(room))]
    parts += [x for x in (_in_flight_text(f), _occupancy_text(f)) if x]
    if f.needed_kib_in_flight is not None and \
            f.kib_in_flight_per_sm is not None:
        # Little's law did not decide it: say how close it came.
        parts.append("Little's law alone does not decide it: %s" %
                     _need_text(f))
    parts.append(f.stall_text)
    return Verdict(LATENCY_BOUND, "; ".join(parts))


def rule_dram_band(f):
    """DRAM-bound inside the band below SIBLING_FRACTION, when no other
    rule explained the point."""
    share = f.sibling_share
    if f.dram_ceiling is None or share is None or _served_by_l2(f) or \
            f.bandwidth < DRAM_FRACTION * f.dram_ceiling.value or \
            share < SIBLING_FRACTION - SIBLING_BAND:
        return None
    return Verdict(DRAM_BOUND, "%s >= %.0f%%; %s, inside the %.0f%% band "
                   "below %.0f%% and no other rule fires" % (
                       _dram_text(f), 100 * DRAM_FRACTION, _sibling_text(f),
                       100 * SIBLING_BAND, 100 * SIBLING_FRACTION))


def rule_block_launch(f):
    """Launching the kernel and its blocks takes about all of its time:
    one launch's cost, the grid at the block-launch ceiling of its block
    size, and one load's round trip (the last block's loads return before
    its stores; measured dram_latency, at least an L2 hit's) come to
    BLOCK_LAUNCH_SHARE of the time or more, with block slots empty where
    both occupancies were measured.  Whatever the memory level, the time
    cannot go below it; more work per block (fewer blocks) lifts it."""
    c = f.block_rate_ceiling
    if c is None or not f.grid or not f.time_ns:
        return None
    blocks_ns = f.grid / c.value * 1e9
    fixed = f.launch_floor_ns or 0.0
    load = f.load_latency_ns or 0.0
    cost = fixed + blocks_ns + load
    if cost < BLOCK_LAUNCH_SHARE * f.time_ns:
        return None
    gap = None
    if f.occupancy_kind == "achieved" and f.occupancy_pct is not None and \
            f.theoretical_occupancy_pct:
        if f.occupancy_pct >= BLOCK_OCCUPANCY_FRACTION * \
                f.theoretical_occupancy_pct:
            return None
        gap = "achieved occupancy %.0f%% of a theoretical %.0f%%: block " \
            "slots stand empty" % (f.occupancy_pct,
                                   f.theoretical_occupancy_pct)
    extra = ["one launch's %s µs (%s)" % (us(fixed), f.launch_floor_source)
             if fixed else "",
             "one load's %s µs (measured dram_latency)" % us(load)
             if load else ""]
    extra = [x for x in extra if x]
    parts = ["%d blocks at the block-launch ceiling %.2f blocks/ns (%s) "
             "take %s µs%s: %.0f%% of its %s µs" % (
                 f.grid, c.value * 1e-9, c.source, us(blocks_ns),
                 ", with " + " and ".join(extra) if extra else "",
                 100 * cost / f.time_ns, us(f.time_ns))]
    if gap:
        parts.append(gap)
    parts.append(_dram_text(f))
    parts.append("more work per block (fewer blocks) lifts it")
    return Verdict(BLOCK_LAUNCH_BOUND, "; ".join(p for p in parts if p))


def rule_occupancy(f):
    if f.occupancy_pct is None or f.occupancy_pct >= OCCUPANCY_PCT:
        return None
    parts = ["%s occupancy %.0f%% < %.0f%%" % (
        f.occupancy_kind, f.occupancy_pct, OCCUPANCY_PCT), _dram_text(f)]
    if _sibling_text(f):
        parts.append(_sibling_text(f))
    if f.kib_in_flight_per_sm is not None:
        parts.append("about %.0f KiB of loads in flight per SM%s" % (
            f.kib_in_flight_per_sm, " (%s)" % _need_text(f)
            if f.needed_kib_in_flight is not None else ""))
    return Verdict(OCCUPANCY_BOUND, "; ".join(parts))


def rule_issue(f):
    issue = f.stall_share(ISSUE_STALLS)
    if issue is not None and issue >= STALL_DOMINANT and \
            f.stall_share(LATENCY_STALLS) < issue:
        return Verdict(ISSUE_BOUND, "%.0f%% of warp stalls are issue "
                       "limits (not selected, pipe or queue throttles, "
                       "dispatch); %s; %s" % (100 * issue, _dram_text(f),
                                               f.stall_text))
    if f.bytes_per_inst is None or f.bytes_per_inst >= ISSUE_BYTES_PER_INST:
        return None
    full = f.full_speed_bytes_per_inst
    if full is None or \
            f.bytes_per_inst >= (1 - ISSUE_BAND) * ISSUE_MARGIN * full:
        return None
    return Verdict(ISSUE_BOUND, "%.1f bytes moved per issued warp "
                   "instruction < %.0f and < %.0f%% of the %.1f of the "
                   "leanest sibling that reached the DRAM ceiling; %s" % (
                       f.bytes_per_inst, ISSUE_BYTES_PER_INST,
                       100 * ISSUE_MARGIN, full, _dram_text(f)))


def _near_launch_limit(f):
    """Text for a time within LAUNCH_BAND of the launch rule's limit."""
    if not f.launch_floor_ns or f.cold_time_ns:
        return None
    limit = LAUNCH_FACTOR * f.launch_floor_ns
    if abs(f.time_ns / limit - 1) >= LAUNCH_BAND:
        return None
    return ("borderline launch-bound: time %s µs within %.0f%% of %.1f x "
            "the launch floor %s µs (%s), which moves with the host" % (
                us(f.time_ns), 100 * LAUNCH_BAND, LAUNCH_FACTOR,
                us(f.launch_floor_ns), f.launch_floor_source))


def rule_fallback(f):
    parts = [x for x in (_near_launch_limit(f),) if x] + [_dram_text(f)]
    if _sibling_text(f):
        parts.append(_sibling_text(f))
    if _occupancy_text(f):
        parts.append(_occupancy_text(f))
    if f.bytes_per_inst is not None:
        text = "%.1f B per issued instruction" % f.bytes_per_inst
        full = f.full_speed_bytes_per_inst
        if full is not None and f.bytes_per_inst >= full:
            text += " (a sibling reaches the ceiling with %.1f)" % full
        elif full is not None and f.bytes_per_inst < ISSUE_BYTES_PER_INST \
                and abs(f.bytes_per_inst / (ISSUE_MARGIN * full) - 1) < \
                ISSUE_BAND:
            text += " (borderline issue-bound: within %.0f%% of %.0f%% of " \
                "the %.1f of the leanest sibling at the ceiling, the " \
                "issue rule's limit; which siblings reach the ceiling " \
                "moves it from run to run)" % (
                    100 * ISSUE_BAND, 100 * ISSUE_MARGIN, full)
        parts.append(text)
    if _in_flight_text(f):
        parts.append(_in_flight_text(f))
    if f.stall_text:
        parts.append(f.stall_text)
    return Verdict(UNKNOWN, "no rule separates the causes; measured: " +
                   "; ".join(parts) + ". " + (
                       "" if f.stalls else TO_DECIDE))


# What would decide an undetermined point (metrics/stalls.txt).
TO_DECIDE = ("To decide: its warp stall reasons (`--metrics stalls`): "
             "long-scoreboard stalls dominating mean memory latency not "
             "covered, math-pipe or not-selected stalls mean issue limits, "
             "and `ewbench ceilings` with `dram_latency` for Little's law")


# Occupancy before latency: too few resident warps is the cause of too few
# bytes in flight, and the one to fix; its text gives Little's law too.
RULES = (rule_launch, rule_block_launch, rule_l2, rule_dram,
         rule_occupancy, rule_latency, rule_issue, rule_dram_band)


def classify(facts):
    """The first rule of RULES that fires, else undetermined."""
    for rule in RULES:
        verdict = rule(facts)
        if verdict is not None:
            return verdict
    return rule_fallback(facts)


# facts from a run

def kib_in_flight_per_sm(point, occupancy_pct, max_threads_per_sm):
    """Loads in flight per SM if every resident thread has all its loads
    outstanding at once: read bytes per thread x resident threads.  None
    when the shape is unknown or the threads loop over the data."""
    if not point.grid or not point.block or occupancy_pct is None \
            or not max_threads_per_sm:
        return None
    read = point.bytes_moved * READ_FRACTION.get(point.op, 0.5)
    per_thread = read / (point.grid * point.block)
    if per_thread > MAX_SINGLE_PASS_READ_BYTES:
        return None
    resident = occupancy_pct / 100.0 * max_threads_per_sm
    return per_thread * resident / 1024.0


def fitted_launch_floor(fits, cache, launch=None):
    """(ns, source): median t0 over the usable fits of one cache state (and
    launch mode, when given).  The launch cost belongs to the device, not
    to a kernel, and one series' intercept is noisy, so every series
    shares the median."""
    t0s = sorted(f.t0_ns for (_, _, c, l), f in fits.items()
                 if c == cache and (launch is None or l == launch)
                 and f.usable)
    if not t0s:
        return None, None
    return float(np.median(t0s)), "median fitted t0 of %d %s series" % (
        len(t0s), cache)


def launch_floor(run, point, fits):
    """(ns, source): the cost of one launch, or (None, None).  A kernel's
    own duration (time_source "kernel") holds no host: the GPU's cost, the
    measured launch_graph (empty kernels back to back inside a graph, no
    host between them), whatever its launch mode.  A time from host events
    holds the host's launch path: the measured launch_stream or
    launch_graph of its launch mode.  Else the median fitted t0 of its
    cache state and launch mode."""
    mode = "graph" if point.time_source == "kernel" else point.launch
    measured = measured_launch_floor(run.ceilings, mode)
    if measured is not None:
        return measured.value, measured.source
    return fitted_launch_floor(fits, point.cache, point.launch)


def occupancy(run, point):
    """(pct, kind): achieved when measured, else theoretical, else None."""
    achieved = sel.metric(run, point, sel.M_OCCUPANCY)
    if achieved is not None:
        return achieved, "achieved"
    theoretical = sel.metric(run, point, sel.M_THEORETICAL_OCCUPANCY)
    if theoretical is not None:
        return theoretical, "theoretical"
    return None, "achieved"


def sibling_key(point):
    """Points that move the same bytes under the same conditions."""
    return (point.op, point.dtype, point.n, point.cache, point.launch)


def _siblings(run):
    """sibling key -> points with a passing (or unknown) check."""
    out = {}
    for p in run.points:
        if p.check != "fail" and p.bandwidth:
            out.setdefault(sibling_key(p), []).append(p)
    return out


def point_facts(run, point, fits, siblings=None, cold=None,
                block_ceiling=None):
    """The facts of one point; siblings (from _siblings), cold (warm
    point key -> cold twin) and block_ceiling (block_rate_ceiling) are
    computed once per run by classify_run."""
    floor_ns, floor_source = launch_floor(run, point, fits)
    occ, occ_kind = occupancy(run, point)
    dram = run_dram_ceiling(run, point.op)
    best = None
    full_bpi = full_kib = full_name = None
    max_threads = run.device.get("max_threads_per_sm")
    if siblings is not None:
        group = siblings.get(sibling_key(point), [])
        if group:
            best = max(group, key=lambda p: p.bandwidth)
        if dram is not None:
            top = best.bandwidth if best else 0.0
            full = [p for p in group
                    if p.bandwidth >= DRAM_FRACTION * dram.value and
                    p.bandwidth >= SIBLING_FRACTION * top]
            bpis = [v for v in (sel.metric(run, p, sel.M_BYTES_PER_INST)
                                for p in full) if v is not None]
            full_bpi = min(bpis) if bpis else None
            # The leanest sibling at the ceiling: the fewest bytes in
            # flight this run shows to be enough.
            for p in full:
                kib = kib_in_flight_per_sm(p, occupancy(run, p)[0],
                                           max_threads)
                if kib is not None and (full_kib is None or kib < full_kib):
                    full_kib, full_name = kib, p.variant
    need, need_range, need_source = needed_in_flight(
        run, dram, point.op, full_kib, full_name)
    twin = (cold or {}).get(point.key) if point.cache == "warm" else None
    if twin is not None and not _host_artefact(point, twin, floor_ns):
        twin = None
    return PointFacts(
        time_ns=point.time_median_ns,
        bytes_moved=point.bytes_moved,
        footprint_bytes=point.footprint_bytes,
        bandwidth=point.bandwidth,
        l2_bytes=run.l2_bytes,
        dram_ceiling=dram,
        launch_floor_ns=floor_ns,
        launch_floor_source=floor_source,
        dram_bytes=sel.dram_bytes(run, point),
        occupancy_pct=occ,
        occupancy_kind=occ_kind,
        bytes_per_inst=sel.metric(run, point, sel.M_BYTES_PER_INST),
        kib_in_flight_per_sm=kib_in_flight_per_sm(point, occ, max_threads),
        cold_time_ns=twin.time_median_ns if twin else None,
        best_sibling=best.variant if best else None,
        best_sibling_bandwidth=best.bandwidth if best else None,
        full_speed_bytes_per_inst=full_bpi,
        full_speed_kib_in_flight=full_kib,
        full_speed_sibling=full_name,
        needed_kib_in_flight=need,
        needed_kib_range=need_range,
        needed_source=need_source,
        stalls=tuple(sel.stall_shares(run, point)),
        grid=point.grid,
        block_rate=block_rate(point),
        block_rate_ceiling=block_ceiling,
        theoretical_occupancy_pct=sel.metric(
            run, point, sel.M_THEORETICAL_OCCUPANCY),
        cache=point.cache,
        load_latency_ns=_idle_latency(run))


def _idle_latency(run):
    latency = (run.ceilings or {}).get("dram_latency")
    return latency.value if latency is not None else None


def needed_in_flight(run, dram, op, full_kib=None, full_name=None):
    """(KiB per SM, (low, high), how it was got) of loads a kernel of `op`
    must keep in flight to be DRAM-bound (DRAM_FRACTION of the ceiling):
    Little's law, its reads at that bandwidth x the latency measured at
    that load (latency_at) / SMs; else what the fastest sibling at the
    ceiling keeps in flight (no range); (None, None, "") when neither is
    known.  Writes are posted and need no load in flight: only the op's
    read share counts, as in kib_in_flight_per_sm."""
    sms = run.device.get("sm_count")
    target = DRAM_FRACTION * dram.value if dram is not None else None
    at = latency_at(run.ceilings, target) if target else None
    if at is not None and sms:
        read = READ_FRACTION.get(op, 0.5) * target
        kib = read * 1e-9 / sms / 1024.0
        return kib * at.latency, (kib * at.low, kib * at.high), \
            "Little's law: reads of %.0f %% of %s (%s) x %s / %d SMs" % (
                100 * DRAM_FRACTION, gbps(dram.value), gbps(read), at.text,
                sms)
    if full_kib is not None:
        return full_kib, None, "no latency measured: the fewest any " \
            "sibling at the ceiling keeps, %s's" % full_name
    return None, None, ""


def cold_twins(points):
    """warm point key -> the cold point of the same variant, n, block and
    launch."""
    cold = {(p.variant, p.n, p.block, p.launch): p for p in points
            if p.cache == "cold"}
    return {p.key: cold[(p.variant, p.n, p.block, p.launch)]
            for p in points if p.cache == "warm" and
            (p.variant, p.n, p.block, p.launch) in cold}


def _host_artefact(warm, cold, floor_ns):
    """At launch scale, warm slower than cold beyond the noise
    (noise.py's rule, as compare applies it), on host-side timers only:
    a kernel's own duration has no host in it."""
    if warm.time_source == "kernel":
        return False
    scale = LAUNCH_FACTOR * floor_ns if floor_ns else LAUNCH_ABS_NS
    return cold.time_median_ns <= scale and \
        compare.compare_points(cold, warm).flag == compare.SLOWER


def warm_slower_kernels(run):
    """[(warm, cold)] of kernel-timed points whose warm duration exceeds
    the cold one beyond the noise: no timer artefact, the L2 at work (a
    warm launch can find earlier output dirty in L2 and write it back
    while it runs; a cold one starts after a read-only flush)."""
    twins = cold_twins(run.points)
    return [(p, twins[p.key]) for p in run.points
            if p.key in twins and p.time_source == "kernel" and
            compare.compare_points(twins[p.key], p).flag == compare.SLOWER]


def warm_slower_than_cold(run, fits=None):
    """Warm points of a run slower than their cold twin beyond the noise,
    at launch scale: a warm launch never loses to a flushed one there, so
    the timer saw the GPU wait for the host."""
    if fits is None:
        fits = fit_series(run.points, run.l2_bytes,
                          run.spec_dram_bandwidth)
    twins = cold_twins(run.points)
    return [p for p in run.points if p.key in twins and _host_artefact(
        p, twins[p.key], launch_floor(run, p, fits)[0])]


def classify_run(run, fits=None):
    """[(point, Verdict)] for every point of the run, in file order."""
    if fits is None:
        fits = fit_series(run.points, run.l2_bytes,
                          run.spec_dram_bandwidth)
    siblings = _siblings(run)
    cold = cold_twins(run.points)
    run_rate = _run_block_rate(run)
    return [(p, classify(point_facts(
        run, p, fits, siblings, cold,
        measured_block_rate(run.ceilings, p.block) or run_rate)))
        for p in run.points]


def pct_of(value, bound):
    if value is None or bound is None or bound.value <= 0:
        return None
    return 100.0 * value / bound.value


# rows above a measured ceiling

# A kernel that writes all its output to DRAM inside its timed window may
# still beat the op's measured ceiling by this much: the ceiling is one
# kernel's median (ceilings.md), not the memory's limit.
CEILING_BEATEN_PCT = 3.0

WRITES_IN_L2 = "writes left in L2"
BEATS_CEILING = "beats the ceiling's kernel"
UNEXPLAINED = "not explained"


@dataclass(frozen=True)
class AboveCeiling:
    point: object
    share: float            # bandwidth / the op's measured DRAM ceiling
    written: Optional[float]  # DRAM write bytes / the output's bytes
    kind: str               # WRITES_IN_L2, BEATS_CEILING or UNEXPLAINED
    reason: str

    @property
    def explained(self):
        return self.kind != UNEXPLAINED


def above_dram_ceiling(run, floor):
    """Every point not served by L2 (cold, or a footprint above the L2)
    whose bandwidth exceeds the op's measured DRAM ceiling by more than
    the noise.Floor floor at its time, with its explanation from the counters: DRAM write bytes
    inside the timed window below the output's bytes mean the writes were
    left in L2 and written back after the timer stopped (docs/metrics.md,
    "Where the writes land"); all of the output written inside the window
    and at most CEILING_BEATEN_PCT % above the ceiling mean the kernel
    streams DRAM faster than the ceiling's own kernel; otherwise (more
    than that, or no write counter) it is flagged unexplained."""
    out = []
    for p in run.points:
        bound = run_dram_ceiling(run, p.op)
        if bound is None or not bound.measured or \
                served_by_l2(p, run.l2_bytes) or \
                p.bandwidth <= bound.value * (
                    1 + floor.pct_at(p.time_median_ns) / 100.0):
            continue
        output = p.bytes_moved * (1.0 - READ_FRACTION.get(p.op, 0.5))
        writes = sel.metric(run, p, sel.M_DRAM_WRITE)
        written = writes / output if writes is not None and output else None
        share = p.bandwidth / bound.value
        if written is not None and written < 1.0 / share:
            out.append(AboveCeiling(p, share, written, WRITES_IN_L2, (
                "%.0f%% of its output written to DRAM in the window" % (
                    100 * written))))
        elif written is not None and \
                share <= 1 + CEILING_BEATEN_PCT / 100.0:
            out.append(AboveCeiling(p, share, written, BEATS_CEILING, (
                "%.0f%% of its output written to DRAM in the window: it "
                "streams DRAM %.1f%% faster than the ceiling's kernel" % (
                    100 * written, 100 * (share - 1)))))
        elif written is not None:
            out.append(AboveCeiling(p, share, written, UNEXPLAINED, (
                "%.0f%% of its output written to DRAM in the window, "
                "%.1f%% above the ceiling: the counters do not explain "
                "it" % (100 * written, 100 * (share - 1)))))
        else:
            out.append(AboveCeiling(p, share, None, UNEXPLAINED,
                                    "no DRAM write counter to explain it"))
    return out

"""The ceilings a point is held against, with where each came from.

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
"""

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...core import validate
from ...core.units import gbps
from .rules import (BLOCK_RATE_AGREE, BLOCK_RATE_BAND, BLOCK_RATE_MIN_GRID,
                    DRAM_FRACTION, READ_FRACTION)


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
    return measured_block_rate(run.ceilings, block) or _run_block_rate(run)


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


def pct_of(value, bound):
    if value is None or bound is None or bound.value <= 0:
        return None
    return 100.0 * value / bound.value

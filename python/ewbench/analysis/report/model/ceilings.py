"""The ceilings a point is held against, with where each came from.

Ceilings.  DRAM: measured (ceilings.csv: dram_add for add, dram_copy for
relu and abs, each falling back to the other) else the theoretical peak
from run.json.  L2: measured l2_read only.  Launch floor (launch_floor):
for a kernel's own duration the measured launch_graph, the GPU's cost of
one launch; for a time from host events launch_stream or launch_graph by
launch mode; else the median usable fitted t0 of the point's cache state
and launch.
Stream fixed cost: measured dram_add_fixed_cost, the t0 of one streaming
launch (stream_fixed_cost).
Block launch rate: measured block_rate_b<threads> (block_rate_ceiling).
DRAM latency: measured dram_latency, unloaded (one load's round trip).
What loads in flight allow: the concurrency curve (curve.py).
"""

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...core import validate
from ...core.units import gbps
from .thresholds import BLOCK_RATE_AGREE, BLOCK_RATE_BAND, BLOCK_RATE_MIN_GRID


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


def stream_fixed_cost(ceilings):
    """The measured fixed cost (ns) of one launch of a kernel streaming
    from DRAM, as a Bound: dram_add_fixed_cost, the t0 of dram_add's
    t = t0 + bytes / dram_add (its launches over arrays 1/8 of its own,
    back to back in a graph, against its rate: the launch, the first
    loads' round trip, the ramp of its blocks and the drain of its last
    stores); None where not measured."""
    found = (ceilings or {}).get("dram_add_fixed_cost")
    if found is None or not found.value > 0:
        return None
    return Bound(found.value, "measured dram_add_fixed_cost", True)


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
    return measured_block_rate(run.ceilings, block) or run_block_rate(run)


def run_block_rate(run):
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
    own duration (time_source "kernel" or "replay") holds no host: the
    GPU's cost, the measured launch_graph (empty kernels back to back
    inside a graph, no host between them), whatever its launch mode.  A time from host events
    holds the host's launch path: the measured launch_stream or
    launch_graph of its launch mode.  Else the median fitted t0 of its
    cache state and launch mode."""
    mode = "graph" if point.kernel_timed else point.launch
    measured = measured_launch_floor(run.ceilings, mode)
    if measured is not None:
        return measured.value, measured.source
    return fitted_launch_floor(fits, point.cache, point.launch)


def idle_latency(run):
    latency = (run.ceilings or {}).get("dram_latency")
    return latency.value if latency is not None else None


def pct_of(value, bound):
    if value is None or bound is None or bound.value <= 0:
        return None
    return 100.0 * value / bound.value

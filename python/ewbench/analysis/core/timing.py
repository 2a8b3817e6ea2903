"""The time of a kernel and its uncertainty: the one place every verdict
reads it from (docs/analysis.md, "The time of a kernel").

A row's time is a median with a 95 % confidence interval of that median:

  kernel   (schema 2, time_source "kernel") the median of the GPU's own
           start/end of each launch (CUPTI activity records), its CI from
           time_ci_low_ns / time_ci_high_ns as ewbench measured it;
  replay   (schema 2, time_source "replay": warm points since
           2026-11-29) the median over replays of a graph of the point's
           launches, the kernel records paused, an event pair around each
           replay, per launch: back-to-back kernels nothing instruments,
           with the CI the row records;
  batch    (schema 2, time_source "batch", --no-cupti) CUDA events around
           a whole batch, per launch: the kernel plus whatever gap the
           launch left, with the CI the row records;
  events   (schema 1, empty time_source: the OLD protocol) a CUDA event
           pair around each launch, host launch path included.  Its CI is
           estimated from the spread: the median of m samples has a
           standard error of about sqrt(pi/2) x sd / sqrt(m), so the 95 %
           CI is the median +- 1.96 x that, with sd the per-sample
           standard deviation (or (max - min) / 4) and m = iters divided by
           the launches behind one sample.  Rows without a spread get no
           interval (a zero-width one): the run-to-run floor alone then
           separates them;
  counter  (schema 1, when asked for a kernel's own duration) the
           profiler's gpu__time_duration.sum of the point (metrics.csv),
           one replayed launch: a kernel duration without a CI.

`kernel_time(point)` gives the row's own number; `kernel_time(point, run)`
prefers, for schema-1 rows, the profiler's kernel duration, because an
event pair around a few-µs kernel times the host (issue 21).  Peers: a
PyTorch row is a kernel only by a kernel duration (schema 2 "kernel", or
the counter); its event time is its Python launch path (`is_kernel`).
"""

import math
from dataclasses import dataclass
from typing import Optional

from . import noise
from . import select as sel

KERNEL = "kernel"
REPLAY = "replay"
BATCH = "batch"
EVENTS = "events"
COUNTER = "counter"
SOURCE_LABELS = {
    KERNEL: "kernel duration (CUPTI activity), median and 95 % CI",
    REPLAY: "per launch of an uninstrumented graph replay, median and "
            "95 % CI",
    BATCH: "batch events per launch, median and 95 % CI",
    EVENTS: "per-launch event pair (schema 1, old protocol: host launch "
            "path included), CI estimated from the spread",
    COUNTER: "profiler kernel duration gpu__time_duration.sum (one "
             "replayed launch, no CI)",
}
Z95 = 1.96
MEDIAN_SE = math.sqrt(math.pi / 2.0)    # s.e. of a median / s.e. of a mean


@dataclass(frozen=True)
class KernelTime:
    median_ns: float
    low_ns: float           # 95 % CI of the median
    high_ns: float
    source: str             # KERNEL, REPLAY, BATCH, EVENTS or COUNTER

    @property
    def half_width_pct(self):
        """The larger half of the CI, in % of the median."""
        return 100.0 * max(self.high_ns - self.median_ns,
                           self.median_ns - self.low_ns) / self.median_ns

    @property
    def label(self):
        return SOURCE_LABELS[self.source]

    def widened(self, floor):
        """(low, high) widened on each side by the noise.Floor at this
        median."""
        pad = floor.ns(self.median_ns)
        return self.low_ns - pad, self.high_ns + pad


def samples(point):
    """Timing samples behind a row's median: a warm graph row's sample is
    one replay of iters / launches_per_sample launches."""
    return max(1, point.iters // point.launches_per_sample)


def _estimated_ci(point):
    """Schema 1: median +- 1.96 x sqrt(pi/2) x sd / sqrt(m)."""
    sd = noise.sample_sd_ns(point) or 0.0
    half = Z95 * MEDIAN_SE * sd / math.sqrt(samples(point))
    return point.time_median_ns - half, point.time_median_ns + half


def row_time(point):
    """The row's own time with its CI (never the profiler's)."""
    m = point.time_median_ns
    if point.time_source in (KERNEL, REPLAY, BATCH):
        low = point.time_ci_low_ns if point.time_ci_low_ns is not None \
            else m
        high = point.time_ci_high_ns if point.time_ci_high_ns is not None \
            else m
        return KernelTime(m, min(low, m), max(high, m), point.time_source)
    low, high = _estimated_ci(point)
    return KernelTime(m, low, high, EVENTS)


def counter_time(run, point):
    """The profiler's kernel duration of a point, or None."""
    if run is None:
        return None
    value = sel.metric(run, point, sel.M_KERNEL_TIME)
    if not value:
        return None
    return KernelTime(value, value, value, COUNTER)


def kernel_time(point, run=None):
    """A kernel's duration: the row's kernel median (schema 2), else with a
    run the profiler's duration of the point, else the row's own time."""
    if point.kernel_timed:
        return row_time(point)
    counted = counter_time(run, point)
    return counted if counted is not None else row_time(point)


def is_kernel(point, run=None):
    """Whether the time kernel_time gives is a kernel's own: a kernel
    duration (schema 2 or the profiler's), or an ewbench or cub row timed
    by events (their launch path is ewbench's own, the same for all);
    never a PyTorch row's event time, which is its Python launch path."""
    source = kernel_time(point, run).source
    if source in (KERNEL, REPLAY, COUNTER):
        return True
    return not point.variant.startswith("torch_")


@dataclass(frozen=True)
class Interval:
    """Start to start of consecutive launches, and its CI half-width."""
    median_ns: float
    ci_ns: float
    source: str             # what measured it, for the report


def launch_interval(point, ceilings=None, mode=None):
    """The launch interval of a row's launch mode (or of `mode`: "stream",
    "queued", "graph"): the row's own (schema 2), else the measured launch
    ceiling of that mode (schema 1: empty kernels back to back, which is
    the host-paced interval for stream and the replay interval for graph),
    else None."""
    mode = mode or point.launch
    own = {"stream": (point.interval_ns if point.launch == "stream"
                      else None, point.interval_ci_ns),
           "graph": (point.interval_ns if point.launch == "graph"
                     else point.graph_interval_ns,
                     point.interval_ci_ns if point.launch == "graph"
                     else point.graph_interval_ci_ns),
           "queued": (point.queued_interval_ns,
                      point.queued_interval_ci_ns)}.get(mode, (None, None))
    if own[0] is not None:
        return Interval(own[0], own[1] or 0.0, "this row (%s)" % mode)
    name = {"stream": "launch_stream", "graph": "launch_graph"}.get(mode)
    c = (ceilings or {}).get(name) if name else None
    if c is None:
        return None
    spread = (c.spread_pct or 0.0) / 100.0 * c.value
    return Interval(c.value, spread, "ceiling %s" % name)


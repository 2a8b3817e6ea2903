"""The timer cross-check (docs/analysis.md, "The timer cross-check").

A run times its warm points twice at up to three sizes (all of a run's
when it has no more, else its smallest and largest), by two timers that
reach the kernels by different paths; a row whose timers disagree by more
than TOLERANCE_PCT and a launch gap (GAP_NS) beyond its own
confidence interval is flagged, never silently used.

Since 2026-11-29 (time_source "replay") a warm point's time is a graph of
its launches replayed with CUPTI's kernel records paused, and the second
timer (`crosscheck_ns`) is stream launches queued behind a spin kernel,
the records paused, an event pair around them.  The records still run
one round beside them: `activity_median_ns`, their median span, is what
the instrumentation makes of the same kernels (`records_cost`).

Runs measured before (time_source "kernel", run.json `settings.timer` =
"cupti_kernel_activity") were timed by CUPTI's CONCURRENT_KERNEL records,
whose instrumentation slows the kernels that keep few bytes in flight;
their second timer was the uninstrumented graph replay, which showed it
(`instrumented_timer` names those runs).
"""

from dataclasses import dataclass
from typing import Optional

# Beyond it (and the row's own interval) a row's two timers disagree.
# Set on the H200 measurements of docs/analysis.md, "The timer's own
# cost": uninstrumented timers of one kernel (a graph replay, events
# around a long replay, KERNEL records less their serialisation) agree
# within 1 % at 2^24 and 2^28; the CONCURRENT_KERNEL slow-down starts at
# 5.7 % there.  2 % sits between, with room for a second GPU's gaps.
TOLERANCE_PCT = 2.0

# run.json settings.timer of the runs timed with the CONCURRENT_KERNEL
# kind's records (before 2026-11-29).
CONCURRENT_TIMER = "cupti_kernel_activity"

# Back-to-back launches follow each other with a gap that a kernel's own
# span leaves out and whose size depends on the launch path, so a row's
# allowance holds this much of its time besides TOLERANCE_PCT, per
# protocol.  On H200s of 2026-11-29: stream launches queued behind a spin
# minus the replay 0.93-1.67 us for all 40 study variants, probes and cub
# adds at 2^24 (GPU-968ff663), 1.5-6.0 % of them; replay minus records
# 0.2-0.86 us for the kernels that saturate DRAM between 20 and 100 us
# (GPU-ba58bedc, the 128-bit, ILP4 and bulk-copy adds at 2^24).
GAP_NS = {"replay": 2000.0, "kernel": 1000.0}

# Kernels shorter than this are cross-checked but not judged: back to
# back, a kernel's first blocks start while the one before drains, so a
# replay's per-launch time runs up to 0.35 us under a 3.3 us kernel's own
# span on an H200 (add_f32x4 at 2^20: 3.26 against 3.61 us), as large as
# the effects looked for.  The same 20 us below which ewbench measures a
# point's launch intervals (src/run/plan.h, TIMING_PROBE_MAX_NS).
JUDGED_MIN_NS = 20e3

# What each protocol's two timers are, for the report's sentences.
TIMERS = {
    "replay": ("the uninstrumented graph replay",
               "stream launches queued behind a spin kernel"),
    "kernel": ("the kernel records", "the uninstrumented graph replay"),
}


@dataclass(frozen=True)
class Check:
    point: object           # load.Point
    disagreement: float     # crosscheck_ns / time_median_ns - 1
    allowed: float          # the tolerance, the row's CI and GAP_NS, a
    #                         fraction of the row's time

    @property
    def judged(self):
        return self.point.time_median_ns >= JUDGED_MIN_NS

    @property
    def flagged(self):
        return self.judged and abs(self.disagreement) > self.allowed

    @property
    def timers(self):
        """(the row's timer, the second one), in words."""
        return TIMERS[self.point.time_source]

    @property
    def gap_ns(self):
        """The launch gap its allowance holds."""
        return GAP_NS[self.point.time_source]


def _ci(point):
    """The larger half of the row's CI, a fraction of its median."""
    if point.time_ci_low_ns is None or point.time_ci_high_ns is None:
        return 0.0
    return max(point.time_median_ns - point.time_ci_low_ns,
               point.time_ci_high_ns - point.time_median_ns) / \
        point.time_median_ns


def check(point) -> Optional[Check]:
    """The point's cross-check, or None where it has none."""
    other = getattr(point, "crosscheck_ns", None)
    if other is None or not point.time_median_ns or \
            point.time_source not in TIMERS:
        return None
    return Check(point, other / point.time_median_ns - 1.0,
                 TOLERANCE_PCT / 100.0 + _ci(point) +
                 GAP_NS[point.time_source] / point.time_median_ns)


def checks(points):
    """The cross-checks of these points, in their order."""
    return [c for c in (check(p) for p in points) if c is not None]


def records_cost(point) -> Optional[float]:
    """How much slower the kernel records saw a replay-timed point than
    its replay: activity_median_ns / time_median_ns - 1; None for other
    rows.  Judged rows only (JUDGED_MIN_NS): shorter replays overlap
    their kernels."""
    if point.time_source != "replay" or not point.activity_median_ns or \
            not point.time_median_ns or \
            point.time_median_ns < JUDGED_MIN_NS:
        return None
    return point.activity_median_ns / point.time_median_ns - 1.0


def instrumented_timer(manifest) -> bool:
    """Whether the run's warm kernels were timed by the CONCURRENT_KERNEL
    kind's records, which slow latency-bound kernels."""
    return ((manifest or {}).get("settings") or {}).get("timer") == \
        CONCURRENT_TIMER

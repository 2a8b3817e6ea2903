"""The timer cross-check (docs/analysis.md, "The timer cross-check").

A run times its warm points twice at up to three sizes (all of a run's
when it has no more, else its smallest and largest): by
the kernels' own CUPTI records (`time_median_ns`), and by an independent
timer that nothing instruments (`crosscheck_ns`: the point's launches
replayed from a graph with the kernel records off, an event pair around
the replay, per launch).  The two agree when recording the kernels does
not slow them; a row whose timers disagree by more than TOLERANCE_PCT
and a replay's inter-kernel gap (GAP_NS) beyond its own confidence
interval is flagged, never silently used.

Kernel records of CUPTI's CONCURRENT_KERNEL kind (run.json
`settings.timer` = "cupti_kernel_activity", every run's default) come
from instrumentation that slows the kernels that keep few bytes in
flight; the cross-check is what shows it, for kernels of JUDGED_MIN_NS
and longer, and runs measured before 2026-11-29 have none
(`instrumented_timer` names the kind).
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
# kind (trace/trace.c says why it is still the default).
CONCURRENT_TIMER = "cupti_kernel_activity"


# A replay's launches follow each other with a gap the records leave out:
# replay minus records per launch was 0.2-0.86 us for the kernels that
# saturate DRAM between 20 and 100 us on the H200 of 2026-11-29 (the
# 128-bit, ILP4 and bulk-copy adds at 2^24), 1.1-3.6 % of them.  So a
# row's allowance holds this much of its time besides TOLERANCE_PCT.
GAP_NS = 1000.0

# Kernels shorter than this are cross-checked but not judged: back to
# back in a graph, a kernel's first blocks start while the one before
# drains, so the replay's per-launch time runs up to 0.35 us under a
# 3.3 us kernel's own span on an H200 (add_f32x4 at 2^20: 3.26 against
# 3.61 us), as large as the instrumentation's effect.  The same 20 us
# below which ewbench measures a point's launch intervals
# (src/run/measure.c, PROBE_MAX_NS).
JUDGED_MIN_NS = 20e3


@dataclass(frozen=True)
class Check:
    point: object           # load.Point
    disagreement: float     # crosscheck_ns / time_median_ns - 1
    allowed: float          # the tolerance, the row's CI and GAP_NS, a
                            # fraction of its time

    @property
    def judged(self):
        return self.point.time_median_ns >= JUDGED_MIN_NS

    @property
    def flagged(self):
        return self.judged and abs(self.disagreement) > self.allowed


def check(point) -> Optional[Check]:
    """The point's cross-check, or None where it has none."""
    other = getattr(point, "crosscheck_ns", None)
    if other is None or not point.time_median_ns or \
            point.time_source != "kernel":
        return None
    ci = 0.0
    if point.time_ci_low_ns is not None and point.time_ci_high_ns is not None:
        ci = max(point.time_median_ns - point.time_ci_low_ns,
                 point.time_ci_high_ns - point.time_median_ns) / \
            point.time_median_ns
    return Check(point, other / point.time_median_ns - 1.0,
                 TOLERANCE_PCT / 100.0 + ci + GAP_NS / point.time_median_ns)


def checks(points):
    """The cross-checks of these points, in their order."""
    return [c for c in (check(p) for p in points) if c is not None]


def instrumented_timer(manifest) -> bool:
    """Whether the run's kernels were recorded with the CONCURRENT_KERNEL
    kind, which slows latency-bound kernels."""
    return ((manifest or {}).get("settings") or {}).get("timer") == \
        CONCURRENT_TIMER

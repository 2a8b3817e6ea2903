"""Rows above a measured DRAM ceiling, each with its explanation."""

from dataclasses import dataclass
from typing import Optional

from ...core import select as sel
from .ceilings import run_dram_ceiling
from .fit import served_by_l2
from .rules import READ_FRACTION


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

"""The bytes a point's timed window moved, the rows above a measured
DRAM ceiling, each with its explanation, and the numbers no DRAM could
have served (refused as evidence)."""

from dataclasses import dataclass
from typing import Optional

from ...core import select as sel
from .ceilings import run_dram_ceiling
from .fit import served_by_l2
from .thresholds import CEILING_BEATEN_PCT, READ_FRACTION


# the bytes the window moved

@dataclass(frozen=True)
class Window:
    """What a point's timed window moved at DRAM's side where the counters
    show part of its output written to DRAM after the kernel's end stamp:
    its reads and the output's bytes written inside the window."""
    bytes: float
    written: float          # DRAM write bytes inside the window / output
    time_ns: float

    @property
    def bandwidth(self):
        return self.bytes / self.time_ns * 1e9

    def text(self, ceiling=None):
        """'45% of its output written to DRAM inside the window: 2921 GB/s
        counting the bytes the window moved (95% of the ceiling)'."""
        text = "%.0f%% of its output written to DRAM inside the window: " \
            "%.0f GB/s counting the bytes the window moved" % (
                100 * self.written, self.bandwidth / 1e9)
        if ceiling:
            text += " (%.0f%% of the ceiling)" % (
                100 * self.bandwidth / ceiling)
        return text


# what DRAM can serve at all

# How far above the DRAM spec peak a number served by DRAM may stand: the
# peak is nominal and a time carries its noise (measured streams stay
# below about 95 % of it).  Farther, after the writes a window may have
# missed (left in L2, written back after the timer stopped), a time or a
# byte count is wrong: the number is no measurement of DRAM and is refused
# as evidence (the report names it under Threats to validity).
SPEC_EXCESS_PCT = 10.0


def beyond_dram(bandwidth, spec, deferrable):
    """bandwidth (byte/s of bytes read + written) more than DRAM could
    serve: above the spec peak by more than SPEC_EXCESS_PCT with the
    share `deferrable` of its bytes (writes) not in its window; False
    without a spec peak."""
    return bool(spec) and bandwidth > spec * (
        1 + SPEC_EXCESS_PCT / 100.0) / (1.0 - deferrable)


def impossible(run, point):
    """A point not served by L2 (cold, or a footprint above the L2)
    faster than DRAM could serve it (beyond_dram: at most the L2's worth
    of its output written after its window)."""
    if served_by_l2(point, run.l2_bytes) or not point.bytes_moved:
        return False
    deferred = output_bytes(point)
    if run.l2_bytes:
        deferred = min(deferred, run.l2_bytes)
    return beyond_dram(point.bandwidth, run.spec_dram_bandwidth,
                       deferred / point.bytes_moved)


def output_bytes(point):
    """The bytes a point's kernel writes: its bytes moved less its reads."""
    return point.bytes_moved * (1.0 - READ_FRACTION.get(point.op, 0.5))


def late_writes(run, point):
    """The Window of a point whose DRAM write bytes inside the timed window
    (dram__bytes_write.sum) fall short of its output: the rest was left
    dirty in L2 and written back after the timer stopped (docs/metrics.md,
    "Where the writes land"), so the window moved fewer bytes than the
    point's bytes moved.  None where all of the output was written inside
    the window, where no write counter was taken, and for a point served by
    L2 (warm, footprint below the L2), which DRAM's bytes do not judge."""
    if served_by_l2(point, run.l2_bytes) or not point.time_median_ns:
        return None
    output = output_bytes(point)
    writes = sel.metric(run, point, sel.M_DRAM_WRITE)
    if writes is None or not output or writes >= output:
        return None
    return Window(point.bytes_moved - (output - writes), writes / output,
                  point.time_median_ns)


# rows above a measured ceiling

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
        output = output_bytes(p)
        writes = sel.metric(run, p, sel.M_DRAM_WRITE)
        written = writes / output if writes is not None and output else None
        share = p.bandwidth / bound.value
        if written is not None and written < 1.0 / share:
            out.append(AboveCeiling(p, share, written, WRITES_IN_L2, (
                late_writes(run, p).text(bound.value))))
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

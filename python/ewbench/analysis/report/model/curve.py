"""The measured memory-concurrency curve, and where a point sits on it.

`ewbench ceilings` measures DRAM bandwidth against the bytes of loads in
flight per SM (kernels/inflight.def, docs/ceilings.md): per shape (copy:
one load and one store a word, the shape of relu and abs; add: two loads
and one store) and request size (bytes per warp load instruction: 64,
128, 512), a persistent grid whose every SM keeps exactly L KiB of loads
in flight, L from 2 to 128 KiB.  A point of the study is placed on the
series of its op's shape and its own request size (the nearest measured,
said so when not equal) by its own estimated loads in flight per SM.  How
far up its own series it sits (the share of the series' top) says whether
more bytes in flight would help; the curve there, scaled by the op's DRAM
ceiling over the top of the shape's largest-request series, is what those
loads in flight allow: the prediction.  Scaled, not the curve's bandwidth
itself: a persistent grid streams a few percent below the
one-tile-per-block kernels that set the DRAM ceilings (2026-11-27: the
512-byte series top out at 92-95 % of dram_copy and dram_add on an H100
and an H200), and that shortfall is the grid's, not the loads'.  A series
of smaller requests may top out lower still: what its share of the
reference top says (more, smaller requests for the same bytes).

A study's calibration (calibration.py: the scalar kernels and their
probes at capped residencies) is measured beside it and drawn, not read:
held out it predicted worse than this curve, scaled.

Between two measured levels the bandwidth is linear in the bytes in
flight (Little's law: below the knee bandwidth is in-flight / latency);
below the lowest level it is proportional to them, from zero; above the
highest, the highest's.
"""

import math
from dataclasses import dataclass
from typing import Optional

from ...core import validate
from ...core.units import gbps
from .above import beyond_dram
from .rules import READ_FRACTION

# The op's shape on the curve: what its loads and stores look like.
SHAPE = {"add": "add", "relu": "copy", "abs": "copy"}


@dataclass(frozen=True)
class Level:
    kib: float              # loads in flight per SM
    bandwidth: float        # byte/s read + written
    name: str               # the ceilings.csv row
    fixed_ns: Optional[float] = None    # its fixed cost t0 (_fixed_cost)


@dataclass(frozen=True)
class Series:
    shape: str              # "add" or "copy"
    request: int            # bytes per warp load instruction
    levels: tuple           # Level, fewest KiB first

    @property
    def top(self):
        """The series' highest bandwidth, the Level that reaches it."""
        return max(self.levels, key=lambda x: x.bandwidth)

    def bandwidth_at(self, kib):
        """The curve's bandwidth at `kib` KiB in flight per SM."""
        first = self.levels[0]
        if kib <= first.kib:
            return first.bandwidth * max(kib, 0.0) / first.kib
        return _between([(x.kib, x.bandwidth) for x in self.levels], kib)

    def fixed_cost_at(self, kib):
        """The fixed cost t0 (ns) of one launch of the curve's kernel at
        `kib` KiB in flight per SM: linear between the levels that
        measured it, the nearest one's outside them; None where no level
        did (ceilings older than the row)."""
        known = [(x.kib, x.fixed_ns) for x in self.levels if x.fixed_ns]
        return _between(known, kib) if known else None

    def share_at(self, kib):
        """bandwidth_at(kib) as a share of the series' highest point."""
        return self.bandwidth_at(kib) / self.top.bandwidth

    def kib_for(self, share):
        """The fewest KiB in flight at which the curve reaches `share` of
        its highest point (linear between levels); None if never."""
        want = share * self.top.bandwidth
        below = 0.0, 0.0
        for level in self.levels:
            if level.bandwidth >= want:
                k0, b0 = below
                return k0 + (want - b0) / (level.bandwidth - b0) * \
                    (level.kib - k0)
            below = level.kib, level.bandwidth
        return None

    @property
    def label(self):
        return "dram_%s_inflight*_r%d" % (self.shape, self.request)


def _between(points, x):
    """The value at x of (x, value) points, fewest x first: linear between
    two, the first's below them and the last's above."""
    if x <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x0 <= x <= x1:
            return y0 + (x - x0) / (x1 - x0) * (y1 - y0)
    return points[-1][1]


def _levels(ceilings):
    """((shape, request), kib, row, fixed) of every measured level, fixed
    its fixed cost's row or None."""
    ceilings = ceilings or {}
    for shape, request in validate.INFLIGHT_SERIES:
        for kib in validate.INFLIGHT_KIB:
            row = ceilings.get(validate.inflight_name(shape, kib, request))
            if row is not None and row.value > 0:
                yield (shape, request), kib, row, ceilings.get(
                    validate.inflight_fixed_name(shape, kib, request))


def impossible_levels(ceilings):
    """The curve's rows faster than DRAM could serve (above.beyond_dram,
    every write of the shape missed by the window): refused as evidence,
    never a level of a series."""
    return _impossible(_levels(ceilings))


def _impossible(levels):
    """impossible_levels of _levels' rows."""
    return [row for (shape, _), _, row, _ in levels
            if beyond_dram(row.value, row.spec_value,
                           1.0 - READ_FRACTION["add" if shape == "add"
                                               else "relu"])]


def curves(ceilings):
    """(shape, request) -> Series, from the run's ceilings: the series with
    at least two measured levels, none of impossible_levels().  {} when
    the curve was not measured."""
    # The rows looked up once (a report asks this of every point).
    measured = list(_levels(ceilings))
    refused = {row.name for row in _impossible(measured)}
    out = {}
    for shape, request in validate.INFLIGHT_SERIES:
        levels = [Level(float(kib), row.value, row.name,
                        fixed.value if fixed is not None else None)
                  for key, kib, row, fixed in measured
                  if key == (shape, request) and row.name not in refused]
        if len(levels) >= 2:
            out[(shape, request)] = Series(shape, request, tuple(levels))
    return out


def series_for(ceilings, op, request):
    """(Series, exact) for op's shape at `request` bytes per warp load
    instruction: that series when measured, else the nearest request size
    measured (in factors of two; exact False); (None, False) when the
    curve was not measured for the shape or op is not add, relu or abs."""
    return _series_for(curves(ceilings), op, request)


def _series_for(measured, op, request):
    """series_for among curves()' series, `measured`."""
    shape = SHAPE.get(op)
    found = [s for (sh, _), s in measured.items() if sh == shape]
    if not found:
        return None, False
    if not request or request <= 0:
        request = 128
    best = min(found, key=lambda s: (abs(math.log2(s.request / request)),
                                     s.request))
    return best, best.request == request


def reference(ceilings, shape):
    """The shape's series of the largest requests: its top is what the
    curve's grid streams at best, the scale of every prediction."""
    return _reference(curves(ceilings), shape)


def _reference(measured, shape):
    """reference among curves()' series, `measured`."""
    found = [s for (sh, _), s in measured.items() if sh == shape]
    return max(found, key=lambda s: s.request) if found else None


@dataclass(frozen=True)
class OnCurve:
    """A point's place on the curve: what its loads in flight allow."""
    series: Series
    exact: bool             # the series' request size is the point's own
    kib: float              # the point's loads in flight per SM
    share: float            # of its series' top: how far up its curve
    bandwidth: float        # the prediction, byte/s
    ceiling: float          # the op's DRAM ceiling
    reference: Series       # the shape's largest requests: the scale

    @property
    def reachable(self):
        """The prediction, never below the series' highest level at fewer
        KiB in flight (scaled as the prediction is): what the experiments
        predict.  The curve falls 3-8 % past its peak; the study's kernels
        do not (the references' 4x probes, past it, beat the curve there
        by 5-11 %, issue 51): that fall is the curve's own persistent
        grid's.  The rules read the curve as measured."""
        levels = [x.bandwidth for x in self.series.levels if x.kib <= self.kib]
        if not levels:
            return self.bandwidth
        scaled = max(levels) * self.ceiling / self.reference.top.bandwidth
        return max(self.bandwidth, min(self.ceiling, scaled))

    @property
    def requests_limit(self):
        """Its series tops out below the reference's (by more than 5 %):
        requests of its size cannot reach the ceiling at any bytes in
        flight; None otherwise, else the share of the reference top."""
        share = self.series.top.bandwidth / self.reference.top.bandwidth
        return share if share < 0.95 else None

    @property
    def text(self):
        """How the prediction was got, for a verdict's text."""
        request = "%d-byte requests" % self.series.request
        if not self.exact:
            request += " (the nearest measured)"
        text = ("on the measured concurrency curve (%s, %s), %.1f KiB in "
                "flight per SM reach %.0f%% of its top: %s, scaled to this "
                "DRAM ceiling" % (self.series.label, request, self.kib,
                                  100 * self.share, gbps(self.bandwidth)))
        limit = self.requests_limit
        if limit is not None:
            text += "; requests of %d bytes top out at %.0f%% of the %d-byte " \
                "ones'" % (self.series.request, 100 * limit,
                           self.reference.request)
        return text


def place(ceilings, op, request, kib, dram_ceiling):
    """OnCurve for a point of op with `request` bytes per warp load and
    `kib` KiB in flight per SM, against the op's DRAM ceiling (a Bound or
    a number); None without a curve, an estimate of kib or a ceiling."""
    if kib is None or dram_ceiling is None:
        return None
    measured = curves(ceilings)
    series, exact = _series_for(measured, op, request)
    if series is None:
        return None
    top = _reference(measured, series.shape)
    ceiling = getattr(dram_ceiling, "value", dram_ceiling)
    predicted = min(ceiling, series.bandwidth_at(kib) * ceiling /
                    top.top.bandwidth)
    return OnCurve(series, exact, kib, series.share_at(kib), predicted,
                   ceiling, top)

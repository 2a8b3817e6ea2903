"""The launch-floor fit, per series of a run.

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
"""

from dataclasses import dataclass, replace
from typing import Optional

import numpy as np

from ...core.units import gbps


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

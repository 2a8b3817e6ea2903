"""The concurrency curve calibrated with the study's own kernels.

A study's calibration/ runs (scripts/calibrate.sh: `ewbench run
--residency N`, one run directory per N) time the scalar study kernels
and their probes at the article's largest size, warm, with each block
given dynamic shared memory it does not use so that an SM holds at most
N of them (the occupancy calculator confirms it; run.json's settings say
N), for N from 1 up, with the achieved occupancy counter.  Every row is a
level: its loads in flight per SM, counted as a study point's are
(inflight.kib_in_flight_per_sm at its achieved occupancy, else at N
blocks), against the bandwidth it streamed.

A kernel and its probes (the same loads, 1, 2 and 4 per thread: its
family) make one series.  Where loads in flight rise and the bandwidth
falls (noise, or the fall past the peak that OnCurve.reachable leaves out
of the ceilings' curve) the levels are pooled, so the series never falls
(pool adjacent violators).  A study point of the family is placed on it
as on the ceilings' curve (curve.place), but its bandwidth there is the
prediction itself: the family's own kernels measured it, so nothing is
scaled.  A kernel without a calibration keeps the ceilings' curve,
scaled by its top.
"""

from dataclasses import dataclass

from ...core import variants as var
from .above import impossible
from .curve import SHAPE, Level, Series
from .inflight import kib_in_flight_per_sm, occupancy

def family(variant):
    """The study variant whose family `variant` is in (itself, or the one
    a probe multiplies the loads of); None for any other."""
    if variant in var.PROBES:
        return var.PROBES[variant].of
    if any(p.of == variant for p in var.PROBES.values()):
        return variant
    return None


def residency(run):
    """The resident blocks per SM run.json says its cases were capped at
    (`ewbench run --residency`), else None."""
    value = (run.manifest.get("settings") or {}).get("residency")
    return int(value) if value else None


@dataclass(frozen=True)
class Calibrated(Series):
    """A family's calibrated series: its levels pooled to never fall."""
    family: str = ""
    residencies: tuple = ()     # the N of the runs it was measured at
    rows: int = 0               # the calibration rows behind it

    @property
    def label(self):
        return "calibration of %s and its probes" % self.family

    @property
    def span(self):
        return "%d-%d resident blocks per SM" % (min(self.residencies),
                                                 max(self.residencies))


def _rows(runs):
    """(family, Level, N) of every usable calibration row."""
    for run in runs:
        cap = residency(run)
        most = run.device.get("max_threads_per_sm")
        if cap is None or not most:
            continue
        for p in run.points:
            base = family(p.variant)
            if base is None or p.cache != "warm" or p.check == "fail" or \
                    not p.bandwidth or not p.block or impossible(run, p):
                continue
            occ = occupancy(run, p)[0]
            if occ is None:
                occ = 100.0 * cap * -(-p.block // 32) * 32 / most
            kib = kib_in_flight_per_sm(p, occ, most)
            if kib is None or kib <= 0:
                continue
            yield base, Level(kib, p.bandwidth, "%s at %d block%s per SM"
                              % (p.variant, cap, "" if cap == 1 else "s")), cap


def pooled(levels):
    """levels (any order) as a series that never falls: equal loads in
    flight merged (their mean), then adjacent levels whose bandwidth falls
    pooled into one at their mean loads in flight and bandwidth (pool
    adjacent violators); a flat run of levels is kept as it is."""
    by_kib = {}
    for level in levels:
        by_kib.setdefault(level.kib, []).append(level)
    blocks = []     # [kib sum, bandwidth sum, count, names]
    for kib in sorted(by_kib):
        same = by_kib[kib]
        blocks.append([kib * len(same), sum(x.bandwidth for x in same),
                       len(same), [x.name for x in same]])
        while len(blocks) > 1 and blocks[-2][1] / blocks[-2][2] > \
                blocks[-1][1] / blocks[-1][2]:
            last = blocks.pop()
            for i in range(3):
                blocks[-1][i] += last[i]
            blocks[-1][3] += last[3]
    return tuple(Level(k / n, b / n, ", ".join(names))
                 for k, b, n, names in blocks)


_CACHE = {}


def calibrated(runs):
    """family -> Calibrated from the study's calibration runs (load.Run),
    the families with at least two distinct loads in flight; {} without
    calibration runs."""
    if not runs:
        return {}
    key = id(runs)
    if key not in _CACHE or _CACHE[key][0] is not runs:
        found = {}
        for base, level, cap in _rows(runs):
            found.setdefault(base, []).append((level, cap))
        out = {}
        for base, rows in found.items():
            levels = pooled(level for level, _ in rows)
            op = next((p.op for r in runs for p in r.points
                       if family(p.variant) == base), None)
            if len(levels) >= 2 and op in SHAPE:
                out[base] = Calibrated(SHAPE[op], 0, levels, base,
                                       tuple(sorted({c for _, c in rows})),
                                       len(rows))
        _CACHE[key] = (runs, out)
    return _CACHE[key][1]


def series_for(run, variant):
    """The Calibrated series of variant's family from run's study
    (run.calibration), or None: then the ceilings' curve, scaled."""
    base = family(variant)
    if base is None:
        return None
    return calibrated(getattr(run, "calibration", ())).get(base)

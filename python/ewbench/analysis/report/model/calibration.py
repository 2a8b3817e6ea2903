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
family) make one series.  A point is never placed on its own
measurement: the calibration's top level of a kernel at its block (the
most blocks per SM it was run with, which the cap no longer binds: the
kernel as the article and the experiments run it) is the very point the
verdicts judge and the experiments' trials measure.  So each point's
series leaves that row out (held out); its kernel's lower levels and the
rest of its family place it.  Where loads in flight rise and the bandwidth
falls (noise, or the fall past the peak that OnCurve.reachable leaves out
of the ceilings' curve) the levels are pooled, so the series never falls
(pool adjacent violators).  The model does not place points on it (docs/analysis.md, "Calibrating the
concurrency curve"): held out, each kernel's own point (its top level)
predicted from the rest of its family at its loads in flight
(`held_out`), the calibrated series read the H200's scalar study kernels
10-13 % low, where the ceilings' curve, scaled by its top, was within
5 %: at equal loads in flight more resident warps stream more than more
loads per thread (add_f32 at 8 blocks per SM 3446 GB/s, its 2x probe at 4
blocks 3212, its 4x probe at 2 blocks 3041), so one curve of loads in
flight cannot hold a family.  The series are drawn (the concurrency
figure) and scored; points keep the ceilings' curve, scaled.
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


def _tops(runs):
    """(variant, block) -> the most blocks per SM a calibrated kernel was
    run with: its top level, the kernel as the study runs it."""
    tops = {}
    for run in runs:
        cap = residency(run)
        for p in run.points:
            if family(p.variant) is not None and cap is not None:
                key = (p.variant, p.block)
                tops[key] = max(tops.get(key, 0), cap)
    return tops


def _rows(runs, leave_out=None):
    """(family, Level, N) of every usable calibration row but
    leave_out's own point, a (variant, block): its row at its top level
    (_tops)."""
    top = _tops(runs).get(leave_out)
    for run in runs:
        cap = residency(run)
        most = run.device.get("max_threads_per_sm")
        if cap is None or not most:
            continue
        for p in run.points:
            base = family(p.variant)
            if base is None or p.cache != "warm" or p.check == "fail" or \
                    not p.bandwidth or not p.block or impossible(run, p) or \
                    ((p.variant, p.block) == leave_out and cap == top):
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


def calibrated(runs, leave_out=None):
    """family -> Calibrated from the study's calibration runs (load.Run)
    without leave_out's rows (a (variant, block)), the families with at
    least two distinct loads in flight; {} without calibration runs."""
    if not runs:
        return {}
    key = (id(runs), leave_out)
    if key not in _CACHE or _CACHE[key][0] is not runs:
        found = {}
        for base, level, cap in _rows(runs, leave_out):
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


@dataclass(frozen=True)
class HeldOut:
    """A kernel's own point (its top level) against its family's series
    without it."""
    variant: str
    residency: int
    kib: float
    measured: float         # byte/s
    predicted: float        # byte/s: the held-out series at kib

    @property
    def ratio(self):
        return self.measured / self.predicted


def held_out(runs):
    """HeldOut of every calibrated kernel's top level, in family and
    variant order; () without calibration runs."""
    out = []
    rows = list(_rows(runs))
    for (variant, block), top in sorted(_tops(runs).items()):
        series = calibrated(runs, (variant, block)).get(family(variant))
        mine = [level for _, level, cap in rows
                if cap == top and level.name.startswith(variant + " at ")]
        if series is None or len(mine) != 1:
            continue
        out.append(HeldOut(variant, top, mine[0].kib, mine[0].bandwidth,
                           series.bandwidth_at(mine[0].kib)))
    return tuple(out)

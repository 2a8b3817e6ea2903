"""The fleet's answers: each GPU's key numbers against the fleet median,
which GPUs are outliers, and the counter and NVML evidence for each.

Key numbers (KEYS): the measured DRAM ceiling, L2 ceiling and launch floor
of ceilings.csv, and ewbench's best add kernel (fp32, fp16) at the DRAM
size and at the L2 size.  A GPU's deviation is 100 x (value / fleet median
- 1).  It is an outlier on a number when the deviation is beyond the noise
by the noise rule (noise.py), with the GPU's per-launch spread and the
median spread of the other GPUs, and OUTLIER_PCT as the floor:

    |deviation| > max(SIGMAS x sqrt(spread^2 + median spread^2), OUTLIER_PCT)

A ceiling's spread is that of its samples (ceilings.csv `spread_pct`);
where none was recorded (ceilings measured before the column existed) the
floor alone decides (no stand-in for a missing spread).  A few percent
between boards of one model is normal (clocks, memory parts); the floor
keeps that from being called an outlier, the spread term keeps noise from
it.

Pure functions of a fleet.Fleet; fleet_report.py renders them.
"""

import statistics
from collections import Counter
from dataclasses import dataclass
from typing import Optional

from ..core import noise
from ..core import placement as plc
from ..core import select as sel
from ..core import variants as var
from ..core.noise import SIGMAS
from ..core.validate import DTYPE_BYTES

OUTLIER_PCT = 3.0
L2_FIT_FRACTION = 0.5       # the L2 size: footprint <= this x the L2
DRAM_FACTOR = 2.0           # the DRAM size: footprint >= this x the L2
TIERS = ("dram", "l2")

M_SM_HZ = "sm__cycles_elapsed.avg.per_second"
M_DRAM_HZ = "dram__cycles_elapsed.avg.per_second"


@dataclass(frozen=True)
class Key:
    name: str
    label: str
    unit: str                   # "byte/s" or "ns"
    ceilings: tuple = ()        # ceiling names, first present wins
    dtype: Optional[str] = None
    tier: Optional[str] = None

    @property
    def short(self):
        """The label of a table cell or a figure panel."""
        if self.dtype:
            return "add %s %s" % (self.dtype, "L2" if self.tier == "l2"
                                  else "DRAM")
        return self.label

    @property
    def higher_is_better(self):
        return self.unit != "ns"


KEYS = (
    Key("dram", "DRAM ceiling", "byte/s", ("dram_add", "dram_copy",
                                          "dram_read")),
    Key("l2", "L2 ceiling", "byte/s", ("l2_read",)),
    Key("launch", "launch floor", "ns", ("launch_stream", "launch_graph")),
    Key("add_f32_dram", "add f32 at the DRAM size", "byte/s", dtype="f32",
        tier="dram"),
    Key("add_f16_dram", "add f16 at the DRAM size", "byte/s", dtype="f16",
        tier="dram"),
    Key("add_f32_l2", "add f32 at the L2 size", "byte/s", dtype="f32",
        tier="l2"),
    Key("add_f16_l2", "add f16 at the L2 size", "byte/s", dtype="f16",
        tier="l2"),
)


@dataclass(frozen=True)
class Value:
    value: float
    spread_pct: Optional[float]     # None: no scatter recorded
    point: Optional[object] = None  # load.Point for kernel numbers
    source: str = ""                # the ceiling's name, or variant@block


@dataclass(frozen=True)
class Cell:
    """One GPU's number for one key, judged against the fleet."""
    value: Optional[Value]
    deviation_pct: Optional[float]
    threshold_pct: Optional[float]
    outlier: bool


@dataclass(frozen=True)
class Sizes:
    """The element counts of the kernel keys, chosen once for the fleet:
    {(dtype, tier): n}, and how they were chosen."""
    n: dict
    how: dict


def tier_sizes(run):
    """{(dtype, tier): n} of one run: its `--preset tiers` size choices
    when it has them, else from its add points: the largest size whose
    footprint fits in half the L2 and the largest at least twice the L2
    (the largest size when none is)."""
    out, how = {}, {}
    settings = run.manifest.get("settings") or {}
    for choice in settings.get("size_choices") or []:
        for dtype, size in DTYPE_BYTES.items():
            if choice.get("footprint_bytes_per_element") == 3 * size and \
                    choice.get("tier") in TIERS:
                out[(dtype, choice["tier"])] = choice["n"]
                how[(dtype, choice["tier"])] = "size_choices"
    l2 = run.l2_bytes
    for dtype in DTYPE_BYTES:
        adds = sorted({(p.footprint_bytes, p.n) for p in run.points
                       if p.op == "add" and p.dtype == dtype and
                       var.is_own(p.variant)})
        if not adds:
            continue
        if (dtype, "dram") not in out:
            big = [n for f, n in adds if l2 and f >= DRAM_FACTOR * l2]
            out[(dtype, "dram")] = big[-1] if big else adds[-1][1]
            how[(dtype, "dram")] = "largest size" if not big else \
                ">= %gx L2" % DRAM_FACTOR
        if (dtype, "l2") not in out and l2:
            fit = [n for f, n in adds if f <= L2_FIT_FRACTION * l2]
            if fit:
                out[(dtype, "l2")] = fit[-1]
                how[(dtype, "l2")] = "<= %g x L2" % L2_FIT_FRACTION
    return out, how


def fleet_sizes(members):
    """The size most members chose for each (dtype, tier) (ties: the
    larger), so that every GPU is judged at one size."""
    votes, hows = {}, {}
    for m in members:
        sizes, how = tier_sizes(m.run)
        for key, n in sizes.items():
            votes.setdefault(key, Counter())[n] += 1
            hows.setdefault((key, n), how[key])
    n = {key: max(c.items(), key=lambda kv: (kv[1], kv[0]))[0]
         for key, c in votes.items()}
    return Sizes(n, {key: hows[(key, v)] for key, v in n.items()})


def best_add(run, dtype, n):
    """ewbench's fastest add point at (dtype, n): warm when measured, and
    graph launches when measured (the kernel without the host's launch
    path), else stream; None when there is none."""
    pts = [p for p in run.points if p.op == "add" and p.dtype == dtype and
           p.n == n and var.is_own(p.variant) and p.check != "fail"]
    cache = sel.preferred_cache(pts)
    pts = [p for p in pts if p.cache == cache]
    launches = sorted({p.launch for p in pts})     # graph sorts first
    pts = [p for p in pts if launches and p.launch == launches[0]]
    return max(pts, key=lambda p: p.bandwidth) if pts else None


def value_of(member, key, sizes):
    run = member.run
    if key.ceilings:
        for name in key.ceilings:
            c = (run.ceilings or {}).get(name)
            if c is not None:
                return Value(c.value, c.spread_pct, None, name)
        return None
    n = sizes.n.get((key.dtype, key.tier))
    p = best_add(run, key.dtype, n) if n is not None else None
    if p is None:
        return None
    return Value(p.bandwidth, noise.spread_pct(p), p, "%s@%s" % (
        p.variant, p.block if p.block is not None else "-"))


def median_of(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


@dataclass(frozen=True)
class Judged:
    """The fleet judged: cells[member name][key name], medians[key name]."""
    fleet: object
    sizes: Sizes
    cells: dict
    medians: dict
    source: dict                # key name -> the ceiling name(s) used

    def outliers(self, member):
        return [k for k in KEYS if self.cells[member.name][k.name].outlier]

    @property
    def outlier_members(self):
        return [m for m in self.fleet.members if self.outliers(m)]


def judge(fleet):
    members = fleet.members
    sizes = fleet_sizes(members)
    values = {m.name: {k.name: value_of(m, k, sizes) for k in KEYS}
              for m in members}
    medians, cells, source = {}, {m.name: {} for m in members}, {}
    for k in KEYS:
        here = {m.name: values[m.name][k.name] for m in members}
        med = median_of([v.value for v in here.values() if v is not None])
        medians[k.name] = med
        source[k.name] = sorted({v.source for v in here.values()
                                 if v is not None and k.ceilings})
        count = sum(v is not None for v in here.values())
        for name, v in here.items():
            if v is None or not med:
                cells[name][k.name] = Cell(v, None, None, False)
                continue
            dev = 100.0 * (v.value / med - 1)
            others = median_of([o.spread_pct for other, o in here.items()
                                if other != name and o is not None])
            limit = noise.noise_limit_pct(v.spread_pct, others,
                                          floor_pct=OUTLIER_PCT,
                                          unknown_pct=None)
            # Decided on the numbers as the report shows them (0.1 %), so
            # that a GPU shown at -3.0 % is never an outlier of a 3 % rule.
            beyond = noise.beyond_noise(round(dev, 1), round(limit, 1))
            cells[name][k.name] = Cell(v, dev, limit, count >= 2 and beyond)
    return Judged(fleet, sizes, cells, medians, source)


# evidence

@dataclass(frozen=True)
class Clocks:
    """What one GPU's counters and NVML say about its clocks."""
    point: Optional[object]         # the point the counters are of
    sm_hz: Optional[float]          # sm__cycles_elapsed.avg.per_second
    dram_hz: Optional[float]        # dram__cycles_elapsed.avg.per_second
    dram_bytes_per_cycle: Optional[float]
    cycle_source: str               # "counters", "NVML" or ""
    start: plc.Reading
    end: plc.Reading


def _mean(a, b):
    both = [v for v in (a, b) if v is not None]
    return sum(both) / len(both) if both else None


def clocks(member, p):
    """Clocks of a GPU from its counters at point p (None: no point) and
    its NVML readings.  DRAM bytes per cycle = DRAM bytes / (kernel time x
    DRAM clock): the same bytes per cycle at a lower clock says the clock
    is the cause; fewer bytes per cycle says it is not."""
    run = member.run
    place = member.place
    sm = dram = per_cycle = None
    source = ""
    if p is not None:
        sm = sel.metric(run, p, M_SM_HZ)
        dram = sel.metric(run, p, M_DRAM_HZ)
        moved = sel.dram_bytes(run, p)
        seconds = sel.metric(run, p, sel.M_KERNEL_TIME)
        hz, source = (dram, "counters") if dram else (
            (_mean(place.start.mem_clock_mhz, place.end.mem_clock_mhz) or
             0) * 1e6, "NVML")
        if moved and seconds and hz:
            per_cycle = moved / (seconds * 1e-9 * hz)
        else:
            source = ""
    return Clocks(p, sm, dram, per_cycle, source, place.start, place.end)


def fleet_clocks(judged):
    """{member name: Clocks}, every GPU's counters taken at the same key
    (the add f32 DRAM point), so that medians compare like with like."""
    out = {}
    for m in judged.fleet.members:
        v = judged.cells[m.name]["add_f32_dram"].value or \
            judged.cells[m.name]["add_f16_dram"].value
        out[m.name] = clocks(m, v.point if v is not None else None)
    return out

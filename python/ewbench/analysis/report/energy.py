"""Energy per byte (`ewbench run --energy`; a study's energy/ part, which
`make report-energy` measures).

Each point's energy.csv rows are its windows of launches replayed back to
back; summed up here as the median over the windows and the spread
(max - min over the median) of the picojoules per byte moved, the board's
average draw, and the draw the launches add to the idle board's.  Per
tier (DRAM, L2-resident) and op: the most and least frugal kernel with
their numbers and the idle draw subtracted, and whether the fastest (the
windows' bandwidth) is also the most frugal.  The method and its limits
are stated from run.json's "energy" and the rows themselves (the
counter's measured step, the windows' lengths, the idle draw, what the
counter covers).

section() renders it and draw() its figure; page/build.py places both
after the launch-floor fits, only where a run holds energy rows.
"""

import statistics
from dataclasses import dataclass
from typing import Optional

from ..core import document as doc
from ..core import variants as var
from ..core.sinks import code, plot_text
from ..core.units import gbps, size_label

FIGURE = "energy"
ANCHOR = "energy"
TITLE = "Energy per byte"

# Tiers by footprint against the nominal L2: L2-resident at most half of
# it (finding 2's rule for "fits"), DRAM at four times it or more.
L2_FRACTION = 0.5
DRAM_TIMES = 4
TIERS = ("DRAM", "L2-resident", "around the L2")
OPS = ("add", "relu", "abs")


def spread_pct(values):
    """(max - min) over the median, in %: the windows' agreement."""
    mid = statistics.median(values)
    return 100.0 * (max(values) - min(values)) / abs(mid) if mid else None


def _over_windows(name, summary):
    """A property: summary (median, range, spread_pct) of the windows'
    values of name."""
    return property(lambda self: summary([getattr(w, name)
                                          for w in self.windows]))


@dataclass(frozen=True)
class PointEnergy:
    """One point's windows, summed up."""
    variant: str
    op: str
    dtype: str
    n: int
    block: Optional[int]
    tier: str
    windows: tuple              # load.EnergyWindow, in window order

    pj = _over_windows("pj_per_byte", statistics.median)
    pj_range = _over_windows("pj_per_byte", lambda v: (min(v), max(v)))
    pj_spread = _over_windows("pj_per_byte", spread_pct)
    board_w = _over_windows("board_w", statistics.median)
    board_spread = _over_windows("board_w", spread_pct)
    net_w = _over_windows("net_w", statistics.median)
    idle_w = _over_windows("idle_w", statistics.median)
    bandwidth = _over_windows("bandwidth_bytes_per_s", statistics.median)

    def _given(self, name):
        return [getattr(w, name) for w in self.windows
                if getattr(w, name) is not None]

    def lowest(self, name):
        return min(self._given(name), default=None)

    def highest(self, name):
        return max(self._given(name), default=None)

    @property
    def throttle(self):
        return ",".join(sorted({r for w in self.windows if w.throttle
                                for r in w.throttle.split(",")}))


def tier_of(footprint, l2_bytes):
    if not l2_bytes or footprint is None:
        return TIERS[2]
    if footprint <= L2_FRACTION * l2_bytes:
        return TIERS[1]
    if footprint >= DRAM_TIMES * l2_bytes:
        return TIERS[0]
    return TIERS[2]


def source(study):
    """(label, run) of the study's energy rows: its energy/ part, else
    the first run of its parts that holds some; (None, None) without."""
    if study.energy is not None and study.energy.energy:
        return "energy/", study.energy
    for part, run in study.runs.items():
        if run.energy:
            return "%s/" % part, run
    return None, None


def points(run):
    """[PointEnergy] of a run's energy rows, by tier, op, then pJ/B."""
    footprint = {(p.variant, p.n, p.block): p.footprint_bytes
                 for p in run.points}
    grouped = {}
    for w in run.energy or ():
        grouped.setdefault(w.key, []).append(w)
    out = []
    for key, windows in grouped.items():
        w = windows[0]
        out.append(PointEnergy(
            w.variant, w.op, w.dtype, w.n, w.block,
            tier_of(footprint.get((w.variant, w.n, w.block)), run.l2_bytes),
            tuple(sorted(windows, key=lambda x: x.window))))
    return sorted(out, key=_order)


def _order(e):
    return (TIERS.index(e.tier), OPS.index(e.op) if e.op in OPS
            else len(OPS), e.op, e.pj, var.sort_key(e.variant))


@dataclass(frozen=True)
class Frugal:
    """Per tier and op: the most and least frugal point, and the fastest."""
    tier: str
    op: str
    most: PointEnergy
    least: PointEnergy
    fastest: PointEnergy

    @property
    def apart(self):
        """Whether the two ends' windows do not overlap."""
        return self.most.pj_range[1] < self.least.pj_range[0]


def frugal(energies):
    """[Frugal] for every tier and op with two points or more."""
    groups = {}
    for e in energies:
        groups.setdefault((e.tier, e.op), []).append(e)
    out = []
    for (tier, op), group in groups.items():
        if len(group) < 2:
            continue
        out.append(Frugal(tier, op, min(group, key=lambda e: e.pj),
                          max(group, key=lambda e: e.pj),
                          max(group, key=lambda e: e.bandwidth)))
    return sorted(out, key=lambda f: (TIERS.index(f.tier), OPS.index(f.op)
                                      if f.op in OPS else len(OPS), f.op))


def _pj(e):
    return "%.1f pJ/B (%s)" % (e.pj, _spread(e.pj_spread))


def _spread(value):
    return "spread n/a" if value is None else "spread %.1f %%" % value


def _watts(value):
    return "n/a" if value is None else "%.0f W" % value


def _kernel(e):
    return "%s%s" % (code(e.variant), "" if e.block is None else
                       " (block %d)" % e.block)


def _idle_range(group):
    lo = min(e.idle_w for e in group)
    hi = max(e.idle_w for e in group)
    return "%.0f W" % lo if round(lo) == round(hi) else \
        "%.0f–%.0f W" % (lo, hi)


def _frugal_item(f, energies):
    group = [e for e in energies if e.tier == f.tier and e.op == f.op]
    sizes = sorted({e.n for e in group})
    text = ("**%s, %s** (%s): most frugal %s, %s at %s, board %s; least "
            "frugal %s, %s at %s, board %s; %s; idle %s subtracted. " % (
                f.op, f.tier, ", ".join(size_label(n) for n in sizes),
                _kernel(f.most), _pj(f.most), gbps(f.most.bandwidth),
                _watts(f.most.board_w), _kernel(f.least), _pj(f.least),
                gbps(f.least.bandwidth), _watts(f.least.board_w),
                "%.0f %% apart, beyond the windows' spread" % (
                    100.0 * (f.least.pj / f.most.pj - 1))
                if f.apart and f.most.pj > 0 else
                "within the windows' spread of each other",
                _idle_range(group)))
    if f.fastest is f.most:
        text += "The fastest (%s) is also the most frugal." % gbps(
            f.fastest.bandwidth)
    else:
        text += ("The fastest, %s at %s, is not the most frugal: %s, "
                 "%+.1f %% against it." % (
                     _kernel(f.fastest), gbps(f.fastest.bandwidth),
                     _pj(f.fastest), 100.0 * (f.fastest.pj / f.most.pj - 1)
                     if f.most.pj else 0.0))
    return text


def _step_ms(rows, seconds, steps):
    """The counter's step in ms over the windows (their seconds over their
    steps): (median, lowest, highest)."""
    values = [1e3 * getattr(w, seconds) / getattr(w, steps) for w in rows
              if getattr(w, steps)]
    return statistics.median(values), min(values), max(values)


def _range_text(values, fmt):
    values = [v for v in values if v is not None]
    if not values:
        return "not read"
    lo, hi = min(values), max(values)
    return fmt % lo if fmt % lo == fmt % hi else \
        "%s–%s" % (fmt % lo, fmt % hi)


def _method(label, run, energies):
    e = run.manifest.get("energy") or {}
    rows = run.energy
    step, step_lo, step_hi = _step_ms(rows, "seconds", "updates")
    worst = max((x.pj_spread for x in energies
                 if x.pj_spread is not None), default=None)
    drained = sum(1 for w in rows if w.queue_drained)
    items = [
        "**What**: `%s` (run `%s`): each point's kernel replayed back to "
        "back, warm, from a CUDA graph of as many launches as take about "
        "%s ms (%s replays queued ahead of the GPU), through %s windows of "
        "at least %s s each; pJ/B = (the window's energy - the idle draw x "
        "its length) / the bytes its launches moved; W = the window's "
        "energy over its length." % (
            label, run.run_id, _num(e.get("replay_s"), 1e3),
            e.get("queued_replays", "n/a"), e.get("windows", "n/a"),
            _num(e.get("window_s"))),
        "**The counter**: NVML's `%s` (millijoules) covers the whole "
        "board, not the kernel alone, nor the host. It stepped every %s "
        "here (the windows' seconds over their steps). A window opens and "
        "closes on a step, each read within about 0.1 ms of it (%s s a "
        "window); were its ends not on steps, a step (%.1f %% of a window) "
        "would be the error at each. What is left is how the counter "
        "itself sums the board's power, which the windows' agreement "
        "measures: %s (pJ/B, max - min over the median, the worst point), "
        "the method's measured resolution." % (
            e.get("counter", "nvmlDeviceGetTotalEnergyConsumption"),
            _range_text([step_lo, step_hi], "%.0f ms") if step_lo != step_hi
            else "%.0f ms" % step,
            _range_text([w.seconds for w in rows], "%.2f"),
            100.0 * step * 1e-3 / statistics.median(w.seconds for w in rows),
            "n/a" if worst is None else "%.1f %%" % worst),
        "**Idle subtracted**: before each point's windows, an idle window "
        "of the same length, %s s after its last launch, nothing queued: "
        "%s over the points (their lowest SM clock meanwhile: %s), "
        "subtracted from every window of that point. What remains is what "
        "running the kernel adds to the idle board." %
        (_num(e.get("settle_s")), _range_text([x.idle_w for x in energies],
                                              "%.0f W"),
         _range_text([w.idle_sm_clock_min_mhz for w in rows], "%.0f MHz")),
        "**Bytes**: the bytes a launch moves (read + written per element x "
        "n, as timing.csv's bytes_moved) times the launches in a window, "
        "from the replays' GPU time (CUDA events): the requested bytes, "
        "not what DRAM served; at an L2-resident size the data come mostly "
        "from L2. Tiers: L2-resident at a footprint of at most half the "
        "L2, DRAM at four times it or more.",
        "**Limits**: clocks are not locked (each window's lowest SM clock, "
        "highest temperature and throttling reasons are in the table; "
        "power limit %s); windows in which the host found the queue empty, "
        "the GPU perhaps idle: %d of %d; PyTorch is not measured: its "
        "kernels are launched from Python (`ewbench torch`), outside "
        "ewbench's windows." % (
            _range_text([w.power_limit_w for w in rows], "%.0f W"),
            drained, len(rows)),
    ]
    return doc.Bullets(tuple(items))


def _num(value, scale=1):
    return "n/a" if value is None else "%g" % (value * scale)


def section(study, figures):
    """Report blocks: the heading, the most and least frugal per tier and
    op, the table, the figure and the method; [] without energy rows."""
    label, run = source(study)
    if run is None:
        return []
    energies = points(run)
    blocks = [doc.Heading(2, TITLE, ANCHOR)]
    found = frugal(energies)
    if found:
        blocks.append(doc.Bullets(tuple(_frugal_item(f, energies)
                                        for f in found)))
    else:
        blocks.append(doc.Paragraph("No op has two kernels measured at "
                                    "one tier: no most or least frugal."))
    blocks.append(doc.Table(
        ("kernel", "size", "tier", "pJ/B (spread)", "board W (spread)",
         "added W", "idle W", "GB/s", "SM clock min",
         "temp max", "throttling"),
        tuple((_kernel(e), size_label(e.n), e.tier,
               "%.1f (%s)" % (e.pj, _spread(e.pj_spread)),
               "%.0f (%s)" % (e.board_w, _spread(e.board_spread)),
               "%.0f" % e.net_w, "%.0f" % e.idle_w,
               "%.0f" % (e.bandwidth / 1e9),
               _range_text([e.lowest("sm_clock_min_mhz")], "%.0f MHz"),
               _range_text([e.highest("temperature_max_c")], "%.0f °C"),
               e.throttle or "none")
              for e in energies)))
    if FIGURE in figures:
        png, svg = figures[FIGURE]
        blocks.append(doc.Image(
            "figures/%s" % png.rsplit("/", 1)[-1], TITLE,
            "Picojoules per byte moved against the windows' bandwidth, one "
            "panel per tier: each kernel's median over its windows, the bar "
            "from its lowest to its highest window; lower is more frugal.",
            "figures/%s" % svg.rsplit("/", 1)[-1]))
    blocks.append(doc.Heading(3, "How energy per byte is measured, and "
                              "its limits", "energy-method"))
    blocks.append(_method(label, run, energies))
    return blocks


def draw(study, outdir):
    """{FIGURE: [png, svg]}, or {} without energy rows."""
    _, run = source(study)
    if run is None:
        return {}
    from . import plots
    energies = points(run)
    tiers = [t for t in TIERS if any(e.tier == t for e in energies)]
    styles = plots.variant_styles({e.variant for e in energies})
    fig, body = plots.new_figure([run], 4.2)
    axes = body.subplots(1, len(tiers), squeeze=False)[0]
    for ax, tier in zip(axes, tiers):
        for e in (e for e in energies if e.tier == tier):
            colour, marker = styles[e.variant]
            lo, hi = e.pj_range
            ax.errorbar(e.bandwidth / 1e9, e.pj,
                        yerr=[[e.pj - lo], [hi - e.pj]], color=colour,
                        marker=marker, markersize=5, capsize=2, lw=1)
            ax.annotate("%s %s" % (plot_text(e.variant), size_label(e.n)),
                        (e.bandwidth / 1e9, e.pj), fontsize=6,
                        xytext=(3, 2), textcoords="offset points")
        ax.set_title(tier, fontsize=9)
        ax.set_xlabel("GB/s in the windows")
        ax.set_ylabel("pJ per byte moved (idle subtracted)")
        ax.grid(True, alpha=0.3)
    return {FIGURE: plots.save(fig, outdir, FIGURE)}

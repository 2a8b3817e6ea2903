"""Figures of one run, written as PNG and SVG.

This is the only module that imports matplotlib.  It uses the object API
(Figure + the Agg canvas, constrained layout) and never pyplot, so it needs
no display and changes no global backend.  Every figure carries a footer
with the run id and the GPU, and says so loudly when the run is a fixture.
Legends sit outside the axes.

  cache_tier    bandwidth vs footprint (log2), warm solid / cold dashed, L2
                capacity, DRAM and L2 ceilings, L2 read hit rate on a second
                axis; beside it time vs bytes moved with the fitted
                t = t0 + V/B lines
  roofline      hierarchical roofline: FLOP/s vs FLOP/byte, colour = memory
                level, marker = variant, one panel per size
  instructions  bytes per issued instruction, global-load bytes per warp
                load instruction, and % of DRAM ceiling, per variant
  bars          GB/s per variant at each size, labelled with % of the spec
                DRAM peak
"""

import math
import os
import textwrap

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator

from . import model
from . import select as sel

# SVG element ids from a fixed salt, so a report rendered twice from the
# same data is the same file.
matplotlib.rcParams["svg.hashsalt"] = "ewbench"
from .units import bytes_label, size_label

MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "h", "<", ">", "p", "d",
           "1", "4", "|")
LEVEL_COLOURS = {"DRAM": "#d62728", "L2": "#1f77b4", "L1": "#2ca02c",
                 "algorithmic": "#7f7f7f"}
CEILING_GREY = "#444444"
HIT_GREY = "#8c8c8c"
DPI = 150
FOOTER_INCHES = 0.25       # height of the footer strip
# FP32 lanes per SM by compute capability, for a spec compute roof when
# ceilings.csv has none (Volta, Turing, A100: 64; GA10x, Ada, Hopper,
# Blackwell: 128).
FP32_LANES_PER_SM = {"7.0": 64, "7.2": 64, "7.5": 64, "8.0": 64, "8.6": 128,
                     "8.7": 128, "8.9": 128, "9.0": 128, "10.0": 128,
                     "10.3": 128, "12.0": 128}


# shared helpers

def variant_styles(variants):
    """variant -> (colour, marker), stable across every figure of a run."""
    cmap = matplotlib.colormaps["tab20"]
    order = list(range(0, 20, 2)) + list(range(1, 20, 2))
    return {v: (cmap(order[i % 20]), MARKERS[i % len(MARKERS)])
            for i, v in enumerate(sorted(variants))}


def _figure(run, width, height, extra=""):
    """(figure, body): body is a subfigure to draw in; a thin strip under
    it carries the footer (run id, GPU, fixture warning)."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    strip = FOOTER_INCHES / height
    body, foot = fig.subfigures(2, 1, height_ratios=(1 - strip, strip))
    device = run.device.get("name", "unknown GPU")
    text = "run %s | %s%s" % (run.run_id, device, extra)
    if run.is_fixture:
        text = "FIXTURE DATA (synthetic, not a measurement) | " + text
    foot.text(0.005, 0.5, text, fontsize=7, ha="left", va="center",
              color="#b00000" if run.is_fixture else "#555555")
    return fig, body


def save(fig, outdir, stem):
    """Write stem.png and stem.svg into outdir; return both paths."""
    os.makedirs(outdir, exist_ok=True)
    paths = []
    for ext in ("png", "svg"):
        path = os.path.join(outdir, "%s.%s" % (stem, ext))
        metadata = {"Date": None} if ext == "svg" else None
        fig.savefig(path, dpi=DPI, metadata=metadata)
        paths.append(path)
    return paths


def _binary_bytes(value, _pos=None):
    if value <= 0:
        return ""
    return bytes_label(value).replace(".0 ", " ")


def _gbps_short(value):
    return "%.0f GB/s" % (value / 1e9)


def _dram_bounds(run):
    """[(Bound, label)] of DRAM lines to draw: measured ones, then spec."""
    lines = []
    for name in ("dram_add", "dram_copy"):
        c = (run.ceilings or {}).get(name)
        if c is not None and c.value > 0:
            lines.append((model.Bound(c.value, "measured " + name, True),
                          "DRAM %s (measured %s)" % (_gbps_short(c.value),
                                                     name)))
    spec = model.spec_dram(run.spec_dram_bandwidth)
    if spec is not None:
        lines.append((spec, "DRAM %s (spec)" % _gbps_short(spec.value)))
    return lines


def _ceiling_style(bound):
    return "-" if bound.measured else "--"


def _log2_bytes_axis(axis):
    axis.set_major_locator(LogLocator(base=4))
    axis.set_major_formatter(FuncFormatter(_binary_bytes))
    axis.set_minor_formatter(FuncFormatter(lambda *_: ""))


# 1. cache-tier plot

def _series(points):
    """{(variant, cache): points sorted by n}."""
    out = {}
    for p in points:
        out.setdefault((p.variant, p.cache), []).append(p)
    return {k: sorted(v, key=lambda p: p.n) for k, v in out.items()}


def _hit_metric(run):
    """The residency series for the second axis.  Warm points keep their
    L2 only under a one-pass metric set (see select.l2_read_served);
    CUPTI's hit rates from a multi-pass set describe a flushed L2."""
    if sel.warm_counters_are_warm(run) and sel.has_metric(
            run, sel.M_DRAM_READ_FRACTION):
        return "l2_read_served", "reads served by L2 (1 - DRAM/read bytes)"
    return None, None


def _fit_curve(fit, rows, l2_bytes, cache):
    """(V, t) samples of a series' fitted model over its V range, with the
    level switching at the L2 capacity as in the fit itself."""
    v = np.geomspace(min(p.bytes_moved for p in rows),
                     max(p.bytes_moved for p in rows), 96)
    per_byte = rows[-1].footprint_bytes / rows[-1].bytes_moved
    in_l2 = np.zeros(len(v), dtype=bool)
    if l2_bytes and cache == "warm" and fit.l2_bandwidth:
        in_l2 = v * per_byte < l2_bytes
    t = np.where(in_l2, fit.predict_ns(v, True), fit.predict_ns(v, False))
    return v, t


def _draw_hit_rate(ax_bw, run, series, hit_name):
    ax_hit = ax_bw.twinx()
    for (_, cache), rows in sorted(series.items()):
        if cache != "warm":
            continue
        hits = [(p.footprint_bytes, sel.l2_read_served(run, p))
                for p in rows]
        hits = [(x, y) for x, y in hits if y is not None]
        if hits:
            ax_hit.plot(*zip(*hits), ls=":", color=HIT_GREY, lw=0.9,
                        marker=".", ms=4, alpha=0.7)
    ax_hit.set_ylim(0, 105)
    return ax_hit


def plot_cache_tier(run, outdir, fits=None):
    points = sel.primary_points(run)
    if fits is None:
        fits = model.fit_series(run.points, run.l2_bytes)
    styles = variant_styles({p.variant for p in points})
    fig, body = _figure(run, 15, 8.2, " | fit: shared t0, one slope per "
                        "memory level (L2 for warm points whose footprint "
                        "fits in L2)")
    ax_bw, ax_t = body.subplots(1, 2)
    series = _series(points)
    hit_name, hit_label = _hit_metric(run)

    for (variant, cache), rows in sorted(series.items()):
        colour, marker = styles[variant]
        ls = "-" if cache == "warm" else "--"
        face = colour if cache == "warm" else "none"
        ax_bw.plot([p.footprint_bytes for p in rows],
                   [p.bandwidth / 1e9 for p in rows], ls=ls, marker=marker,
                   color=colour, markerfacecolor=face, ms=5, lw=1.4)
        ax_t.plot([p.bytes_moved for p in rows],
                  [p.time_median_ns / 1e3 for p in rows], ls="none",
                  marker=marker, ms=5, color=colour, markerfacecolor=face)
        fit = fits.get((variant, rows[0].block, cache))
        if fit is not None and fit.bandwidth is not None:
            fv, ft = _fit_curve(fit, rows, run.l2_bytes, cache)
            ax_t.plot(fv, ft / 1e3, ls=ls, color=colour, lw=0.8, alpha=0.8)

    refs = []
    if run.l2_bytes:
        ax_bw.axvline(run.l2_bytes, color="black", ls=":", lw=1.2)
        ax_bw.annotate(" L2 capacity %s" % _binary_bytes(run.l2_bytes),
                       (run.l2_bytes, 0.99), va="top", fontsize=8,
                       xycoords=("data", "axes fraction"))
    for bound, label in _dram_bounds(run):
        ax_bw.axhline(bound.value / 1e9, color=CEILING_GREY,
                      ls=_ceiling_style(bound), lw=1.0)
        refs.append(Line2D([], [], color=CEILING_GREY,
                           ls=_ceiling_style(bound), label=label))
    l2c = model.l2_ceiling(run.ceilings)
    if l2c is not None:
        ax_bw.axhline(l2c.value / 1e9, color=LEVEL_COLOURS["L2"], ls="-.",
                      lw=1.0)
        refs.append(Line2D([], [], color=LEVEL_COLOURS["L2"], ls="-.",
                           label="L2 %s (measured l2_read)" %
                           _gbps_short(l2c.value)))
    floor = model.measured_launch_floor(run.ceilings)
    if floor is not None:
        ax_t.axhline(floor.value / 1e3, color="black", ls=":", lw=1.0)
        refs.append(Line2D([], [], color="black", ls=":",
                           label="launch floor %.2f µs (measured)" %
                           (floor.value / 1e3)))
    if hit_name:
        ax_hit = _draw_hit_rate(ax_bw, run, series, hit_name)
        ax_hit.set_ylabel("%s (%%), grey dotted, warm points" % hit_label)
        refs.append(Line2D([], [], color=HIT_GREY, ls=":", marker=".",
                           label="%s, right axis (warm)" % hit_label))

    ax_bw.set_xscale("log", base=2)
    _log2_bytes_axis(ax_bw.xaxis)
    ax_bw.set_ylim(bottom=0)
    ax_bw.set_xlabel("footprint: distinct bytes touched per launch (log2)")
    ax_bw.set_ylabel("bandwidth = bytes moved / median time (GB/s, 1e9 B/s)")
    ax_bw.set_title("Bandwidth vs working set")
    ax_bw.grid(True, alpha=0.3)
    ax_t.set_xscale("log", base=2)
    _log2_bytes_axis(ax_t.xaxis)
    ax_t.set_yscale("log")
    ax_t.set_xlabel("bytes moved per launch (log2)")
    ax_t.set_ylabel("median time per launch (µs, log)")
    ax_t.set_title("Time vs bytes moved, lines: fitted t = t0 + V/B")
    ax_t.grid(True, which="both", alpha=0.25)

    handles = [Line2D([], [], color=styles[v][0], marker=styles[v][1],
                      ls="-", label=v) for v in sorted(styles)]
    handles += [Line2D([], [], color="black", ls="-", marker="o",
                       label="warm L2: back-to-back (solid, filled)"),
                Line2D([], [], color="black", ls="--", marker="o",
                       markerfacecolor="none",
                       label="cold L2: flushed (dashed, hollow)")]
    body.legend(handles=handles + refs, loc="outside lower center", ncol=5,
                fontsize=8, frameon=False)
    return save(fig, outdir, "cache_tier")


# 1b. the L2 step, few series

STEP_GREY = "#c8c8c8"
STEP_COLOURS = ("#1f77b4", "#d62728", "#2ca02c")


def plot_l2_step(run, outdir, highlight):
    """The add kernels' bandwidth against working set, one panel per
    dtype: the highlighted variants (up to three per dtype, in colour,
    warm solid and cold dashed), every other add variant in thin grey
    (warm), the L2 capacity, the measured DRAM add ceiling, and on a right
    axis the share of reads served by L2 for the first highlighted
    variant (warm), where the counters can tell."""
    pts = [p for p in sel.primary_points(run) if p.op == "add"
           and p.check != "fail"]
    dtypes = [d for d in ("f32", "f16") if any(p.dtype == d for p in pts)]
    if not dtypes:
        return []
    fig, body = _figure(run, 7.2 * len(dtypes), 5.4)
    axes = body.subplots(1, len(dtypes), squeeze=False)[0]
    series = _series(pts)
    dram = (run.ceilings or {}).get("dram_add")
    top = max(p.bandwidth for p in pts) / 1e9 * 1.08
    for ax, dtype in zip(axes, dtypes):
        marked = [v for v in highlight if any(
            p.variant == v and p.dtype == dtype for p in pts)][:3]
        for (variant, cache), rows in sorted(series.items()):
            if rows[0].dtype != dtype or variant in marked or \
                    cache != "warm":
                continue
            ax.plot([p.footprint_bytes for p in rows],
                    [p.bandwidth / 1e9 for p in rows], color=STEP_GREY,
                    lw=0.8, zorder=1)
        for colour, variant in zip(STEP_COLOURS, marked):
            for cache, ls in (("warm", "-"), ("cold", "--")):
                rows = series.get((variant, cache))
                if rows:
                    ax.plot([p.footprint_bytes for p in rows],
                            [p.bandwidth / 1e9 for p in rows], ls=ls,
                            color=colour, lw=1.6, zorder=3,
                            label="%s, %s" % (variant, cache))
        ax.plot([], [], color=STEP_GREY, lw=0.8,
                label="other %s adds, warm" % dtype)
        if run.l2_bytes:
            ax.axvline(run.l2_bytes, color=CEILING_GREY, ls=":", lw=1)
            ax.text(run.l2_bytes, top * 0.98, " L2 %s" % _binary_bytes(
                run.l2_bytes), fontsize=8, va="top")
        if dram is not None:
            ax.axhline(dram.value / 1e9, color=CEILING_GREY, lw=1,
                       label="DRAM add ceiling %s (measured)" %
                       _gbps_short(dram.value))
        ax.set_xscale("log", base=2)
        _log2_bytes_axis(ax.xaxis)
        ax.set_ylim(0, top)
        ax.set_xlabel("working set (bytes the launch touches, log)")
        ax.set_ylabel("bandwidth (GB/s)")
        ax.set_title("add, %s" % dtype)
        ax.grid(True, alpha=0.3)
        rows = series.get((marked[0], "warm")) if marked else None
        served = [(p.footprint_bytes, sel.l2_read_served(run, p))
                  for p in rows or ()]
        served = [(x, y) for x, y in served if y is not None]
        if served:
            twin = ax.twinx()
            twin.plot(*zip(*served), ls=":", color=HIT_GREY, lw=1.2)
            twin.set_ylim(0, 105)
            twin.set_ylabel("reads served by L2, %s warm (%%, dotted)" %
                            marked[0], color=HIT_GREY)
        ax.legend(fontsize=7, loc="lower right")
    return save(fig, outdir, "l2_step")


# 2. hierarchical roofline

def _level_bytes(run, p):
    """[(level, bytes)]: counters where present, and the algorithmic bytes."""
    out = []
    for level, value in (("DRAM", sel.dram_bytes(run, p)),
                         ("L2", sel.metric(run, p, sel.M_L2_BYTES)),
                         ("L1", sel.metric(run, p, sel.M_L1_BYTES))):
        if value:
            out.append((level, value))
    out.append(("algorithmic", float(p.bytes_moved)))
    return out


def _compute_roofs(run):
    """[(flop/s, label, measured)]: ceilings.csv, else a spec estimate."""
    roofs = []
    for name in ("fp32_fma", "fp16_fma"):
        c = (run.ceilings or {}).get(name)
        if c is None:
            continue
        roofs.append((c.value, "%s %.1f TFLOP/s (measured)" % (
            name, c.value / 1e12), True))
        if c.spec_value:
            roofs.append((c.spec_value, "%s %.1f TFLOP/s (spec)" % (
                name, c.spec_value / 1e12), False))
    if roofs:
        return roofs
    dev = run.device
    lanes = FP32_LANES_PER_SM.get(str(dev.get("compute_capability")))
    if lanes and dev.get("sm_count") and dev.get("sm_clock_khz"):
        peak = dev["sm_count"] * lanes * 2 * dev["sm_clock_khz"] * 1e3
        roofs.append((peak, "fp32 %.1f TFLOP/s (spec estimate: SMs x %d "
                      "lanes x 2 x clock)" % (peak / 1e12, lanes), False))
    return roofs


def _roofline_sizes(run):
    all_sizes = sel.sizes(run)
    if len(all_sizes) <= 3:
        return all_sizes
    return [all_sizes[0], sel.mid_size(all_sizes), all_sizes[-1]]


def _roofline_points(run, points, chosen):
    """[(point, FLOP/s, [(level, AI)], no_flops)] for the chosen sizes."""
    placed = []
    for p in points:
        if p.n not in chosen:
            continue
        ops = p.flops if p.flops > 0 else p.n
        perf = ops / (p.time_median_ns * 1e-9)
        placed.append((p, perf, [(lvl, ops / b) for lvl, b in
                                 _level_bytes(run, p)], p.flops == 0))
    return placed


def _span(values, pad, min_decades):
    """Log-axis limits around values: padded, at least min_decades wide."""
    lo, hi = min(values) / pad, max(values) * pad
    missing = min_decades - math.log10(hi / lo)
    if missing > 0:
        lo /= 10 ** (missing / 2)
        hi *= 10 ** (missing / 2)
    return lo, hi


def _draw_ceilings(ax, run, xlim, ylim):
    """Bandwidth diagonals and compute roofs inside the axes; returns the
    legend handles and the labels of roofs left out (above the range)."""
    roofs = _compute_roofs(run)
    inside = [r for r in roofs if r[0] <= ylim[1]]
    top = max([r[0] for r in inside], default=None)
    handles = []
    diagonals = [(b.value, label, b.measured, CEILING_GREY)
                 for b, label in _dram_bounds(run)]
    l2c = model.l2_ceiling(run.ceilings)
    if l2c is not None:
        diagonals.append((l2c.value, "L2 %s (measured l2_read)" %
                          _gbps_short(l2c.value), True, LEVEL_COLOURS["L2"]))
    for bw, label, measured, colour in diagonals:
        x_end = xlim[1] if top is None else min(xlim[1], top / bw)
        xs = np.geomspace(xlim[0], x_end, 8)
        ls = "-" if measured else "--"
        ax.plot(xs, xs * bw, color=colour, ls=ls, lw=1.0)
        handles.append(Line2D([], [], color=colour, ls=ls, label=label))
    slowest = min((d[0] for d in diagonals), default=None)
    for value, label, measured in inside:
        x_start = xlim[0] if slowest is None else value / slowest
        ls = "-" if measured else "--"
        ax.plot([x_start, xlim[1]], [value, value], color="black", ls=ls,
                lw=1.0)
        handles.append(Line2D([], [], color="black", ls=ls, label=label))
    above = [r[1] for r in roofs if r[0] > ylim[1]]
    return handles, above


def plot_roofline(run, outdir):
    points = [p for p in sel.primary_points(run) if p.cache == "warm"] or \
        sel.primary_points(run)
    cache = points[0].cache if points else "-"
    styles = variant_styles({p.variant for p in points})
    chosen = _roofline_sizes(run)
    placed = _roofline_points(run, points, chosen)
    xlim = _span([ai for _, _, lv, _ in placed for _, ai in lv] or [0.1],
                 3.0, 2.5)
    ylim = _span([perf for _, perf, _, _ in placed] or [1e12], 3.0, 2.0)
    fig, body = _figure(run, 16, 7.2)
    axes = body.subplots(1, max(len(chosen), 1), sharey=True,
                         squeeze=False)[0]
    ceiling_handles, above = [], []
    for ax, n in zip(axes, chosen):
        ceiling_handles, above = _draw_ceilings(ax, run, xlim, ylim)
        for p, perf, levels, no_flops in placed:
            if p.n != n:
                continue
            ax.plot([ai for _, ai in levels], [perf] * len(levels),
                    color="#cccccc", lw=0.6, zorder=1)
            for level, ai in levels:
                colour = LEVEL_COLOURS[level]
                ax.plot(ai, perf, ls="none", marker=styles[p.variant][1],
                        ms=7, color=colour, zorder=3,
                        markerfacecolor="none" if no_flops else colour,
                        alpha=0.5 if level == "algorithmic" else 0.9)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_title("%s elements, %s" % (size_label(n), cache))
        ax.set_xlabel("arithmetic intensity (FLOP per byte at each level)")
        ax.grid(True, which="major", alpha=0.25)
    axes[0].set_ylabel("performance (FLOP/s; relu/abs: elements/s)")
    header = [Line2D([], [], ls="none", label=t) for t in
              ("colour = bytes counted at:",)]
    levels = [Line2D([], [], ls="none", marker="o", color=c, label=lvl)
              for lvl, c in LEVEL_COLOURS.items()]
    variants = [Line2D([], [], ls="none", marker=styles[v][1], color="black",
                       markerfacecolor="none", label=v)
                for v in sorted(styles)]
    body.legend(handles=header + levels +
               [Line2D([], [], ls="none", label="lines = ceilings:")] +
               ceiling_handles +
               [Line2D([], [], ls="none", label="marker = variant:")] +
               variants, loc="outside right lower", fontsize=7,
               frameon=False)
    note = ("Hierarchical roofline, one point per kernel and memory level; "
            "grey lines join the levels of one kernel. relu and abs do no "
            "FLOPs: placed at 1 op per element (hollow markers), so their "
            "y/x is the bandwidth at each level.")
    if above:
        note += " Compute ceilings above the plotted range: %s." % \
            "; ".join(above)
    body.suptitle("\n".join(textwrap.wrap(note, 150)), fontsize=8)
    return save(fig, outdir, "roofline")


# 3. instruction efficiency

def _instruction_panels(run, pts):
    """(x label, values, [(reference x, line style)]) per panel."""
    return (
        ("bytes moved per issued\nwarp instruction (B)",
         [sel.metric(run, p, sel.M_BYTES_PER_INST) for p in pts],
         [(model.ISSUE_BYTES_PER_INST, ":")]),
        ("global-load bytes per\nwarp load instruction (B)",
         [sel.metric(run, p, sel.M_LD_BYTES_PER_INST) for p in pts],
         [(128, "--"), (512, "--")]),
        ("bandwidth, % of DRAM ceiling\n(measured where present, else spec)",
         [model.pct_of(p.bandwidth, model.run_dram_ceiling(run, p.op))
          for p in pts], [(100, "--"), (100 * model.DRAM_FRACTION, ":")]),
    )


def plot_instructions(run, outdir):
    all_sizes = sel.sizes(run)
    n = all_sizes[-1] if all_sizes else None
    pts = sel.select(sel.primary_points(run), n=n)
    cache = sel.preferred_cache(pts)
    pts = sorted(sel.select(pts, cache=cache), key=lambda p: p.bandwidth)
    styles = variant_styles({p.variant for p in pts})
    fig, body = _figure(run, 14, 0.3 * max(len(pts), 4) + 2.4)
    axes = body.subplots(1, 3, sharey=True)
    for ax, (label, values, refs) in zip(axes, _instruction_panels(run, pts)):
        for yi, (p, v) in enumerate(zip(pts, values)):
            if v is None:
                ax.text(0, yi, " n/a (no counter)", va="center", fontsize=7,
                        color="#777777")
                continue
            ax.barh(yi, v, color=styles[p.variant][0], height=0.7)
            ax.text(v, yi, " %.0f" % v, va="center", fontsize=7)
        for x, ls in refs:
            ax.axvline(x, color=CEILING_GREY, ls=ls, lw=0.9)
        finite = [v for v in values if v is not None]
        ax.set_xlim(0, max(finite + [x for x, _ in refs] + [1]) * 1.18)
        ax.set_xlabel(label, fontsize=9)
        ax.grid(True, axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(pts)))
    axes[0].set_yticklabels([p.variant for p in pts], fontsize=8)
    axes[0].set_ylim(-0.7, len(pts) - 0.3)
    title = ("Instruction efficiency at %s elements (%s), sorted by "
             "bandwidth. Dashed: 128 B = 32 threads x 4 B (scalar fp32 "
             "load), 512 B = 32 x 16 B (128-bit load), 100 %% of ceiling. "
             "Dotted: verdict thresholds (issue-bound below %.0f B, "
             "DRAM-bound from %.0f %%)." % (
                 size_label(n) if n else "-", cache or "-",
                 model.ISSUE_BYTES_PER_INST, 100 * model.DRAM_FRACTION))
    body.suptitle("\n".join(textwrap.wrap(title, 130)), fontsize=9)
    return save(fig, outdir, "instructions")


# 4. per-size bars

def _bar_label(bandwidth, spec):
    share = " (%.0f%%)" % (100 * bandwidth / spec) if spec else ""
    return " %.0f%s" % (bandwidth / 1e9, share)


def plot_bars(run, outdir):
    all_sizes = sel.representative_sizes(run) or [0]
    points = [p for p in sel.primary_points(run) if p.n in all_sizes]
    variants = sorted({p.variant for p in points})
    styles = variant_styles(variants)
    cols = min(len(all_sizes), 3)
    rows = math.ceil(len(all_sizes) / cols)
    fig, body = _figure(run, 5.6 * cols,
                        (0.32 * len(variants) + 1.3) * rows + 1.0)
    axes = body.subplots(rows, cols, sharex=True, squeeze=False).ravel()
    spec = run.spec_dram_bandwidth
    bounds = _dram_bounds(run)
    xmax = max([p.bandwidth / 1e9 for p in points] +
               [b.value / 1e9 for b, _ in bounds] + [1]) * 1.3
    by_key = {(p.variant, p.n, p.cache): p for p in points}
    for i, ax in enumerate(axes):
        if i >= len(all_sizes):
            ax.set_visible(False)
            continue
        n = all_sizes[i]
        for yi, v in enumerate(variants):
            for cache, offset, alpha, hatch in (("warm", -0.2, 1.0, None),
                                                ("cold", 0.2, 0.4, "///")):
                p = by_key.get((v, n, cache))
                if p is None:
                    continue
                ax.barh(yi + offset, p.bandwidth / 1e9, height=0.38,
                        alpha=alpha, hatch=hatch, color=styles[v][0],
                        edgecolor="white", lw=0.3)
                ax.text(p.bandwidth / 1e9, yi + offset,
                        _bar_label(p.bandwidth, spec), va="center",
                        fontsize=6,
                        bbox=dict(facecolor="white", alpha=0.7, pad=0.2,
                                  lw=0))
        for bound, _ in bounds:
            ax.axvline(bound.value / 1e9, color=CEILING_GREY,
                       ls=_ceiling_style(bound), lw=0.9, zorder=0)
        ax.set_yticks(range(len(variants)))
        ax.set_yticklabels(variants if i % cols == 0 else
                           [""] * len(variants), fontsize=7)
        ax.set_ylim(len(variants) - 0.4, -0.6)
        ax.set_xlim(0, xmax)
        ax.set_title("n = %s elements" % size_label(n), fontsize=9)
        ax.set_xlabel("bandwidth (GB/s); label: GB/s (% of spec DRAM peak)",
                      fontsize=7)
        ax.tick_params(axis="x", labelsize=7, labelbottom=True)
        ax.grid(True, axis="x", alpha=0.3)
    handles = [Patch(color="#555555", label="warm L2 (back-to-back)"),
               Patch(facecolor="#555555", alpha=0.4, hatch="///",
                     edgecolor="white", label="cold L2 (flushed)")]
    handles += [Line2D([], [], color=CEILING_GREY, ls=_ceiling_style(b),
                       label=label) for b, label in bounds]
    body.legend(handles=handles, loc="outside lower center",
                ncol=len(handles), fontsize=8, frameon=False)
    return save(fig, outdir, "bars")


PLOTS = (("cache_tier", plot_cache_tier), ("roofline", plot_roofline),
         ("instructions", plot_instructions), ("bars", plot_bars))


def plot_all(run, outdir, fits=None):
    """{name: [png path, svg path]} for every figure."""
    out = {"cache_tier": plot_cache_tier(run, outdir, fits)}
    for name, draw in PLOTS[1:]:
        out[name] = draw(run, outdir)
    return out


def plot_timeline(events, window, out_png, title):
    """A Perfetto-like picture of a window (start, end µs) of a trace: host
    NVTX ranges by nesting depth on top, GPU kernels below (helper kernels
    such as the L2 flush in grey), time in µs from the window's start."""
    from .timeline import GPU_PID, HOST_PID
    host = [e for e in events if e.pid == HOST_PID]
    gpu = [e for e in events if e.pid == GPU_PID]
    if not events:
        raise ValueError("no events in the window")
    t0 = window[0]
    depths = sorted({e.depth for e in host})
    lanes = {d: i for i, d in enumerate(reversed(depths))}
    gpu_lane = -1.5
    fig = Figure(figsize=(12, 1.2 + 0.45 * (len(depths) + 2)),
                 layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    variants = sorted({e.variant for e in gpu if e.variant})
    styles = variant_styles(variants) if variants else {}
    for e in host:
        y = lanes[e.depth]
        ax.barh(y, e.dur_us, left=e.start_us - t0, height=0.8,
                color="#5b6f8b", alpha=0.35, edgecolor="#5b6f8b")
        ax.text(max(e.start_us - t0, 0) + 0.5, y, e.name, va="center",
                fontsize=7, clip_on=True)
    for e in gpu:
        helper = "flush" in e.name or not e.variant
        color = "#aaaaaa" if helper else styles[e.variant][0]
        ax.barh(gpu_lane, e.dur_us, left=e.start_us - t0, height=0.8,
                color=color, edgecolor="white", lw=0.3)
    ax.set_yticks([gpu_lane] + [lanes[d] for d in depths])
    ax.set_yticklabels(["GPU kernels"] + ["NVTX depth %d" % d
                                          for d in depths], fontsize=8)
    ax.set_xlim(0, window[1] - window[0])
    ax.set_xlabel("time since the window's start (µs)")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    handles = [Line2D([], [], color=styles[v][0], lw=6, label=v)
               for v in variants]
    handles.append(Line2D([], [], color="#aaaaaa", lw=6,
                          label="helper (L2 flush) or unlabelled"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1),
              fontsize=8, frameon=False)
    fig.savefig(out_png, dpi=DPI)
    return out_png

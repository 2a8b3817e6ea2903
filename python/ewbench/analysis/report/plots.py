"""Figures of a study, written as a palette PNG (for the HTML) and an SVG
(full size, linked from it).

This is the only module that imports matplotlib.  It uses the object API
(Figure + the Agg canvas, constrained layout) and never pyplot, so it needs
no display and changes no global backend.  Figures are drawn at the width
the HTML shows them (DPI 100, at most FIG_WIDTH inches), so 9-point text
is 12 pixels on screen.  Every figure carries a footer with the run ids and
the GPU, and says so loudly when a run is a fixture.

Roles are drawn differently everywhere (variants.py): the study's
variants in colour with a marker each, the fastest of ewbench's additions
in purple, the other additions as thin grey lines, cub in black and
PyTorch in brown.

  cache_tier    bandwidth (linear) vs footprint, one panel per op family,
                warm solid and cold dashed, staggered markers, the nominal
                and effective L2, the DRAM ceilings, the share of reads
                served by L2 on a second axis (sweep part)
  blocks        bandwidth vs threads per block per variant, one panel per
                size tier, the published block circled (blocks part)
  dram_share    per variant at the largest size: % of its op's DRAM
                ceiling with the 95 % interval of the median and the repeat
                rounds, and the bytes counted at DRAM, L2 and L1 over the
                bytes moved (it replaces a roofline: docs/analysis.md)
  instructions  bytes per issued instruction, global-load bytes per warp
                load instruction, and % of DRAM ceiling, per variant
"""

import io
import math
import multiprocessing
import os
import textwrap
from dataclasses import dataclass

import matplotlib
import numpy as np
from matplotlib import patheffects
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator
from PIL import Image

from ..core import atomic
from . import model
from ..core import timing
from ..core import workers
from ..core import select as sel
from ..core import study as stu
from ..core import variants as var
from ..core.units import bytes_label, size_label

# SVG element ids from a fixed salt, so a report rendered twice from the
# same data is the same file; text stays text (smaller, searchable).
matplotlib.rcParams["svg.hashsalt"] = "ewbench"
matplotlib.rcParams["svg.fonttype"] = "none"

DPI = 100
FIG_WIDTH = 11.8           # inches: the HTML column is 1180 px wide
FOOTER_INCHES = 0.25
PNG_COLOURS = 256
LEVEL_COLOURS = {"DRAM": "#d62728", "L2": "#1f77b4", "L1": "#2ca02c",
                 "algorithmic": "#7f7f7f"}
CEILING_GREY = "#444444"
HIT_GREY = "#7a7a7a"
STUDY_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#17becf",
                 "#bcbd22", "#e377c2")
STUDY_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
BEST_ADDITION = ("#9467bd", "p")
USER_STYLE = ("#00a087", "d")       # a user's own kernel (--kernel)
PEER_STYLES = {"cub": ("#000000", "*"), "torch": ("#8c564b", "h")}
ADDITION_GREY = "#b5b5b5"
TIMELINE_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "h", "<", ">",
                    "p", "d")


# styles

@dataclass(frozen=True)
class Style:
    colour: str
    marker: str         # "" for none
    lw: float
    alpha: float
    zorder: int
    highlighted: bool   # False: a grey addition, one legend entry for all


def family_styles(points):
    """variant -> Style for the variants of one op family (or any set):
    the study's in their own colours, the fastest addition at the largest
    size in purple, the other additions grey, peers black and brown."""
    names = sorted({p.variant for p in points}, key=var.sort_key)
    largest = max((p.n for p in points), default=None)
    additions = [p for p in points if p.n == largest and
                 var.role(p.variant) == var.ADDITION]
    best_add = max(additions, key=lambda p: p.bandwidth).variant \
        if additions else None
    styles, study_i = {}, 0
    for v in names:
        role = var.role(v)
        if role == var.STUDY:
            styles[v] = Style(STUDY_COLOURS[study_i % len(STUDY_COLOURS)],
                              STUDY_MARKERS[study_i % len(STUDY_MARKERS)],
                              1.6, 1.0, 4, True)
            study_i += 1
        elif role == var.PEER:
            colour, marker = PEER_STYLES.get(var.peer_name(v),
                                             ("#000000", "x"))
            styles[v] = Style(colour, marker, 1.6, 1.0, 5, True)
        elif role == var.USER:
            styles[v] = Style(USER_STYLE[0], USER_STYLE[1], 1.8, 1.0, 6,
                              True)
        elif v == best_add:
            styles[v] = Style(BEST_ADDITION[0], BEST_ADDITION[1], 1.6, 1.0,
                              3, True)
        else:
            styles[v] = Style(ADDITION_GREY, "", 0.9, 0.8, 2, False)
    return styles


def variant_styles(variants):
    """variant -> (colour, marker) for the timeline: one colour each."""
    cmap = matplotlib.colormaps["tab20"]
    order = list(range(0, 20, 2)) + list(range(1, 20, 2))
    return {v: (cmap(order[i % 20]), TIMELINE_MARKERS[i % len(
        TIMELINE_MARKERS)]) for i, v in enumerate(sorted(variants))}


def _legend_handles(styles, with_cold=False):
    handles, greys = [], 0
    for v, st in styles.items():
        if not st.highlighted:
            greys += 1
            continue
        label = v if var.role(v) != var.ADDITION else \
            "%s (fastest addition)" % v
        handles.append(Line2D([], [], color=st.colour, marker=st.marker,
                              lw=st.lw, ms=6, label=label))
    if greys:
        handles.append(Line2D([], [], color=ADDITION_GREY, lw=1.2,
                              label="%d other ewbench additions" % greys))
    if with_cold:
        handles += [Line2D([], [], color="#333333", ls="-",
                           label="warm (solid)"),
                    Line2D([], [], color="#333333", ls="--",
                           label="cold (dashed)")]
    return handles


# figure and file helpers

def _figure(runs, height, extra=""):
    """(figure, body): body is a subfigure to draw in; a thin strip under
    it carries the footer (run ids, GPU, fixture warning)."""
    fig = Figure(figsize=(FIG_WIDTH, height), layout="constrained")
    FigureCanvasAgg(fig)
    strip = FOOTER_INCHES / height
    body, foot = fig.subfigures(2, 1, height_ratios=(1 - strip, strip))
    device = runs[0].device.get("name", "unknown GPU")
    text = "%s | run %s%s" % (device, ", ".join(r.run_id for r in runs),
                              extra)
    fixture = any(r.is_fixture for r in runs)
    if fixture:
        text = "FIXTURE DATA (synthetic, not a measurement) | " + text
    foot.text(0.005, 0.5, text, fontsize=7, ha="left", va="center",
              color="#b00000" if fixture else "#555555")
    return fig, body


def _png_palette(fig):
    """The figure as a palette PNG (at most PNG_COLOURS colours): a third
    of the bytes of a full-colour one, which keeps the HTML small."""
    buf = io.BytesIO()
    fig.savefig(buf, dpi=DPI, format="png")
    buf.seek(0)
    image = Image.open(buf).convert("RGB").quantize(
        colors=PNG_COLOURS, method=Image.Quantize.FASTOCTREE,
        dither=Image.Dither.NONE)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def legend_outside(figure, where, **kwargs):
    """figure.legend outside its axes at `where` ("lower center", ...).
    matplotlib before 3.7 (Debian 12, Ubuntu 24.04) has no "outside"
    locations: there the legend sits inside the figure's edge instead."""
    try:
        return figure.legend(loc="outside " + where, **kwargs)
    except ValueError:
        return figure.legend(loc=where, **kwargs)


def save(fig, outdir, stem):
    """Write stem.png and stem.svg into outdir; return both paths."""
    atomic.make_dirs(outdir)
    png = os.path.join(outdir, stem + ".png")
    svg = os.path.join(outdir, stem + ".svg")
    atomic.write_bytes(png, _png_palette(fig))
    atomic.savefig(fig, svg, format="svg", metadata={"Date": None})
    return [png, svg]


def _binary_bytes(value, _pos=None):
    return bytes_label(value) if value > 0 else ""


def _gbps_short(value):
    return "%.0f GB/s" % (value / 1e9)


def _log2_bytes_axis(axis):
    axis.set_major_locator(LogLocator(base=4))
    axis.set_major_formatter(FuncFormatter(_binary_bytes))
    axis.set_minor_formatter(FuncFormatter(lambda *_: ""))


def _families(points):
    """(op, dtype) families present, add first, fp32 before fp16."""
    order = {"add": 0, "relu": 1, "abs": 2}
    return sorted({var.family(p) for p in points},
                  key=lambda f: (order.get(f[0], 9), f[1] != "f32"))


def _grid(body, count, ncols=2):
    ncols = min(ncols, count)
    rows = math.ceil(count / ncols)
    axes = body.subplots(rows, ncols, squeeze=False).ravel()
    for ax in axes[count:]:
        ax.set_visible(False)
    return axes[:count]


# 1. cache-tier plot

def _series(points):
    """{(variant, cache): points sorted by n}."""
    out = {}
    for p in points:
        out.setdefault((p.variant, p.cache), []).append(p)
    return {k: sorted(v, key=lambda p: p.n) for k, v in out.items()}


def _residency(run, points):
    """[(footprint, median % of reads served by L2)] over the warm points
    of each footprint; [] without one-pass residency counters."""
    per = {}
    for p in points:
        if p.cache != "warm":
            continue
        value = sel.l2_read_served(run, p)
        if value is not None:
            per.setdefault(p.footprint_bytes, []).append(value)
    return [(f, float(np.median(v))) for f, v in sorted(per.items())]


MARKER_OCTAVES = 1.0     # spacing of one series' markers along the x axis


def _stagger(styles):
    """variant -> (offset, spacing) in octaves of footprint for the warm
    markers of the highlighted series: the k-th of m series marks one
    size per octave from k/m octave on, so lines that lie on one another
    still show every series' markers side by side."""
    shown = [v for v, st in styles.items() if st.highlighted]
    return {v: (MARKER_OCTAVES * k / len(shown), MARKER_OCTAVES)
            for k, v in enumerate(shown)}


def _marked(x, start, offset, spacing):
    """Indices of x (ascending, > 0) nearest to start x 2^(offset + j x
    spacing), j = 0, 1, ... up to x's largest: evenly spaced on a log2
    axis however dense the sizes are (where sizes are sparser than the
    stagger, two series may still mark the same size)."""
    logs = np.log2(np.asarray(x, dtype=float))
    out = []
    target = math.log2(start) + offset
    while target <= logs[-1] + 1e-9:
        i = int(np.argmin(np.abs(logs - target)))
        if abs(logs[i] - target) <= spacing / 2 and i not in out:
            out.append(i)
        target += spacing
    return out


def _label_at_line(ax, y, text, colour, above):
    """A ceiling's name written on its horizontal line, at the left edge
    (the smallest sizes run far below every ceiling), above or below it."""
    ax.annotate(text, (0.01, y), xycoords=("axes fraction", "data"),
                xytext=(0, 2 if above else -2), textcoords="offset points",
                va="bottom" if above else "top", ha="left", fontsize=7.5,
                color=colour, zorder=9, path_effects=[
                    patheffects.withStroke(linewidth=2.5,
                                           foreground="white")])


def _cache_tier_panel(ax, run, points, fam, effective_l2=None):
    styles = family_styles(points)
    marks = _stagger(styles)
    first = min((p.footprint_bytes for p in points), default=1)
    ymax = 0.0
    for (variant, cache), rows in sorted(_series(points).items(),
                                         key=lambda kv: -styles[
                                             kv[0][0]].zorder):
        st = styles[variant]
        if cache == "cold" and not st.highlighted:
            continue
        x = [p.footprint_bytes for p in rows]
        y = [p.bandwidth / 1e9 for p in rows]
        ymax = max([ymax] + y)
        warm = cache == "warm"
        ax.plot(x, y, ls="-" if warm else "--",
                lw=st.lw if warm else st.lw * 0.7,
                color=st.colour, alpha=st.alpha if warm else 0.55,
                zorder=st.zorder if warm else st.zorder - 1)
        if warm and variant in marks:
            # Markers above every line, so one line cannot hide another's.
            at = _marked(x, first, *marks[variant])
            ax.plot([x[i] for i in at], [y[i] for i in at], ls="none",
                    marker=st.marker, ms=6, mec="white", mew=0.6,
                    color=st.colour, zorder=8)
    dram = model.run_dram_ceiling(run, fam[0])
    spec = model.spec_dram(run.spec_dram_bandwidth)
    refs = []
    for bound in (dram, spec):
        if bound is None or (bound is spec and dram is not None and
                             not dram.measured):
            continue
        # DRAM's level colour, thick and translucent: never mistaken for a
        # kernel's line (cub is black solid, cold runs are dashed).
        ls = "-" if bound.measured else (0, (1, 2))
        ax.axhline(bound.value / 1e9, color=LEVEL_COLOURS["DRAM"], ls=ls,
                   lw=2.4 if bound.measured else 1.4, alpha=0.45, zorder=1)
        label = "DRAM %s (%s)" % (_gbps_short(bound.value), bound.source)
        # The measured ceiling lies below the spec peak: its name goes
        # under its line, the peak's over its own, so the two never meet.
        _label_at_line(ax, bound.value / 1e9, "%s DRAM %s" % (
            "measured" if bound.measured else "spec", _gbps_short(
                bound.value)), LEVEL_COLOURS["DRAM"],
            above=not bound.measured)
        refs.append(Line2D([], [], color=LEVEL_COLOURS["DRAM"], ls=ls,
                           lw=2.4 if bound.measured else 1.4, alpha=0.45,
                           label=label))
        ymax = max(ymax, bound.value / 1e9)
    l2c = model.l2_ceiling(run.ceilings)
    note = None
    if l2c is not None:
        if l2c.value / 1e9 <= 1.15 * ymax:
            ax.axhline(l2c.value / 1e9, color=LEVEL_COLOURS["L2"], ls="-.",
                       lw=1.0)
            label = "L2 read %s (measured)" % _gbps_short(l2c.value)
            _label_at_line(ax, l2c.value / 1e9, "measured L2 read %s" %
                           _gbps_short(l2c.value), LEVEL_COLOURS["L2"],
                           above=False)
            refs.append(Line2D([], [], color=LEVEL_COLOURS["L2"], ls="-.",
                               label=label))
            ymax = max(ymax, l2c.value / 1e9)
        else:
            note = "measured L2 read ceiling %s: above the plot" % \
                _gbps_short(l2c.value)
    box = dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.85)
    # Both L2 sizes are named right of the nominal one, in the upper part:
    # every kernel there runs at DRAM speed or below and the share of
    # reads from L2 is near zero, so the names cover no data.
    right = max(run.l2_bytes or 0, effective_l2[2] if effective_l2 else 0)
    if run.l2_bytes:
        ax.axvline(run.l2_bytes, color="black", ls=":", lw=1.4, zorder=2)
        ax.annotate("L2 %s (nominal)" % bytes_label(run.l2_bytes),
                    (run.l2_bytes, 0.97), xytext=(4, 0),
                    textcoords="offset points", fontsize=8, va="top",
                    ha="left", xycoords=("data", "axes fraction"), bbox=box,
                    zorder=9)
        refs.append(Line2D([], [], color="black", ls=":", lw=1.4,
                           label="L2 capacity %s (nominal)" %
                           bytes_label(run.l2_bytes)))
    if effective_l2 is not None:
        middle, low, high = effective_l2
        ax.axvspan(low, high, color=LEVEL_COLOURS["L2"], alpha=0.4, lw=0,
                   zorder=0)
        ax.axvline(middle, color=LEVEL_COLOURS["L2"], ls=(0, (5, 2)),
                   lw=1.4, zorder=2)
        ax.annotate("effective L2 %s\n(%s to %s)" % (
            bytes_label(middle), bytes_label(low), bytes_label(high)),
            (high, 0.86), xytext=(right * 1.3, 0.86), fontsize=7.5,
            ha="left", va="center", color=LEVEL_COLOURS["L2"], bbox=box,
            zorder=9, xycoords=("data", "axes fraction"),
            textcoords=("data", "axes fraction"),
            arrowprops=dict(arrowstyle="->", color=LEVEL_COLOURS["L2"],
                            lw=1.0, shrinkA=0, shrinkB=0))
        refs.append(Patch(facecolor=LEVEL_COLOURS["L2"], alpha=0.4,
                          edgecolor=LEVEL_COLOURS["L2"], ls=(0, (5, 2)),
                          label="effective L2 %s (finding 2) and the sizes "
                                "bracketing it" % bytes_label(middle)))
    served = _residency(run, points)
    if served:
        twin = ax.twinx()
        twin.plot(*zip(*served), ls=":", color=HIT_GREY, lw=1.3,
                  marker=".", ms=3)
        twin.set_ylim(0, 105)
        twin.set_ylabel("reads served by L2 (%)",
                        fontsize=8, color=HIT_GREY)
        twin.tick_params(labelsize=8, colors=HIT_GREY)
        refs.append(Line2D([], [], color=HIT_GREY, ls=":", marker=".",
                           label="reads from L2, % (right axis)"))
    ax.set_xscale("log", base=2)
    _log2_bytes_axis(ax.xaxis)
    # Linear from zero: finding 2 compares L2-resident bandwidth with the
    # DRAM ceiling, a ratio a linear axis shows as it is (a log axis
    # squeezed 1.5 to 7 TB/s into its top fifth).  The launch-bound small
    # sizes flatten towards zero, which is what they are.
    ax.set_ylim(0, ymax * 1.12)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: "%g" % v))
    ax.set_xlabel("footprint: bytes touched per launch (MiB = 2^20 B)",
                  fontsize=9)
    ax.set_ylabel("GB/s = 10^9 B/s, bytes moved / median time",
                  fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, alpha=0.3)
    ax.set_title(var.family_label(fam) + ("\n(%s)" % note if note else ""),
                 fontsize=10)
    ax.legend(handles=_legend_handles(styles, with_cold=True) + refs,
              loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2,
              fontsize=7.5, frameon=False)


def plot_cache_tier(run, outdir, effective_l2=None):
    """Bandwidth against footprint, one panel per op family.
    effective_l2: (middle, low, high) bytes, finding 2's effective L2 for
    streaming, marked with its bracket; None: not marked."""
    points = [p for p in sel.primary_points(run) if p.check != "fail"]
    fams = [f for f in _families(points)
            if len({p.n for p in points if var.family(p) == f}) > 1]
    if not fams:
        return None
    rows = math.ceil(len(fams) / 2)
    launches = "/".join(sorted({p.launch for p in points}))
    fig, body = _figure([run], 5.9 * rows + 0.6)
    for ax, fam in zip(_grid(body, len(fams)), fams):
        _cache_tier_panel(ax, run, [p for p in points
                                    if var.family(p) == fam], fam,
                          effective_l2)
    body.suptitle("Bandwidth against working set (%s launches)" % launches,
                  fontsize=10)
    return save(fig, outdir, "cache_tier")


# 2. block sizes

TIER_STYLES = ("-", "--", ":")      # largest size first


def plot_blocks(run, outdir, published=None):
    """GB/s against threads per block, one panel per op family; each
    variant's largest size solid, smaller ones dashed and dotted (tune
    picks sizes per variant).  published: variant -> the block the study
    published (circled)."""
    points = [p for p in run.points if p.block and p.check != "fail"]
    swept = {v for v in {p.variant for p in points}
             if len({p.block for p in points if p.variant == v}) > 1}
    points = [p for p in points if p.variant in swept]
    if not points:
        return None
    cache = sel.preferred_cache(points)
    points = [p for p in points if p.cache == cache]
    fams = _families(points)
    blocks = sorted({p.block for p in points})
    dram = model.run_dram_ceiling(run, "add")
    rows = math.ceil(len(fams) / 2)
    fig, body = _figure([run], 4.4 * rows + 1.3)
    tiers_used = 1
    for ax, fam in zip(_grid(body, len(fams)), fams):
        mine = [p for p in points if var.family(p) == fam]
        styles = family_styles(mine)
        ax.axvspan(128 / 1.15, 256 * 1.15, color="#e8f3e8", zorder=0)
        for v in sorted({p.variant for p in mine}, key=var.sort_key):
            st = styles[v]
            sizes = sorted({p.n for p in mine if p.variant == v},
                           reverse=True)
            tiers_used = max(tiers_used, len(sizes))
            for k, n in enumerate(sizes[:len(TIER_STYLES)]):
                line = sorted((p for p in mine if p.variant == v and
                               p.n == n), key=lambda p: p.block)
                ax.plot([p.block for p in line],
                        [p.bandwidth / 1e9 for p in line],
                        color=st.colour, ls=TIER_STYLES[k],
                        marker=st.marker or ".", lw=st.lw, ms=5,
                        zorder=st.zorder)
                at = [p for p in line if p.block == (published or {}).get(v)]
                if at:
                    ax.plot(at[0].block, at[0].bandwidth / 1e9, ls="none",
                            marker="o", ms=13, mfc="none", mec=st.colour,
                            mew=1.4, zorder=6)
        ceiling = model.run_dram_ceiling(run, fam[0])
        if ceiling is not None:
            ax.axhline(ceiling.value / 1e9, color=CEILING_GREY,
                       ls="-" if ceiling.measured else "--", lw=1.0)
        ax.set_xscale("log", base=2)
        ax.set_xticks(blocks)
        ax.set_xticklabels([str(b) for b in blocks], fontsize=8)
        ax.xaxis.set_minor_formatter(FuncFormatter(lambda *_: ""))
        ax.tick_params(labelsize=8)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("threads per block", fontsize=9)
        ax.set_ylabel("GB/s", fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.set_title("%s: %s" % (var.family_label(fam), ", ".join(
            sorted({size_label(p.n) for p in mine}, key=lambda t: -max(
                p.n for p in mine if size_label(p.n) == t)))), fontsize=10)
        ax.legend(handles=_legend_handles(styles), loc="lower right",
                  fontsize=7.5, framealpha=0.85)
    handles = [Line2D([], [], color="#333333", ls=TIER_STYLES[k],
                      label=("largest", "middle", "smallest")[k] +
                      " size of the variant")
               for k in range(min(tiers_used, len(TIER_STYLES)))]
    handles += [Line2D([], [], ls="none", marker="o", ms=11, mfc="none",
                       mec="#333333", label="the study's published block"),
                Line2D([], [], color="#e8f3e8", lw=8,
                       label="128 to 256 threads (finding 5)")]
    if dram is not None:
        handles.append(Line2D([], [], color=CEILING_GREY, label=(
            "measured DRAM ceiling of the op (dram_add; relu, abs: "
            "dram_copy)" if dram.measured else "DRAM spec peak")))
    legend_outside(body, "lower center", handles=handles, ncol=3,
                fontsize=8, frameon=False)
    body.suptitle("Bandwidth against threads per block (%s, %s launches)"
                  % (cache, "/".join(sorted({p.launch for p in points}))),
                  fontsize=10)
    return save(fig, outdir, "blocks")


# 3. share of the DRAM ceiling

def _l1_bytes(run, p):
    """L1 bytes: l1tex__t_bytes.sum, else the global load and store bytes
    through the LSU pipe (the default set counts those)."""
    total = sel.metric(run, p, sel.M_L1_BYTES)
    if total:
        return total
    parts = [sel.metric(run, p, m) for m in sel.M_L1_GLOBAL_BYTES]
    return sum(parts) if all(v is not None for v in parts) else None


def _level_bytes(run, p):
    """[(level, bytes)] counted at DRAM, L2 and L1, where measured."""
    out = []
    for level, value in (("DRAM", sel.dram_bytes(run, p)),
                         ("L2", sel.metric(run, p, sel.M_L2_BYTES)),
                         ("L1", _l1_bytes(run, p))):
        if value:
            out.append((level, value))
    return out


def _compute_roof(run, dtype):
    """(flop/s, label) of the dtype's FMA roof: ceilings.csv's fp32_fma or
    fp16_fma, else for fp32 a spec estimate from run.json; None."""
    name = {"f32": "fp32_fma", "f16": "fp16_fma"}.get(dtype)
    c = (run.ceilings or {}).get(name) if name else None
    if c is not None and c.value > 0:
        return c.value, "%s %.1f TFLOP/s (measured)" % (name, c.value / 1e12)
    dev = run.device
    lanes = dev.get("fp32_lanes_per_sm")      # run.json, from ewbench
    if dtype == "f32" and lanes and dev.get("sm_count") and \
            dev.get("sm_clock_khz"):
        peak = dev["sm_count"] * lanes * 2 * dev["sm_clock_khz"] * 1e3
        return peak, "fp32 %.1f TFLOP/s (spec estimate)" % (peak / 1e12)
    return None


def _intensity_note(run, pts, fams):
    """One clause per op family: its intensity (FLOP per byte moved, from
    the rows' flops and bytes_moved) and how far under the ridge of its
    FMA roof and DRAM ceiling that lies, the one answer a roofline gave
    for kernels like these."""
    clauses = []
    for fam in fams:
        mine = [p for p in pts if var.family(p) == fam and p.bytes_moved]
        flops = [p.flops / p.bytes_moved for p in mine if p.flops > 0]
        if not flops:
            clauses.append("%s no FLOPs" % var.family_label(fam))
            continue
        intensity = float(np.median(flops))
        text = "%s %.3g FLOP/B" % (var.family_label(fam), intensity)
        roof = _compute_roof(run, fam[1])
        dram = model.run_dram_ceiling(run, fam[0])
        if roof is not None and dram is not None:
            ridge = roof[0] / dram.value
            text += ", %.0fx under the ridge %.1f FLOP/B = %s / %s (%s)" \
                % (ridge / intensity, ridge, roof[1],
                   _gbps_short(dram.value), dram.source)
        clauses.append(text)
    return "Intensity (FLOP / bytes moved, from the rows): " + \
        "; ".join(clauses) + "."


def _repeat_points(repeats, pts):
    """point key -> [bandwidth of the same key in each repeat round]."""
    keys = {p.key for p in pts}
    out = {}
    for run in repeats or ():
        for q in run.points:
            if q.key in keys and q.check != "fail":
                out.setdefault(q.key, []).append(q.bandwidth)
    return out


def _bandwidth_interval(p):
    """(low, high) byte/s of a row's bandwidth: its time's 95 % interval
    of the median (timing.row_time) turned into bandwidth."""
    t = timing.row_time(p)
    return (p.bandwidth * t.median_ns / t.high_ns,
            p.bandwidth * t.median_ns / t.low_ns if t.low_ns > 0 else
            p.bandwidth)


# Level -> (marker, offset in rows): one row's levels side by side, as
# DRAM bytes and the bytes the kernel moves are often equal.
LEVEL_MARKS = {"DRAM": ("s", -0.22), "L2": ("o", 0.0), "L1": ("^", 0.22)}
ROLE_COLOURS = {var.STUDY: STUDY_COLOURS[0], var.ADDITION: "#8c8c8c",
                var.PEER: "#000000", var.USER: USER_STYLE[0]}


@dataclass(frozen=True)
class ShareRow:
    """One row of the DRAM-share figure, in % of the op's DRAM ceiling."""
    point: object
    median: float
    low: float              # the 95 % interval of the median, as bandwidth
    high: float
    rounds: tuple           # the same row's median in each repeat round


def share_rows(run, repeats=()):
    """[ShareRow] at the largest size (warm when measured), primary
    blocks, passing rows, grouped by op family (_families' order), fastest
    first; [] without points or any DRAM ceiling."""
    points = [p for p in sel.primary_points(run) if p.check != "fail"]
    if not points:
        return []
    n = max(p.n for p in points)
    pts = [p for p in points if p.n == n]
    cache = sel.preferred_cache(pts)
    pts = [p for p in pts if p.cache == cache and
           model.run_dram_ceiling(run, p.op) is not None]
    fams = _families(pts)
    pts = sorted(pts, key=lambda p: (fams.index(var.family(p)),
                                     -p.bandwidth))
    again = _repeat_points(repeats, pts)
    rows = []
    for p in pts:
        bound = model.run_dram_ceiling(run, p.op)
        low, high = _bandwidth_interval(p)
        rows.append(ShareRow(p, model.pct_of(p.bandwidth, bound),
                             model.pct_of(low, bound),
                             model.pct_of(high, bound),
                             tuple(model.pct_of(b, bound)
                                   for b in again.get(p.key, ()))))
    return rows


def plot_dram_share(run, outdir, repeats=()):
    """Per variant at the largest size (warm when measured), grouped by op
    family, fastest first: bandwidth in % of its op's DRAM ceiling with
    the 95 % interval of its median and the repeat rounds' medians; beside
    it, where counters were taken, the bytes counted at DRAM, L2 and L1
    over the bytes the kernel must move."""
    rows = share_rows(run, repeats)
    if not rows:
        return None
    pts = [r.point for r in rows]
    n, cache = pts[0].n, pts[0].cache
    fams = _families(pts)
    levels = {p.key: _level_bytes(run, p) for p in pts}
    counted = any(levels.values())
    fig, body = _figure([run], 0.26 * len(pts) + 2.6)
    if counted:
        share, ratio = body.subplots(1, 2, sharey=True,
                                     gridspec_kw={"width_ratios": (3, 2)})
    else:
        share, ratio = body.subplots(1, 1), None
    lows, highs = [model.DRAM_FRACTION * 100], [100.0]
    for yi, r in enumerate(rows):
        colour = ROLE_COLOURS[var.role(r.point.variant)]
        share.errorbar(r.median, yi, xerr=[[r.median - r.low],
                                           [r.high - r.median]],
                       fmt="o", ms=5, color=colour, ecolor=colour,
                       elinewidth=2.2, capsize=3, zorder=4)
        share.plot(r.rounds, [yi] * len(r.rounds), ls="none", marker="o",
                   ms=7, mfc="none", mec="#d62728", mew=1.0, zorder=3)
        share.annotate("%.1f (%.1f-%.1f)" % (r.median, r.low, r.high),
                       (1.0, yi), xycoords=("axes fraction", "data"),
                       xytext=(-3, 0), textcoords="offset points",
                       ha="right", va="center", fontsize=7,
                       color="#333333")
        lows += [r.low] + list(r.rounds)
        highs += [r.high] + list(r.rounds)
    # Each family's spec peak as a share of its own measured ceiling (the
    # ceilings differ by op: dram_add, dram_copy).
    spec = model.spec_dram(run.spec_dram_bandwidth)
    for fam in fams:
        span = [yi for yi, p in enumerate(pts) if var.family(p) == fam]
        dram = model.run_dram_ceiling(run, fam[0])
        if spec is not None and dram.measured:
            at = 100.0 * spec.value / dram.value
            share.plot([at, at], [span[0] - 0.45, span[-1] + 0.45],
                       color=LEVEL_COLOURS["DRAM"], ls=(0, (1, 2)), lw=1.4)
            highs.append(at)
    share.axvline(100, color=LEVEL_COLOURS["DRAM"], lw=2.0, alpha=0.6,
                  zorder=1)
    share.axvline(100 * model.DRAM_FRACTION, color=CEILING_GREY, ls=":",
                  lw=1.0)
    left = 5 * math.floor((min(lows) - 3) / 5)
    # Room on the right for the column of numbers.
    right = max(highs) + 0.30 * (max(highs) - left)
    share.set_xlim(left, right)
    measured = all(model.run_dram_ceiling(run, f[0]).measured
                   for f in fams)
    share.set_xlabel("% of the op's DRAM ceiling (add: dram_add; relu, "
                     "abs: dram_copy)" if measured else
                     "% of the DRAM spec peak (run.json; no ceiling "
                     "measured)", fontsize=9)
    share.grid(True, axis="x", alpha=0.3)
    share.tick_params(labelsize=8)
    share.set_yticks(range(len(pts)))
    share.set_yticklabels(["%s (%s)" % (p.variant, var.family_label(
        var.family(p))) for p in pts], fontsize=8)
    for tick, p in zip(share.get_yticklabels(), pts):
        tick.set_color(ROLE_COLOURS[var.role(p.variant)])
    share.set_ylim(len(pts) - 0.4, -0.6)
    axes = [share]
    if ratio is not None:
        axes.append(ratio)
        values = []
        for yi, p in enumerate(pts):
            for level, b in levels[p.key]:
                r = b / p.bytes_moved
                values.append(r)
                marker, dy = LEVEL_MARKS[level]
                ratio.plot(r, yi + dy, ls="none", marker=marker, ms=5.5,
                           color=LEVEL_COLOURS[level], mec="white", mew=0.5,
                           zorder=3)
            if not levels[p.key]:
                ratio.text(1.0, yi, "no counters", va="center", ha="center",
                           fontsize=7, color="#777777")
        ratio.axvline(1.0, color=CEILING_GREY, lw=1.0)
        ratio.set_xscale("log", base=2)
        # At least 0.5x to 2x, so the axis has ticks on both sides of 1x.
        lo = min(values + [0.5]) / 1.2
        hi = max(values + [2.0]) * 1.2
        ratio.set_xlim(lo, hi)
        ratio.xaxis.set_major_formatter(FuncFormatter(
            lambda v, _pos: "%gx" % v))
        ratio.set_xlabel("bytes counted at the level / bytes the kernel "
                         "must move", fontsize=9)
        ratio.grid(True, axis="x", alpha=0.3)
        ratio.tick_params(labelsize=8)
    for yi in range(1, len(pts)):
        if var.family(pts[yi]) != var.family(pts[yi - 1]):
            for ax in axes:
                ax.axhline(yi - 0.5, color="#888888", lw=0.8)
    handles = [Line2D([], [], color=c, marker="o", lw=2.2, ms=5, label=r)
               for r, c in ROLE_COLOURS.items()
               if any(var.role(p.variant) == r for p in pts)]
    handles[0].set_label(handles[0].get_label() +
                         ": median, bar = 95 % interval of the median")
    if any(r.rounds for r in rows):
        handles.append(Line2D([], [], ls="none", marker="o", ms=7,
                              mfc="none", mec="#d62728",
                              label="median of each repeat round "
                                    "(repeats/)"))
    handles += [Line2D([], [], color=LEVEL_COLOURS["DRAM"], lw=2.0,
                       alpha=0.6, label="100 %: the measured ceiling"
                       if measured else "100 %: the spec peak"),
                Line2D([], [], color=CEILING_GREY, ls=":",
                       label="%.0f %%: DRAM-bound from here" %
                       (100 * model.DRAM_FRACTION))]
    if spec is not None and measured:
        handles.append(Line2D([], [], color=LEVEL_COLOURS["DRAM"],
                              ls=(0, (1, 2)), lw=1.4,
                              label="spec peak (run.json)"))
    # Each panel's key under it, as an axes legend: constrained layout
    # makes room for it on every matplotlib the project takes (a figure
    # legend outside the axes needs 3.7).
    # below the x label: about 45 px under the axes, which are about 26 px
    # a row high.
    under = dict(loc="upper center", bbox_to_anchor=(
        0.5, -1.75 / max(len(pts), 3)), fontsize=8, frameon=False)
    share.legend(handles=handles, ncol=2, **under)
    if ratio is not None:
        ratio.legend(handles=[
            Line2D([], [], ls="none", marker=LEVEL_MARKS[lvl][0], ms=6,
                   color=c, label="bytes counted at %s" % lvl)
            for lvl, c in LEVEL_COLOURS.items() if lvl != "algorithmic" and
            any(lvl == name for lv in levels.values() for name, _ in lv)],
            ncol=1, **under)
    body.suptitle("\n".join(
        ["Share of the DRAM ceiling at %s elements (%s), grouped by op "
         "family, fastest first; numbers: median (95 %% interval) in %%"
         % (size_label(n), cache)] +
        textwrap.wrap(_intensity_note(run, pts, fams), 150)), fontsize=9)
    return save(fig, outdir, "dram_share")


# 4. instruction efficiency

def _issue_thresholds(run, pts):
    """point key -> the issue-bound threshold of model.rule_issue for that
    point (ISSUE_MARGIN x its leanest DRAM-bound sibling, capped at
    ISSUE_BYTES_PER_INST), None where the rule cannot fire."""
    fits = model.fit_series(run.points, run.l2_bytes,
                            run.spec_dram_bandwidth)
    siblings = model._siblings(run)
    out = {}
    for p in pts:
        f = model.point_facts(run, p, fits, siblings)
        full = f.full_speed_bytes_per_inst
        out[p.key] = None if full is None else min(
            model.ISSUE_BYTES_PER_INST, model.ISSUE_MARGIN * full)
    return out


def plot_instructions(run, outdir):
    """Per variant at the largest size: bytes per issued instruction,
    bytes requested per global load instruction (with the share of the
    sector bytes used, where not all), % of the DRAM ceiling."""
    points = [p for p in sel.primary_points(run) if p.check != "fail"]
    if not points or not sel.has_metric(run, sel.M_BYTES_PER_INST):
        return None
    n = max(p.n for p in points)
    pts = [p for p in points if p.n == n]
    cache = sel.preferred_cache(pts)
    pts = [p for p in pts if p.cache == cache]
    fams = _families(pts)
    pts = sorted(pts, key=lambda p: (fams.index(var.family(p)),
                                     -p.bandwidth))
    thresholds = _issue_thresholds(run, pts)
    fig, body = _figure([run], 0.26 * len(pts) + 2.2)
    axes = body.subplots(1, 3, sharey=True)
    panels = (
        ("bytes moved per issued warp instruction (B)",
         [sel.metric(run, p, sel.M_BYTES_PER_INST) for p in pts]),
        ("bytes requested per warp global load instruction (B)",
         [sel.metric(run, p, sel.M_LD_REQUESTED_BYTES_PER_INST)
          for p in pts]),
        ("% of the DRAM ceiling",
         [model.pct_of(p.bandwidth, model.run_dram_ceiling(run, p.op))
          for p in pts]),
    )
    role_colour = {var.STUDY: STUDY_COLOURS[0], var.ADDITION: ADDITION_GREY,
                   var.PEER: "#000000", var.USER: USER_STYLE[0]}
    for k, (ax, (label, values)) in enumerate(zip(axes, panels)):
        for yi, (p, v) in enumerate(zip(pts, values)):
            if v is None:
                ax.text(0, yi, " n/a", va="center", fontsize=8,
                        color="#777777")
                continue
            ax.barh(yi, v, color=role_colour[var.role(p.variant)],
                    height=0.72)
            label = " %.0f" % v
            used = sel.metric(run, p, sel.M_LD_SECTOR_EFFICIENCY) \
                if k == 1 else None
            if used is not None and used < 99.5:
                label += " (%.0f %% of sectors)" % used
            ax.text(v, yi, label, va="center", fontsize=7.5)
            if k == 0 and thresholds.get(p.key) is not None:
                ax.plot([thresholds[p.key]] * 2, [yi - 0.42, yi + 0.42],
                        color="#d62728", lw=1.6)
        if k == 1:
            for x in (128, 512):
                ax.axvline(x, color=CEILING_GREY, ls="--", lw=0.9)
        if k == 2:
            ax.axvline(100, color=CEILING_GREY, ls="--", lw=0.9)
            ax.axvline(100 * model.DRAM_FRACTION, color=CEILING_GREY,
                       ls=":", lw=0.9)
        finite = [v for v in values if v is not None] + [1]
        ax.set_xlim(0, max(finite) * 1.2)
        ax.set_xlabel(label, fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(True, axis="x", alpha=0.3)
    for yi in range(1, len(pts)):
        if var.family(pts[yi]) != var.family(pts[yi - 1]):
            for ax in axes:
                ax.axhline(yi - 0.5, color="#888888", lw=0.8)
    axes[0].set_yticks(range(len(pts)))
    axes[0].set_yticklabels(["%s (%s)" % (p.variant, var.family_label(
        var.family(p))) for p in pts], fontsize=8)
    for tick, p in zip(axes[0].get_yticklabels(), pts):
        tick.set_color(role_colour[var.role(p.variant)]
                       if var.role(p.variant) != var.ADDITION else "#555555")
    axes[0].set_ylim(len(pts) - 0.4, -0.6)
    handles = [Line2D([], [], color=c, lw=6, label=r)
               for r, c in role_colour.items()
               if r != var.USER or any(var.role(p.variant) == var.USER
                                       for p in pts)]
    handles.append(Line2D([], [], color="#d62728", lw=1.6,
                          label="issue-bound below this (%.0f%% of the "
                          "leanest sibling at the DRAM ceiling)" %
                          (100 * model.ISSUE_MARGIN)))
    handles += [Line2D([], [], color=CEILING_GREY, ls="--",
                       label="128 B scalar / 512 B 128-bit load; 100 %"),
                Line2D([], [], color=CEILING_GREY, ls=":",
                       label="%.0f %%: DRAM-bound from here" %
                       (100 * model.DRAM_FRACTION))]
    legend_outside(body, "lower center", handles=handles, ncol=3,
                fontsize=8, frameon=False)
    body.suptitle("Instruction efficiency at %s elements (%s), grouped by "
                  "op family, fastest first" % (size_label(n), cache),
                  fontsize=10)
    return save(fig, outdir, "instructions")


# all figures of a study

FIGURES = ("cache_tier", "blocks", "dram_share", "instructions")


def plot_study(study, outdir, marks=None):
    """{name: [png, svg]} of every figure the study's parts allow: the
    cache-tier plot from the sweep (else the article run), the block plot
    from the block sweep, the DRAM share (with the repeat rounds) and
    instructions from the article run.  marks: what the findings located, drawn where it belongs
    ({"effective_l2": (middle, low, high)}).  The figures are drawn in
    parallel where the platform forks (seconds each, in matplotlib)."""
    marks = marks or {}
    main = study.run(stu.ARTICLE) or study.main
    sweep = study.run(stu.SWEEP) or main
    jobs = [("cache_tier", plot_cache_tier,
             (sweep, outdir, marks.get("effective_l2")))]
    blocks = study.run(stu.BLOCKS)
    if blocks is not None or any(
            len({p.block for p in main.points if p.variant == v}) > 1
            for v in {p.variant for p in main.points}):
        published = sel.primary_blocks(main.points) \
            if study.run(stu.ARTICLE) is not None and blocks is not None \
            else None
        jobs.append(("blocks", plot_blocks, (blocks or main, outdir,
                                             published)))
    jobs += [("dram_share", plot_dram_share, (main, outdir, study.repeats)),
             ("instructions", plot_instructions, (main, outdir))]
    drawn = _draw_all([(draw, args) for _, draw, args in jobs])
    return {name: paths for (name, _, _), paths in zip(jobs, drawn)
            if paths}


def _draw_one(job):
    draw, args = job
    return draw(*args)


def _draw_all(jobs):
    """[draw(*args)] for jobs [(draw, args)], in forked processes when the
    platform has fork (the figures share nothing), else one by one; on
    Ctrl-C or any failure the workers end before the exception goes on
    up (workers.py)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return [_draw_one(job) for job in jobs]
    return workers.run_all(_draw_one, jobs, os.cpu_count() or 1)


def _bars(ax, lefts, widths, y, **style):
    """Rectangles from each left to left + width, between y - 0.4 and
    y + 0.4, as one collection: the polygons Axes.broken_barh makes
    (matplotlib >= 3.7), built from arrays, where broken_barh converts each
    bar in Python (a million kernels took it 20 s)."""
    from matplotlib.collections import PolyCollection
    x0 = np.asarray(lefts, dtype=float)
    x1 = x0 + np.asarray(widths, dtype=float)
    y0 = y - 0.4
    y1 = y0 + 0.8
    verts = np.empty((len(x0), 4, 2))
    verts[:, 0, 0] = verts[:, 1, 0] = x0
    verts[:, 2, 0] = verts[:, 3, 0] = x1
    verts[:, 0, 1] = verts[:, 3, 1] = y0
    verts[:, 1, 1] = verts[:, 2, 1] = y1
    ax.add_collection(PolyCollection(verts, **style), autolim=True)


def plot_timeline(events, window, out_png, title):
    """A Perfetto-like picture of a window (start, end µs) of a trace: host
    NVTX ranges by nesting depth on top, GPU kernels below (helper kernels
    such as the L2 flush in grey), time in µs from the window's start."""
    from ..timeline import GPU_PID, HOST_PID
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
    # One collection per lane and colour, not an artist per event, built
    # from arrays: the cost stays linear and small in the events drawn.
    bars = {}       # (y, colour): ([left], [width])
    for e in host:
        y = lanes[e.depth]
        lefts, widths = bars.setdefault((y, "#5b6f8b"), ([], []))
        lefts.append(e.start_us - t0)
        widths.append(e.dur_us)
        ax.text(max(e.start_us - t0, 0) + 0.5, y, e.name, va="center",
                fontsize=7, clip_on=True)
    for e in gpu:
        helper = "flush" in e.name or not e.variant
        color = "#aaaaaa" if helper else styles[e.variant][0]
        lefts, widths = bars.setdefault((gpu_lane, color), ([], []))
        lefts.append(e.start_us - t0)
        widths.append(e.dur_us)
    for (y, color), (lefts, widths) in bars.items():
        if y == gpu_lane:
            _bars(ax, lefts, widths, y, facecolors=color,
                  edgecolors="white", linewidths=0.3)
        else:
            _bars(ax, lefts, widths, y, facecolors=color, alpha=0.35,
                  edgecolors=color)
    ax.autoscale_view()
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
    atomic.savefig(fig, out_png, dpi=DPI)
    return out_png

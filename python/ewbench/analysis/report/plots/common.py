"""What every figure of a study shares: the matplotlib settings, the
colours and markers of each role (variants.py), the figure with its footer,
the palette PNG + SVG writer, and the axis and layout helpers."""

import io
import math
import os
from dataclasses import dataclass

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator
from PIL import Image

from .. import model
from ...core import atomic
from ...core import variants as var
from ...core.sinks import plot_text
from ...core.units import bytes_label

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
        label = plot_text(v) if var.role(v) != var.ADDITION else \
            "%s (fastest addition)" % plot_text(v)
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
    text = "%s | run %s%s" % (plot_text(device), ", ".join(
        plot_text(r.run_id) for r in runs), extra)
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


def dram_bound_threshold_label():
    """The key of the dotted line at DRAM_FRACTION of the ceiling, as the
    rule has it: the DRAM-bound rule's first test, not the whole rule
    (it also asks for SIBLING_FRACTION of the best sibling)."""
    return "%.0f %%: the DRAM-bound rule's floor (it also needs >= %.0f " \
        "%% of the best sibling)" % (100 * model.DRAM_FRACTION,
                                     100 * model.SIBLING_FRACTION)


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

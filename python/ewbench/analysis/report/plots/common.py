"""What every figure of a study shares: the matplotlib settings, the
colours and markers of each role (variants.py), the figure with its footer,
the palette PNG + SVG writer, and the axis and layout helpers."""

import io
import math
import os
from dataclasses import dataclass

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import Bbox
from matplotlib.ticker import (FuncFormatter, Locator, LogFormatter,
                               LogLocator, NullFormatter)
from PIL import Image

from .. import model
from ...core import atomic
from ...core import select as sel
from ...core import validate
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
# The block-launch roof (front end), in every figure that draws it: thick,
# translucent and grey, as the DRAM ceiling is thick, translucent and red.
BLOCK_ROOF = dict(color="#505050", lw=4.0, alpha=0.35, solid_capstyle="butt")
HIT_GREY = "#7a7a7a"
STUDY_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#17becf",
                 "#bcbd22", "#e377c2")
STUDY_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
BEST_ADDITION = ("#9467bd", "p")
USER_STYLE = ("#00a087", "d")       # a user's own kernel (--kernel)
PEER_STYLES = {"cub": ("#000000", "*"), "torch": ("#8c564b", "h")}
ADDITION_GREY = "#b5b5b5"
# an experiment's probe (kernels/probe.def), when a run holds one
PROBE_STYLE = ("#e377c2", "v")
# Each role's one colour where a figure colours by role (bars, tick
# labels): every role has one, a probe's and a user's included.
ROLE_COLOURS = {var.STUDY: STUDY_COLOURS[0], var.ADDITION: "#8c8c8c",
                var.PEER: "#000000", var.USER: USER_STYLE[0],
                var.PROBE: PROBE_STYLE[0]}
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
    size in purple, the other additions grey, peers black and brown, a
    user's kernels green, probes pink."""
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
        elif role == var.PROBE:
            styles[v] = Style(PROBE_STYLE[0], PROBE_STYLE[1], 1.2, 1.0, 3,
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


def legend_handles(styles, with_cold=False):
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

def new_figure(runs, height, extra=""):
    """(figure, body): body is a subfigure to draw in; a thin strip under
    it carries the footer (run ids, GPU, fixture warning)."""
    fig, body, foot = framed_figure(height)
    device = runs[0].device.get("name", "unknown GPU")
    text = "%s | run %s%s" % (plot_text(device), ", ".join(
        plot_text(r.run_id) for r in runs), extra)
    fixture = any(r.is_fixture for r in runs)
    if fixture:
        text = "FIXTURE DATA (synthetic, not a measurement) | " + text
    foot.text(0.005, 0.5, text, fontsize=7, ha="left", va="center",
              color="#b00000" if fixture else "#555555")
    return fig, body


# The rows of framed_figure, top to bottom: a legend slot, the body, a
# legend slot, the footer.  The slots are empty (a hundredth of an inch)
# until legend_outside fills one.  Not less: the layout divides by each
# row's share, and at 1e-4 inches matplotlib 3.6's constrained-layout
# solver gave up ("The objective is unbounded", an abort of the process)
# on the cache-tier figure of a run holding a user's op.
_ROWS = ("upper", "body", "lower", "foot")
_EMPTY_INCHES = 1e-2


def framed_figure(height):
    """(figure, body, foot): a constrained-layout figure `height` inches
    tall, split into body (to draw in) and a FOOTER_INCHES strip under it,
    with an empty legend slot above and below body (legend_outside)."""
    fig = Figure(figsize=(FIG_WIDTH, height), layout="constrained")
    FigureCanvasAgg(fig)
    inches = {"upper": _EMPTY_INCHES, "body": height - FOOTER_INCHES,
              "lower": _EMPTY_INCHES, "foot": FOOTER_INCHES}
    grid = fig.add_gridspec(len(_ROWS), 1, height_ratios=[
        inches[r] for r in _ROWS], hspace=0)
    subs = {r: fig.add_subfigure(grid[i]) for i, r in enumerate(_ROWS)}
    subs["body"].legend_slots = (grid, subs, inches)
    return fig, subs["body"], subs["foot"]


def _agg_size(pixels, nbytes):
    """Agg's canvas size (width, height) for a figure `pixels` (floats) in
    size, given its RGBA buffer's length: each side rounded down
    (matplotlib 3.6) or to the nearest (newer ones: a 919.99... px side
    is 920), whichever the buffer holds; ValueError if neither does."""
    sides = [sorted({math.floor(p), round(p)}) for p in pixels]
    for width in sides[0]:
        for height in sides[1]:
            if 4 * width * height == nbytes:
                return width, height
    raise ValueError("%d bytes of RGBA for a %.2f x %.2f px figure" % (
        nbytes, pixels[0], pixels[1]))


def _png_palette(fig):
    """The figure as a palette PNG (at most PNG_COLOURS colours): a third
    of the bytes of a full-colour one, which keeps the HTML small.  Drawn
    as raw RGBA (Agg's buffer: the pixels a PNG of it would hold), so that
    no full-colour PNG is compressed only to be read back."""
    buf = io.BytesIO()
    fig.savefig(buf, dpi=DPI, format="rgba")
    rgba = buf.getvalue()
    width, height = _agg_size(fig.get_size_inches() * DPI, len(rgba))
    image = Image.frombuffer("RGBA", (width, height), rgba, "raw", "RGBA",
                             0, 1).convert("RGB").quantize(
        colors=PNG_COLOURS, method=Image.Quantize.FASTOCTREE,
        dither=Image.Dither.NONE)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


# Space between a legend and what it borders, inches.
LEGEND_PAD_INCHES = 0.08


def legend_outside(body, where, **kwargs):
    """A legend outside body's axes, centred above ("upper center") or
    below ("lower center") them: drawn in its own slot of framed_figure,
    which the figure grows by the legend's height, so that it covers no
    axes, tick or axis label on any matplotlib (its constrained layout
    reserves no room for a figure legend before 3.7, and 3.7's
    loc="outside ..." is not in Debian 12's 3.6)."""
    grid, subs, inches = body.legend_slots
    fig = grid.figure
    slot = where.split()[0]
    legend = subs[slot].legend(loc="center", **kwargs)
    tall = legend.get_window_extent(fig.canvas.get_renderer()).height \
        / fig.dpi + 2 * LEGEND_PAD_INCHES
    inches[slot] += tall
    width, height = fig.get_size_inches()
    fig.set_size_inches(width, height + tall)
    grid.set_height_ratios([inches[r] for r in _ROWS])
    return legend


def _lay_out(fig):
    """What drawing the figure does first: its layout engine run (the
    constrained layout), every artist placed, without rendering a pixel
    (the PNG and the SVG render it; Figure.draw runs the engine so, and
    ignores its ValueError).  A figure without an engine is drawn."""
    engine = fig.get_layout_engine()
    if engine is None or not fig.axes:
        fig.canvas.draw()
        return
    try:
        engine.execute(fig)
    except ValueError:
        pass


class _InView(Locator):
    """A log axis's locator, less the ticks outside the view: LogLocator
    gives a decade or two beyond each end, and matplotlib makes a tick
    (two lines, a grid line, two texts) for each and moves it at every
    measure of the axis (the layout's, each drawing's), only to leave it
    undrawn.  What is drawn is the same: it draws the ticks within 1e-10
    of the view's span (the scale's), and this keeps those within 1e-6, in
    their order; their labels are the same where the formatter takes no
    notice of a tick's index (_POSITIONLESS)."""

    SLACK = 1e-6

    def __init__(self, locator):
        self.locator = locator      # on its own axis, as it was

    def set_axis(self, axis):
        self.locator.set_axis(axis)

    def __call__(self):
        locs = np.asarray(self.locator())
        axis = self.locator.axis
        if not len(locs) or axis is None:
            return locs
        scale = axis.get_transform()
        lo, hi = sorted(scale.transform(axis.get_view_interval()))
        slack = (hi - lo) * self.SLACK
        at = scale.transform(locs)
        return locs[(at >= lo - slack) & (at <= hi + slack)]

    def tick_values(self, vmin, vmax):
        return self.locator.tick_values(vmin, vmax)

    def nonsingular(self, v0, v1):
        return self.locator.nonsingular(v0, v1)

    def view_limits(self, vmin, vmax):
        return self.locator.view_limits(vmin, vmax)


# Formatters whose labels do not depend on a tick's index (pos): every
# FuncFormatter of these modules takes no notice of it.
_POSITIONLESS = (LogFormatter, NullFormatter, FuncFormatter)


def _ticks_in_view(fig):
    """Every log axis of fig ticked by a LogLocator keeps only the ticks
    it draws (_InView), before the layout first measures it."""
    for ax in fig.get_axes():
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() != "log":
                continue
            for ticker in (axis.major, axis.minor):
                if isinstance(ticker.locator, LogLocator) and \
                        isinstance(ticker.formatter, _POSITIONLESS):
                    ticker.locator = _InView(ticker.locator)


def _freeze_layout(fig):
    """Settle the constrained layout once and fix every subfigure and
    axes where it put them, rounded to 1e-6 of their parent: the layout's
    solver lands a few 1e-13 apart from one drawing to the next (how
    depends on what the process drew before), and the SVG names each
    axes' clip path by a hash of its exact box, so the same figure drawn
    twice would differ."""
    _ticks_in_view(fig)
    _lay_out(fig)
    subfigures = list(fig.subfigs)
    while subfigures:
        sub = subfigures.pop()
        sub.bbox_relative.set_points(
            np.round(sub.bbox_relative.get_points(), 6))
        subfigures += sub.subfigs
    for ax in fig.get_axes():
        ax.set_position(Bbox(np.round(ax.get_position().get_points(), 6)))
    fig.set_layout_engine("none")


def _drop_layout_engine(fig):
    """No layout engine at all, not even the placeholder that "none"
    leaves: savefig draws a figure that has one a first time, unseen, before
    the drawing it writes (to run its engine), and the frozen layout needs
    no engine, so each file then costs one drawing, not two.  Under an
    rc_context, since None takes the engine the rcParams name."""
    with matplotlib.rc_context({"figure.autolayout": False,
                                "figure.constrained_layout.use": False}):
        fig.set_layout_engine(None)


def save(fig, outdir, stem):
    """Write stem.png and stem.svg into outdir; return both paths."""
    _freeze_layout(fig)
    _drop_layout_engine(fig)
    atomic.make_dirs(outdir)
    png = os.path.join(outdir, stem + ".png")
    svg = os.path.join(outdir, stem + ".svg")
    atomic.write_bytes(png, _png_palette(fig))
    atomic.savefig(fig, svg, format="svg", metadata={"Date": None})
    return [png, svg]


def dram_bound_threshold_label():
    """The key of the dotted line at DRAM_FRACTION of the ceiling, as the
    rule has it: the DRAM-bound rule's first test, not the whole rule
    (it also asks that no sibling be faster beyond the noise and by more
    than MATERIAL_PCT)."""
    return "%.0f %%: the DRAM-bound rule's floor (it also needs no " \
        "sibling %.0f %% faster)" % (100 * model.DRAM_FRACTION,
                                    model.MATERIAL_PCT)


def level_bytes(run, p):
    """[(level, bytes)] counted at DRAM, L2 and L1, where measured."""
    out = []
    for level, value in (("DRAM", sel.dram_bytes(run, p)),
                         ("L2", sel.l2_bytes(run, p)),
                         ("L1", sel.l1_bytes(run, p))):
        if value:
            out.append((level, value))
    return out


# ceilings drawn as roofs


def compute_roof(run, dtype):
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


# Two measured block rates this close (relative) stand for the sizes
# between them; further apart, a size between them gets no rate.
RATE_AGREE = 0.01


def block_rate_at(run, block):
    """Blocks/s at which the GPU launches blocks of `block` threads: the
    measured block_rate_b<block>; for a size between two measured ones
    (96 between 64 and 128) their mean where they agree within
    RATE_AGREE, else None (768: 512's and 1024's rates differ, and no
    model says how it falls between them); None where not measured."""
    rate = model.measured_block_rate(run.ceilings, block)
    if rate is not None:
        return rate.value
    if not block:
        return None
    below = [b for b in validate.BLOCK_RATE_BLOCKS if b < block]
    above = [b for b in validate.BLOCK_RATE_BLOCKS if b > block]
    if not below or not above:
        return None
    low = model.measured_block_rate(run.ceilings, below[-1])
    high = model.measured_block_rate(run.ceilings, above[0])
    if low is None or high is None or \
            abs(low.value - high.value) > RATE_AGREE * low.value:
        return None
    return (low.value + high.value) / 2


def block_roof(run, block, per_block):
    """per_block (bytes or FLOPs of one block) x the block-launch rate of
    blocks of `block` threads (block_rate_at): what the GPU's block
    launches allow per second, whatever the memory level; None where that
    rate is not known."""
    rate = block_rate_at(run, block)
    return None if rate is None else per_block * rate


def per_block(points):
    """The bytes one block moves, the same at every size of a variant's
    points (bytes_moved / grid within 5 %, over grids of 16 blocks or
    more), at the largest; None where the grid does not grow with the
    size (a grid-stride loop) or is not known."""
    rows = [p for p in points if p.grid and p.grid >= 16 and p.block]
    if not rows:
        return None
    values = [p.bytes_moved / p.grid for p in rows]
    if max(values) > 1.05 * min(values):
        return None
    largest = max(rows, key=lambda p: p.n)
    return largest.bytes_moved / largest.grid


def _binary_bytes(value, _pos=None):
    return bytes_label(value) if value > 0 else ""


def gbps_short(value):
    return "%.0f GB/s" % (value / 1e9)


def log2_bytes_axis(axis):
    axis.set_major_locator(LogLocator(base=4))
    axis.set_major_formatter(FuncFormatter(_binary_bytes))
    axis.set_minor_formatter(FuncFormatter(lambda *_: ""))


def families(points):
    """(op, dtype) families present, add first, fp32 before fp16."""
    order = {"add": 0, "relu": 1, "abs": 2}
    return sorted({var.family(p) for p in points},
                  key=lambda f: (order.get(f[0], 9), f[1] != "f32"))


def axes_grid(body, count, ncols=2):
    ncols = min(ncols, count)
    rows = math.ceil(count / ncols)
    axes = body.subplots(rows, ncols, squeeze=False).ravel()
    for ax in axes[count:]:
        ax.set_visible(False)
    return axes[:count]


# labels beside points

# Where a point's label may go, in points from the point: right, left,
# above, below, then the diagonals, then further out.
LABEL_OFFSETS = ((7, 0), (-7, 0), (0, 8), (0, -8), (7, 7), (7, -7),
                 (-7, 7), (-7, -7), (14, 14), (14, -14), (-14, 14),
                 (-14, -14), (0, 20), (0, -20), (22, 0), (-22, 0),
                 (24, 24), (24, -24), (-24, 24), (-24, -24), (0, 32),
                 (0, -32))


# Behind a label, so lines under it do not cross its letters (a text
# with a path effect would be written as paths, not text, in the SVG).
LABEL_BOX = dict(boxstyle="square,pad=0.1", fc="white", ec="none",
                 alpha=0.75)
# A label's cost of covering a line: per sampled pixel (3 px apart) of a
# line under it, against its overlap in square pixels with other labels.
LINE_PIXEL_COST = 20


def _label_alignment(dx, dy):
    ha = "left" if dx > 0 else "right" if dx < 0 else "center"
    va = "bottom" if dy > 0 else "top" if dy < 0 else "center"
    return ha, va


def settle(figure):
    """Lay the figure out once and fix it there (_freeze_layout), so that
    the labels placed after it (place_labels, label_on_line: outside the
    layout, which they leave as it is) measure where everything will be
    drawn; the renderer they measure with.  save's own _freeze_layout then
    finds no engine to run: the layout is computed once, not twice."""
    _freeze_layout(figure)
    return figure.canvas.get_renderer()


def place_labels(ax, items, renderer, fontsize=7.5):
    """Write each item's text beside its point without covering another
    label, a point, a line or the axes' edge where any offset of
    LABEL_OFFSETS allows (else the least cover); items [(x, y, text,
    colour)] in data coordinates.  Labels leave the layout alone (call it
    once the figure is drawn: settle), and a label away from its point
    gets a thin leader."""
    frame = ax.get_window_extent(renderer)
    pixels = _drawn_pixels(ax)
    pad = 2.0
    taken = [t.get_window_extent(renderer) for t in ax.texts]
    if ax.get_legend() is not None:
        taken.append(ax.get_legend().get_window_extent(renderer))
    for x, y, _, _ in items:
        px, py = ax.transData.transform((x, y))
        taken.append(Bbox.from_extents(px - 4, py - 4, px + 4, py + 4))
    placed = []
    for x, y, text, colour in items:
        best = None
        for dx, dy in LABEL_OFFSETS:
            ha, va = _label_alignment(dx, dy)
            note = ax.annotate(text, (x, y), xytext=(dx, dy),
                               textcoords="offset points", ha=ha, va=va,
                               fontsize=fontsize, color=colour, zorder=10)
            note.set_in_layout(False)
            box = note.get_window_extent(renderer)
            box = Bbox.from_extents(box.x0 - pad, box.y0 - pad,
                                    box.x1 + pad, box.y1 + pad)
            cost = sum(_overlap(box, other) for other in taken) + \
                LINE_PIXEL_COST * _pixels_inside(pixels, box)
            inside = Bbox.intersection(box, frame)
            cost += box.width * box.height - (
                inside.width * inside.height if inside is not None else 0.0)
            note.remove()
            if best is None or cost < best[0]:
                best = (cost, dx, dy, box)
            if cost == 0:
                break
        _, dx, dy, box = best
        ha, va = _label_alignment(dx, dy)
        far = abs(dx) + abs(dy) > 16
        note = ax.annotate(
            text, (x, y), xytext=(dx, dy), textcoords="offset points",
            ha=ha, va=va, fontsize=fontsize, color=colour, zorder=10,
            arrowprops=dict(arrowstyle="-", color=colour, lw=0.6,
                            shrinkA=0, shrinkB=3) if far else None,
            bbox=LABEL_BOX)
        note.set_in_layout(False)
        taken.append(box)
        placed.append(note)
    return placed


def _drawn_pixels(ax):
    """Pixel positions along every line of ax, each segment sampled every
    3 pixels or so: what a label should not cover."""
    points = []
    for line in ax.get_lines():
        xy = line.get_transform().transform(np.asarray(line.get_xydata(),
                                                       dtype=float))
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        for a, b in zip(xy[:-1], xy[1:]):
            steps = max(2, int(np.hypot(*(b - a)) / 3))
            points.append(a + np.outer(np.linspace(0, 1, steps), b - a))
        if len(xy) == 1:
            points.append(xy)
    return np.concatenate(points) if points else np.empty((0, 2))


def label_on_line(ax, y, text, colour, renderer, fontsize=7):
    """Write text on the horizontal line at data y, at the left or the
    right edge, above or below it: wherever it covers the fewest drawn
    points of the axes' lines and no other label.  Call it once the
    figure is drawn (settle)."""
    pixels = _drawn_pixels(ax)
    others = [t.get_window_extent(renderer) for t in ax.texts]
    best = None
    for x, ha in ((0.01, "left"), (0.99, "right"), (0.3, "left")):
        for dy, va in ((2, "bottom"), (-2, "top")):
            note = ax.annotate(text, (x, y),
                               xycoords=("axes fraction", "data"),
                               xytext=(0, dy), textcoords="offset points",
                               ha=ha, va=va, fontsize=fontsize,
                               color=colour, zorder=9)
            box = note.get_window_extent(renderer)
            note.remove()
            cost = LINE_PIXEL_COST * _pixels_inside(pixels, box) + sum(
                _overlap(box, o) for o in others)
            if best is None or cost < best[0]:
                best = (cost, x, ha, dy, va)
    _, x, ha, dy, va = best
    note = ax.annotate(text, (x, y), xycoords=("axes fraction", "data"),
                       xytext=(0, dy), textcoords="offset points", ha=ha,
                       va=va, fontsize=fontsize, color=colour, zorder=9,
                       bbox=LABEL_BOX)
    note.set_in_layout(False)
    return note


def _pixels_inside(pixels, box):
    if not len(pixels):
        return 0
    return int(np.sum((pixels[:, 0] >= box.x0) & (pixels[:, 0] <= box.x1) &
                      (pixels[:, 1] >= box.y0) & (pixels[:, 1] <= box.y1)))


def _overlap(a, b):
    inter = Bbox.intersection(a, b)
    return inter.width * inter.height if inter is not None else 0.0

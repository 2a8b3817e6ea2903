"""The hierarchical roofline: per study variant that does FLOPs (the
adds), its achieved FLOP/s against its FLOP per byte *as counted* at each
memory level (DRAM, L2, L1 where the run counted it), across the run's
sizes (sweep part, else the run), against the measured DRAM and L2
ceilings, the FMA roof of its dtype and its block-launch roof.  One panel
per variant, the op families in columns, every panel on the same axes.

Every variant of an op does the same FLOPs per byte it must move, so a
roofline of that one intensity says nothing (docs/analysis.md).  The
counted bytes differ: a warm point whose data stay in L2 reads almost
nothing from DRAM, and its DRAM dot moves right, past the ridge, while its
L2 dot stays where the bytes moved put it; how far each dot lies under
its level's roof is that level's share of the time."""

import math

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import LogLocator

from .. import model
from ...core import select as sel
from ...core import variants as var
from ...core.sinks import plot_text
from ...core.units import size_label
from .cache_tier import marked_indices
from .common import (BLOCK_ROOF, CEILING_GREY, LEVEL_COLOURS, block_roof,
                     compute_roof, families, gbps_short, label_on_line,
                     legend_outside, level_bytes, new_figure, per_block, save,
                     settle)

# Level -> marker: the same as the DRAM-share figure's byte ratios.
LEVEL_MARKERS = {"DRAM": "s", "L2": "o", "L1": "^"}
LEVELS = ("DRAM", "L2", "L1")
CONNECTOR = "#b0b0b0"


def roofline_points(run):
    """{variant: [(point, FLOP/s, {level: FLOP per counted byte})]} of the
    study's variants that do FLOPs, at their primary block, passing, by
    size, in one cache state: warm where measured and its counters
    describe a warm L2 (sel.warm_counters_are_warm), else cold; and one
    launch mode (the one with most points, stream on a tie).  Variants
    without any counted level are left out."""
    points = [p for p in sel.primary_points(run)
              if p.check != "fail" and p.flops and p.bytes_moved and
              p.bandwidth and var.role(p.variant) == var.STUDY]
    cache = sel.preferred_cache(points)
    if cache == "warm" and not sel.warm_counters_are_warm(run) and \
            any(p.cache == "cold" for p in points):
        cache = "cold"
    points = [p for p in points if p.cache == cache]
    launches = sorted({p.launch for p in points}, key=lambda m: (
        -sum(p.launch == m for p in points), m != "stream"))
    points = [p for p in points if launches and p.launch == launches[0]]
    out = {}
    for p in sorted(points, key=lambda p: p.n):
        levels = dict(level_bytes(run, p))
        if not levels:
            continue
        flops_per_s = p.flops * p.bandwidth / p.bytes_moved
        out.setdefault(p.variant, []).append(
            (p, flops_per_s, {k: p.flops / b for k, b in levels.items()}))
    return out


def per_octave(rows):
    """rows (by size) thinned to one size per octave of elements, the size
    nearest each power of two (cache_tier.marked_indices), and the largest: a
    sweep has about four sizes an octave, and their rungs would merge."""
    sizes = [p.n for p, _, _ in rows]
    start = 2 ** math.floor(math.log2(sizes[0]))
    keep = set(marked_indices(sizes, start, 0.0, 1.0)) | {len(rows) - 1}
    return [row for i, row in enumerate(rows) if i in keep]


def _limits(series, roofs):
    """(x range, y range): every point and roof, with some room."""
    xs = [x for rows in series.values() for _, _, lv in rows
          for x in lv.values()]
    ys = [y for rows in series.values() for _, y, _ in rows]
    return (min(xs) / 2, max(xs) * 2.5), \
        (min(ys) / 2, max(ys + [r for r in roofs if r]) * 2.5)


def _roofs(ax, run, fam, rows, xlim):
    """Draw the panel's roofs: the DRAM and L2 diagonals up to the FMA
    roof, the FMA roof right of the first ridge, the variant's block-launch
    roof.  Their names, to write once the figure is drawn: diagonals
    [(byte/s, text, colour)], roofs [(FLOP/s, text, colour)]."""
    diagonals, roofs = [], []
    fma = compute_roof(run, fam[1])
    peak = fma[0] if fma else None
    x = np.geomspace(xlim[0], xlim[1], 200)
    ridges = []
    for level, bound, ls in (
            ("DRAM", model.run_dram_ceiling(run, fam[0]), "-"),
            ("L2", model.l2_ceiling(run.ceilings), "-.")):
        if bound is None:
            continue
        y = x * bound.value
        if peak is not None:
            y = np.where(y <= peak, y, np.nan)
            ridges.append(peak / bound.value)
        ax.plot(x, y, color=LEVEL_COLOURS[level],
                ls=ls if bound.measured else (0, (1, 2)),
                lw=2.4 if level == "DRAM" else 1.2,
                alpha=0.45 if level == "DRAM" else 0.9, zorder=1)
        diagonals.append((bound.value, "%s %s%s" % (
            level, gbps_short(bound.value),
            "" if bound.measured else " (spec)"), LEVEL_COLOURS[level]))
    if peak is not None:
        start = min(ridges) if ridges else xlim[0]
        ax.plot([start, xlim[1]], [peak, peak], color=CEILING_GREY, lw=1.4,
                zorder=1)
        roofs.append((peak, fma[1], CEILING_GREY))
    flop_per_byte = rows[0][0].flops / rows[0][0].bytes_moved
    size = per_block([p for p, _, _ in rows])
    roof = block_roof(run, rows[0][0].block, size) if size else None
    if roof is not None:
        value = roof * flop_per_byte
        ax.axhline(value, zorder=1, **BLOCK_ROOF)
        roofs.append((value, "block-launch roof %.0f GFLOP/s" %
                      (value / 1e9), BLOCK_ROOF["color"]))
    return diagonals, roofs


def _name_diagonal(ax, x, slope, text, colour, renderer):
    """text along the line y = slope x, from x on, turned to its angle on
    the page (drawn figure: the angle depends on the axes' shape)."""
    y = slope * x
    a = ax.transData.transform((x, y))
    b = ax.transData.transform((x * 10, y * 10))
    angle = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
    note = ax.annotate(text, (x, y), xytext=(0, 3),
                       textcoords="offset points", rotation=angle,
                       rotation_mode="anchor", fontsize=7, color=colour,
                       ha="left", va="bottom", zorder=9)
    note.set_in_layout(False)


def _panel(ax, run, variant, fam, rows, xlim, ylim):
    """Draw one variant's panel; its roofs' names (_roofs)."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    names = _roofs(ax, run, fam, rows, xlim)
    for p, y, levels in rows:
        xs = [levels[k] for k in LEVELS if k in levels]
        if len(xs) > 1:
            ax.plot([min(xs), max(xs)], [y, y], color=CONNECTOR, lw=0.6,
                    zorder=2)
        for level in LEVELS:
            if level in levels:
                ax.plot(levels[level], y, ls="none",
                        marker=LEVEL_MARKERS[level], ms=4.5,
                        color=LEVEL_COLOURS[level], mec="white", mew=0.4,
                        zorder=4)
    ax.xaxis.set_major_locator(LogLocator(base=10))
    ax.yaxis.set_major_locator(LogLocator(base=10))
    ax.tick_params(labelsize=8)
    ax.grid(True, alpha=0.3)
    sizes = [p.n for p, _, _ in rows]
    ax.set_title("%s (%s): %s to %s elements" % (
        plot_text(variant), var.family_label(fam), size_label(min(sizes)),
        size_label(max(sizes))), fontsize=9)
    return names


def plot_roofline(run, outdir):
    """The hierarchical roofline of the study's variants that do FLOPs,
    one panel each, the op families in columns; None when none does or no
    level's bytes were counted."""
    series = {v: per_octave(rows) for v, rows in
              roofline_points(run).items()}
    if not series:
        return None
    fams = families([rows[0][0] for rows in series.values()])
    columns = {f: sorted((v for v, rows in series.items()
                          if var.family(rows[0][0]) == f), key=var.sort_key)
               for f in fams}
    peaks = [(compute_roof(run, f[1]) or (None,))[0] for f in fams]
    xlim, ylim = _limits(series, peaks)
    nrows = max(len(v) for v in columns.values())
    fig, body = new_figure([run], 2.6 * nrows + 1.4)
    axes = body.subplots(nrows, len(fams), squeeze=False, sharex=True,
                         sharey=True)
    labels = []
    for c, fam in enumerate(fams):
        for r in range(nrows):
            ax = axes[r][c]
            if r >= len(columns[fam]):
                ax.set_visible(False)
                continue
            v = columns[fam][r]
            labels.append((ax, _panel(ax, run, v, fam, series[v], xlim,
                                      ylim)))
            if r == len(columns[fam]) - 1:
                ax.set_xlabel("FLOP per byte counted at the level (log)",
                              fontsize=9)
                ax.tick_params(labelbottom=True)
            if c == 0 or r >= len(columns[fams[c - 1]]):
                # The first column, or beside an empty slot: its own scale.
                ax.set_ylabel("FLOP/s achieved (log)", fontsize=9)
                ax.tick_params(labelleft=True)
    counted = [k for k in LEVELS if any(k in lv for rows in series.values()
                                        for _, _, lv in rows)]
    handles = [Line2D([], [], ls="none", marker=LEVEL_MARKERS[k], ms=6,
                      color=LEVEL_COLOURS[k],
                      label="FLOPs / bytes counted at %s" % k)
               for k in counted]
    handles.append(Line2D([], [], color=CONNECTOR, lw=0.6,
                          label="one size's levels (one FLOP/s)"))
    handles += [Line2D([], [], color=LEVEL_COLOURS["DRAM"], lw=2.4,
                       alpha=0.45, label="DRAM ceiling of the op (dram_add)"
                                         " x FLOP/byte"),
                Line2D([], [], color=LEVEL_COLOURS["L2"], ls="-.", lw=1.2,
                       label="L2 read ceiling (l2_read) x FLOP/byte"),
                Line2D([], [], color=CEILING_GREY, lw=1.4,
                       label="FMA roof of the dtype (fp32_fma, fp16_fma)"),
                Line2D([], [], label="block-launch roof: FLOPs a block x "
                       "the measured block rate", **BLOCK_ROOF)]
    legend_outside(body, "lower center", handles=handles, ncol=3,
                   fontsize=8, frameon=False)
    first = next(iter(series.values()))[0][0]
    missing = [k for k in LEVELS if k not in counted]
    body.suptitle(
        "Hierarchical roofline of the study's adds (%s, %s launches, one "
        "size per octave): FLOP/s against FLOP per byte counted at %s%s" % (
            first.cache, first.launch, ", ".join(counted),
            "\n(this run's counters have no %s bytes)" % " or ".join(missing)
            if missing else ""), fontsize=10)
    top = max(y for rows in series.values() for _, y, _ in rows)
    renderer = settle(fig)
    for ax, (diagonals, roofs) in labels:
        for slope, text, colour in diagonals:
            # Half way up (log) from the data to the FMA roof: clear of
            # the points, left of the ridge.
            _name_diagonal(ax, math.sqrt(top * ylim[1] / 2.5) / slope,
                           slope, text, colour, renderer)
        for y, text, colour in roofs:
            label_on_line(ax, y, text, colour, renderer)
    return save(fig, outdir, "roofline")

"""The cache-tier figure: bandwidth (linear) against footprint, one panel
per op family, warm solid and cold dashed, staggered markers, the nominal
and effective L2, the DRAM ceilings, the share of reads served by L2 on a
second axis (sweep part)."""

import math
import textwrap

import numpy as np
from matplotlib import patheffects
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter

from .. import model
from ...core import select as sel
from ...core import variants as var
from ...core.units import bytes_label
from .common import (BLOCK_ROOF, HIT_GREY, LEVEL_COLOURS, axes_grid,
                     block_roof, families, family_styles, gbps_short,
                     label_on_line, legend_handles, log2_bytes_axis,
                     new_figure, per_block, save, settle)


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


def marker_stagger(styles):
    """variant -> (offset, spacing) in octaves of footprint for the warm
    markers of the highlighted series: the k-th of m series marks one
    size per octave from k/m octave on, so lines that lie on one another
    still show every series' markers side by side."""
    shown = [v for v, st in styles.items() if st.highlighted]
    return {v: (MARKER_OCTAVES * k / len(shown), MARKER_OCTAVES)
            for k, v in enumerate(shown)}


def marked_indices(x, start, offset, spacing):
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


# A key of a panel's legend is wrapped at this many characters: its two
# columns then fit under the panel, half the figure's width (at 63 and 60,
# the effective L2's and a block-launch roof's keys ran 9 px off the
# figure on matplotlib 3.6, whose constrained layout does not make room).
KEY_CHARS = 44

# The legend's key of the effective L2 by how its band was made
# (EffectiveL2.mark).
_EFFECTIVE_KEYS = {
    "onset": "effective L2 SIZE (finding 2); band: L2 share 95 % to 50 %",
    "variants": "effective L2 SIZE (finding 2); band: the variants' own",
    "bracket": "effective L2 (finding 2): between the sizes measured"}


def block_roofs(run, points, styles):
    """[(byte/s, bytes a block, block rate, variants)]: the block-launch
    roof of each highlighted variant whose every block moves the same
    bytes at every size, at the measured rate of its block size; variants
    with the same roof (within 1 %) share one."""
    roofs = []
    for v in sorted({p.variant for p in points}, key=var.sort_key):
        rows = [p for p in points if p.variant == v]
        size = per_block(rows)
        if not styles[v].highlighted or size is None:
            continue
        value = block_roof(run, rows[0].block, size)
        if value is None:
            continue
        for roof in roofs:
            if abs(roof[0] - value) <= 0.01 * roof[0]:
                roof[3].append(v)
                break
        else:
            roofs.append((value, size, value / size, [v]))
    return roofs


def _block_roofs(ax, run, points, styles, top):
    """Draw the block-launch roofs that lie under `top` GB/s; their
    labels ((value, text) for label_on_line, once all is drawn) and
    legend handles."""
    labels, handles = [], []
    for value, size, rate, names in block_roofs(run, points, styles):
        if value / 1e9 > top:
            continue
        ax.axhline(value / 1e9, zorder=1, **BLOCK_ROOF)
        labels.append((value / 1e9, "block-launch roof %s" %
                       gbps_short(value)))
        handles.append(Line2D([], [], label=(
            "block-launch roof of %s: %s a block x %.2f G blocks/s" % (
                ", ".join(names), bytes_label(size), rate / 1e9)),
            **BLOCK_ROOF))
    return labels, handles


def cache_tier_panel(ax, run, points, fam, effective_l2=None):
    """Draw one op family's panel; the labels of its block-launch roofs,
    [(ax, GB/s, text)], to be written once the figure is drawn."""
    styles = family_styles(points)
    marks = marker_stagger(styles)
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
            at = marked_indices(x, first, *marks[variant])
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
        label = "DRAM %s (%s)" % (gbps_short(bound.value), bound.source)
        # The measured ceiling lies below the spec peak: its name goes
        # under its line, the peak's over its own, so the two never meet.
        _label_at_line(ax, bound.value / 1e9, "%s DRAM %s" % (
            "measured" if bound.measured else "spec", gbps_short(
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
            label = "L2 read %s (measured)" % gbps_short(l2c.value)
            _label_at_line(ax, l2c.value / 1e9, "measured L2 read %s" %
                           gbps_short(l2c.value), LEVEL_COLOURS["L2"],
                           above=False)
            refs.append(Line2D([], [], color=LEVEL_COLOURS["L2"], ls="-.",
                               label=label))
            ymax = max(ymax, l2c.value / 1e9)
        else:
            note = "measured L2 read ceiling %s: above the plot" % \
                gbps_short(l2c.value)
    roof_labels, roof_refs = _block_roofs(ax, run, points, styles,
                                          ymax * 1.12)
    refs += roof_refs
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
        middle, low, high, band = effective_l2
        ax.axvspan(low, high, color=LEVEL_COLOURS["L2"], alpha=0.4, lw=0,
                   zorder=0)
        ax.axvline(middle, color=LEVEL_COLOURS["L2"], ls=(0, (5, 2)),
                   lw=1.4, zorder=2)
        ax.annotate({
            "onset": "effective L2 %s\n(L2 share falls from %s)" % (
                bytes_label(middle), bytes_label(low)),
            "variants": "effective L2 %s\n(%s to %s)" % (
                bytes_label(middle), bytes_label(low), bytes_label(high)),
            "bracket": "effective L2 between\n%s and %s" % (
                bytes_label(low), bytes_label(high))}[band],
            (high, 0.86), xytext=(right * 1.3, 0.86), fontsize=7.5,
            ha="left", va="center", color=LEVEL_COLOURS["L2"], bbox=box,
            zorder=9, xycoords=("data", "axes fraction"),
            textcoords=("data", "axes fraction"),
            arrowprops=dict(arrowstyle="->", color=LEVEL_COLOURS["L2"],
                            lw=1.0, shrinkA=0, shrinkB=0))
        refs.append(Patch(facecolor=LEVEL_COLOURS["L2"], alpha=0.4,
                          edgecolor=LEVEL_COLOURS["L2"], ls=(0, (5, 2)),
                          label=_EFFECTIVE_KEYS[band].replace(
                              "SIZE", bytes_label(middle))))
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
    log2_bytes_axis(ax.xaxis)
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
    handles = legend_handles(styles, with_cold=True) + refs
    for handle in handles:
        handle.set_label("\n".join(textwrap.wrap(handle.get_label(),
                                                 KEY_CHARS)))
    ax.legend(handles=handles,
              loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2,
              fontsize=7.5, frameon=False)
    return [(ax, y, text) for y, text in roof_labels]


def plot_cache_tier(run, outdir, effective_l2=None):
    """Bandwidth against footprint, one panel per op family.
    effective_l2: (middle, low, high, band), finding 2's effective L2 for
    streaming (EffectiveL2.mark): a dashed line at middle, the 50 % point,
    and a band from low to high: from the onset to it ("onset"), over the
    study adds' own 50 % points ("variants"), or the sizes that bracket it
    where they do not locate it ("bracket"); None: not marked."""
    points = [p for p in sel.primary_points(run) if p.check != "fail"]
    fams = [f for f in families(points)
            if len({p.n for p in points if var.family(p) == f}) > 1]
    if not fams:
        return None
    rows = math.ceil(len(fams) / 2)
    launches = "/".join(sorted({p.launch for p in points}))
    fig, body = new_figure([run], 5.9 * rows + 0.6)
    labels = []
    for ax, fam in zip(axes_grid(body, len(fams)), fams):
        labels += cache_tier_panel(ax, run, [p for p in points
                                             if var.family(p) == fam], fam,
                                   effective_l2)
    body.suptitle("Bandwidth against working set (%s launches)" % launches,
                  fontsize=10)
    if labels:
        renderer = settle(fig)
        for ax, y, text in labels:
            label_on_line(ax, y, text, BLOCK_ROOF["color"], renderer)
    return save(fig, outdir, "cache_tier")

"""The DRAM-share figure: per variant at the largest size, % of its op's
DRAM ceiling with the 95 % interval of the median and the repeat rounds,
and the bytes counted at DRAM, L2 and L1 over the bytes moved (it replaces
a roofline: docs/analysis.md)."""

import math
import textwrap
from dataclasses import dataclass

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter

from .. import l2_counts as l2c
from .. import model
from ...core import timing
from ...core import select as sel
from ...core import variants as var
from ...core.sinks import plot_text
from ...core.units import size_label
from .common import (CEILING_GREY, LEVEL_COLOURS, ROLE_COLOURS,
                     compute_roof, dram_bound_threshold_label, families,
                     gbps_short, level_bytes, new_figure, save)


L2_OWN = "L2 own"      # the L2 bytes less those that crossed the fabric


def _level_bytes(run, p):
    """[(level, bytes)] counted at DRAM, L2 and L1 (level_bytes), and at
    L2 less the sectors that crossed the partition fabric, where
    measured."""
    out = level_bytes(run, p)
    own = l2c.own_bytes(run, p)
    if own:
        at = next((i + 1 for i, (level, _) in enumerate(out)
                   if level == "L2"), len(out))
        out.insert(at, (L2_OWN, own))
    return out


def _level_style(level, colour):
    """A level's marker: filled, the L2 less the fabric's hollow."""
    if level == L2_OWN:
        return dict(color=colour, mfc="none", mec=colour, mew=1.2, zorder=4)
    return dict(color=colour, mec="white", mew=0.5, zorder=3)


def intensity_note(run, pts, fams):
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
        roof = compute_roof(run, fam[1])
        dram = model.run_dram_ceiling(run, fam[0])
        if roof is not None and dram is not None:
            ridge = roof[0] / dram.value
            text += ", %.0fx under the ridge %.1f FLOP/B = %s / %s (%s)" \
                % (ridge / intensity, ridge, roof[1],
                   gbps_short(dram.value), dram.source)
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


def bandwidth_interval(p):
    """(low, high) byte/s of a row's bandwidth: its time's 95 % interval
    of the median (timing.row_time) turned into bandwidth."""
    t = timing.row_time(p)
    return (p.bandwidth * t.median_ns / t.high_ns,
            p.bandwidth * t.median_ns / t.low_ns if t.low_ns > 0 else
            p.bandwidth)


# Level -> (marker, offset in rows): one row's levels side by side, as
# DRAM bytes and the bytes the kernel moves are often equal.
LEVEL_MARKS = {"DRAM": ("s", -0.22), "L2": ("o", 0.0), L2_OWN: ("o", 0.0),
               "L1": ("^", 0.22)}
LEVEL_LABELS = {"DRAM": "bytes counted at DRAM", "L2": "bytes counted at L2",
                L2_OWN: "at L2 less those that crossed the partition fabric",
                "L1": "bytes counted at L1"}


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
    blocks, passing rows, grouped by op family (families' order), fastest
    first; [] without points or any DRAM ceiling."""
    pts = [p for p in sel.at_largest_size(run)
           if model.run_dram_ceiling(run, p.op) is not None]
    fams = families(pts)
    pts = sorted(pts, key=lambda p: (fams.index(var.family(p)),
                                     -p.bandwidth))
    again = _repeat_points(repeats, pts)
    rows = []
    for p in pts:
        bound = model.run_dram_ceiling(run, p.op)
        low, high = bandwidth_interval(p)
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
    fams = families(pts)
    levels = {p.key: _level_bytes(run, p) for p in pts}
    counted = any(levels.values())
    fig, body = new_figure([run], 0.26 * len(pts) + 2.6)
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
    share.set_yticklabels(["%s (%s)" % (plot_text(p.variant), var.family_label(
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
                colour = LEVEL_COLOURS[level if level != L2_OWN else "L2"]
                ratio.plot(r, yi + dy, ls="none", marker=marker, ms=5.5,
                           **_level_style(level, colour))
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
        ratio.set_xlabel("bytes counted / bytes the kernel moves",
                         fontsize=9)
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
                       label=dram_bound_threshold_label())]
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
                   label=LEVEL_LABELS[lvl], **_level_style(
                       lvl, LEVEL_COLOURS[lvl if lvl != L2_OWN else "L2"]))
            for lvl in LEVEL_MARKS
            if any(lvl == name for lv in levels.values() for name, _ in lv)],
            ncol=1, **under)
    body.suptitle("\n".join(
        ["Share of the DRAM ceiling at %s elements (%s), grouped by op "
         "family, fastest first; numbers: median (95 %% interval) in %%"
         % (size_label(n), cache)] +
        textwrap.wrap(intensity_note(run, pts, fams), 150)), fontsize=9)
    return save(fig, outdir, "dram_share")

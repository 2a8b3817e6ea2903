"""The block-size figure: bandwidth against threads per block per
variant, one panel per op family and a line style per size tier, the
published block circled (blocks part)."""

import math

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter

from .. import model
from ..findings.blocks import F5_SAFE_BLOCKS
from ...core import select as sel
from ...core import variants as var
from ...core.sinks import plot_text
from ...core.units import size_label
from .common import (BLOCK_ROOF, CEILING_GREY, axes_grid, block_roof, families,
                     family_styles, legend_handles, legend_outside, new_figure,
                     place_labels, save, settle)


TIER_STYLES = ("-", "--", ":")      # largest size first


def block_roof_lines(run, points):
    """[(blocks, byte/s, variants)]: per variant's largest size swept
    over blocks, what its blocks can move at the block rate of each block
    size (bytes a block x block_rate_at; NaN where that rate is not known,
    which breaks the line); variants whose lines agree within 1 % share
    one."""
    lines = []
    for v in sorted({p.variant for p in points}, key=var.sort_key):
        swept = [n for n in {p.n for p in points if p.variant == v}
                 if len({p.block for p in points
                         if p.variant == v and p.n == n}) > 1]
        if not swept:
            continue
        rows = sorted((p for p in points if p.variant == v and
                       p.n == max(swept) and p.grid), key=lambda p: p.block)
        roofs = [block_roof(run, p.block, p.bytes_moved / p.grid)
                 for p in rows]
        if sum(r is not None for r in roofs) < 2:
            continue
        blocks = [p.block for p in rows]
        roofs = np.array([math.nan if r is None else r for r in roofs])
        for line in lines:
            if line[0] == blocks and np.allclose(roofs, line[1], rtol=0.01,
                                                 equal_nan=True):
                line[2].append(v)
                break
        else:
            lines.append((blocks, roofs, [v]))
    return lines


def _draw_block_roofs(ax, run, points, top):
    """Each block-launch roof line (clipped at `top` GB/s); the anchors of
    their labels [(block, GB/s, text, colour)]: where a line leaves the
    top, else its last point."""
    anchors = []
    for blocks, roofs, names in block_roof_lines(run, points):
        y = roofs / 1e9
        ax.plot(blocks, y, zorder=1, **BLOCK_ROOF)
        known = [(b, r) for b, r in zip(blocks, y) if not math.isnan(r)]
        at = known[-1]
        for (b0, y0), (b1, y1) in zip(zip(blocks, y), zip(blocks[1:], y[1:])):
            if y0 <= top < y1:
                # The segment is straight on the log2 block axis.
                at = (b0 * (b1 / b0) ** ((top - y0) / (y1 - y0)), top)
                break
        anchors.append(tuple(at) + ("block-launch roof of %s" % ", ".join(
            plot_text(v) for v in names), BLOCK_ROOF["color"]))
    return anchors


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
    fams = families(points)
    blocks = sorted({p.block for p in points})
    dram = model.run_dram_ceiling(run, "add")
    rows = math.ceil(len(fams) / 2)
    fig, body = new_figure([run], 4.4 * rows + 1.3)
    tiers_used, labels = 1, []
    for ax, fam in zip(axes_grid(body, len(fams)), fams):
        mine = [p for p in points if var.family(p) == fam]
        styles = family_styles(mine)
        # Exactly finding 5's blocks (its one definition of them).
        ax.axvspan(min(F5_SAFE_BLOCKS), max(F5_SAFE_BLOCKS),
                   color="#e8f3e8", zorder=0)
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
        top = 1.08 * max([p.bandwidth / 1e9 for p in mine] + (
            [ceiling.value / 1e9] if ceiling is not None else []))
        ax.set_ylim(0, top)
        anchors = _draw_block_roofs(ax, run, mine, top)
        ax.set_xlabel("threads per block", fontsize=9)
        ax.set_ylabel("GB/s", fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.set_title("%s: %s" % (var.family_label(fam), ", ".join(
            sorted({size_label(p.n) for p in mine}, key=lambda t: -max(
                p.n for p in mine if size_label(p.n) == t)))), fontsize=10)
        ax.legend(handles=legend_handles(styles), loc="lower right",
                  fontsize=7.5, framealpha=0.85)
        labels.append((ax, anchors))
    handles = [Line2D([], [], color="#333333", ls=TIER_STYLES[k],
                      label=("largest", "middle", "smallest")[k] +
                      " size of the variant")
               for k in range(min(tiers_used, len(TIER_STYLES)))]
    handles += [Line2D([], [], ls="none", marker="o", ms=11, mfc="none",
                       mec="#333333", label="the study's published block"),
                Line2D([], [], color="#e8f3e8", lw=8,
                       label="%d to %d threads (finding 5)" % (
                           min(F5_SAFE_BLOCKS), max(F5_SAFE_BLOCKS)))]
    if any(anchors for _, anchors in labels):
        handles.append(Line2D([], [], label="block-launch roof of the "
                              "largest size swept: bytes a block x the "
                              "measured block rate of its size",
                              **BLOCK_ROOF))
    if dram is not None:
        handles.append(Line2D([], [], color=CEILING_GREY, label=(
            "measured DRAM ceiling of the op (dram_add; relu, abs: "
            "dram_copy)" if dram.measured else "DRAM spec peak")))
    legend_outside(body, "lower center", handles=handles, ncol=3,
                fontsize=8, frameon=False)
    body.suptitle("Bandwidth against threads per block (%s, %s launches)"
                  % (cache, "/".join(sorted({p.launch for p in points}))),
                  fontsize=10)
    if any(anchors for _, anchors in labels):
        renderer = settle(fig)
        for ax, anchors in labels:
            place_labels(ax, anchors, renderer, fontsize=7)
    return save(fig, outdir, "blocks")

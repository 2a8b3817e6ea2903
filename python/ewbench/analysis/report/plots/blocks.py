"""The block-size figure: bandwidth against threads per block per
variant, one panel per op family and a line style per size tier, the
published block circled (blocks part)."""

import math

from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter

from .. import model
from ..findings.blocks import F5_SAFE_BLOCKS
from ...core import select as sel
from ...core import variants as var
from ...core.units import size_label
from .common import (CEILING_GREY, _families, _figure, _grid,
                     _legend_handles, family_styles, legend_outside, save)


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
                       label="%d to %d threads (finding 5)" % (
                           min(F5_SAFE_BLOCKS), max(F5_SAFE_BLOCKS)))]
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

"""The instruction figure: bytes per issued instruction, global-load bytes
per warp load instruction, and % of the DRAM ceiling, per variant at the
largest size, with the issue-bound threshold of model.rule_issue."""

from matplotlib.lines import Line2D

from .. import model
from ...core import select as sel
from ...core import variants as var
from ...core.sinks import plot_text
from ...core.units import size_label
from .common import (CEILING_GREY, ROLE_COLOURS,
                     dram_bound_threshold_label, families, legend_outside,
                     new_figure, save)


def _issue_thresholds(run, pts):
    """point key -> the issue-bound threshold of model.rule_issue for that
    point (ISSUE_MARGIN x its leanest DRAM-bound sibling, capped at
    ISSUE_BYTES_PER_INST), None where the rule cannot fire."""
    fits = model.fit_series(run.points, run.l2_bytes,
                            run.spec_dram_bandwidth)
    siblings = model.sibling_groups(run)
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
    pts = sel.at_largest_size(run)
    if not pts or not sel.has_metric(run, sel.M_BYTES_PER_INST):
        return None
    n, cache = pts[0].n, pts[0].cache
    fams = families(pts)
    pts = sorted(pts, key=lambda p: (fams.index(var.family(p)),
                                     -p.bandwidth))
    thresholds = _issue_thresholds(run, pts)
    fig, body = new_figure([run], 0.26 * len(pts) + 2.2)
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
    for k, (ax, (title, values)) in enumerate(zip(axes, panels)):
        for yi, (p, v) in enumerate(zip(pts, values)):
            if v is None:
                ax.text(0, yi, " n/a", va="center", fontsize=8,
                        color="#777777")
                continue
            ax.barh(yi, v, color=ROLE_COLOURS[var.role(p.variant)],
                    height=0.72)
            value = " %.0f" % v
            used = sel.metric(run, p, sel.M_LD_SECTOR_EFFICIENCY) \
                if k == 1 else None
            if used is not None and used < 99.5:
                value += " (%.0f %% of sectors)" % used
            ax.text(v, yi, value, va="center", fontsize=7.5)
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
        ax.set_xlabel(title, fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(True, axis="x", alpha=0.3)
    for yi in range(1, len(pts)):
        if var.family(pts[yi]) != var.family(pts[yi - 1]):
            for ax in axes:
                ax.axhline(yi - 0.5, color="#888888", lw=0.8)
    axes[0].set_yticks(range(len(pts)))
    axes[0].set_yticklabels(["%s (%s)" % (plot_text(p.variant), var.family_label(
        var.family(p))) for p in pts], fontsize=8)
    for tick, p in zip(axes[0].get_yticklabels(), pts):
        tick.set_color(ROLE_COLOURS[var.role(p.variant)]
                       if var.role(p.variant) != var.ADDITION else "#555555")
    axes[0].set_ylim(len(pts) - 0.4, -0.6)
    handles = [Line2D([], [], color=c, lw=6, label=r)
               for r, c in ROLE_COLOURS.items()
               if r in (var.STUDY, var.ADDITION, var.PEER) or
               any(var.role(p.variant) == r for p in pts)]
    handles.append(Line2D([], [], color="#d62728", lw=1.6,
                          label="issue-bound below this (%.0f%% of the "
                          "leanest sibling at the DRAM ceiling)" %
                          (100 * model.ISSUE_MARGIN)))
    handles += [Line2D([], [], color=CEILING_GREY, ls="--",
                       label="128 B scalar / 512 B 128-bit load; 100 %"),
                Line2D([], [], color=CEILING_GREY, ls=":",
                       label=dram_bound_threshold_label())]
    legend_outside(body, "lower center", handles=handles, ncol=3,
                fontsize=8, frameon=False)
    body.suptitle("Instruction efficiency at %s elements (%s), grouped by "
                  "op family, fastest first" % (size_label(n), cache),
                  fontsize=10)
    return save(fig, outdir, "instructions")

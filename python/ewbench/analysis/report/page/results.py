"""The sections that show the measurements: Results (GB/s per variant and
size, every point, the block sweep), Figures, Bottleneck verdicts (the
verdict per point and the rule that fired) and Launch-floor fits."""

import os

from ...core import document as doc
from .. import figures as fig
from .. import findings as fnd
from .. import model
from ...core import noise
from ...core import select as sel
from ...core import sinks
from ...core import study as stu
from ...core import variants as var
from ...core.units import gbps, gbps_number, pct, size_label, us
from .common import FIGURES_DIR, block_cell, cell_text, pct_spec, role_order


def _window_pct(run, p, ceiling, digits):
    """The share of the ceiling counting only the bytes the timed window
    moved (model.late_writes), where it differs from the row's at the
    digits shown; else None."""
    window = model.late_writes(run, p)
    if window is None or ceiling is None:
        return None
    shares = [model.pct_of(b, ceiling) for b in (p.bandwidth,
                                                 window.bandwidth)]
    if round(shares[0], digits) == round(shares[1], digits):
        return None
    return shares[1]


def _cell(run, p):
    ceiling = model.run_dram_ceiling(run, p.op)
    share = model.pct_of(p.bandwidth, ceiling)
    spread = noise.spread_pct(p)
    text = gbps_number(p.bandwidth)
    window = _window_pct(run, p, ceiling, 0)
    if share is not None:
        text += " (%.0f %%%s)" % (share, "; window %.0f %%" % window
                                  if window is not None else "")
    if spread is not None:
        text += " ±%.1f %%" % spread
    mark = noise.flag(p)
    return text + (" **%s**" % mark if mark else "")


def pivot(run, points, columns, cell, row_label=None):
    """Rows = variants (by family and role), columns = the given values of
    points' n; cell(point) for each, '' where not measured."""
    by = {(p.variant, p.n): p for p in points}
    variants = sorted({p.variant for p in points},
                      key=lambda v: role_order(next(
                          p for p in points if p.variant == v)))
    rows = []
    for v in variants:
        first = next(p for p in points if p.variant == v)
        rows.append(((row_label or (lambda p: sinks.code(p.variant)))(first),
                     var.role(v), block_cell(first)) +
                    tuple(cell(by[(v, n)]) if (v, n) in by else ""
                          for n in columns))
    return tuple(rows)


POINT_HEADER = ("variant", "op", "block", "cache", "launch", "median (µs)",
                "min-max (µs)", "spread", "GB/s", "% DRAM ceiling",
                "% spec", "check")


def _point_row(run, p):
    ceiling = model.run_dram_ceiling(run, p.op)
    spread = noise.spread_pct(p)
    return (sinks.markdown(p.variant), "%s %s" % (p.op, p.dtype),
            block_cell(p), p.cache,
            p.launch, us(p.time_median_ns),
            "%s-%s" % (us(p.time_min_ns), us(p.time_max_ns))
            if p.time_min_ns is not None and p.time_max_ns is not None
            else "n/a",
            ("%.1f %%" % spread if spread is not None else "n/a") +
            (" " + noise.flag(p) if noise.flag(p) else ""),
            gbps_number(p.bandwidth),
            pct(model.pct_of(p.bandwidth, ceiling)) + (
                " (window %.1f %%)" % _window_pct(run, p, ceiling, 1)
                if _window_pct(run, p, ceiling, 1) is not None else ""),
            pct_spec(p.bandwidth, run.spec_dram_bandwidth), p.check or "n/a")


def results_section(study, sctx):
    blocks = [doc.Heading(2, "Results", "results")]
    part, ctx = sctx.part(stu.ARTICLE, stu.SWEEP, stu.BLOCKS)
    run = ctx.run
    primary = [p for p in ctx.points]
    shown = sel.representative_sizes(run)
    blocks.append(doc.Paragraph(
        "`%s/`: GB/s per variant and size (%% of the op's DRAM ceiling) ±"
        "per-launch spread; **noisy**: spread above %.0f %%, **outlier**: a "
        "launch took more than %.1fx the median; **window**: the share "
        "counting only the bytes the timed window moved, where the DRAM "
        "write counter shows part of the output written after the "
        "kernel's end stamp (left dirty in L2 and written back later; "
        "docs/metrics.md, \"Where the writes land\"): the verdicts judge "
        "DRAM on it. Rows: the study's variants, ewbench's additions, then "
        "peers, per op family." % (
            part, noise.NOISY_PCT, noise.OUTLIER_FACTOR)))
    for cache in ("warm", "cold"):
        for launch in ("stream", "graph"):
            pts = [p for p in primary if p.cache == cache and
                   p.launch == launch and p.n in shown]
            if not pts:
                continue
            blocks.append(doc.Heading(3, "%s, %s launches" % (
                cache.capitalize(), launch), "results-%s-%s" % (
                    cache, launch)))
            blocks.append(doc.Table(
                ("variant", "role", "block") + tuple(
                    size_label(n) for n in shown),
                pivot(run, pts, shown, lambda p: _cell(run, p))))
    every = sorted(run.points, key=lambda p: (role_order(p), p.n, p.cache,
                                              p.launch, p.block or 0))
    blocks.append(doc.Details("Every point of `%s/` (%d rows)" % (
        part, len(every)), (doc.Table(("n",) + POINT_HEADER, tuple(
            (size_label(p.n),) + _point_row(run, p) for p in every)),)))
    bctx = sctx.parts.get(stu.BLOCKS)
    if bctx is not None:
        blocks += blocks_table(bctx)
    return blocks


def blocks_table(ctx):
    sweeps = fnd.block_sweeps(ctx)
    if not sweeps:
        return []
    blocks = sorted({p.block for rows in sweeps.values() for p in rows})
    rows = []
    for (variant, n, cache, launch), pts in sorted(
            sweeps.items(), key=lambda kv: (var.sort_key(kv[0][0]),
                                            kv[0][1])):
        by = {p.block: p for p in pts}
        best = max(pts, key=lambda p: p.bandwidth)
        rows.append((sinks.code(variant), "%s %s" % (size_label(n), cache)) +
                    tuple(("**%s**" if by[b] is best else "%s") %
                          gbps_number(by[b].bandwidth) if b in by else ""
                          for b in blocks))
    return [doc.Heading(3, "Block sizes (`blocks/`, GB/s; bold: best)",
                        "results-blocks"),
            doc.Table(("variant", "size") + tuple(str(b) for b in blocks),
                      tuple(rows))]


def figures_section(figures, notes=None):
    """The figures (figures.FIGURES) with their captions; notes: {name: a paragraph under
    the figure} (what the data say of it: dram_share's L2 count)."""
    blocks = [doc.Heading(2, "Figures", "figures")]
    if not figures:
        return blocks + [doc.Paragraph("No figures.")]
    for spec in fig.FIGURES:
        if spec.name not in figures:
            continue
        png, svg = figures[spec.name]
        blocks.append(doc.Heading(3, spec.title, "fig-" + spec.name))
        blocks.append(doc.Image("%s/%s" % (FIGURES_DIR, os.path.basename(png)),
                                spec.title, spec.caption, "%s/%s" % (
                                    FIGURES_DIR, os.path.basename(svg))))
        if (notes or {}).get(spec.name):
            blocks.append(doc.Paragraph(notes[spec.name]))
    return blocks


def verdicts_section(sctx):
    blocks = [doc.Heading(2, "Bottleneck verdicts", "verdicts")]
    blocks.append(doc.Paragraph(
        "Rules, first match wins: launch-bound (on host-timed rows, warm "
        "slower than cold beyond the noise; or time <= %.0f %% of %.1fx "
        "the cost of one launch: for a kernel's own duration the GPU's, "
        "`launch_graph`, which no host moves), block-launch-bound (the "
        "grid at the measured block-launch rate of its block size, plus "
        "one launch, >= %.0f %% of the time, block slots empty), "
        "fixed-cost-bound (its series' fitted fixed cost >= %.0f %% of the "
        "time and, with the bytes its timed window moved at the serving "
        "level's ceiling, >= %.0f %% of it), L2-bound (footprint < L2 and above the DRAM ceiling, "
        "or DRAM bytes < %.0f %% of bytes moved, at >= %.0f %% of the L2 "
        "ceiling), DRAM-bound (>= %.0f %% of the DRAM ceiling, counting "
        "the bytes the timed window moved, and at most %.0f %% above it, "
        "and no sibling, same op, dtype, size, cache and launch, faster "
        "beyond the noise and %.0f %%: the experiments' refutation), "
        "occupancy-bound (occupancy < %.0f %%, a grid that fills the "
        "GPU's block slots, loads in flight short on the concurrency "
        "curve), latency-bound (on the measured concurrency curve its "
        "loads in flight allow < %.0f %% of the curve's top and it is "
        "within %.0f %% of what they allow, either side; where the curve "
        "is silent, "
        "long-scoreboard stalls >= %.0f %% of all while the ceiling or a "
        "sibling shows room), issue-bound (issue stalls >= %.0f %% of "
        "all, or < %.0f B per issued instruction and < %.0f %% of the "
        "leanest sibling at the ceiling, beyond a %.0f %% band), else "
        "undetermined, with what was measured. docs/analysis.md explains "
        "each." % (
            100 * (1 - model.LAUNCH_BAND), model.LAUNCH_FACTOR,
            100 * model.BLOCK_LAUNCH_SHARE, 100 * model.FIXED_SHARE,
            100 * model.FIXED_COST_SHARE,
            100 * model.L2_DRAM_FRACTION, 100 * model.L2_SHARE,
            100 * model.DRAM_FRACTION, model.CEILING_BEATEN_PCT,
            model.MATERIAL_PCT, model.OCCUPANCY_PCT,
            100 * model.CURVE_ENOUGH, 100 * model.CURVE_TOLERANCE,
            100 * model.STALL_DOMINANT,
            100 * model.STALL_DOMINANT, model.ISSUE_BYTES_PER_INST,
            100 * model.ISSUE_MARGIN, 100 * model.ISSUE_BAND)))
    part, ctx = sctx.part(stu.ARTICLE, stu.SWEEP, stu.BLOCKS)
    run = ctx.run
    shown = sel.representative_sizes(run)
    for cache in ("warm", "cold"):
        for launch in ("stream", "graph"):
            pts = [p for p in ctx.points if p.cache == cache and
                   p.launch == launch and p.n in shown]
            if not pts:
                continue
            blocks.append(doc.Heading(3, "`%s/`, %s, %s launches" % (
                part, cache, launch)))
            blocks.append(doc.Table(
                ("variant", "role", "block") + tuple(
                    size_label(n) for n in shown),
                pivot(run, pts, shown,
                      lambda p: ctx.verdicts[p.key].name)))
    rows = sorted((p for p in ctx.points if p.n in shown),
                  key=lambda p: (role_order(p), p.n, p.cache, p.launch))
    blocks.append(doc.Details("The rule that fired, per point (%d rows)" %
                              len(rows), (doc.Table(
                                  ("variant", "n", "cache", "launch",
                                   "verdict", "rule"), tuple(
                                      (sinks.markdown(p.variant),
                                       size_label(p.n), p.cache,
                                       p.launch, ctx.verdicts[p.key].name,
                                       ctx.verdicts[p.key].rule)
                                      for p in rows)),)))
    return blocks


def fits_section(sctx):
    blocks = [doc.Heading(2, "Launch-floor fits", "fits")]
    blocks.append(doc.Paragraph(
        "Per series, t = t0 + V/B by least squares on relative residuals "
        "(docs/analysis.md). A fit serves as a launch floor only with more "
        "points than parameters (two, or three with an L2 slope), a "
        "positive t0 and a positive DRAM slope; measured launch ceilings "
        "take precedence."))
    for part, ctx in sctx.parts.items():
        rows = []
        for (variant, block, cache, launch), f in sorted(
                ctx.fits.items(), key=lambda kv: (var.sort_key(kv[0][0]),
                                                  kv[0][2], kv[0][3],
                                                  kv[0][1] or 0)):
            rows.append((sinks.markdown(variant), cell_text(block), cache,
                         launch, us(f.t0_ns),
                         gbps(f.bandwidth), gbps(f.l2_bandwidth),
                         "%d / %d" % (f.points, f.parameters),
                         "%.1f %%" % (100 * f.max_rel_residual)
                         if f.points > f.parameters else "exact fit",
                         "yes" if f.usable else "no: " + f.unusable_reason))
        if rows:
            usable = sum(1 for r in rows if r[-1] == "yes")
            blocks.append(doc.Details(
                "`%s/`: %d series, %d usable as a floor" % (
                    part, len(rows), usable), (doc.Table(
                        ("variant", "block", "cache", "launch", "t0 (µs)",
                         "B (DRAM level)", "B (L2 level)",
                         "points / parameters", "max residual",
                         "usable as floor"), tuple(rows)),)))
    return blocks

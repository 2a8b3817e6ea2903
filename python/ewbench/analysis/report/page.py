"""report.md and report.html for a study directory (or one run).

build_document() turns a judged study and its figures into a list of
document blocks (pure); write_report() draws, renders and writes them.

The first screen answers: the GPU and its measured ceilings, the six
findings with their verdict and deciding number, ewbench's fastest kernel
against cub and PyTorch, and the study's variants that fall short, with
the counter evidence.  A table of contents follows, then the sections of
SECTIONS; long tables are pivoted (variant x size) or folded.
"""

import os
import shlex

from . import answers as ans
from ..core import atomic
from ..core import document as doc
from . import environment as env
from . import findings as fnd
from ..core import load
from . import model
from ..core import noise
from ..core import placement
from . import published as pub
from ..core import select as sel
from ..core import study as stu
from . import unmeasured as um
from . import user_kernels as uk
from ..core import variants as var
from ..core.units import (bytes_label, clock_label, cuda_version, gbps,
                    gbps_number, pct, size_label, us)

SECTIONS = (("findings", "Findings"),
            ("published", "Published beside measured"),
            ("results", "Results"),
            ("figures", "Figures"), ("verdicts", "Bottleneck verdicts"),
            ("fits", "Launch-floor fits"), ("method", "Method"),
            ("environment", "Environment"),
            ("threats", "Threats to validity"), ("reproduce", "Reproduce"))
FIGURES_DIR = doc.FIGURES_DIR
FINDINGS_TABLE = "findings-table"

FIGURE_TEXT = {
    "cache_tier": (
        "Cache-tier plot",
        "Bandwidth (bytes moved / median time) against the footprint of one "
        "launch, one panel per op family (fp32 and fp16 adds apart): warm "
        "solid, cold dashed and paler. The bandwidth axis is linear from "
        "zero, the footprint axis logarithmic. The study's variants in "
        "colour with a marker each, the fastest of ewbench's additions in "
        "purple; peers and other additions, where the sweep has them, as "
        "the legend under each panel keys every series. Each series marks "
        "one size per octave, staggered against the others, so lines that "
        "lie on one another still show every series' markers. Black dotted "
        "vertical line: the nominal L2 capacity; blue band with a dashed "
        "line, named by the arrow: the effective L2 for streaming that "
        "finding 2 located (where the share of reads served by L2 falls "
        "through 50 %) and the sweep sizes bracketing it; thick "
        "translucent red line: the op's measured DRAM ceiling, dotted red: "
        "the spec peak, each named on its line; the L2 read ceiling (blue "
        "dash-dot) is drawn only where it lies near the data, else named "
        "in the panel title. Where the run has one-pass residency "
        "counters, the grey dotted line (right axis) is the median share "
        "of reads served by L2 over the warm points of each footprint."),
    "blocks": (
        "Block sizes",
        "Bandwidth against threads per block, one panel per op family; "
        "each variant's largest size solid (smaller sizes dashed, dotted). "
        "A ring marks the block the study published; the green band is 128 "
        "to 256 threads (finding 5); the horizontal line is the op's DRAM "
        "ceiling."),
    "dram_share": (
        "Share of the DRAM ceiling",
        "At the largest size (warm when measured), per variant grouped by "
        "op family, fastest first, coloured by role (study, ewbench "
        "addition, peer). Left: bandwidth in % of the op's measured DRAM "
        "ceiling (dram_add for add, dram_copy for relu and abs), a dot at "
        "the median and a bar over the 95 % confidence interval of the "
        "median (most are narrower than the dot: the numbers at the right "
        "give each median and interval); red rings: the same rows' medians "
        "in the repeat rounds, where the study has them; red line: the "
        "ceiling (100 %); dotted grey: the 80 % DRAM-bound threshold; "
        "dotted red: the spec peak, per op family. Right, where counters "
        "were taken: the bytes counted at DRAM (red squares), L2 (blue "
        "dots) and L1 (green triangles) over the bytes the kernel must "
        "move, on a logarithmic axis with 1x marked. The title gives each "
        "op family's intensity (FLOP per byte moved) and how far under "
        "the ridge of its FMA roof and DRAM ceiling it lies."),
    "instructions": (
        "Instruction efficiency",
        "At the largest size, per variant (grouped by op family, fastest "
        "first; colour = study, ewbench addition or peer): bytes moved per "
        "issued warp instruction with the issue-bound threshold of each row "
        "in red, global-load bytes per warp load instruction (128 B scalar "
        "fp32, 512 B for 128-bit loads) and the share of the DRAM ceiling "
        "with the 80 % DRAM-bound threshold dotted."),
}


# helpers

def _get(mapping, *keys):
    """Nested lookup that tolerates missing levels; None when absent."""
    for key in keys:
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(key)
    return mapping


def _text(value):
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)


def _block(p):
    if p.block is not None:
        return str(p.block)
    return var.peer_name(p.variant) or "n/a"


def _pct_spec(bandwidth, spec):
    return "%.1f %%" % (100.0 * bandwidth / spec) if spec and bandwidth \
        else "n/a"


def _ceiling_value(row):
    if row.unit == "byte/s":
        return gbps(row.value)
    if row.unit == "ns":
        return "%s µs" % us(row.value)
    return "%.1f TFLOP/s" % (row.value / 1e12)


def _role_order(p):
    fams = {"add": 0, "relu": 1, "abs": 2}
    return (fams.get(p.op, 9), p.dtype != "f32") + var.sort_key(p.variant)


# first screen

def headline(study):
    """One paragraph: the GPU and its measured ceilings."""
    dev = study.device
    spec = dev.get("dram_bandwidth_bytes_per_s")
    text = "%s: %s SMs at %s, %s L2, %s DRAM (%s-bit bus at %s): %s spec." % (
        dev.get("name", "unknown GPU"), _text(dev.get("sm_count")),
        clock_label(dev.get("sm_clock_khz")), bytes_label(dev.get("l2_bytes")),
        bytes_label(dev.get("memory_bytes")), _text(dev.get("bus_width_bits")),
        clock_label(dev.get("memory_clock_khz")), gbps(spec))
    rows = {r.name: r for r in ans.ceilings(study.ceilings)}
    parts = []
    for name, label in (("dram_add", "DRAM add"), ("dram_copy", "copy"),
                        ("l2_read", "L2 read")):
        r = rows.get(name)
        if r is not None:
            parts.append("%s %s%s" % (label, _ceiling_value(r),
                                      " (%.1f %% of spec)" % r.spec_pct
                                      if r.spec_pct else ""))
    launch = [(_ceiling_value(rows[n]), label) for n, label in
              (("launch_stream", "stream"), ("launch_graph", "graph"))
              if n in rows]
    if launch:
        parts.append("launch %s" % " / ".join("%s %s" % l for l in launch))
    revision = _get(study.main.manifest, "tool", "git_revision")
    if revision:
        text += " Measured by ewbench at commit `%s`." % revision
    if parts:
        text += " **Measured**: %s." % ", ".join(parts)
    else:
        text += " No measured ceilings: percentages are of the spec peak."
    return doc.Paragraph(text)


def findings_table(judged):
    rows = tuple(("[%d](#finding-%d)" % (f.number, f.number),
                  "[%s](#finding-%d)" % (f.short_claim, f.number),
                  "**%s**" % f.verdict, f.deciding or "-",
                  "%s/" % f.part if f.part else "-") for f in judged)
    return doc.Table(("#", "claim", "verdict", "deciding number",
                      "judged on"), rows, FINDINGS_TABLE)


def versus_section(versus, ranges=(), sctx=None):
    """(the DRAM tier's table, first; the L2 tier and the notes, after
    the shortfalls), so that the report's first screen holds the findings,
    the DRAM-tier comparison and the shortfalls."""
    blocks = [doc.Heading(3, "ewbench's fastest add against cub and "
                          "PyTorch", "versus")]
    if not versus and not ranges:
        return blocks + [doc.Paragraph("No add kernels measured.")], []
    rows = []
    repeated = [v for v in versus if isinstance(v, ans.RepeatVersus)]

    def rate(e, v):
        """GB/s, with the round-to-round spread from repeats."""
        if e is None:
            return "not run"
        if v not in repeated or e.spread_pct is None:
            return gbps(e.bandwidth)
        return "%s (spread %.2f %%)" % (gbps(e.bandwidth), e.spread_pct)
    for v in versus:
        peer = v.peer
        beyond = v.beyond_noise or "-"
        if v in repeated and peer is not None:
            beyond = "%s (limit ±%.2f %%)" % (beyond, v.judged.limit_pct)
        rows.append((
            "%s %s" % (v.tier, v.dtype),
            "%s, %s, %s%s" % (size_label(v.n), v.cache, v.launch,
                              ", median of %d rounds" % v.rounds
                              if v in repeated else ""),
            "`%s`@%s (%s)" % (v.best.variant, _block(v.best),
                              var.role(v.best.variant)),
            "%s, %s of spec" % (rate(v.best, v),
                                _pct_spec(v.best.bandwidth, v.spec)),
            rate(v.cub, v), rate(v.torch, v),
            "%+.1f %% vs %s" % (v.margin_pct, var.peer_name(peer.variant))
            if peer else "no peer",
            beyond))
    if rows:
        blocks.append(doc.Table(("tier", "size", "ewbench's fastest",
                                 "GB/s, % of spec", "cub", "PyTorch",
                                 "margin", "beyond noise?"), tuple(rows)))
    dram_blocks, blocks = blocks, []
    if ranges:
        blocks.append(doc.Heading(3, "The L2 tier against the peers",
                                  "versus-l2"))
        blocks.append(doc.Paragraph(
            "L2 tier, over every L2-resident size (warm; footprint up to "
            "the last size below the effective L2 that finding 2 located; "
            "ewbench's fastest taking at least %.0fx the fixed cost of a "
            "launch, the larger of the measured launch floor and the "
            "fitted intercept, so that L2 bandwidth, not the launch, sets "
            "the time): the margin of ewbench's fastest add at each size "
            "against the peer, its lowest, median and highest, each with "
            "its size and whether it is beyond the noise." %
            model.LAUNCH_FACTOR))
        l2c = model.l2_ceiling(sctx.part(stu.SWEEP, stu.ARTICLE)[1]
                               .run.ceilings)

        def cell(m):
            v = m.versus
            return "%+.1f %% at %s (%s; `%s`%s, %s%s)" % (
                m.margin_pct, bytes_label(v.best.footprint_bytes),
                v.beyond_noise, v.best.variant,
                "" if v.best.block is None else "@%d" % v.best.block,
                gbps(v.best.bandwidth), " = %.0f %% of the measured L2 "
                "ceiling" % (100 * v.best.bandwidth / l2c.value)
                if l2c else "")
        rows = []
        for r in ranges:
            first, last = r.sizes[0].versus, r.sizes[-1].versus
            rows.append((
                "L2 %s vs %s" % (r.dtype, r.peer),
                "%d sizes, %s-%s (%s), warm, %s" % (
                    len(r.sizes), bytes_label(first.best.footprint_bytes),
                    bytes_label(last.best.footprint_bytes),
                    r.limit_source, first.launch),
                cell(r.lowest), cell(r.middle), cell(r.highest),
                "ahead at %d, behind at %d, level at %d" % (
                    r.count("ahead"), r.count("behind"),
                    r.count("within noise"))))
        blocks.append(doc.Table(("tier, peer", "sizes", "lowest margin",
                                 "median margin", "highest margin",
                                 "beyond noise (sizes)"), tuple(rows)))
    if repeated:
        dram = ("DRAM tier: the study's largest size, warm, from %d rounds "
                "(%s): a bandwidth is the median over "
                "the rounds, and a margin is beyond noise when it exceeds "
                "%g x the two entries' round-to-round spreads combined "
                "(the limit; `ewbench contest`'s rule, docs/analysis.md). "
                "L2 tier, beyond noise" % (repeated[0].rounds,
                                           _rounds_text(sctx.study),
                                           noise.SIGMAS))
    else:
        dram = "DRAM tier: the study's largest size, one run. Beyond noise"
    blocks.append(doc.Paragraph(
        "cub (`cub::DeviceTransform`) and PyTorch (`torch.add`) are peers, "
        "not ewbench kernels. " + dram + ": the two medians' 95 %% "
        "confidence intervals, each widened by the run-to-run floor "
        "(%s), do not overlap (the noise rule, docs/analysis.md)." %
        (noise.run_floor(sctx.main.run) if sctx else
         noise.gpu_floor(None)).describe()))
    return dram_blocks, blocks


def _evidence(s):
    parts = []
    rate = model.block_rate(s.point)
    if s.verdict.name == model.BLOCK_LAUNCH_BOUND and rate:
        parts.append("%d blocks at %.2f blocks/ns" % (s.point.grid,
                                                      rate * 1e-9))
    if s.occupancy is not None:
        parts.append("%s occupancy %.0f %%" % (s.occupancy_kind, s.occupancy))
    if s.kib_in_flight is not None:
        text = "%.0f KiB of loads in flight per SM" % s.kib_in_flight
        if s.contrast is not None and s.contrast_kib_in_flight is not None:
            text += " (%s: %.0f)" % (s.contrast.variant,
                                     s.contrast_kib_in_flight)
        parts.append(text)
    if s.top_stall is not None:
        parts.append("%s %.0f %% of warp stalls" % s.top_stall)
    if s.bytes_per_inst is not None:
        parts.append("%.1f B per instruction" % s.bytes_per_inst)
    if s.loads:
        parts.append(s.loads)
    return "; ".join(parts) or "no counters"


def shortfalls_section(shorts, n):
    modes = sorted({"%s, %s launches" % (s.point.cache, s.point.launch)
                    for s in shorts})
    blocks = [doc.Heading(3, "Study variants that fall short%s" % (
        " at %s elements%s" % (size_label(n), " (%s)" % "; ".join(modes)
                               if modes else "") if n else ""),
        "shortfalls")]
    if not shorts:
        return blocks + [doc.Paragraph(
            "Every study variant reaches at least %.0f %% of its fastest "
            "sibling (same op and dtype)." % (100 * ans.SHORT_FRACTION))]
    rows = []
    for s in shorts:
        fix = "not swept"
        if s.best_block is not None:
            b = s.best_block
            fix = "%d: %s at %s elements, %s, %s" % (
                b.block, gbps(b.bandwidth), size_label(b.n), b.cache,
                b.launch)
            if s.published_block is not None:
                fix += " (%s at %s)" % (gbps(s.published_block.bandwidth),
                                        _block(s.point))
        rows.append(("`%s`" % s.point.variant, _block(s.point),
                     gbps(s.point.bandwidth),
                     "%.0f %% of %s" % (100 * s.share, s.sibling.variant),
                     s.verdict.name, _evidence(s), fix))
    blocks.append(doc.Table(("variant", "block", "GB/s",
                             "share of the fastest sibling", "verdict",
                             "evidence", "best block of the block sweep "
                             "(GB/s; its own size and launch)"),
                            tuple(rows)))
    missing = sorted({s.sass_missing for s in shorts if s.sass_missing})
    if missing:
        blocks.append(doc.Paragraph(
            "Bytes per load are the bytes each kernel reads over its global "
            "load instructions, against the L1 sector bytes those touch "
            "(docs/analysis.md, finding 4). The kernels' load instructions "
            "(SASS): %s." % "; ".join(missing)))
    if any(s.top_stall for s in shorts):
        blocks.append(doc.Paragraph(
            "Warp stall reasons: the `stalls/` part, the same kernels at "
            "this size with `--metrics stalls`, as a share of all stall "
            "cycles. Waiting on loads (`long_scoreboard`) decides a "
            "verdict only where the ceiling or a sibling shows that the "
            "memory system has room for more: a DRAM-bound kernel waits "
            "on its loads too (the rules: docs/analysis.md, \"Bottleneck "
            "verdicts\")."))
    return blocks


# sections

def findings_section(judged):
    blocks = [doc.Heading(2, "Findings", "findings")]
    for f in judged:
        blocks.append(doc.Heading(3, "Finding %d: %s — **%s**" % (
            f.number, f.short_claim, f.verdict), "finding-%d" % f.number))
        blocks.append(doc.Paragraph("Claim: %s Judged on `%s/`." % (
            f.claim, f.part or "-")))
        blocks.append(doc.Paragraph(f.explanation))
        if f.numbers:
            blocks.append(doc.Details("The numbers (%d)" % len(f.numbers),
                                      (doc.Table(("quantity", "value"),
                                                 f.numbers),)))
    return blocks


def _cell(run, p):
    ceiling = model.run_dram_ceiling(run, p.op)
    share = model.pct_of(p.bandwidth, ceiling)
    spread = noise.spread_pct(p)
    text = gbps_number(p.bandwidth)
    if share is not None:
        text += " (%.0f %%)" % share
    if spread is not None:
        text += " ±%.1f %%" % spread
    mark = noise.flag(p)
    return text + (" **%s**" % mark if mark else "")


def pivot(run, points, columns, cell, row_label=None):
    """Rows = variants (by family and role), columns = the given values of
    points' n; cell(point) for each, '' where not measured."""
    by = {(p.variant, p.n): p for p in points}
    variants = sorted({p.variant for p in points},
                      key=lambda v: _role_order(next(
                          p for p in points if p.variant == v)))
    rows = []
    for v in variants:
        first = next(p for p in points if p.variant == v)
        rows.append(((row_label or (lambda p: "`%s`" % p.variant))(first),
                     var.role(v), _block(first)) +
                    tuple(cell(by[(v, n)]) if (v, n) in by else ""
                          for n in columns))
    return tuple(rows)


POINT_HEADER = ("variant", "op", "block", "cache", "launch", "median (µs)",
                "min-max (µs)", "spread", "GB/s", "% DRAM ceiling",
                "% spec", "check")


def _point_row(run, p):
    ceiling = model.run_dram_ceiling(run, p.op)
    spread = noise.spread_pct(p)
    return (p.variant, "%s %s" % (p.op, p.dtype), _block(p), p.cache,
            p.launch, us(p.time_median_ns),
            "%s-%s" % (us(p.time_min_ns), us(p.time_max_ns))
            if p.time_min_ns is not None and p.time_max_ns is not None
            else "n/a",
            ("%.1f %%" % spread if spread is not None else "n/a") +
            (" " + noise.flag(p) if noise.flag(p) else ""),
            gbps_number(p.bandwidth), pct(model.pct_of(p.bandwidth, ceiling)),
            _pct_spec(p.bandwidth, run.spec_dram_bandwidth), p.check or "n/a")


def results_section(study, sctx):
    blocks = [doc.Heading(2, "Results", "results")]
    part, ctx = sctx.part(stu.ARTICLE, stu.SWEEP, stu.BLOCKS)
    run = ctx.run
    primary = [p for p in ctx.points]
    shown = sel.representative_sizes(run)
    blocks.append(doc.Paragraph(
        "`%s/`: GB/s per variant and size (%% of the op's DRAM ceiling) ±"
        "per-launch spread; **noisy**: spread above %.0f %%, **outlier**: a "
        "launch took more than %.1fx the median. Rows: the study's "
        "variants, ewbench's additions, then peers, per op family." % (
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
    every = sorted(run.points, key=lambda p: (_role_order(p), p.n, p.cache,
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
        rows.append(("`%s`" % variant, "%s %s" % (size_label(n), cache)) +
                    tuple(("**%s**" if by[b] is best else "%s") %
                          gbps_number(by[b].bandwidth) if b in by else ""
                          for b in blocks))
    return [doc.Heading(3, "Block sizes (`blocks/`, GB/s; bold: best)",
                        "results-blocks"),
            doc.Table(("variant", "size") + tuple(str(b) for b in blocks),
                      tuple(rows))]


def figures_section(figures):
    blocks = [doc.Heading(2, "Figures", "figures")]
    if not figures:
        return blocks + [doc.Paragraph("No figures.")]
    for name, (title, caption) in FIGURE_TEXT.items():
        if name not in figures:
            continue
        png, svg = figures[name]
        blocks.append(doc.Heading(3, title, "fig-" + name))
        blocks.append(doc.Image("%s/%s" % (FIGURES_DIR, os.path.basename(png)),
                                title, caption, "%s/%s" % (
                                    FIGURES_DIR, os.path.basename(svg))))
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
        "L2-bound "
        "(footprint < L2 and above the DRAM ceiling, or DRAM bytes < %.0f "
        "%% of bytes moved), DRAM-bound (>= %.0f %% of the DRAM ceiling and "
        ">= %.0f %% of the best sibling: same op, dtype, size, cache, "
        "launch), occupancy-bound (occupancy < %.0f %%), latency-bound "
        "(loads in flight per SM < %.0f %% of what Little's law needs; "
        "where that is silent, long-scoreboard stalls >= %.0f %% of all "
        "while the ceiling or a sibling shows room), issue-bound (issue "
        "stalls >= %.0f %% of all, or < %.0f B per issued instruction and "
        "< %.0f %% of the leanest sibling at the ceiling, beyond a %.0f %% "
        "band), DRAM-bound in "
        "the band (>= %.0f %% of the best sibling), else undetermined, "
        "with what was measured. docs/analysis.md explains each." % (
            100 * (1 - model.LAUNCH_BAND), model.LAUNCH_FACTOR,
            100 * model.BLOCK_LAUNCH_SHARE,
            100 * model.L2_DRAM_FRACTION, 100 * model.DRAM_FRACTION,
            100 * model.SIBLING_FRACTION, model.OCCUPANCY_PCT,
            100 * (1 - model.LATENCY_MARGIN), 100 * model.STALL_DOMINANT,
            100 * model.STALL_DOMINANT, model.ISSUE_BYTES_PER_INST,
            100 * model.ISSUE_MARGIN, 100 * model.ISSUE_BAND,
            100 * (model.SIBLING_FRACTION - model.SIBLING_BAND))))
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
                  key=lambda p: (_role_order(p), p.n, p.cache, p.launch))
    blocks.append(doc.Details("The rule that fired, per point (%d rows)" %
                              len(rows), (doc.Table(
                                  ("variant", "n", "cache", "launch",
                                   "verdict", "rule"), tuple(
                                      (p.variant, size_label(p.n), p.cache,
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
            rows.append((variant, _text(block), cache, launch, us(f.t0_ns),
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


def _points(count):
    return "%d point%s" % (count, "" if count == 1 else "s")


def _above_ceiling_text(part, above):
    """The threat of rows above the measured DRAM ceiling, by explanation,
    the unexplained and the farthest above shown first."""
    kinds = {k: [a for a in above if a.kind == k] for k in (
        model.WRITES_IN_L2, model.BEATS_CEILING, model.UNEXPLAINED)}
    shown = sorted(above, key=lambda a: (a.explained, -a.share))[:6]
    parts = []
    if kinds[model.WRITES_IN_L2]:
        parts.append("part of the output written to DRAM inside the timed "
                     "window, the rest left in L2 and written back after "
                     "the timer stopped (%s; docs/metrics.md, \"Where the "
                     "writes land\")" % _points(
                         len(kinds[model.WRITES_IN_L2])))
    if kinds[model.BEATS_CEILING]:
        parts.append("all of the output written inside the window, at most "
                     "%.1f %% above: faster than the ceiling's own kernel, "
                     "a measured ceiling being one kernel's median, not the "
                     "memory's limit (%s)" % (
                         100 * (max(a.share for a in
                                    kinds[model.BEATS_CEILING]) - 1),
                         _points(len(kinds[model.BEATS_CEILING]))))
    if kinds[model.UNEXPLAINED]:
        parts.append("**not explained**: no DRAM write counter in this "
                     "part, or more than %.0f %% above (%s)" % (
                         model.CEILING_BEATEN_PCT,
                         _points(len(kinds[model.UNEXPLAINED]))))
    return ("`%s/`: **%s above the measured DRAM ceiling** while not "
            "served by L2 (cold, or a footprint over the L2). %s. %s." % (
                part, _points(len(above)), ". ".join(
                    x[0].upper() + x[1:] for x in parts), "; ".join(
                    "%s@%s %s: %.1f%% of the ceiling, %s" % (
                        a.point.variant, size_label(a.point.n),
                        a.point.cache, 100 * a.share, a.reason)
                    for a in shown)))


def _timed_launches(settings):
    """How many launches a point timed, as run.json settings say."""
    timing = settings.get("timing")
    if not timing:
        return "%s timed launches" % _text(settings.get("iters"))
    return ("%s to %s timed ones, until the median's %s %% interval is "
            "within %s %% of it or after %s ms of timing" % (
                _text(timing.get("min_samples")),
                _text(timing.get("max_samples")),
                _text(timing.get("ci_confidence_pct")),
                _text(timing.get("target_ci_pct")),
                _text(timing.get("max_time_ms"))))


def method_section(study):
    blocks = [doc.Heading(2, "Method", "method")]
    items = []
    for part in stu.PARTS:
        run = study.run(part)
        if run is None:
            continue
        settings = run.manifest.get("settings") or {}
        counters = run.manifest.get("counters") or {}
        items.append("`%s/` (run `%s`): %s. %d points, %d sizes (%s to %s), "
                     "cache %s, %s launches; per point %s warm-up "
                     "launches, then %s; counters: %s." % (
                         part, run.run_id, stu.PURPOSE[part],
                         len(run.points), len(sel.sizes(run)),
                         size_label(min(sel.sizes(run))) if run.points
                         else "-", size_label(max(sel.sizes(run)))
                         if run.points else "-",
                         "/".join(settings.get("cache") or []) or "n/a",
                         "/".join(settings.get("launch") or []) or "n/a",
                         _text(settings.get("warmup")),
                         _timed_launches(settings),
                         "%s set, %s pass(es)" % (
                             counters.get("metric_set"),
                             counters.get("passes"))
                         if counters.get("enabled") else "off"))
    if study.repeats:
        items.append("`%s/`: %s, the add kernels and cub at the article's "
                     "largest size, warm, timing only (runs %s), each with "
                     "its own torch rows: with the article as round 1, the "
                     "DRAM-tier comparison's round-to-round spread." % (
                         stu.REPEATS, ", ".join(
                             "`%s`" % os.path.basename(r.path)
                             for r in study.repeats), ", ".join(
                             "`%s`" % r.run_id for r in study.repeats)))
    if study.ceilings_path:
        items.append("`ceilings/`: `ewbench ceilings` (DRAM read, write, "
                     "copy, add; L2 read; launch cost; FMA peaks); every "
                     "part uses them.")
    items += [
        "**Cache states**: `warm` = back-to-back launches on the same "
        "buffers, so whatever fits in L2 stays there (the write-ups' "
        "method); `cold` = L2 flushed before each timed launch by reading a "
        "buffer several times the L2. **Launches**: `stream` from the host "
        "one by one, `graph` replayed from a CUDA graph. **Time**: each "
        "kernel's own start and end on the GPU (CUPTI activity records), "
        "so the host's launch path is not in it; the launch interval is "
        "measured apart (docs/analysis.md, \"How a point is timed\").",
        "**Bandwidth** = bytes moved / median time, GB/s = 1e9 byte/s; "
        "bytes moved = n x (bytes read + written per element): add 3 "
        "arrays, relu 2, abs in place 1 read + 1 write. The footprint "
        "(distinct bytes touched) is the x axis of the cache-tier plot.",
        "**Ceilings**: DRAM = measured `dram_add` (add) or `dram_copy` "
        "(relu, abs), else the spec peak; launch floor = measured "
        "`launch_stream` or `launch_graph` by launch mode.",
        "**Primary block**: a variant timed at several blocks is compared "
        "with others at the block it was timed with at the most sizes.",
        "**Roles**: the study's 14 variants (docs/study.md), ewbench's "
        "additions, and the peers cub and PyTorch.",
    ]
    blocks.append(doc.Bullets(tuple(items)))
    article = study.run(stu.ARTICLE)
    if article is not None and any(p.variant.startswith("torch_")
                                   for p in article.points):
        side = load.peer_sidecar(article.path, "torch") or {}
        if any(p.variant.startswith("torch_") and p.file != load.TIMING
               for p in article.points):
            how = "were measured by `ewbench torch` into " \
                "`peer-torch.csv`"
        else:
            how = "were appended to `timing.csv` by `python3 -m analysis " \
                "torch` (now `ewbench torch`, which writes " \
                "`peer-torch.csv`)"
        blocks.append(doc.Paragraph(
            "PyTorch rows (`torch_*`) %s: PyTorch %s, CUDA %s, on %s; %s." % (
                how, _text(side.get("torch")), _text(side.get("cuda")),
                _text(side.get("device")), side.get("method") or
                "CUDA events around each launch, the host's launch path "
                "included (the method of rows measured before 2026-11-24)")))
    rows = ans.ceilings(study.ceilings)
    if rows:
        blocks.append(doc.Table(
            ("ceiling", "measured", "% of spec", "method"), tuple(
                (r.name, _ceiling_value(r), pct(r.spec_pct),
                 (study.ceilings[r.name].method or "")) for r in rows)))
    return blocks


def environment_section(study):
    run = study.main
    m = run.manifest
    dev = run.device
    versions = m.get("versions") or {}
    rows = [
        ("GPU", dev.get("name")),
        ("compute capability", dev.get("compute_capability")),
        ("SMs, clock (max)", "%s at %s" % (_text(dev.get("sm_count")),
                                           clock_label(dev.get(
                                               "sm_clock_khz")))),
        ("L2", bytes_label(dev.get("l2_bytes"))),
        ("memory", "%s, %s-bit bus at %s" % (
            bytes_label(dev.get("memory_bytes")),
            _text(dev.get("bus_width_bits")),
            clock_label(dev.get("memory_clock_khz")))),
        ("DRAM spec bandwidth", gbps(dev.get("dram_bandwidth_bytes_per_s"))),
        ("threads / blocks per SM", "%s / %s" % (
            _text(dev.get("max_threads_per_sm")),
            _text(dev.get("max_blocks_per_sm")))),
        ("driver, runtime", "%s (driver; %s), %s (runtime)" % (
            cuda_version(versions.get("driver")),
            env.driver_text(placement.read(m)),
            cuda_version(versions.get("runtime")))),
        ("CUPTI API version", _text(versions.get("cupti_api"))),
        ("ewbench", "%s (git %s)" % (_text(_get(m, "tool", "version")),
                                     _text(_get(m, "tool", "git_revision")))),
        ("built with", "%s; GPU targets sm_%s; nvcc %s" % (
            cuda_version(_get(m, "tool", "cuda_build_version")),
            _text(_get(m, "tool", "cuda_arch")),
            _text(_get(m, "tool", "nvcc_flags")))),
        ("host", "%s; %s; %s" % (_text(_get(m, "host", "hostname")),
                                 _text(_get(m, "host", "os")),
                                 _text(_get(m, "host", "cpu")))),
    ]
    for part, r in study.runs.items():
        rows.append(("`%s/`" % part, "%s to %s (UTC), %s; git %s" % (
            _text(r.manifest.get("started_utc")),
            _text(r.manifest.get("finished_utc")),
            _text(r.manifest.get("status")),
            _text(_get(r.manifest, "tool", "git_revision")))))
        rows.append(("`%s/` NVML start → end" % part,
                     _nvml_text(placement.read(r.manifest))))
        rows.append(("`%s/` NVML through the run" % part,
                     env.sampled_text(placement.read(r.manifest), r)))
    # The GPU's settings, once for the parts that agree.
    settings = {}
    for part, r in study.runs.items():
        settings.setdefault(env.settings_text(placement.read(r.manifest)),
                            []).append("`%s/`" % part)
    for text, parts in settings.items():
        rows.append(("GPU settings, %s" % ", ".join(parts), text))
    return [doc.Heading(2, "Environment", "environment"),
            doc.Table(("item", "value"),
                      tuple((k, _text(v)) for k, v in rows))]


def _nvml_text(place):
    """SM / memory clock, power, temperature and throttle reasons at a
    run's start and end (placement.py), '-' for what was not read."""
    def one(r):
        def num(v, fmt):
            return fmt % v if v is not None else "-"
        return "SM %s / memory %s MHz, %s W, %s °C, %s" % (
            num(r.sm_clock_mhz, "%.0f"), num(r.mem_clock_mhz, "%.0f"),
            num(r.power_w, "%.0f"), num(r.temperature_c, "%.0f"),
            ", ".join(r.throttle_reasons) if r.throttle_reasons
            else "no clock-event reason")
    maxima = place.start
    return "%s → %s (max SM %s / memory %s MHz)" % (
        one(place.start), one(place.end),
        "%.0f" % maxima.max_sm_clock_mhz
        if maxima.max_sm_clock_mhz is not None else "-",
        "%.0f" % maxima.max_mem_clock_mhz
        if maxima.max_mem_clock_mhz is not None else "-")


def _clock_threat(study):
    """The clocks threat, backed by NVML's readings of every part: at its
    start and end and, where recorded, the lowest through it."""
    readings = []
    for part, run in study.runs.items():
        place = placement.read(run.manifest)
        readings += [(part, place.start), (part, place.end)]
        s = place.sampled
        if s is not None and s.sm_clock is not None:
            readings.append((part, placement.Reading(
                sm_clock_mhz=s.sm_clock.min,
                max_sm_clock_mhz=place.start.max_sm_clock_mhz,
                throttle_reasons=s.reasons)))
    through = all(placement.read(run.manifest).sampled is not None
                  for run in study.runs.values())
    read = [(part, r) for part, r in readings if r.sm_clock_mhz is not None]
    if not read:
        return ("Clocks were not locked and NVML was not read: boost and "
                "thermal state may move bandwidths by a few percent between "
                "runs, and nothing here shows whether they did.")
    slowed = sorted({"`%s/` %s" % (part, ", ".join(
        placement.slowdowns(r.throttle_reasons)))
        for part, r in read if placement.slowdowns(r.throttle_reasons)})
    below = sorted({"`%s/`" % part for part, r in read
                    if r.max_sm_clock_mhz and
                    r.sm_clock_mhz < 0.97 * r.max_sm_clock_mhz})
    if slowed or below:
        return ("**Clocks moved**: %s. Bandwidths of these parts may be a "
                "few percent low." % "; ".join(
                    (["clock-event reasons " + ", ".join(slowed)]
                     if slowed else []) +
                    (["SM clock below 97 %% of its maximum in %s" %
                      ", ".join(below)] if below else [])))
    if through:
        return ("Clocks were not locked, but NVML read the SM clock within "
                "3 %% of its maximum with no slowing clock-event reason at "
                "the start and end of every part and once a round of timed "
                "launches through it (Environment); drift from run to run "
                "is covered only by the run-to-run floor of the noise rule "
                "(%s)." % noise.run_floor(study.main).describe())
    return ("Clocks were not locked, but NVML read the SM clock at its "
            "maximum with no slowing clock-event reason at the start and "
            "end of every part (Environment); drift between the reads, and "
            "from run to run, is covered only by the run-to-run floor of "
            "the noise rule (%s)." % noise.run_floor(
                study.main).describe())


def _rounds_text(study):
    """What the DRAM-tier comparison's rounds are (Study.rounds)."""
    runs = study.rounds
    if study.run(stu.ARTICLE) in runs:
        return ("the article's row and `repeats/round-*` at the published "
                "blocks, each run again with its own torch rows, timed "
                "after all the rounds")
    blocks = sorted({p.block for p in runs[0].points
                     if p.block is not None and var.is_own(p.variant)})
    return ("`repeats/round-1..%d`, each kernel at blocks %s (its "
            "published one among them), each round's torch rows timed "
            "right after it: the peers interleaved with ewbench's kernels" %
            (len(runs), ", ".join(str(b) for b in blocks)))


def _warm_slower_text(part, run, slower):
    """Kernel durations slower warm than cold, with the DRAM writes inside
    each launch where counters measured them: the why."""
    shown = []
    for warm, cold in sorted(slower, key=lambda wc: wc[0].footprint_bytes):
        w = sel.metric(run, warm, sel.M_DRAM_WRITE)
        c = sel.metric(run, cold, sel.M_DRAM_WRITE)
        writes = "DRAM writes %s warm, %s cold" % (
            bytes_label(w), bytes_label(c)) \
            if w is not None and c is not None else "no DRAM counters"
        shown.append("%s at %s working set (%.1f %% slower; %s)" % (
            warm.variant, bytes_label(warm.footprint_bytes),
            100 * (warm.time_median_ns / cold.time_median_ns - 1), writes))
    return ("`%s/`: **warm slower than cold** (kernel durations, beyond "
            "the noise) at %d points: %s. No timer is in a kernel's "
            "duration: a warm launch finds the previous launch's output "
            "dirty in L2 and writes it back to DRAM while it runs, where "
            "a cold one starts after a read-only flush and leaves its own "
            "writes in L2 past the timer (docs/metrics.md, \"Where the "
            "writes land\"); the DRAM writes inside each launch show it "
            "where counters were taken." % (
                part, len(slower), "; ".join(shown[:6]) +
                ("; ..." if len(shown) > 6 else "")))


def threats_section(study, sctx):
    items = []
    if study.is_fixture:
        items.append("**This study is a fixture: its numbers are synthetic, "
                     "not measurements.**")
    uuids = study.gpus()
    if len(set(uuids.values())) > 1:
        items.append("The parts were measured on %d different boards of "
                     "the same model (%s): board-to-board differences of a "
                     "few percent go into comparisons between parts." % (
                         len(set(uuids.values())), "; ".join(
                             "`%s/` %s" % (p, u[:12]) for p, u in
                             sorted(uuids.items()))))
    for part, ctx in sctx.parts.items():
        run = ctx.run
        m = run.manifest
        if m.get("status") not in (None, "complete"):
            items.append("**`%s/` is `%s`**: some points may be missing." %
                         (part, m.get("status")))
        failed = [p for p in run.points if p.check == "fail"]
        if failed:
            items.append("`%s/`: %d points failed the correctness check and "
                         "are left out." % (part, len(failed)))
        noisy = [p for p in run.points if noise.flag(p)]
        if noisy:
            items.append("`%s/`: %d of %d points are noisy (spread > %.0f "
                         "%%) or had a launch over %.1fx the median, mostly "
                         "small sizes where one launch takes microseconds." %
                         (part, len(noisy), len(run.points), noise.NOISY_PCT,
                          noise.OUTLIER_FACTOR))
        inverted = model.warm_slower_than_cold(run, ctx.fits)
        if inverted:
            items.append("`%s/`: **warm slower than cold** at %s: the timer "
                         "saw the GPU wait for the host, so these points are "
                         "called launch-bound (a host-timing artefact)." % (
                             part, ", ".join("%s@%s" % (p.variant,
                                                        size_label(p.n))
                                             for p in inverted[:8])))
        slower = model.warm_slower_kernels(run)
        if slower:
            items.append(_warm_slower_text(part, run, slower))
        counters = m.get("counters") or {}
        above = model.above_dram_ceiling(run, noise.run_floor(run))
        if above:
            items.append(_above_ceiling_text(part, above))
        if run.metrics is None and part == stu.ARTICLE:
            items.append("`%s/` has no counters (%s): occupancy and "
                         "instruction evidence is missing." % (
                             part, counters.get("reason") or
                             "metrics.csv absent"))
        elif run.metrics is not None and (counters.get("passes") or 1) > 1:
            items.append("`%s/`: counters come from a replayed pass (%s "
                         "passes): DRAM write bytes can be off by tens of "
                         "percent; read bytes are reliable." % (
                             part, counters.get("passes")))
    old = sum(p.time_source is None for ctx in sctx.parts.values()
              for p in ctx.run.points)
    if old:
        items.append("%d rows were timed by the old protocol (schema 1: an "
                     "event pair around each launch, host launch path "
                     "included; their confidence intervals are estimated "
                     "from the spread). Finding 1 reads the profiler's "
                     "kernel durations (`gpu__time_duration.sum`) where "
                     "counters were taken." % old)
    if not study.ceilings:
        items.append("No measured ceilings: percentages are of the spec "
                     "peak, which no kernel reaches.")
    items.append(_clock_threat(study))
    items += env.threat_items(study)
    items += [
        "Nsight Compute defaults (cache control all, clock control base) "
        "differ from these conditions; to compare, run ncu with "
        "`--cache-control none --clock-control none`.",
    ]
    return [doc.Heading(2, "Threats to validity", "threats"),
            doc.Bullets(tuple(items))]


def _command(run, out):
    """The run's command line with its output directory replaced."""
    argv = [str(a) for a in run.manifest.get("argv") or []]
    for i, a in enumerate(argv[:-1]):
        if a in ("-o", "--out"):
            argv[i + 1] = out
    return "ewbench " + " ".join(shlex.quote(a) for a in argv)


def reproduce_section(study):
    lines = ["# all of it, on a machine with the GPU (writes "
             "reports/<gpu>-<date>/):", "make report", ""]
    if study.is_single_run:
        run = study.main
        lines += ["# this run", _command(run, "RUN_DIR")]
        if study.ceilings_path:
            lines.append("ewbench ceilings -q -o CEILINGS_DIR")
        if any(p.variant.startswith("torch_") for p in run.points):
            lines.append("ewbench torch RUN_DIR")
        lines.append("ewbench report RUN_DIR%s -o OUT" % (
            " --ceilings CEILINGS_DIR" if study.ceilings_path else ""))
    else:
        lines.append("# step by step, STUDY = the study directory")
        if study.ceilings_path:
            try:
                from ..core.load import load_manifest
                ceil = load_manifest(os.path.join(study.ceilings_path,
                                                  "run.json"))
                argv = [str(a) for a in ceil.get("argv") or ["ceilings"]]
            except Exception:       # noqa: BLE001 - only for the text
                argv = ["ceilings"]
            argv = [a for i, a in enumerate(argv)
                    if a not in ("-o", "--out") and
                    (i == 0 or argv[i - 1] not in ("-o", "--out"))]
            lines.append("ewbench %s -o STUDY/ceilings" % " ".join(argv))
        for part in stu.PARTS:
            run = study.run(part)
            if run is None:
                continue
            lines.append(_command(run, "STUDY/%s" % part))
            if any(p.variant.startswith("torch_") for p in run.points):
                lines.append("ewbench torch STUDY/%s" % part)
        lines.append("ewbench report STUDY -o STUDY/report")
    return [doc.Heading(2, "Reproduce", "reproduce"),
            doc.Paragraph("The commands that wrote these runs, from their "
                          "run.json, with the output directories named as "
                          "in a study directory (docs/analysis.md)."),
            doc.Code("\n".join(lines))]


# whole document

def build_document(study, sctx, judged, figures):
    title = "ewbench study: %s" % study.device.get("name", "unknown GPU")
    blocks = [doc.Heading(1, title)]
    if study.is_fixture:
        blocks.append(doc.Banner("FIXTURE DATA: synthetic numbers for tests, "
                                 "not a measurement."))
    for part, run in study.runs.items():
        if run.manifest.get("status") not in (None, "complete"):
            blocks.append(doc.Banner("`%s/` status: %s." % (
                part, run.manifest.get("status"))))
    blocks.append(headline(study))
    blocks.append(doc.Heading(2, "Answers", "answers"))
    blocks.append(findings_table(judged))
    gaps = um.survey(study)
    blocks += um.first_screen(gaps)
    dram_tier, l2_tier = versus_section(ans.versus_peers(sctx),
                                        ans.l2_ranges(sctx), sctx)
    blocks += dram_tier
    _, main = sctx.part(stu.ARTICLE, stu.SWEEP, stu.BLOCKS)
    largest = max(sel.sizes(main.run)) if main and main.run.points else None
    blocks += shortfalls_section(ans.shortfalls(sctx), largest)
    blocks += l2_tier
    blocks += uk.section(study, figures)
    blocks.append(doc.Heading(2, "Contents", "contents"))
    blocks.append(doc.Toc(SECTIONS))
    blocks += findings_section(judged)
    blocks += pub.section(study.main, "Published beside measured",
                          "published")
    blocks += results_section(study, sctx)
    blocks += figures_section(figures)
    blocks += verdicts_section(sctx)
    blocks += fits_section(sctx)
    blocks += method_section(study)
    blocks += um.section(gaps, tuple(study.runs.values()))
    blocks += environment_section(study)
    blocks += threats_section(study, sctx)
    blocks += reproduce_section(study)
    return title, blocks


def write_report(study, outdir, plot_study):
    """Draw the figures (plot_study(study, dir) -> {name: [png, svg]}),
    judge the findings, write report.md and report.html into outdir.  The
    PNGs live only inside the HTML: they are removed once embedded, and the
    SVGs stay beside it (the HTML links them; the Markdown shows them).
    The whole report is rendered into a fresh directory inside outdir and
    swapped in only once complete (atomic.rendering): a render that fails or
    is interrupted part way (a full disk, a file-size limit, a signal)
    leaves the previous report exactly as it was."""
    if not isinstance(study, stu.Study):
        study = stu.single_run_study(study)
    sctx = fnd.make_context(study)
    judged = fnd.evaluate(study, sctx)
    with atomic.rendering(outdir, doc.REPORT_OUTPUTS) as staged:
        figures_dir = os.path.join(staged, FIGURES_DIR)
        atomic.make_dirs(figures_dir)
        _, l2_part = sctx.part(stu.SWEEP, stu.ARTICLE)
        marks = {"effective_l2":
                 fnd.effective_l2(l2_part) if l2_part else None}
        figures = plot_study(study, figures_dir, marks)
        figures.update(uk.draw(study, figures_dir))
        title, blocks = build_document(study, sctx, judged, figures)
        doc.write_report(staged, blocks, title,
                         [png for png, _ in figures.values()])
    return (os.path.join(outdir, "report.md"),
            os.path.join(outdir, "report.html"), judged)

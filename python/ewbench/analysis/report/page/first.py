"""The report's first screen: the GPU and its measured ceilings (the
headline), ewbench's fastest add against cub and PyTorch in the DRAM and
L2 tiers, and the study's variants that fall short, with the counter
evidence.  (The findings table: findings.py.)"""

from .. import answers as ans
from .. import experiments as exp
from .. import findings as fnd
from ...core import document as doc
from .. import model
from ...core import noise
from ...core import sinks
from ...core import study as stu
from ...core import variants as var
from ...core.units import bytes_label, clock_label, gbps, size_label
from .common import block_cell, ceiling_value, cell_text, lookup, pct_spec


def headline(study):
    """One paragraph: the GPU and its measured ceilings."""
    dev = study.device
    spec = dev.get("dram_bandwidth_bytes_per_s")
    text = "%s: %s SMs at %s, %s L2, %s DRAM (%s-bit bus at %s): %s spec." % (
        sinks.markdown(dev.get("name", "unknown GPU")),
        cell_text(dev.get("sm_count")),
        clock_label(dev.get("sm_clock_khz")), bytes_label(dev.get("l2_bytes")),
        bytes_label(dev.get("memory_bytes")),
        cell_text(dev.get("bus_width_bits")),
        clock_label(dev.get("memory_clock_khz")), gbps(spec))
    rows = {r.name: r for r in ans.ceilings(study.ceilings)}
    parts = []
    for name, label in (("dram_add", "DRAM add"), ("dram_copy", "copy"),
                        ("l2_read", "L2 read")):
        r = rows.get(name)
        if r is not None:
            parts.append("%s %s%s" % (label, ceiling_value(r),
                                      " (%.1f %% of spec)" % r.spec_pct
                                      if r.spec_pct else ""))
    launch = [(ceiling_value(rows[n]), label) for n, label in
              (("launch_stream", "stream"), ("launch_graph", "graph"))
              if n in rows]
    if launch:
        parts.append("launch %s" % " / ".join("%s %s" % l for l in launch))
    revision = lookup(study.main.manifest, "tool", "git_revision")
    if revision:
        text += " Measured by ewbench at commit %s." % sinks.code(revision)
    if parts:
        text += " **Measured**: %s." % ", ".join(parts)
    else:
        text += " No measured ceilings: percentages are of the spec peak."
    return doc.Paragraph(text)


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
        margin = "%+.1f %% vs %s" % (v.margin_pct, var.peer_name(
            peer.variant)) if peer else "no peer"
        if v in repeated and v.held_out is not None:
            margin += "; held out %+.1f %%" % v.held_out.margin_pct
        rows.append((
            "%s %s" % (v.tier, v.dtype),
            "%s, %s, %s%s" % (size_label(v.n), v.cache, v.launch,
                              ", median of %d rounds" % v.rounds
                              if v in repeated else ""),
            "%s@%s (%s%s)" % (sinks.code(v.best.variant), block_cell(v.best),
                               var.role(v.best.variant),
                               "; best of %d configurations" % v.searched
                               if v in repeated else ""),
            "%s, %s of spec" % (rate(v.best, v),
                                pct_spec(v.best.bandwidth, v.spec)),
            rate(v.cub, v), rate(v.torch, v), margin, beyond))
    if rows:
        blocks.append(doc.Table(("tier", "size", "ewbench's fastest",
                                 "GB/s, % of spec", "cub", "PyTorch",
                                 "margin", "beyond noise?"), tuple(rows)))
    dram_blocks, blocks = blocks, []
    if ranges:
        blocks.append(doc.Heading(3, "The L2 tier against the peers",
                                  "versus-l2"))
        blocks.append(doc.Paragraph(
            "L2 tier, over every size of it (warm; the sizes where every "
            "kernel compared, ewbench's and the peers', reads at least "
            "%.0f %% of its data from L2 by the residency counters, per "
            "dtype: where the reads come partly from DRAM, the margin "
            "measures which kernel hides DRAM better, not the L2; without "
            "counters, footprints up to half the L2; ewbench's fastest "
            "taking at least %.0fx the fixed cost of a launch, the larger "
            "of the measured launch floor and the fitted intercept, so "
            "that L2 bandwidth, not the launch, sets the time): the margin "
            "of ewbench's fastest add at each size against the peer, its "
            "lowest, median and highest, each with its size and whether "
            "it is beyond the noise." % (fnd.F2_ONSET_PCT,
                                         model.LAUNCH_FACTOR)))
        l2c = model.l2_ceiling(sctx.part(stu.SWEEP, stu.ARTICLE)[1]
                               .run.ceilings)

        def cell(m):
            v = m.versus
            return "%+.1f %% at %s (%s; %s%s, %s%s)" % (
                m.margin_pct, bytes_label(v.best.footprint_bytes),
                v.beyond_noise, sinks.code(v.best.variant),
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
                    r.tier, first.launch),
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
                "%g x the two entries' round-to-round spreads combined, and "
                "at least the cross-host spread of the GPU (the limit; "
                "`ewbench contest`'s rule, docs/analysis.md); ewbench's "
                "fastest is the best of every configuration the rounds "
                "measured (each block of each variant), chosen on the same "
                "rounds, so its margin is also scored held out: for each "
                "round, the best over the other rounds against the faster "
                "peer over them, on that round, the median over the rounds. "
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
    if s.verdict.name in (model.BLOCK_LAUNCH_BOUND, exp.CO_LIMITED) and \
            rate:
        parts.append("%d blocks at %.2f blocks/ns" % (s.point.grid,
                                                      rate * 1e-9))
    if s.occupancy is not None:
        parts.append("%s occupancy %.0f %%" % (s.occupancy_kind, s.occupancy))
    if s.kib_in_flight is not None:
        text = "%.0f KiB of loads in flight per SM" % s.kib_in_flight
        if s.contrast is not None and s.contrast_kib_in_flight is not None:
            text += " (%s: %.0f)" % (sinks.markdown(s.contrast.variant),
                                     s.contrast_kib_in_flight)
        parts.append(text)
    if s.top_stall is not None:
        parts.append("%s %.0f %% of warp stalls" % (
            sinks.markdown(s.top_stall[0]), s.top_stall[1]))
    if s.bytes_per_inst is not None:
        parts.append("%.1f B per instruction" % s.bytes_per_inst)
    if s.loads:
        parts.append(sinks.markdown(s.loads))
    return "; ".join(parts) or "no counters"


def _experiment(s):
    """The shortfall's experiment in one cell."""
    e = s.experiment
    if e is None:
        return "not run"
    if e.outcome is None:
        if e.refused:       # its own row is no measurement of DRAM
            return e.text
        if e.final != e.verdict.name:
            return "**%s** (the rules said %s): %s" % (
                e.final, e.verdict.name, e.text)
        if e.text:
            return "not tested: %s" % e.text
        return "none: %s %s verdict predicts nothing these changes test" % (
            "an" if e.verdict.name[0] in "aeiou" else "a", e.verdict.name)
    head = "**%s**" % e.outcome
    if e.final == exp.CO_LIMITED:
        head += ", **%s** (the rules said %s)" % (e.final, e.verdict.name)
    elif e.final != e.verdict.name:
        head += " (the rules said %s)" % e.verdict.name
    return "%s: %s" % (head, e.text)


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
                                        block_cell(s.point))
        rows.append((sinks.code(s.point.variant), block_cell(s.point),
                     gbps(s.point.bandwidth),
                     "%.0f %% of %s" % (100 * s.share,
                                        sinks.markdown(s.sibling.variant)),
                     s.verdict.name, _experiment(s), _evidence(s), fix))
    blocks.append(doc.Table(("variant", "block", "GB/s",
                             "share of the fastest sibling", "verdict",
                             "experiment: the change the verdict predicts, "
                             "predicted and measured", "evidence",
                             "best block of the block sweep (GB/s; its "
                             "own size and launch)"), tuple(rows)))
    if any(s.experiment for s in shorts):
        blocks.append(doc.Paragraph(
            "Experiments: the `experiments/` part, in one run at this "
            "size, each study variant at its published block, at 2x and "
            "4x it, and its probes (its own loads 2x and 4x per thread). "
            "Each verdict predicts which change helps and by how much "
            "(latency-bound: more bytes in flight, up to the concurrency "
            "curve; block-launch-bound: more work per block; DRAM-bound: "
            "nothing). Its experiment is scored by the best of its own "
            "changes: confirmed when that lands within the band of the "
            "model's measured error around the prediction and moves the "
            "predicted way, direction right, size off when it moves that "
            "way outside the band, refuted when it does not move that way "
            "(DRAM-bound: confirmed when nothing rises beyond the noise and "
            "%.0f %%, refuted when anything does); a refuted verdict is "
            "replaced by what the experiment showed. Every change, "
            "predicted beside measured: [Predictions scored](#predictions) "
            "(docs/analysis.md, \"Experiments\")." %
            exp.MATERIAL_PCT))
    missing = sorted({s.sass_missing for s in shorts if s.sass_missing})
    if missing:
        blocks.append(doc.Paragraph(
            "Bytes per load are the bytes each kernel reads over its global "
            "load instructions, against the L1 sector bytes those touch "
            "(docs/analysis.md, finding 4). The kernels' load instructions "
            "(SASS): %s." % "; ".join(sinks.markdown(m) for m in missing)))
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


def _rounds_text(study):
    """What the DRAM-tier comparison's rounds are (Study.rounds)."""
    runs = study.rounds
    if study.article_is_round_one:
        return ("the article's row and `repeats/round-*` at the published "
                "blocks, each run again with its own torch rows, timed "
                "after all the rounds")
    blocks = sorted({p.block for p in runs[0].points
                     if p.block is not None and var.is_own(p.variant)})
    return ("`repeats/round-1..%d`, each kernel at blocks %s (its "
            "published one among them), each round's torch rows timed "
            "right after it: the peers interleaved with ewbench's kernels" %
            (len(runs), ", ".join(str(b) for b in blocks)))

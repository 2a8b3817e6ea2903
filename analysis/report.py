"""report.md and report.html for one run.

build_document() turns a run, its figures and its judged findings into a
list of document blocks (pure); write_report() renders and writes them.
Sections: Summary, Environment, Method, Results per size, Plots,
Bottleneck verdicts, Findings, Threats to validity, Reproduce.
"""

import os
import shlex
from collections import Counter

from . import document as doc
from . import findings as fnd
from . import model
from . import select as sel
from .torch_baseline import read_sidecar
from .units import bytes_label, gbps, gbps_number, pct, size_label, us

SECTIONS = ("Summary", "Environment", "Method", "Results per size", "Plots",
            "Bottleneck verdicts", "Findings", "Threats to validity",
            "Reproduce")
FIGURES_DIR = "figures"
NOISY_CV = 0.05         # stddev / median above this is flagged as noisy

FIGURE_TEXT = {
    "cache_tier": (
        "Cache-tier plot",
        "Left: bandwidth (bytes moved / median time) against the footprint "
        "of one launch, warm solid and cold dashed; the dotted vertical line "
        "is the L2 capacity, horizontal lines the DRAM ceilings (measured "
        "solid, spec dashed) and the measured L2 ceiling; grey dotted: L2 "
        "read hit rate (right axis). Right: median time against bytes moved, "
        "with the fitted t = t0 + V/B per series; the flat dotted line is "
        "the measured launch floor."),
    "roofline": (
        "Hierarchical roofline",
        "FLOP/s against arithmetic intensity, one point per kernel and "
        "memory level (colour), marker per variant; diagonal lines are "
        "bandwidth ceilings. Elementwise kernels sit far left of any "
        "compute roof: their height is set by bandwidth."),
    "instructions": (
        "Instruction efficiency",
        "Bytes moved per issued warp instruction, global-load bytes per warp "
        "load instruction (128 B scalar fp32, 512 B for 128-bit loads) and "
        "the share of the DRAM ceiling reached, at the largest size."),
    "bars": (
        "Bandwidth per variant and size",
        "GB/s per variant at each size, warm solid and cold hatched, "
        "labelled with the share of the spec DRAM peak; vertical lines are "
        "the DRAM ceilings."),
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


def _size_heading(n):
    return "%s elements (n = %d)" % (size_label(n), n)


# sections

def summary_section(run, ctx, judged):
    blocks = [doc.Heading(2, "Summary")]
    items = ["GPU: %s; run `%s` (%s)." % (
        run.device.get("name", "unknown"), run.run_id,
        run.manifest.get("status", "status unknown"))]
    all_sizes = sel.sizes(run)
    items.append("%d points: %d variants at %s; cache states: %s." % (
        len(run.points), len({p.variant for p in run.points}),
        ", ".join(size_label(n) for n in all_sizes) or "no sizes",
        ", ".join(sorted({p.cache for p in run.points})) or "none"))
    if all_sizes:
        top = [p for p in ctx.points if p.n == all_sizes[-1]]
        cache = sel.preferred_cache(top)
        top = [p for p in top if p.cache == cache]
        if top:
            best = max(top, key=lambda p: p.bandwidth)
            worst = min(top, key=lambda p: p.bandwidth)
            ceiling = model.run_dram_ceiling(run, best.op)
            items.append("At %s (%s) the fastest variant is %s at %s "
                         "(%s of the DRAM ceiling, %s), the slowest %s at "
                         "%s." % (
                             size_label(all_sizes[-1]), cache, best.variant,
                             gbps(best.bandwidth),
                             pct(model.pct_of(best.bandwidth, ceiling)),
                             ceiling.source if ceiling else "no ceiling",
                             worst.variant, gbps(worst.bandwidth)))
    counts = Counter(v.name for v in ctx.verdicts.values())
    items.append("Bottleneck verdicts: %s." % ", ".join(
        "%s %d" % (name, counts[name]) for name in model.VERDICTS
        if counts[name]))
    items.append("Findings: %s." % "; ".join(
        "%d %s" % (f.number, f.verdict) for f in judged))
    failed = [p for p in run.points if p.check == "fail"]
    if failed:
        items.append("**%d points FAILED the correctness check** and are "
                     "left out of the findings: %s." % (
                         len(failed), ", ".join(sorted({p.variant
                                                        for p in failed}))))
    blocks.append(doc.Bullets(tuple(items)))
    return blocks


def environment_section(run):
    m = run.manifest
    dev = run.device
    rows = [
        ("GPU", dev.get("name")),
        ("compute capability", dev.get("compute_capability")),
        ("SMs", dev.get("sm_count")),
        ("L2", bytes_label(dev.get("l2_bytes"))),
        ("memory", bytes_label(dev.get("memory_bytes"))),
        ("DRAM bus, clock", "%s bit, %s kHz" % (
            _text(dev.get("bus_width_bits")),
            _text(dev.get("memory_clock_khz")))),
        ("DRAM spec bandwidth", gbps(dev.get("dram_bandwidth_bytes_per_s"))),
        ("SM clock (max)", "%s kHz" % _text(dev.get("sm_clock_khz"))),
        ("threads / blocks per SM", "%s / %s" % (
            _text(dev.get("max_threads_per_sm")),
            _text(dev.get("max_blocks_per_sm")))),
        ("driver / runtime / CUPTI", "%s / %s / %s" % (
            _text(_get(m, "versions", "driver")),
            _text(_get(m, "versions", "runtime")),
            _text(_get(m, "versions", "cupti_api")))),
        ("ewbench", "%s (git %s)" % (_text(_get(m, "tool", "version")),
                                     _text(_get(m, "tool", "git_revision")))),
        ("CUDA build", "%s; arch %s; nvcc %s" % (
            _text(_get(m, "tool", "cuda_build_version")),
            _text(_get(m, "tool", "cuda_arch")),
            _text(_get(m, "tool", "nvcc_flags")))),
        ("host", "%s; %s; %s" % (_text(_get(m, "host", "hostname")),
                                 _text(_get(m, "host", "os")),
                                 _text(_get(m, "host", "cpu")))),
        ("started / finished (UTC)", "%s / %s" % (
            _text(m.get("started_utc")), _text(m.get("finished_utc")))),
        ("status", m.get("status")),
        ("command", " ".join(shlex.quote(str(a)) for a in m.get("argv", []))
         or None),
    ]
    return [doc.Heading(2, "Environment"),
            doc.Table(("item", "value"),
                      tuple((k, _text(v)) for k, v in rows))]


def _ceiling_rows(run):
    rows = []
    for c in (run.ceilings or {}).values():
        value = gbps(c.value) if c.unit == "byte/s" else (
            "%s µs" % us(c.value) if c.unit == "ns" else
            "%.1f TFLOP/s" % (c.value / 1e12))
        spec = "" if c.spec_value is None else (
            gbps(c.spec_value) if c.unit == "byte/s" else
            "%.1f TFLOP/s" % (c.spec_value / 1e12) if c.unit == "flop/s"
            else "%s µs" % us(c.spec_value))
        rows.append((c.name, value, spec or "n/a", c.method or ""))
    return tuple(rows)


def method_section(run):
    m = run.manifest
    settings = m.get("settings") or {}
    counters = m.get("counters") or {}
    blocks = [doc.Heading(2, "Method")]
    blocks.append(doc.Bullets((
        "**Timing**: %s; %s untimed warm-up launches, then %s timed "
        "launches per point; the tables give the median (and min-max) of "
        "the per-launch times." % (
            _text(settings.get("timer")), _text(settings.get("warmup")),
            _text(settings.get("iters"))),
        "**Cache states**: `warm` = back-to-back launches on the same "
        "buffers, so whatever fits in L2 stays there (the write-ups' method); "
        "`cold` = L2 flushed before each timed launch by reading a %s "
        "buffer (reading leaves L2 full of clean lines, so the kernel pays "
        "no write-backs of earlier work). `stream` launches come from the "
        "host one by one (the launch path is in the time); `graph` "
        "launches replay the timed launches from a CUDA graph." %
        bytes_label(settings.get("flush_bytes")),
        "**Counters**: %s (status %s%s); metric set %s, %s passes, %s "
        "replay, chip %s. Counters come from a separate pass: times from "
        "that pass are never used. A warm counter point profiles the second "
        "of two back-to-back launches in one profiling session; a cold one "
        "follows an L2 flush." % (
            "enabled" if counters.get("enabled") else "disabled",
            _text(counters.get("status")),
            ": " + counters["reason"] if counters.get("reason") else "",
            _text(counters.get("metric_set")), _text(counters.get("passes")),
            _text(counters.get("replay")), _text(counters.get("chip"))),
        "**Bytes and bandwidth**: bytes moved = n x (bytes read + bytes "
        "written per element), the algorithmic traffic (add: 3 arrays, relu: "
        "2, abs in place: read + write of 1). Bandwidth = bytes moved / "
        "median time, in GB/s = 1e9 byte/s. The footprint (distinct bytes "
        "touched) is the x axis of the cache-tier plot.",
        "**Ceilings**: DRAM = measured `dram_add` (add) or `dram_copy` "
        "(relu, abs) from ceilings.csv when present, else the theoretical "
        "peak in run.json (%s). Each table says which it used." %
        gbps(run.spec_dram_bandwidth),
        "**Launch floor**: measured `launch_stream` when present, else the "
        "median, over the series of the same cache state, of t0 fitted to "
        "t = t0 + V/B per (variant, block, cache): least squares on "
        "relative residuals, with a second slope for warm points whose "
        "footprint fits in L2.",
        "**Primary block**: a variant timed at several block sizes is "
        "compared with others at the block it was timed with at the most "
        "sizes; the other blocks appear under Results as a sweep.",
    )))
    torch_rows = [p for p in run.points if p.variant.startswith("torch_")]
    if torch_rows:
        side = read_sidecar(run.path) or {}
        blocks.append(doc.Paragraph(
            "PyTorch rows (`torch_*`, %d points) were added by `python3 -m "
            "analysis torch`: PyTorch %s, CUDA %s, on %s; CUDA events around "
            "each launch, same warm-up and iterations as the run." % (
                len(torch_rows), _text(side.get("torch")),
                _text(side.get("cuda")), _text(side.get("device")))))
    rows = _ceiling_rows(run)
    if rows:
        where = "ceilings.csv"
        if run.ceilings_path:
            # Relative to the run directory: no machine's paths in reports.
            where = os.path.relpath(run.ceilings_path, run.path)
        blocks.append(doc.Paragraph("Measured ceilings (%s):" % where))
        blocks.append(doc.Table(("ceiling", "measured", "spec", "method"),
                                rows))
    else:
        blocks.append(doc.Paragraph("No ceilings.csv: every percentage is "
                                    "of the spec peak."))
    return blocks


def _point_row(run, p):
    ceiling = model.run_dram_ceiling(run, p.op)
    measured = model.pct_of(p.bandwidth, ceiling) \
        if ceiling is not None and ceiling.measured else None
    spread = "%s-%s" % (us(p.time_min_ns), us(p.time_max_ns)) \
        if p.time_min_ns is not None and p.time_max_ns is not None else "n/a"
    spec = p.spec_dram_pct if p.spec_dram_pct is not None else \
        model.pct_of(p.bandwidth, model.spec_dram(run.spec_dram_bandwidth))
    return (p.variant, "%s %s" % (p.op, p.dtype), _text(p.block), p.cache,
            us(p.time_median_ns), spread, gbps_number(p.bandwidth),
            pct(measured), pct(spec), p.check or "n/a")


POINT_HEADER = ("variant", "op", "block", "cache", "median (µs)",
                "min-max (µs)", "GB/s", "% measured DRAM ceiling",
                "% spec DRAM peak", "check")


def results_section(run, ctx):
    blocks = [doc.Heading(2, "Results per size")]
    primary = sel.primary_points(run)
    keys = {p.key for p in primary}
    shown = sel.representative_sizes(run)
    if len(shown) < len(sel.sizes(run)):
        blocks.append(doc.Paragraph(
            "%d of the run's %d sizes, spread over its range; timing.csv "
            "holds every point and the cache-tier plot draws them all."
            % (len(shown), len(sel.sizes(run)))))
    for n in shown:
        rows = sorted(sel.select(primary, n=n),
                      key=lambda p: (p.op, p.dtype, p.variant, p.cache))
        if not rows:
            continue
        blocks.append(doc.Heading(3, _size_heading(n)))
        blocks.append(doc.Table(POINT_HEADER,
                                tuple(_point_row(run, p) for p in rows)))
    sweep = sorted((p for p in run.points if p.key not in keys),
                   key=lambda p: (p.variant, p.n, p.cache, p.block or 0))
    if sweep:
        blocks.append(doc.Heading(3, "Block-size sweeps (other blocks)"))
        blocks.append(doc.Table(("n",) + POINT_HEADER, tuple(
            (size_label(p.n),) + _point_row(run, p) for p in sweep)))
    blocks.append(doc.Heading(3, "Launch-floor fit, t = t0 + V/B"))
    rows = []
    for (variant, block, cache), f in sorted(
            ctx.fits.items(), key=lambda kv: (kv[0][0], kv[0][2],
                                              kv[0][1] or 0)):
        rows.append((variant, _text(block), cache, us(f.t0_ns),
                     gbps(f.bandwidth), gbps(f.l2_bandwidth), str(f.points),
                     "%.1f %%" % (100 * f.max_rel_residual),
                     "yes" if f.usable else "no"))
    if rows:
        blocks.append(doc.Table(("variant", "block", "cache", "t0 (µs)",
                                 "B (DRAM level)", "B (L2 level)", "points",
                                 "max residual", "usable as floor"),
                                tuple(rows)))
    else:
        blocks.append(doc.Paragraph("No series has two sizes; nothing to "
                                    "fit."))
    return blocks


def plots_section(figures):
    blocks = [doc.Heading(2, "Plots")]
    for name, (title, caption) in FIGURE_TEXT.items():
        if name not in figures:
            continue
        blocks.append(doc.Heading(3, title))
        blocks.append(doc.Image("%s/%s.png" % (FIGURES_DIR, name), title,
                                caption))
    return blocks


def verdicts_section(run, ctx):
    blocks = [doc.Heading(2, "Bottleneck verdicts")]
    blocks.append(doc.Paragraph(
        "Rules, first match wins: launch-bound (time <= %.1f x launch "
        "floor; < %s µs when no floor is known), L2-bound (footprint < L2 "
        "and bandwidth > DRAM ceiling, or DRAM bytes < %.0f %% of bytes "
        "moved), DRAM-bound (>= %.0f %% of the DRAM ceiling), "
        "occupancy-bound (occupancy < %.0f %%), issue-bound (< %.0f bytes "
        "moved per issued warp instruction), else latency/unknown. "
        "docs/analysis.md explains each." % (
            model.LAUNCH_FACTOR, us(model.LAUNCH_ABS_NS),
            100 * model.L2_DRAM_FRACTION, 100 * model.DRAM_FRACTION,
            model.OCCUPANCY_PCT, model.ISSUE_BYTES_PER_INST)))
    primary = sel.primary_points(run)
    all_sizes = sel.representative_sizes(run)
    for cache in ("warm", "cold"):
        rows = [p for p in primary if p.cache == cache]
        if not rows:
            continue
        grid = {(p.variant, p.n): ctx.verdicts[p.key].name for p in rows}
        blocks.append(doc.Heading(3, "Overview, %s" % cache))
        blocks.append(doc.Table(
            ("variant",) + tuple(size_label(n) for n in all_sizes),
            tuple((v,) + tuple(grid.get((v, n), "") for n in all_sizes)
                  for v in sorted({p.variant for p in rows}))))
    blocks.append(doc.Heading(3, "Rule that fired, per point"))
    rows = sorted((p for p in run.points if p.n in all_sizes),
                  key=lambda p: (p.variant, p.n, p.cache, p.block or 0))
    blocks.append(doc.Table(("variant", "n", "block", "cache", "verdict",
                             "rule"), tuple(
        (p.variant, size_label(p.n), _text(p.block), p.cache,
         ctx.verdicts[p.key].name, ctx.verdicts[p.key].rule) for p in rows)))
    return blocks


def findings_section(judged):
    blocks = [doc.Heading(2, "Findings")]
    for f in judged:
        blocks.append(doc.Heading(3, "Finding %d" % f.number))
        blocks.append(doc.Paragraph("Claim: %s" % f.claim))
        blocks.append(doc.Paragraph("**Verdict: %s**" % f.verdict))
        if f.numbers:
            blocks.append(doc.Table(("quantity", "value"), f.numbers))
        blocks.append(doc.Paragraph(f.explanation))
    return blocks


def warm_slower_than_cold(run, factor=1.2):
    """'variant@size' where the warm median exceeds factor x the cold one."""
    cold = {(p.variant, p.n, p.block): p for p in run.points
            if p.cache == "cold"}
    out = []
    for p in run.points:
        c = cold.get((p.variant, p.n, p.block))
        if p.cache == "warm" and c is not None and \
                p.time_median_ns > factor * c.time_median_ns:
            out.append("%s@%s" % (p.variant, size_label(p.n)))
    return out


def threats_section(run):
    m = run.manifest
    items = []
    if run.is_fixture:
        items.append("**This run is a fixture: its numbers are synthetic, "
                     "not measurements.**")
    if m.get("status") not in (None, "complete"):
        items.append("**The run is `%s`**: some points may be missing." %
                     m.get("status"))
    failed = [p for p in run.points if p.check == "fail"]
    if failed:
        items.append("%d points failed the correctness check; their times "
                     "describe a wrong kernel." % len(failed))
    counters = m.get("counters") or {}
    if run.metrics is None:
        items.append("No counters (%s): occupancy, instruction and DRAM-byte "
                     "evidence is missing, and verdicts rely on time and "
                     "bandwidth alone." % (counters.get("reason") or
                                           "metrics.csv absent"))
    else:
        items.append("Counters come from a replayed pass (%s passes): the "
                     "replay may re-warm L2 and dirty lines from earlier work "
                     "are written back during a kernel, so DRAM write bytes "
                     "can be off by tens of percent; read bytes are "
                     "reliable." % _text(counters.get("passes")))
    if not run.ceilings:
        items.append("No measured ceilings: percentages are of the spec "
                     "peak, which no kernel reaches; expect 85-93 % at best.")
    noisy = [p for p in run.points if p.time_stddev_ns is not None and
             p.time_median_ns > 0 and
             p.time_stddev_ns / p.time_median_ns > NOISY_CV]
    if noisy:
        items.append("%d %s a standard deviation above %.0f %% of the "
                     "median (mostly small sizes, where one launch takes "
                     "microseconds)." % (
                         len(noisy), "point has" if len(noisy) == 1
                         else "points have", 100 * NOISY_CV))
    inverted = warm_slower_than_cold(run)
    if inverted:
        items.append("**Warm slower than cold** at %s: a warm launch should "
                     "never lose to a flushed one, so the timer probably saw "
                     "the GPU idle, waiting for the host to issue the launch "
                     "(per-launch events then time host dispatch)." %
                     ", ".join(inverted[:8]))
    items += [
        "Clocks were not locked: boost and thermal state can move "
        "bandwidths by a few percent between runs; one run shows no "
        "run-to-run variation.",
        "Per-launch CUDA-event times include the launch overhead; that is "
        "intended (finding 1) but means small-size times are not kernel "
        "durations.",
        "Warm points at sizes that fit in L2 measure L2, not DRAM; cold "
        "points flush L2 before every launch, which also hides part of the "
        "launch gap.",
        "Nsight Compute defaults (cache control all, clock control base) "
        "differ from these conditions; to compare, run ncu with "
        "`--cache-control none --clock-control none`.",
    ]
    return [doc.Heading(2, "Threats to validity"), doc.Bullets(tuple(items))]


def reproduce_section(run, outdir_hint):
    argv = run.manifest.get("argv") or ["ewbench", "run"]
    command = " ".join(shlex.quote(str(a)) for a in argv)
    lines = [
        "# measure (on the GPU machine)",
        command,
        "# add the PyTorch reference rows (optional, needs torch and a GPU)",
        "python3 -m analysis torch RUN_DIR",
        "# this report",
        "python3 -m analysis report RUN_DIR%s -o %s" % (
            " --ceilings CEILINGS_DIR" if run.ceilings_path else "",
            outdir_hint),
        "# compare with another run",
        "python3 -m analysis compare RUN_A RUN_B",
    ]
    git = _get(run.manifest, "tool", "git_revision")
    return [doc.Heading(2, "Reproduce"),
            doc.Paragraph("ewbench git revision `%s`; run directory `%s`." % (
                _text(git), os.path.basename(os.path.normpath(run.path)))),
            doc.Code("\n".join(lines))]


# whole document

def build_document(run, ctx, judged, figures, outdir_hint="OUTDIR"):
    title = "ewbench report: %s" % run.device.get("name", "unknown GPU")
    blocks = [doc.Heading(1, title)]
    if run.is_fixture:
        blocks.append(doc.Banner("FIXTURE DATA: synthetic numbers for tests, "
                                 "not a measurement."))
    if run.manifest.get("status") not in (None, "complete"):
        blocks.append(doc.Banner("Run status: %s." %
                                 run.manifest.get("status")))
    blocks += summary_section(run, ctx, judged)
    blocks += environment_section(run)
    blocks += method_section(run)
    blocks += results_section(run, ctx)
    blocks += plots_section(figures)
    blocks += verdicts_section(run, ctx)
    blocks += findings_section(judged)
    blocks += threats_section(run)
    blocks += reproduce_section(run, outdir_hint)
    return title, blocks


def write_report(run, outdir, plot_all):
    """Draw the figures (plot_all(run, dir, fits) -> {name: paths}), judge
    the findings, and write report.md and report.html into outdir."""
    ctx = fnd.make_context(run)
    judged = fnd.evaluate(run, ctx)
    figures = plot_all(run, os.path.join(outdir, FIGURES_DIR), ctx.fits)
    # The output directory as the reader would name it: RUN_DIR/report when
    # it sits in the run directory, else its last component.
    hint = os.path.relpath(outdir, run.path)
    hint = ("RUN_DIR/" + hint) if not hint.startswith("..") else \
        os.path.basename(os.path.normpath(outdir))
    title, blocks = build_document(run, ctx, judged, figures, hint)
    md_path = os.path.join(outdir, "report.md")
    html_path = os.path.join(outdir, "report.html")
    with open(md_path, "w", encoding="utf-8") as f:
        f.write(doc.render_markdown(blocks))
    with open(html_path, "w", encoding="utf-8") as f:
        f.write(doc.render_html(blocks, title, outdir))
    return md_path, html_path, judged

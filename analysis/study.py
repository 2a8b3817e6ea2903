"""A study directory, as `make report` writes it, in one report that
answers first.

A study directory holds one run directory per part (docs/analysis.md):
ceilings/ (ewbench ceilings), article/ (every variant at the study's sizes,
warm and cold, counters, torch rows), sweep/ (working sets from far below
to past the L2, graph launches, residency counters) and blocks/ (a block
sweep at the tier sizes).  The first screen of the report says what a
reader came for: the GPU and its measured ceilings, the six findings with
their verdicts and deciding numbers, ewbench's best kernel against cub and
PyTorch, and which of the study's variants fall short and why.  Each part
keeps its own detailed report, linked from here.
"""

import os
from dataclasses import dataclass, replace

from . import document as doc
from . import findings as fnd
from . import load
from . import model
from . import plots
from . import select as sel
from .units import bytes_label, gbps, size_label, size_approx

PARTS = ("article", "sweep", "blocks")
CEILINGS = "ceilings"
FIGURES_DIR = "figures"

# Finding 2, judged relative to this GPU's L2: a working set that fits
# with room to spare, and one that cannot stay in it.
F2_FITS = 0.5               # footprint <= half the L2
F2_SPILLS = 4.0             # footprint >= 4x the L2
# The write-ups' GPU (study brief): RTX 5090, L2 "~128 MB" per the article.
ARTICLE_L2 = 128 * 10 ** 6
ARTICLE_MID = 1 << 24
# A study variant "falls short" below this share of its best sibling.
SHORT_OF_BEST = 0.90
# The study's own variants (docs/study.md), the ones a shortfall is about.
STUDY_VARIANTS = frozenset((
    "add_f32", "add_f32x4", "add_f32x4_grid", "add_f16", "add_f16x2",
    "add_f16x8", "add_f16x8_pack", "relu_f32", "relu_f32x4", "abs_f32",
    "abs_f32_unroll", "abs_f32_grid", "abs_f32x4", "abs_f32_functor"))


@dataclass(frozen=True)
class Study:
    path: str
    runs: dict              # part name -> load.Run
    ceilings_dir: str       # or None


def is_study(directory):
    """A study directory: an article/ run directory inside."""
    return os.path.isfile(os.path.join(directory, "article", "run.json"))


def load_study(directory):
    ceilings = os.path.join(directory, CEILINGS)
    if not os.path.isfile(os.path.join(ceilings, "ceilings.csv")):
        ceilings = None
    runs = {}
    for part in PARTS:
        d = os.path.join(directory, part)
        if os.path.isfile(os.path.join(d, "run.json")):
            runs[part] = load.load_run(d, ceilings_from=ceilings)
    if "article" not in runs:
        raise load.DataError(os.path.join(directory, "article"), None,
                             "a study directory needs article/run.json")
    return Study(directory, runs, ceilings)


def _is_peer(p):
    return p.variant.startswith("cub_") or p.variant.startswith("torch_")


# finding 2, L2-relative

def finding_2(sweep):
    """Judge finding 2 on the sweep: at the largest working set that fits
    in half of this GPU's L2, and the smallest that is 4x the L2."""
    if sweep is None:
        return None
    l2 = sweep.l2_bytes
    pts = [p for p in sweep.points if p.op == "add" and p.cache == "warm"
           and p.check != "fail"]
    ceiling = model.run_dram_ceiling(sweep, "add")
    if not l2 or not pts or ceiling is None:
        return None
    numbers, fit_ratios = [], []
    failures, told = [], []
    for dtype in sorted({p.dtype for p in pts}):
        rows = [p for p in pts if p.dtype == dtype]
        fits = [p for p in rows if p.footprint_bytes <= F2_FITS * l2]
        spills = [p for p in rows if p.footprint_bytes >= F2_SPILLS * l2]
        if not fits or not spills:
            continue
        n_fit = max(p.n for p in fits)
        n_spill = min(p.n for p in spills)
        best_fit = max((p for p in fits if p.n == n_fit),
                       key=lambda p: p.bandwidth)
        best_spill = max((p for p in spills if p.n == n_spill),
                         key=lambda p: p.bandwidth)
        served = sel.l2_read_served(sweep, best_fit)
        numbers.append((
            "%s fits" % dtype,
            "%s elements (%s, %.0f%% of L2): best %s %s = %.2fx DRAM%s" % (
                size_approx(n_fit), bytes_label(best_fit.footprint_bytes),
                100 * best_fit.footprint_bytes / l2, best_fit.variant,
                gbps(best_fit.bandwidth), best_fit.bandwidth / ceiling.value,
                "; %.0f%% of reads served by L2" % served
                if served is not None else "")))
        numbers.append((
            "%s spills" % dtype,
            "%s elements (%s, %.1fx L2): best %s %s = %.2fx DRAM" % (
                size_approx(n_spill), bytes_label(best_spill.footprint_bytes),
                best_spill.footprint_bytes / l2, best_spill.variant,
                gbps(best_spill.bandwidth),
                best_spill.bandwidth / ceiling.value)))
        told.append(dtype)
        fit_ratios.append((dtype, best_fit.bandwidth / ceiling.value))
        if best_fit.bandwidth <= ceiling.value:
            failures.append("%s fits in L2 at %s yet runs at %s, not above "
                            "the DRAM ceiling" % (dtype, size_approx(n_fit),
                                                  gbps(best_fit.bandwidth)))
        if best_spill.bandwidth > fnd.F2_DRAM_CAP * ceiling.value:
            failures.append("%s is 4x the L2 at %s yet reaches %s, above "
                            "%.1fx the DRAM ceiling" % (
                                dtype, size_approx(n_spill),
                                gbps(best_spill.bandwidth), fnd.F2_DRAM_CAP))
    if not told:
        return None
    numbers += [("L2", bytes_label(l2)),
                ("DRAM ceiling (add)", "%s (%s)" % (gbps(ceiling.value),
                                                    ceiling.source))]
    article = ("The article's mid size, %s elements, is a %s (fp16) or %s "
               "(fp32) working set: on its RTX 5090 (L2 ~128 MB) fp16 fit "
               "and fp32 did not; on this GPU (L2 %s) %s, so the claim is "
               "judged here at sizes relative to this L2." % (
                   size_label(ARTICLE_MID), bytes_label(ARTICLE_MID * 6),
                   bytes_label(ARTICLE_MID * 12), bytes_label(l2),
                   "fp16 fits too" if ARTICLE_MID * 6 <= l2 else
                   "neither fits"))
    if failures:
        return fnd._finding(2, fnd.FAILS, numbers,
                            "; ".join(failures) + ". " + article)
    return fnd._finding(2, fnd.HOLDS, numbers,
                        "A working set in half the L2 runs above DRAM speed "
                        "(%s) and one 4x the L2 falls back to it, for %s. %s"
                        % (", ".join("%s %.2fx" % (label.split()[0], x)
                                     for label, x in fit_ratios),
                           fnd._and(told), article))


def judge(study):
    """The six findings: from article/, except finding 2 (sweep/, sized
    relative to this L2) and finding 5 (blocks/, a block sweep), where
    those parts exist and can decide them.  Also says where each came
    from."""
    article = study.runs["article"]
    judged = fnd.evaluate(article)
    source = {f.number: "article" for f in judged}
    f2 = finding_2(study.runs.get("sweep"))
    if f2 is not None:
        judged[1], source[2] = f2, "sweep"
    blocks = study.runs.get("blocks")
    if blocks is not None:
        f5 = fnd.finding_5(fnd.make_context(blocks))
        if f5.verdict != fnd.UNTESTABLE or \
                judged[4].verdict == fnd.UNTESTABLE:
            judged[4], source[5] = f5, "blocks"
    return judged, source


# the first screen

def _largest_warm(run, **where):
    pts = [p for p in sel.primary_points(run) if p.check != "fail"]
    pts = sel.select(pts, **where)
    if not pts:
        return [], None
    n = max(p.n for p in pts)
    at_n = sel.select(pts, n=n)
    cache = sel.preferred_cache(at_n)
    return sel.select(at_n, cache=cache), n


def _spread(p):
    """Relative spread of a point's samples, or None."""
    if p.time_stddev_ns is None or not p.time_median_ns:
        return None
    return p.time_stddev_ns / p.time_median_ns


def leaders(run):
    """Per dtype at the largest size: ewbench's fastest add, cub and torch,
    as table rows."""
    rows = []
    spec = run.spec_dram_bandwidth
    for dtype in ("f32", "f16"):
        pts, n = _largest_warm(run, op="add", dtype=dtype)
        if not pts:
            continue
        own = [p for p in pts if not _is_peer(p)]
        if not own:
            continue
        best = max(own, key=lambda p: p.bandwidth)
        peers = [p for p in pts if _is_peer(p)]
        entries = [best] + sorted(peers, key=lambda p: p.variant)
        for p in entries:
            margin = best.bandwidth / p.bandwidth if p is not best else None
            noise = max(filter(None, (_spread(best), _spread(p))),
                        default=None)
            rows.append([
                dtype, size_label(n), "**%s**" % p.variant if p is best
                else p.variant,
                "%.0f" % (p.bandwidth / 1e9),
                "%.1f %%" % (100 * p.bandwidth / spec) if spec else "n/a",
                "" if margin is None else "%.3fx%s" % (
                    margin, "" if noise is None else
                    (" (beyond the %.1f %% noise)" % (100 * noise)
                     if abs(margin - 1) > noise else
                     " (within the %.1f %% noise)" % (100 * noise)))])
    return rows


def shortfalls(run):
    """The study's variants below SHORT_OF_BEST of the best variant of the
    same op and dtype at the largest size, with the counters' evidence."""
    rows = []
    ctx = fnd.make_context(run)
    for op in ("add", "relu", "abs"):
        for dtype in ("f32", "f16"):
            pts, n = _largest_warm(run, op=op, dtype=dtype)
            pts = [p for p in pts if not _is_peer(p)]
            if not pts:
                continue
            best = max(pts, key=lambda p: p.bandwidth)
            for p in sorted(pts, key=lambda p: p.bandwidth):
                if p.bandwidth >= SHORT_OF_BEST * best.bandwidth or \
                        p.variant not in STUDY_VARIANTS:
                    continue
                story = fnd._counter_story(ctx, p) or "no counters"
                rows.append([p.variant, size_label(n), p.cache,
                             "%.0f" % (p.bandwidth / 1e9),
                             "%.0f %%" % (100 * p.bandwidth / best.bandwidth),
                             best.variant, story])
    return rows


def _ceilings_rows(run):
    """Bandwidth ceilings in GB/s and % of the spec; launch costs in µs."""
    rows = []
    spec = run.spec_dram_bandwidth
    for c in (run.ceilings or {}).values():
        if c.unit == "byte/s":
            rows.append([c.name, "%.0f GB/s" % (c.value / 1e9),
                         "%.1f %%" % (100 * c.value / spec)
                         if spec and c.name.startswith("dram") else ""])
        elif c.unit == "ns":
            rows.append([c.name, "%.2f µs" % (c.value / 1e3), ""])
    return rows


def step_highlight(study):
    """The series the L2-step figure draws in colour, per dtype: ewbench's
    fastest add at the largest size, the study's widest add, and cub."""
    names = []
    for dtype, widest in (("f32", "add_f32x4"), ("f16", "add_f16x8_pack")):
        pts, _ = _largest_warm(study.runs["article"], op="add", dtype=dtype)
        own = [p for p in pts if not _is_peer(p)]
        if own:
            names.append(max(own, key=lambda p: p.bandwidth).variant)
        names += [widest, "cub_add_" + dtype]
    return list(dict.fromkeys(names))


def _ceilings_line(run):
    """The ceilings a reader compares kernels with, in one line."""
    c, spec = run.ceilings or {}, run.spec_dram_bandwidth
    parts = []
    for name, label in (("dram_read", "DRAM read"), ("dram_add", "DRAM add "
                         "(2 reads : 1 write)"), ("l2_read", "L2 read")):
        if name in c:
            parts.append("%s %s%s" % (label, gbps(c[name].value),
                                      " (%.1f %% of spec)" % (
                                          100 * c[name].value / spec)
                                      if spec and name != "l2_read" else ""))
    if "launch_stream" in c:
        parts.append("launch %.2f µs" % (c["launch_stream"].value / 1e3))
    return ", ".join(parts)


def _verdict_cell(verdict):
    return "**%s**" % verdict if verdict != fnd.UNTESTABLE else verdict


def _deciding(f):
    """Why the verdict: the explanation's first sentence (its numbers are
    the deciding ones), cut at a clause if long."""
    first = f.explanation.split(". ", 1)[0].rstrip(".")
    if len(first) > 240 and first.rfind(";", 0, 240) > 0:
        return first[:first.rfind(";", 0, 240)] + "; ..."
    return first + "."


SECTIONS = ("Findings", "Best kernel against cub and PyTorch",
            "Study variants that fall short", "Measured ceilings",
            "L2 to DRAM", "Findings in detail", "Parts of this study")


def build(study, judged, source, figures, outdir):
    article = study.runs["article"]
    dev = article.device
    title = "ewbench study: %s" % dev.get("name", "unknown GPU")
    spec = article.spec_dram_bandwidth
    blocks = [doc.Heading(1, title)]
    if article.is_fixture:
        blocks.append(doc.Banner("FIXTURE DATA: synthetic numbers for tests, "
                                 "not a measurement."))
    blocks.append(doc.Paragraph(
        "%s: %s SMs, L2 %s, DRAM %s theoretical. Measured by `make report` "
        "(%s); every number below comes from the run directories of this "
        "study." % (dev.get("name", "?"), dev.get("sm_count", "?"),
                    bytes_label(article.l2_bytes), gbps(spec),
                    ", ".join(sorted(study.runs)))))
    measured = _ceilings_line(article)
    if measured:
        blocks.append(doc.Paragraph("**Measured ceilings:** " + measured +
                                    "."))
    blocks.append(doc.Heading(2, SECTIONS[0]))
    blocks.append(doc.Table(
        ["#", "claim", "verdict", "why", "from"],
        [[str(f.number), f.claim, _verdict_cell(f.verdict), _deciding(f),
          source[f.number]] for f in judged]))
    blocks.append(doc.Heading(2, SECTIONS[1]))
    lead = leaders(article)
    if lead:
        blocks.append(doc.Table(
            ["dtype", "n", "kernel", "GB/s", "of spec", "best ewbench / it"],
            lead))
    else:
        blocks.append(doc.Paragraph("No add points at the largest size."))
    blocks.append(doc.Heading(2, SECTIONS[2]))
    short = shortfalls(article)
    if short:
        blocks.append(doc.Table(
            ["variant", "n", "L2", "GB/s", "of the best", "best",
             "counters"], short))
    else:
        blocks.append(doc.Paragraph(
            "Every study variant is within %.0f %% of the best of its op "
            "and dtype at the largest size." % (100 * (1 - SHORT_OF_BEST))))
    blocks.append(doc.Paragraph("Contents: " + " · ".join(
        "[%s](#%s)" % (s, doc.anchor(s)) for s in SECTIONS[3:])))
    blocks.append(doc.Heading(2, SECTIONS[3]))
    rows = _ceilings_rows(article)
    blocks.append(doc.Table(["ceiling", "measured", "of spec"], rows) if rows
                  else doc.Paragraph("No ceilings/ in this study."))
    blocks.append(doc.Heading(2, SECTIONS[4]))
    if figures:
        blocks.append(doc.Image(
            os.path.relpath(figures[0], outdir), "bandwidth against working set",
            "The sweep's add kernels, one panel per dtype: bandwidth "
            "against working set (log). In colour, ewbench's fastest add, "
            "the study's widest and cub (warm solid, cold dashed); other "
            "add variants in grey (warm); dotted line: L2 capacity; grey "
            "line: the measured DRAM add ceiling; dotted grey on the right "
            "axis, where counters tell: the share of reads served by L2 "
            "for the first coloured variant."))
    else:
        blocks.append(doc.Paragraph("No sweep/ in this study."))
    blocks.append(doc.Heading(2, SECTIONS[5]))
    for f in judged:
        blocks.append(doc.Heading(3, "Finding %d: %s" % (f.number,
                                                        f.verdict)))
        blocks.append(doc.Paragraph("*Claim:* %s" % f.claim))
        if f.numbers:
            blocks.append(doc.Table(["", "measured"],
                                    [list(kv) for kv in f.numbers]))
        blocks.append(doc.Paragraph(f.explanation))
    blocks.append(doc.Heading(2, SECTIONS[6]))
    blocks.append(doc.Bullets([
        "[%s](%s/report/report.html): `%s`" % (
            part, part, " ".join(study.runs[part].manifest.get("argv", [])))
        for part in PARTS if part in study.runs]))
    return title, blocks


def _render_part(run):
    from . import report
    html = report.write_report(run, os.path.join(run.path, "report"),
                               plots.plot_all)[1]
    return html


def render_parts(study):
    """Each part's own report, in RUN_DIR/report, the parts drawn in
    parallel processes (matplotlib is the slow part).  Returns the HTML
    paths."""
    from concurrent.futures import ProcessPoolExecutor
    runs = [study.runs[p] for p in PARTS if p in study.runs]
    workers = min(len(runs), os.cpu_count() or 1)
    if workers <= 1:
        return [_render_part(r) for r in runs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_render_part, runs))


def write_study_report(study, outdir):
    """report.md and report.html of a study (figures in outdir/figures),
    written whole or not at all."""
    judged, source = judge(study)
    os.makedirs(outdir, exist_ok=True)
    figures = []
    sweep = study.runs.get("sweep")
    if sweep is not None:
        figures = plots.plot_l2_step(sweep, os.path.join(
            outdir, FIGURES_DIR), step_highlight(study))
    title, blocks = build(study, judged, source, figures, outdir)
    # Links to the parts, relative to outdir.
    rel = os.path.relpath(study.path, outdir)
    blocks[-1] = replace(blocks[-1], items=[
        i.replace("](", "](%s/" % rel, 1) for i in blocks[-1].items])
    md_path = os.path.join(outdir, "report.md")
    html_path = os.path.join(outdir, "report.html")
    _write_atomic(md_path, doc.render_markdown(blocks))
    _write_atomic(html_path, doc.render_html(blocks, title, outdir))
    return md_path, html_path, judged


def _write_atomic(path, text):
    temp = path + ".tmp"
    with open(temp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(temp, path)

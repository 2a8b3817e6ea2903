"""Users' own kernels (`ewbench run --kernel FILE.cu`) beside the study.

Each point of a user's kernel (variant `user:<function>`) is set beside the
points of the same run that compute the same thing (op and dtype) at the
same size and cache state (a user's own op, op "custom", checked against
its reference kernel: those that move as many bytes per element, whatever
they compute), and beside the run's DRAM ceiling: the fastest of the study's variants, ewbench's
fastest (study or addition), cub and PyTorch.  The user's launch mode is
compared with the same mode; PyTorch rows are stream launches and are
compared there only (as answers.py does).  Beyond noise: compare.py's rule
on the per-launch scatter of both points.

section() renders the table (with run.json's record of each kernel's
source: file, function, SHA-256), draw() the figure; report.py places both
after ewbench's fastest against cub and PyTorch.
"""

from dataclasses import dataclass
from typing import Optional

from ..core import ceilings_cache
from ..core import compare
from ..core import document as doc
from . import model
from ..core import variants as var
from ..core import sinks
from ..core.sinks import plot_text
from ..core.units import gbps, size_label

FIGURE = "user_kernels"
ANCHOR = "user-kernels"


@dataclass(frozen=True)
class Beside:
    part: str
    user: object                # load.Point of the user's kernel
    study: Optional[object]     # the fastest of the study's variants
    own: Optional[object]       # ewbench's fastest (study or addition)
    cub: Optional[object]
    torch: Optional[object]

    def others(self):
        """(label, point) of each present competitor, in table order."""
        return tuple((label, p) for label, p in (
            ("study's fastest", self.study), ("ewbench's fastest", self.own),
            ("cub", self.cub), ("PyTorch", self.torch)) if p is not None)


def _fastest(points):
    return max(points, key=lambda p: p.bandwidth) if points else None


def like(p, u):
    """Whether p computes what user point u does: the same op and dtype;
    for a user's own op (custom), another kernel that moves as many bytes
    per element."""
    if u.op != "custom":
        return p.op == u.op and p.dtype == u.dtype
    return p.variant != u.variant and p.op != "custom" and \
        p.bytes_moved * u.n == u.bytes_moved * p.n


def of_ceiling(run, point):
    """'71 % of measured dram_copy' for point's GB/s, or 'no ceiling'."""
    bound = model.run_dram_ceiling(run, point.op)
    if bound is None:
        return "no ceiling"
    return "%.0f %% of %s" % (100.0 * point.bandwidth / bound.value,
                              bound.source)


def beside(study):
    """[Beside] for every point of a user's kernel in the study's runs."""
    out = []
    for part, run in study.runs.items():
        for u in sorted((p for p in run.points
                         if var.role(p.variant) == var.USER),
                        key=lambda p: (p.variant, p.n, p.cache, p.launch)):
            same = [p for p in run.points if like(p, u) and
                    p.n == u.n and p.cache == u.cache and
                    p.check != "fail"]
            mode = [p for p in same if p.launch == u.launch]
            torch = [p for p in same if var.peer_name(p.variant) == "torch"
                     and (p.launch == u.launch or u.launch == "stream")]
            out.append(Beside(
                part, u,
                _fastest([p for p in mode
                          if var.role(p.variant) == var.STUDY]),
                _fastest([p for p in mode if var.is_own(p.variant)]),
                _fastest([p for p in mode
                          if var.peer_name(p.variant) == "cub"]),
                _fastest(torch)))
    return out


def _tolerance(ref):
    parts = []
    if ref.get("ulps"):
        parts.append("%s ulp" % ref["ulps"])
    if ref.get("rel"):
        parts.append("relative %g" % ref["rel"])
    if ref.get("atol") or ref.get("rtol"):
        parts.append("%g + %g × |expected|" % (ref.get("atol") or 0,
                                               ref.get("rtol") or 0))
    return "within " + " or ".join(parts) if parts else "exactly"


def verdict(user, other):
    """'faster', 'slower' or 'within noise': the user's kernel against
    other, by the noise rule."""
    flag = compare.compare_points(other, user).flag
    return {compare.FASTER: "faster", compare.SLOWER: "slower"}.get(
        flag, "within noise")


def _margin(user, other):
    return "%+.1f %% (%s)" % (100.0 * (user.bandwidth / other.bandwidth - 1),
                              verdict(user, other))


def sources(study):
    """run.json's user_kernels entries, one per variant id."""
    found = {}
    for run in study.runs.values():
        for entry in run.manifest.get("user_kernels") or ():
            if isinstance(entry, dict) and entry.get("variant"):
                found.setdefault(entry["variant"], entry)
    return found


def judged(sctx):
    """[(point, Verdict, Experiment or None)] of every point of a user's
    kernel at its published block, in its run's Context: the study's rules
    with the faults of model/faults.py, and where the run holds its
    kernel at 2x or 4x the block, that change predicted and scored
    (user_experiments.py)."""
    from . import experiments as ex
    from .user_experiments import user_experiments
    out = []
    for ctx in sctx.parts.values():
        tested = user_experiments(ctx)
        for p in sorted((p for p in ctx.points
                         if var.role(p.variant) == var.USER),
                        key=lambda p: (p.variant, p.n, p.cache, p.launch)):
            e = tested.get(p.key)
            out.append((p, ex.tested_verdict(e) if e else
                        ctx.verdicts[p.key], e))
    return out


def ceilings_used(run, op):
    """'DRAM ... (source); L2 ...; where they came from' for the ceilings
    the verdicts of a run's points of op were judged against."""
    dram = model.run_dram_ceiling(run, op)
    l2 = model.l2_ceiling(run.ceilings)
    text = "DRAM %s; L2 %s" % (
        "%s, %s" % (gbps(dram.value), dram.source) if dram else "unknown",
        "%s, %s" % (gbps(l2.value), l2.source) if l2 else
        "not measured (no L2-bound verdict without it)")
    if run.ceilings_path is None:
        return text + " (no measured ceilings: run `ewbench ceilings` " \
            "once on this GPU, and the reports of its later runs by the " \
            "same build use them, from the ceilings cache)"
    ceilings_run, cached = ceilings_cache.source_of(run.ceilings_path)
    return text + " (measured by the ceilings run %s%s)" % (
        sinks.code(ceilings_run),
        ", of this GPU and build, found in the ceilings cache"
        if cached else "")


def why_blocks(study, sctx):
    """The verdict of each point of a user's kernel, with the ceilings it
    was judged against and each change measured: blocks, [] without
    one."""
    from . import experiments as ex
    rows = judged(sctx)
    if not rows:
        return []
    blocks = [doc.Heading(4, "Why: the verdict of each point of your "
                          "kernel", ANCHOR + "-why")]
    used = sorted({ceilings_used(study.runs[part], p.op)
                   for part, ctx in sctx.parts.items()
                   for p in ctx.points if var.role(p.variant) == var.USER})
    blocks.append(doc.Paragraph(
        "Judged by the study's rules (docs/analysis.md) and the faults of "
        "an elementwise kernel, each named by the counter that shows it "
        "with the bandwidth its fix predicts (docs/user-kernels.md). "
        "Ceilings: " + "; ".join(used) + "."))
    table = []
    for p, v, e in rows:
        rule = v.rule
        if e is not None and e.trials and not e.text:
            rule += ". Changes measured: " + "; ".join(
                ex._trial_text(t) for t in e.trials)
        table.append((sinks.code(p.variant), "%s, %s, %s, block %s" % (
            size_label(p.n), p.cache, p.launch, p.block),
            gbps(p.bandwidth), v.name, sinks.markdown(rule)))
    blocks.append(doc.Table(("kernel", "point", "GB/s", "verdict", "why"),
                            tuple(table)))
    return blocks


def section(study, figures, sctx=None):
    """Report blocks: a heading, the source of each kernel, the table, the
    verdict of each point (with sctx, the study's findings.common
    context) and the figure; [] when the study holds no user's kernel."""
    rows = beside(study)
    if not rows:
        return []
    blocks = [doc.Heading(3, "Your kernels beside the study, ewbench, cub "
                          "and PyTorch", ANCHOR)]
    known = sources(study)
    items = []
    for v in sorted({b.user.variant for b in rows}):
        e = known.get(v, {})
        item = "%s: %s in %s (SHA-256 %s), %s %s, compiled " \
            "for %s by NVRTC %s" % (
                sinks.code(v), sinks.code(e.get("function", "?")),
                sinks.code(e.get("file", "?")),
                sinks.code((e.get("source_sha256") or "?")[:16]),
                e.get("op", "?"), e.get("dtype", "?"),
                sinks.markdown(e.get("arch", "?")),
                sinks.markdown(e.get("nvrtc", "?")))
        ref = e.get("reference")
        if isinstance(ref, dict):
            item += "; checked against %s in %s (SHA-256 %s) %s; " \
                "%s inputs, %s bytes per element" % (
                    sinks.code(ref.get("function", "?")),
                    sinks.code(ref.get("file", "?")),
                    sinks.code((ref.get("source_sha256") or "?")[:16]),
                    _tolerance(ref), e.get("inputs", "?"),
                    e.get("bytes_per_element", "?"))
        items.append(item)
    blocks.append(doc.Bullets(tuple(items)))
    table = []
    for b in rows:
        u = b.user
        table.append((
            sinks.code(u.variant),
            "%s, %s, %s" % (size_label(u.n), u.cache, u.launch),
            gbps(u.bandwidth) + (" (check: %s)" % u.check
                                 if u.check and u.check != "pass" else ""),
            of_ceiling(study.runs[b.part], u),
        ) + tuple(
            "%s %s: %s" % (sinks.code(p.variant), gbps(p.bandwidth),
                           _margin(u, p))
            if p is not None else "not run"
            for p in (b.study, b.own, b.cub, b.torch)))
    blocks.append(doc.Table(("kernel", "size", "GB/s", "DRAM ceiling",
                             "study's fastest",
                             "ewbench's fastest", "cub", "PyTorch"),
                            tuple(table)))
    blocks.append(doc.Paragraph(
        "Each competitor: its GB/s at the same op, dtype, size, cache state "
        "and launch mode (PyTorch: stream launches; a kernel of your own op, "
        "checked against its reference: the kernels that move as many bytes "
        "per element, whatever they compute), and your kernel's "
        "margin against it, beyond the noise or not (max(3 x the combined "
        "per-launch scatter, 2 %), docs/analysis.md). A kernel that failed "
        "its check is not timed (docs/user-kernels.md)."))
    if sctx is not None:
        blocks += why_blocks(study, sctx)
    if FIGURE in figures:
        png, svg = figures[FIGURE]
        blocks.append(doc.Image(
            "figures/%s" % png.rsplit("/", 1)[-1],
            "Your kernels beside the others",
            "GB/s per point of your kernel (top bar of each group) and of "
            "the fastest study variant, ewbench's fastest, cub and PyTorch "
            "at the same size, cache state and launch mode.",
            "figures/%s" % svg.rsplit("/", 1)[-1]))
    return blocks


def draw(study, outdir):
    """{FIGURE: [png, svg]}, or {} when the study holds no user's kernel."""
    rows = beside(study)
    if not rows:
        return {}
    from . import plots
    colours = {"yours": plots.USER_STYLE[0],
               "study's fastest": plots.STUDY_COLOURS[0],
               "ewbench's fastest": plots.BEST_ADDITION[0],
               "cub": plots.PEER_STYLES["cub"][0],
               "PyTorch": plots.PEER_STYLES["torch"][0]}
    height = 1.2 + 0.16 * sum(1 + len(b.others()) for b in rows)
    fig, body = plots.new_figure(list(study.runs.values()), height)
    ax = body.subplots()
    y, ticks, labels, seen = 0.0, [], [], set()
    for b in rows:
        bars = (("yours", b.user),) + b.others()
        ticks.append(y + (len(bars) - 1) / 2.0)
        labels.append("%s\n%s %s %s" % (plot_text(b.user.variant),
                                        size_label(b.user.n),
                                        b.user.cache, b.user.launch))
        for label, p in bars:
            ax.barh(y, p.bandwidth / 1e9, color=colours[label], height=0.8,
                    label=None if label in seen else label)
            ax.text(p.bandwidth / 1e9, y, " %.0f" % (p.bandwidth / 1e9),
                    va="center", fontsize=7)
            seen.add(label)
            y += 1
        y += 0.8
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("GB/s (bytes moved / median time)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    return {FIGURE: plots.save(fig, outdir, FIGURE)}

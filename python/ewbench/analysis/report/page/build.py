"""The whole report: build_document() turns a judged study and its
figures into a list of document blocks (pure) in the order of SECTIONS;
write_report() draws, renders and writes them."""

import os

from .. import answers as ans
from .. import energy as en
from ...core import atomic
from ...core import document as doc
from .. import figures as fig
from .. import findings as fnd
from .. import l2_counts as l2c
from .. import published as pub
from ...core import select as sel
from ...core import sinks
from ...core import study as stu
from .. import unmeasured as um
from .. import user_kernels as uk
from .. import whatif as wif
from .common import FIGURES_DIR
from .first import headline, shortfalls_section, versus_section
from .findings import cross_host_note, findings_section, findings_table
from .results import (figures_section, fits_section, results_section,
                      verdicts_section)
from .method import environment_section, method_section, reproduce_section
from .threats import threats_section
from . import predictions as pr


# Every figure a report may draw (the Figures section's, figures.py; those
# of user_kernels.py and energy.py): with the two pages, the only files
# `ewbench report` writes into OUTDIR.
FIGURES = fig.NAMES + (uk.FIGURE, en.FIGURE)
FILES = doc.report_files(FIGURES) | frozenset(pr.CSV_FILES)

SECTIONS = (("findings", "Findings"),
            ("published", "Published beside measured"),
            ("results", "Results"),
            ("figures", "Figures"), ("verdicts", "Bottleneck verdicts"),
            (pr.ANCHOR, pr.TITLE),
            ("fits", "Launch-floor fits"), (en.ANCHOR, en.TITLE),
            ("method", "Method"),
            ("environment", "Environment"),
            ("threats", "Threats to validity"), ("reproduce", "Reproduce"))


def sections(study):
    """SECTIONS this study's report has: Energy per byte only where a run
    holds energy rows (`make report-energy`), Predictions scored only
    where an experiments run was measured."""
    has_energy = en.source(study)[1] is not None
    has_experiments = getattr(study, "experiments", None) is not None
    return tuple(s for s in SECTIONS
                 if (s[0] != en.ANCHOR or has_energy) and
                 (s[0] != pr.ANCHOR or has_experiments))


def build_document(study, sctx, judged, figures):
    title = "ewbench %s: %s" % ("run" if study.is_single_run else "study",
                                sinks.markdown(study.device.get(
                                    "name", "unknown GPU")))
    blocks = [doc.Heading(1, title)]
    if study.is_fixture:
        blocks.append(doc.Banner("FIXTURE DATA: synthetic numbers for tests, "
                                 "not a measurement."))
    reference = stu.reference_text(
        study.path, list(study.runs.values()) + list(study.repeats),
        "a %s of one %s" % ("run" if study.is_single_run else "study",
                            study.device.get("name", "unknown GPU")))
    if reference:
        blocks.append(doc.Banner(reference))
    for part, run in study.runs.items():
        if run.manifest.get("status") not in (None, "complete"):
            blocks.append(doc.Banner("`%s/` status: %s." % (
                part, run.manifest.get("status"))))
    blocks.append(headline(study))
    blocks.append(doc.Heading(2, "Answers", "answers"))
    blocks.append(findings_table(judged))
    blocks += cross_host_note(judged, study.main)
    gaps = um.survey(study)
    blocks += um.first_screen(gaps)
    dram_tier, l2_tier = versus_section(ans.versus_peers(sctx),
                                        ans.l2_ranges(sctx), sctx)
    blocks += dram_tier
    _, main = sctx.part(stu.ARTICLE, stu.SWEEP, stu.BLOCKS)
    largest = max(sel.sizes(main.run)) if main and main.run.points else None
    blocks += shortfalls_section(ans.shortfalls(sctx), largest)
    blocks += l2_tier
    blocks += uk.section(study, figures, sctx)
    blocks += wif.section(study)
    blocks.append(doc.Heading(2, "Contents", "contents"))
    blocks.append(doc.Toc(sections(study)))
    blocks += findings_section(judged)
    blocks += pub.section(study.main, "Published beside measured",
                          "published")
    blocks += results_section(study, sctx)
    blocks += figures_section(figures, {"dram_share": _l2_count_note(
        study, sctx)})
    blocks += verdicts_section(sctx)
    blocks += pr.section(sctx)
    blocks += fits_section(sctx)
    blocks += en.section(study, figures)
    blocks += method_section(study)
    blocks += um.section(gaps, tuple(study.runs.values()))
    blocks += environment_section(study)
    blocks += threats_section(study, sctx)
    blocks += reproduce_section(study)
    return title, blocks


def _effective_l2(sctx):
    """Finding 2's EffectiveL2 of the study (sweep, else article), or
    None."""
    _, part = sctx.part(stu.SWEEP, stu.ARTICLE)
    return fnd.effective_l2(part) if part else None


def _l2_count_note(study, sctx):
    """What the DRAM-share figure's L2 marker counts (l2_counts.note),
    over the rows it draws."""
    main = study.run(stu.ARTICLE) or study.main
    eff = _effective_l2(sctx)
    return l2c.note(l2c.l2_count(main, sel.at_largest_size(main)),
                    main.l2_bytes, eff.bytes if eff else None)


def unclaimed(outdir):
    """Why `ewbench report` may not write into outdir (None when it may):
    atomic.unclaimed's rule, the one every analysis command keeps."""
    return atomic.unclaimed(outdir, FILES)


def write_report(study, outdir, plot_study):
    """Draw the figures (plot_study(study, dir) -> {name: [png, svg]}),
    judge the findings, write report.md and report.html into outdir, and
    where the study has an experiments run, or a user's kernel a scored
    change, predictions.csv and model-error.csv (page/predictions.py).  The
    PNGs live only inside the HTML: they are removed once embedded, and the
    SVGs stay beside it (the HTML links them; the Markdown shows them).
    The whole report is rendered into a fresh directory inside outdir and
    swapped in only once complete (atomic.rendering): a render that fails or
    is interrupted part way (a full disk, a file-size limit, a signal)
    leaves the previous report exactly as it was.  outdir must hold no
    file but a report's (unclaimed), else atomic.Unclaimed."""
    if not isinstance(study, stu.Study):
        study = stu.single_run_study(study)
    sctx = fnd.make_context(study)
    judged = fnd.evaluate(study, sctx)
    # The CSVs where experiments were measured (a study's, or a user's
    # kernel's changes), or where a previous report left them (then
    # header only: nothing stale stays).
    csvs = pr.CSV_FILES if getattr(study, "experiments", None) is not None \
        or pr.user_scored(sctx) or \
        any(os.path.exists(os.path.join(outdir, name))
            for name in pr.CSV_FILES) else ()
    with atomic.rendering(outdir, doc.REPORT_OUTPUTS + csvs,
                          FILES) as staged:
        figures_dir = os.path.join(staged, FIGURES_DIR)
        atomic.make_dirs(figures_dir)
        eff = _effective_l2(sctx)
        marks = {"effective_l2": eff.mark if eff else None}
        figures = plot_study(study, figures_dir, marks)
        figures.update(uk.draw(study, figures_dir))
        figures.update(en.draw(study, figures_dir))
        title, blocks = build_document(study, sctx, judged, figures)
        doc.write_report(staged, blocks, title,
                         [png for png, _ in figures.values()])
        if csvs:
            texts = pr.csv_texts(sctx, study.device.get("name", ""))
            for name in csvs:
                atomic.write_text(os.path.join(staged, name), texts[name])
    return (os.path.join(outdir, "report.md"),
            os.path.join(outdir, "report.html"), judged)

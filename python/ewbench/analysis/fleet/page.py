"""report.md and report.html comparing the GPUs of a fleet.

The first screen answers: one row per GPU (sorted by host, then GPU or
rank) with where it sits, its measured ceilings and the key kernel
numbers, each with its deviation from the fleet median, and whether it is
an outlier; then one sentence per outlier with the counter and NVML
evidence (clocks, DRAM bytes per cycle, power, temperature, throttle
reasons), and the members that failed, with their reason.  The figure,
clocks, the points behind each number, the members' runs, method and
threats follow.  Missing values are "—".

This module puts the document together and writes it; the first screen
is first.py's (with outliers.py's evidence), the sections after the
contents sections.py's, the formatting of a value cells.py's.
"""

import os

from ..core import atomic
from ..core import document as doc
from ..core import study as stu
from . import answers as fa
from .first import answers_table, failed_section, headline, rule_text
from .outliers import outliers_section
from .sections import (FIGURES_DIR, clocks_section, figure_section,
                       members_section, method_section, points_section,
                       reproduce_section, threats_section)

FIGURE = "fleet_deviation"
SECTIONS = (("figure", "Deviation from the fleet median"),
            ("clocks", "Clocks, power and placement"),
            ("points", "The points behind each number"),
            ("members", "Members' runs"), ("method", "Method"),
            ("threats", "Threats to validity"), ("reproduce", "Reproduce"))


def build_document(judged, figure):
    fleet = judged.fleet
    clocks = fa.fleet_clocks(judged)
    title = "ewbench fleet: %d GPU%s" % (len(fleet.members), "" if len(
        fleet.members) == 1 else "s")
    blocks = [doc.Heading(1, title)]
    if fleet.is_fixture:
        blocks.append(doc.Banner("FIXTURE DATA: synthetic numbers for tests, "
                                 "not a measurement."))
    reference = stu.reference_text(
        fleet.path, [m.run for m in fleet.members], "a fleet of %d %s "
        "GPU%s" % (len(fleet.members), " and ".join(fleet.device_names),
                   "" if len(fleet.members) == 1 else "s"))
    if reference:
        blocks.append(doc.Banner(reference))
    blocks.append(headline(judged))
    blocks.append(doc.Heading(2, "Answers", "answers"))
    if fleet.members:
        blocks.append(answers_table(judged))
    if len(fleet.members) > 1:
        blocks.append(rule_text())
    blocks += outliers_section(judged, clocks)
    blocks += failed_section(fleet)
    blocks.append(doc.Heading(2, "Contents", "contents"))
    blocks.append(doc.Toc(SECTIONS))
    blocks += figure_section(figure)
    blocks += clocks_section(judged, clocks)
    blocks += points_section(judged)
    blocks += members_section(fleet)
    blocks += method_section(fleet)
    blocks += threats_section(fleet)
    blocks += reproduce_section(fleet)
    return title, blocks


FILES = doc.report_files((FIGURE,))


def unclaimed(outdir, fleet_path):
    """Why outdir may not be written (None when it may): never the fleet
    directory itself, and otherwise atomic.unclaimed's rule, the one
    every analysis command keeps: new, empty, or holding only what a
    fleet report writes (a member or a run directory holds run.json)."""
    if os.path.abspath(outdir) == os.path.abspath(fleet_path):
        return "it is the fleet directory itself"
    return atomic.unclaimed(outdir, FILES)


def write_report(judged, outdir, plot_fleet):
    """Draw the figure (plot_fleet(judged, dir) -> [png, svg] or None),
    write report.md and report.html into outdir; the PNG lives only
    inside the HTML.  Rendered whole into a fresh directory and swapped
    in (atomic.rendering), as `ewbench report` is: a render that fails or
    is interrupted part way leaves the previous report exactly as it
    was."""
    with atomic.rendering(outdir, doc.REPORT_OUTPUTS, FILES) as staged:
        figures_dir = os.path.join(staged, FIGURES_DIR)
        atomic.make_dirs(figures_dir)
        figure = plot_fleet(judged, figures_dir)
        title, blocks = build_document(judged, figure)
        doc.write_report(staged, blocks, title, figure[:1] if figure else ())
    return (os.path.join(outdir, "report.md"),
            os.path.join(outdir, "report.html"))

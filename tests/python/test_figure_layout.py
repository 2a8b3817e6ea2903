"""Every figure of the shipped references is laid out so that nothing
covers what it must not, on whichever matplotlib renders it (CI runs
Debian 12's 3.6 and PyPI's newest): measured from the drawn artists'
window extents, no legend covers an axes' area, tick labels, axis label
or title, nor another legend or a figure title, and no axes' labels run
into another axes."""

import os

import pytest

from ewbench.analysis.core import atomic
from ewbench.analysis.core import study as stu
from ewbench.analysis.fleet import answers as fleet_answers
from ewbench.analysis.fleet import members as fleet_members
from ewbench.analysis.fleet import plots as fleet_plots
from ewbench.analysis.report import energy
from ewbench.analysis.report import plots
from ewbench.analysis.report.plots import common as plot_common
from ewbench.analysis.report.plots import study as plot_study_module

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
REFERENCES = os.path.join(ROOT, "reports", "reference")
# Boxes may touch: overlaps of a pixel or less are antialiasing.
SLACK = 1.0


def _overlap(a, b):
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > SLACK and
            min(a.y1, b.y1) - max(a.y0, b.y0) > SLACK)


def _subfigures(fig):
    todo, found = [fig], []
    while todo:
        f = todo.pop()
        found.append(f)
        todo += f.subfigs
    return found


def _axis_texts(ax):
    """[(what, Text)]: ax's drawn tick labels (those of ticks inside its
    limits), axis labels and titles."""
    lo, hi = sorted(ax.get_xlim())
    texts = [("x tick label", t) for t in ax.get_xticklabels()
             if lo <= t.get_position()[0] <= hi]
    lo, hi = sorted(ax.get_ylim())
    texts += [("y tick label", t) for t in ax.get_yticklabels()
              if lo <= t.get_position()[1] <= hi]
    texts += [("x label", ax.xaxis.label), ("y label", ax.yaxis.label)]
    texts += [("title", t) for t in (ax.title, ax._left_title,
                                     ax._right_title)]
    return [(w, t) for w, t in texts if t.get_visible() and t.get_text()]


def layout_faults(fig):
    """What covers what in fig, drawn: one line each."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    axes = [ax for ax in fig.get_axes() if ax.get_visible()]
    legends = [("figure legend", lg) for f in _subfigures(fig)
               for lg in f.legends]
    legends += [("axes legend", ax.get_legend()) for ax in axes
                if ax.get_legend() is not None]
    titles = [f._suptitle for f in _subfigures(fig)
              if f._suptitle is not None and f._suptitle.get_text()]
    faults = []
    for i, (kind, lg) in enumerate(legends):
        box = lg.get_window_extent(r)
        for ax in axes:
            for what, text in _axis_texts(ax):
                if _overlap(box, text.get_window_extent(r)):
                    faults.append("%s covers the %s %r" % (
                        kind, what, text.get_text()))
            if kind == "figure legend" and _overlap(box, ax.bbox):
                faults.append("%s covers an axes' area (%r)" % (
                    kind, ax.get_title()))
        for title in titles:
            if _overlap(box, title.get_window_extent(r)):
                faults.append("%s covers the title %r" % (
                    kind, title.get_text()))
        for other_kind, other in legends[i + 1:]:
            if _overlap(box, other.get_window_extent(r)):
                faults.append("%s covers an %s" % (kind, other_kind))
        inside = fig.bbox
        if not (box.x0 >= inside.x0 - SLACK and box.x1 <= inside.x1 + SLACK
                and box.y0 >= inside.y0 - SLACK and
                box.y1 <= inside.y1 + SLACK):
            faults.append("%s runs off the figure" % kind)
    for ax in axes:
        for other in axes:
            if other is ax:
                continue
            for what, text in _axis_texts(ax):
                if _overlap(text.get_window_extent(r), other.bbox):
                    faults.append("the %s %r runs into another axes" % (
                        what, text.get_text()))
    return faults


@pytest.fixture
def drawn(monkeypatch):
    """{figure file name: faults} of every figure saved while in use,
    measured where it would be saved, its layout final; the figures drawn
    in this process, not forked.  What is measured is the layout, not the
    files: neither the figure nor its PNG preview (plots.common) is
    written, two drawings of each that tell nothing more."""
    seen = {}

    def measured(fig, path, **kwargs):
        seen[os.path.basename(path)] = layout_faults(fig)

    monkeypatch.setattr(atomic, "savefig", measured)
    monkeypatch.setattr(plot_common, "_png_palette", lambda fig: b"")
    monkeypatch.setattr(plot_study_module, "_draw_all",
                        lambda jobs: [draw(*args) for draw, args in jobs])
    return seen


def _faults(drawn):
    return ["%s: %s" % (name, f) for name, fs in sorted(drawn.items())
            for f in fs]


def _studies():
    return sorted(name for name in os.listdir(REFERENCES)
                  if stu.is_study_dir(os.path.join(REFERENCES, name)))


@pytest.mark.parametrize("name", _studies())
def test_reference_study_figures_cover_nothing(drawn, tmp_path, name):
    study = stu.load_study(os.path.join(REFERENCES, name))
    names = set(plots.plot_study(study, str(tmp_path)))
    names |= set(energy.draw(study, str(tmp_path)))
    # Each figure the report draws was measured.
    assert names and {n + ".svg" for n in names} <= set(drawn)
    assert not _faults(drawn), "\n".join(_faults(drawn))


def test_reference_fleet_figure_covers_nothing(drawn, tmp_path):
    fleets = [n for n in sorted(os.listdir(REFERENCES))
              if n.startswith("fleet-")]
    assert fleets
    for name in fleets:
        judged = fleet_answers.judge(fleet_members.open_fleet(
            os.path.join(REFERENCES, name)))
        assert fleet_plots.plot_fleet(judged, str(tmp_path))
    assert drawn and not _faults(drawn), "\n".join(_faults(drawn))


def test_timeline_figure_covers_nothing(drawn, tmp_path):
    """The README's `ewbench timeline` example."""
    from ewbench.analysis.__main__ import EXIT_OK, main
    trace = os.path.join(REFERENCES, "nvidia-h200", "traced",
                         "trace.json.gz")
    assert main(["timeline", trace, "--point", "add_f32x4 n=1Mi", "--span",
                 "120", "-o", str(tmp_path / "timeline.png")]) == EXIT_OK
    assert drawn and not _faults(drawn), "\n".join(_faults(drawn))

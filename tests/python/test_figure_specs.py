"""Figures as specs (report/figures.py): a figure of the Figures section
is its module under report/plots/ and its spec, and the page and
plot_study read the spec table, so no other list needs its name."""

from ewbench.analysis.core import study as stu
from ewbench.analysis.core.load import load_run
from ewbench.analysis.report import figures as fig
from ewbench.analysis.report.page import build
from ewbench.analysis.report.page import results
from ewbench.analysis.report.plots import instructions
from ewbench.analysis.report.plots import study as plot_study_module


def test_every_spec_is_a_file_the_report_claims():
    assert set(fig.NAMES) <= set(build.FIGURES)
    assert plot_study_module.FIGURES == fig.NAMES
    assert len(set(fig.NAMES)) == len(fig.FIGURES)


def test_a_new_spec_alone_is_drawn_and_captioned(fixture_dir, monkeypatch,
                                                 tmp_path):
    """A spec added to FIGURES, and nothing else, is drawn from the runs
    its inputs name and shown under its own title and caption."""
    drawn = []

    def draw(run, outdir, extra):
        drawn.append((run, extra))
        return [str(tmp_path / "new.png"), str(tmp_path / "new.svg")]

    monkeypatch.setattr(instructions, "plot_instructions", draw)
    monkeypatch.setattr(plot_study_module, "_draw_all",
                        lambda jobs: [d(*a) for d, a in jobs])
    spec = fig.FigureSpec("new_figure", "A new figure", "What it shows.",
                          "instructions.plot_instructions",
                          lambda study, marks: (study.main, marks["m"]))
    skipped = fig.FigureSpec("never", "Never", "Not this study's.",
                             "instructions.plot_instructions",
                             lambda study, marks: None)
    monkeypatch.setattr(fig, "FIGURES", (skipped, spec))
    study = stu.single_run_study(load_run(str(fixture_dir)))
    out = plot_study_module.plot_study(study, str(tmp_path), {"m": 7})
    assert list(out) == ["new_figure"]
    assert drawn == [(study.main, 7)]
    blocks = results.figures_section(out)
    headings = [b for b in blocks if type(b).__name__ == "Heading"]
    assert [(h.text, h.anchor) for h in headings][1:] == [
        ("A new figure", "fig-new_figure")]
    images = [b for b in blocks if type(b).__name__ == "Image"]
    assert [(i.alt, i.caption) for i in images] == [
        ("A new figure", "What it shows.")]

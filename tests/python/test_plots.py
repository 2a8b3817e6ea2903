"""Every figure is drawn from the fixture, with and without counters."""

import os

import pytest

from analysis import plots
from analysis.load import load_run

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def check_outputs(paths):
    png, svg = paths
    assert png.endswith(".png") and svg.endswith(".svg")
    with open(png, "rb") as f:
        head = f.read(8)
    assert head == PNG_MAGIC
    assert os.path.getsize(png) > 20_000
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    assert "<svg" in text and len(text) > 20_000


@pytest.mark.parametrize("name", [n for n, _ in plots.PLOTS])
def test_each_plot_from_fixture(fixture_run, tmp_path, name):
    draw = dict(plots.PLOTS)[name]
    paths = draw(fixture_run, str(tmp_path))
    assert [os.path.basename(p) for p in paths] == [name + ".png",
                                                    name + ".svg"]
    check_outputs(paths)


def test_plots_without_metrics_or_ceilings(run_copy, tmp_path):
    os.remove(run_copy / "metrics.csv")
    os.remove(run_copy / "ceilings.csv")
    run = load_run(str(run_copy))
    out = plots.plot_all(run, str(tmp_path / "figs"))
    assert sorted(out) == sorted(n for n, _ in plots.PLOTS)
    for paths in out.values():
        check_outputs(paths)


def test_fixture_is_marked_on_figures(fixture_run, tmp_path):
    _, svg = plots.plot_bars(fixture_run, str(tmp_path))
    with open(svg, encoding="utf-8") as f:
        assert "FIXTURE DATA" in f.read()


def test_variant_styles_are_stable_and_distinct():
    a = plots.variant_styles(["b", "a", "c"])
    b = plots.variant_styles(["c", "a", "b"])
    assert a == b
    assert len({(str(c), m) for c, m in a.values()}) == 3

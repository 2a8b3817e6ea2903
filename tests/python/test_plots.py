"""Every figure is drawn from the fixture, with and without counters."""

import os

import pytest
from PIL import Image

from ewbench.analysis import plots, study
from ewbench.analysis import variants as var
from ewbench.analysis.load import load_run

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def check_outputs(paths):
    png, svg = paths
    assert png.endswith(".png") and svg.endswith(".svg")
    with open(png, "rb") as f:
        assert f.read(8) == PNG_MAGIC
    image = Image.open(png)
    # Palette PNG drawn at the width the HTML shows it.
    assert image.mode == "P"
    assert image.size[0] == round(plots.FIG_WIDTH * plots.DPI)
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    assert "<svg" in text and len(text) > 20_000


DRAWS = {"cache_tier": plots.plot_cache_tier, "roofline": plots.plot_roofline,
         "instructions": plots.plot_instructions}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_each_plot_from_fixture(fixture_run, tmp_path, name):
    paths = DRAWS[name](fixture_run, str(tmp_path))
    assert [os.path.basename(p) for p in paths] == [name + ".png",
                                                    name + ".svg"]
    check_outputs(paths)


def test_blocks_plot_needs_a_block_sweep(fixture_run, tmp_path):
    swept = any(len({p.block for p in fixture_run.points
                     if p.variant == v}) > 1
                for v in {p.variant for p in fixture_run.points})
    paths = plots.plot_blocks(fixture_run, str(tmp_path))
    assert (paths is not None) == swept
    if paths:
        check_outputs(paths)


def test_plot_study_without_metrics_or_ceilings(run_copy, tmp_path):
    os.remove(run_copy / "metrics.csv")
    os.remove(run_copy / "ceilings.csv")
    run = load_run(str(run_copy))
    out = plots.plot_study(study.single_run_study(run), str(tmp_path / "f"))
    # No counters: no instruction chart; the rest is drawn.
    assert "instructions" not in out and "cache_tier" in out
    for paths in out.values():
        check_outputs(paths)


def test_fixture_is_marked_on_figures(fixture_run, tmp_path):
    _, svg = plots.plot_cache_tier(fixture_run, str(tmp_path))
    with open(svg, encoding="utf-8") as f:
        assert "FIXTURE DATA" in f.read()


def test_roles_are_drawn_differently(fixture_run):
    styles = plots.family_styles(fixture_run.points)
    study_styles = {(s.colour, s.marker) for v, s in styles.items()
                    if var.role(v) == var.STUDY}
    # The fixture has more study variants than one colour cycle; within an
    # op family every highlighted series has its own colour and marker.
    for fam in {var.family(p) for p in fixture_run.points}:
        pts = [p for p in fixture_run.points if var.family(p) == fam]
        fam_styles = plots.family_styles(pts)
        shown = [(s.colour, s.marker) for s in fam_styles.values()
                 if s.highlighted]
        assert len(shown) == len(set(shown)), fam
    assert study_styles
    for v, s in styles.items():
        if var.role(v) == var.PEER:
            assert s.colour in {c for c, _ in plots.PEER_STYLES.values()}
        if not s.highlighted:
            assert var.role(v) == var.ADDITION and s.colour == \
                plots.ADDITION_GREY


def test_l2_ceiling_far_above_the_data_does_not_stretch_the_axis(
        fixture_run, tmp_path):
    from ewbench.analysis import model
    fig, body = plots._figure([fixture_run], 5)
    ax = body.subplots()
    pts = [p for p in fixture_run.points if var.family(p) == ("add", "f32")]
    plots._cache_tier_panel(ax, fixture_run, pts, ("add", "f32"))
    top = ax.get_ylim()[1]
    data = max(p.bandwidth for p in pts) / 1e9
    l2 = model.l2_ceiling(fixture_run.ceilings)
    assert top <= 1.5 * max(data, fixture_run.spec_dram_bandwidth / 1e9)
    if l2 is not None and l2.value / 1e9 > 1.15 * top:
        assert "above the plot" in ax.get_title()


def test_variant_styles_are_stable_and_distinct():
    a = plots.variant_styles(["b", "a", "c"])
    b = plots.variant_styles(["c", "a", "b"])
    assert a == b
    assert len({(str(c), m) for c, m in a.values()}) == 3

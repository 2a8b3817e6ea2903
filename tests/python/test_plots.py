"""Every figure is drawn from the fixture, with and without counters."""

import dataclasses
import os

import numpy as np
import pytest
from PIL import Image

from ewbench.analysis.report import plots
from ewbench.analysis.core import study
from ewbench.analysis.core import variants as var
from ewbench.analysis.core.load import load_run

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


DRAWS = {"cache_tier": plots.plot_cache_tier,
         "dram_share": plots.plot_dram_share,
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
    from ewbench.analysis.report import model
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


# issue 30: figures a reader reads at a glance

def test_cache_tier_bandwidth_axis_is_linear_and_marks_the_effective_l2(
        fixture_run):
    fig, body = plots._figure([fixture_run], 5)
    ax = body.subplots()
    pts = [p for p in fixture_run.points if var.family(p) == ("add", "f32")]
    low, high = 24 * 2**20, 96 * 2**20
    plots._cache_tier_panel(ax, fixture_run, pts, ("add", "f32"),
                            (48 * 2**20, low, high, "variants"))
    # Linear from zero: the L2-to-DRAM ratio of finding 2 reads as drawn.
    assert ax.get_yscale() == "linear" and ax.get_ylim()[0] == 0
    # The bracket is a shaded band over exactly the two sizes, with a
    # label that names it.
    bands = [patch for patch in ax.patches
             if patch.get_alpha() and patch.get_alpha() >= 0.3]
    # (axvspan gives a Polygon before matplotlib 3.9, a Rectangle since.)
    spans = [patch.get_patch_transform().transform(
        patch.get_path().vertices)[:, 0] for patch in bands]
    assert any(min(x) == pytest.approx(low) and max(x) == pytest.approx(high)
               for x in spans)
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("effective L2 48 MiB") for t in texts)
    assert "measured DRAM 3060 GB/s" in texts


def test_staggered_markers_keep_lines_on_one_another_apart():
    # Three series on the same dense sizes (a sweep has several sizes per
    # octave, some nearly equal): their markers never share a size, and
    # each series marks about one size per octave.
    sizes = sorted({int(2**16 * 2**(k / 7.0)) for k in range(7 * 14)} |
                   {int(2**20 * 1.0001)})
    styles = {v: plots.Style("#000", "o", 1, 1, 4, True)
              for v in ("a", "b", "c")}
    styles["grey"] = plots.Style(plots.ADDITION_GREY, "", 1, 1, 2, False)
    marks = plots._stagger(styles)
    assert set(marks) == {"a", "b", "c"}
    at = {v: plots._marked(sizes, sizes[0], *marks[v]) for v in marks}
    assert not set(at["a"]) & set(at["b"]) and \
        not set(at["b"]) & set(at["c"]) and not set(at["a"]) & set(at["c"])
    for idx in at.values():
        assert 12 <= len(idx) <= 15
        steps = np.diff(np.log2([sizes[i] for i in idx]))
        assert np.all(np.abs(steps - plots.MARKER_OCTAVES) < 0.2)


def test_bandwidth_interval_is_the_time_interval_inverted(fixture_run):
    p = dataclasses.replace(fixture_run.points[0], time_source="kernel",
                            time_median_ns=100.0, time_ci_low_ns=80.0,
                            time_ci_high_ns=125.0,
                            bandwidth_median_bytes_per_s=None)
    low, high = plots._bandwidth_interval(p)
    bw = p.bytes_moved / 100e-9
    assert low == pytest.approx(p.bytes_moved / 125e-9) and low < bw
    assert high == pytest.approx(p.bytes_moved / 80e-9) and high > bw


def test_share_rows_are_percent_of_the_ops_ceiling_with_repeats(
        fixture_run):
    from ewbench.analysis.report import model
    rows = plots.share_rows(fixture_run, repeats=(fixture_run,))
    assert rows
    n = max(p.n for p in fixture_run.points)
    order = []
    for r in rows:
        p = r.point
        assert p.n == n and p.cache == "warm"
        ceiling = model.run_dram_ceiling(fixture_run, p.op).value
        assert r.median == pytest.approx(100 * p.bandwidth / ceiling)
        assert r.low <= r.median <= r.high
        # The fixture as its own repeat round: one ring, on the median.
        assert r.rounds == pytest.approx((r.median,))
        order.append((var.family(p), -r.median))
    fams = plots._families([r.point for r in rows])
    assert order == sorted(order, key=lambda o: (fams.index(o[0]), o[1]))
    assert all(r.rounds == () for r in plots.share_rows(fixture_run))


def test_intensity_comes_from_the_rows(fixture_run):
    rows = plots.share_rows(fixture_run)
    pts = [r.point for r in rows]
    note = plots._intensity_note(fixture_run, pts, plots._families(pts))
    add32 = [p for p in pts if var.family(p) == ("add", "f32")]
    intensity = add32[0].flops / add32[0].bytes_moved
    assert "add fp32 %.3g FLOP/B" % intensity in note
    roof = fixture_run.ceilings["fp32_fma"].value
    ridge = roof / fixture_run.ceilings["dram_add"].value
    assert "ridge %.1f FLOP/B" % ridge in note
    assert "relu fp32 no FLOPs" in note


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_figures_are_deterministic(fixture_run, tmp_path, name):
    a = DRAWS[name](fixture_run, str(tmp_path / "a"))
    b = DRAWS[name](fixture_run, str(tmp_path / "b"))
    for x, y in zip(a, b):
        if x.endswith(".svg"):
            with open(x, "rb") as f, open(y, "rb") as g:
                assert f.read() == g.read()


# issue 40: every figure says what it draws

def test_instruction_panels_are_titled_with_their_quantity(fixture_run,
                                                            tmp_path):
    """The x-axis titles named the last bar's value ("14", "128", "76")
    where they should name the quantity."""
    _, svg = plots.plot_instructions(fixture_run, str(tmp_path))
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    for title in ("bytes moved per issued warp instruction (B)",
                  "bytes requested per warp global load instruction (B)",
                  "% of the DRAM ceiling"):
        assert ">%s<" % title in text, title


def test_dram_bound_line_is_keyed_as_the_rule_has_it(fixture_run, tmp_path):
    """The dotted 80 % line is the DRAM-bound rule's floor, not 'DRAM-bound
    from here': the rule also needs 90 % of the best sibling."""
    for draw in (plots.plot_dram_share, plots.plot_instructions):
        _, svg = draw(fixture_run, str(tmp_path))
        with open(svg, encoding="utf-8") as f:
            text = f.read()
        assert "DRAM-bound from here" not in text
        assert "the DRAM-bound rule's floor (it also needs &gt;= 90 % of " \
            "the best sibling)" in text


def test_block_band_is_exactly_finding_5s_blocks(monkeypatch, tmp_path):
    """The 128-256 band was drawn from 111 to 294 threads."""
    from matplotlib.axes import Axes
    from ewbench.analysis.report.findings.blocks import F5_SAFE_BLOCKS
    from test_findings import make_run, point
    spans, draw = [], Axes.axvspan

    def record(self, xmin, xmax, *args, **kwargs):
        spans.append((xmin, xmax))
        return draw(self, xmin, xmax, *args, **kwargs)
    monkeypatch.setattr(Axes, "axvspan", record)
    sweep = [point("add_f32", 1 << 21, block=b, time_ns=20000.0)
             for b in (64, 128, 256, 512)]
    assert plots.plot_blocks(make_run(sweep), str(tmp_path)) is not None
    assert spans == [(128, 256)] and F5_SAFE_BLOCKS == (128, 256)

"""Every figure is drawn from the fixture, with and without counters."""

import dataclasses
import importlib
import os
import textwrap

import numpy as np
import pytest
from PIL import Image
from matplotlib.text import Text

from ewbench.analysis.report import plots
from ewbench.analysis.report.plots import cache_tier as cache_tier_module
from ewbench.analysis.core import study
from ewbench.analysis.core import variants as var
from ewbench.analysis.core.load import load_run
from conftest import rewrite

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
         "instructions": plots.plot_instructions,
         "roofline": plots.plot_roofline}


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
    fig, body = plots.new_figure([fixture_run], 5)
    ax = body.subplots()
    pts = [p for p in fixture_run.points if var.family(p) == ("add", "f32")]
    plots.cache_tier_panel(ax, fixture_run, pts, ("add", "f32"))
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
    fig, body = plots.new_figure([fixture_run], 5)
    ax = body.subplots()
    pts = [p for p in fixture_run.points if var.family(p) == ("add", "f32")]
    low, high = 24 * 2**20, 96 * 2**20
    plots.cache_tier_panel(ax, fixture_run, pts, ("add", "f32"),
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
    marks = plots.marker_stagger(styles)
    assert set(marks) == {"a", "b", "c"}
    at = {v: plots.marked_indices(sizes, sizes[0], *marks[v]) for v in marks}
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
    low, high = plots.bandwidth_interval(p)
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
    fams = plots.families([r.point for r in rows])
    assert order == sorted(order, key=lambda o: (fams.index(o[0]), o[1]))
    assert all(r.rounds == () for r in plots.share_rows(fixture_run))


def test_intensity_comes_from_the_rows(fixture_run):
    rows = plots.share_rows(fixture_run)
    pts = [r.point for r in rows]
    note = plots.intensity_note(fixture_run, pts, plots.families(pts))
    add32 = [p for p in pts if var.family(p) == ("add", "f32")]
    intensity = add32[0].flops / add32[0].bytes_moved
    assert "add fp32 %.3g FLOP/B" % intensity in note
    roof = fixture_run.ceilings["fp32_fma"].value
    ridge = roof / fixture_run.ceilings["dram_add"].value
    assert "ridge %.1f FLOP/B" % ridge in note
    assert "relu fp32 no FLOPs" in note


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_figures_are_deterministic(fixture_run, tmp_path, monkeypatch,
                                   name):
    """Each plot of the fixture writes its PNG and SVG, and draws the same
    files twice: the second time with every tick its log axes' locators
    give, so the ticks left out of view (common._InView, for speed) change
    nothing drawn.  Its constrained layout, most of a figure's drawing
    time, runs once: the labels placed after it (settle) are outside the
    layout, so save has nothing to lay out again (it ran a second time)."""
    from matplotlib import layout_engine
    from ewbench.analysis.report.plots import common
    runs = []
    layout = layout_engine.do_constrained_layout

    def counted(fig, *args, **kwargs):
        runs.append(fig)
        return layout(fig, *args, **kwargs)

    monkeypatch.setattr(layout_engine, "do_constrained_layout", counted)
    a = DRAWS[name](fixture_run, str(tmp_path / "a"))
    assert len(runs) == 1
    assert [os.path.basename(p) for p in a] == [name + ".png", name + ".svg"]
    check_outputs(a)
    monkeypatch.setattr(common, "_ticks_in_view", lambda fig: None)
    b = DRAWS[name](fixture_run, str(tmp_path / "b"))
    for x, y in zip(a, b):
        with open(x, "rb") as f, open(y, "rb") as g:
            assert f.read() == g.read(), y


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
    from here': the rule also needs no sibling faster beyond MATERIAL_PCT."""
    for draw in (plots.plot_dram_share, plots.plot_instructions):
        _, svg = draw(fixture_run, str(tmp_path))
        with open(svg, encoding="utf-8") as f:
            text = f.read()
        assert "DRAM-bound from here" not in text
        assert "the DRAM-bound rule's floor (it also needs no sibling " \
            "3 % faster)" in text


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


# issue 39: the block-launch roof, the concurrency curve and the
# hierarchical roofline

def _with_ceilings(run, extra):
    """run with more ceilings.csv rows: {name: (value, unit)}."""
    from ewbench.analysis.core.load import Ceiling
    ceilings = dict(run.ceilings or {})
    for name, (value, unit) in extra.items():
        ceilings[name] = Ceiling(name, value, unit, None, None)
    return dataclasses.replace(run, ceilings=ceilings)


BLOCK_RATES = {"block_rate_b%d" % b: (1.65e9, "block/s")
               for b in (32, 64, 128, 256, 512)}
BLOCK_RATES["block_rate_b1024"] = (1.0e9, "block/s")


def _curve_rows(top=2.8e12):
    """A concurrency curve rising to `top` (a knee near 16 KiB) for every
    series of inflight.def."""
    from ewbench.analysis.core import validate
    return {validate.inflight_name(shape, kib, request):
            (top * kib / (kib + 2.0), "byte/s")
            for shape, request in validate.INFLIGHT_SERIES
            for kib in validate.INFLIGHT_KIB}


def _svg_text(paths):
    with open(paths[1], encoding="utf-8") as f:
        return f.read()


def test_block_rate_between_measured_sizes_only_where_they_agree(
        fixture_run):
    run = _with_ceilings(fixture_run, BLOCK_RATES)
    assert plots.block_rate_at(run, 256) == pytest.approx(1.65e9)
    # 96 lies between 64 and 128, whose rates agree: theirs.
    assert plots.block_rate_at(run, 96) == pytest.approx(1.65e9)
    # 768 lies between 512 (1.65) and 1024 (1.0): no rate, no roof.
    assert plots.block_rate_at(run, 768) is None
    assert plots.block_roof(run, 768, 9216) is None
    assert plots.block_roof(run, 256, 3072) == pytest.approx(3072 * 1.65e9)
    # Without the rates measured, no roof at all.
    assert plots.block_rate_at(fixture_run, 256) is None


def test_cache_tier_draws_the_block_launch_roof(fixture_run, tmp_path):
    run = _with_ceilings(fixture_run, BLOCK_RATES)
    pts = [p for p in run.points if var.family(p) == ("add", "f16")]
    roofs = plots.block_roofs(run, pts, plots.family_styles(pts))
    # The fixture's study fp16 adds launch 256 elements a block (add_f16:
    # 256 threads x 1, add_f16x2: 128 x 2, add_f16x8: 32 x 8) of 6 bytes:
    # one roof of 1.5 KiB x 1.65 G blocks/s for all of them.
    assert len(roofs) == 1
    value, size, rate, names = roofs[0]
    assert size == 1536 and rate == pytest.approx(1.65e9)
    assert value == pytest.approx(1536 * 1.65e9)
    assert {"add_f16", "add_f16x2", "add_f16x8"} <= set(names)
    fig, body = plots.new_figure([run], 5)
    ax = body.subplots()
    labels = plots.cache_tier_panel(ax, run, pts, ("add", "f16"))
    assert [text for _, _, text in labels] == ["block-launch roof 2534 GB/s"]
    assert any(line.get_ydata()[0] == pytest.approx(value / 1e9)
               for line in ax.get_lines())
    text = _svg_text(plots.plot_cache_tier(run, str(tmp_path)))
    assert "block-launch roof 2534 GB/s" in text
    # Its key, wrapped as the panel's legend wraps every key.
    key = "block-launch roof of %s: 1.5 KiB a block x 1.65 G blocks/s" % \
        ", ".join(names)
    assert all(line in text for line in
               textwrap.wrap(key, cache_tier_module.KEY_CHARS))
    # No measured rate: no roof, no label.
    assert "block-launch roof" not in _svg_text(
        plots.plot_cache_tier(fixture_run, str(tmp_path / "none")))


def test_block_figure_roof_rises_with_the_block(fixture_run, tmp_path):
    run = _with_ceilings(fixture_run, BLOCK_RATES)
    pts = [p for p in run.points if p.variant == "add_f32"]
    lines = plots.block_roof_lines(run, pts)
    assert len(lines) == 1
    blocks, roofs, names = lines[0]
    assert names == ["add_f32"]
    # The largest size swept over blocks (the fixture's 256Mi has one).
    n = max(q.n for q in pts if len({r.block for r in pts
                                     if r.n == q.n}) > 1)
    for b, roof in zip(blocks, roofs):
        p = next(q for q in pts if q.n == n and q.block == b)
        rate = 1.0e9 if b == 1024 else 1.65e9
        assert roof == pytest.approx(p.bytes_moved / p.grid * rate)
    assert list(roofs) == sorted(roofs)
    text = _svg_text(plots.plot_blocks(run, str(tmp_path)))
    assert "block-launch roof of add_f32" in text
    assert "block-launch roof" not in _svg_text(
        plots.plot_blocks(fixture_run, str(tmp_path / "none")))


def test_concurrency_figure_only_with_the_curve(fixture_run, tmp_path):
    assert plots.plot_concurrency(fixture_run, str(tmp_path)) is None
    run = _with_ceilings(fixture_run, _curve_rows())
    paths = plots.plot_concurrency(run, str(tmp_path))
    check_outputs(paths)
    text = _svg_text(paths)
    # Its labels placed the same way every time: the same file.
    assert _svg_text(plots.plot_concurrency(run, str(tmp_path / "b"))) == \
        text
    # Each shape's panel, a line per request size, the knee's KiB.
    assert "copy (dst = a): relu, abs" in text and "add (c = a + b)" in text
    for request in (64, 128, 512):
        assert "measured curve, %d B per warp load instruction" % request \
            in text
    assert "KiB" in text and "95 % of its top" in text
    # Every study variant placed is named on the figure, once.
    placed = plots.placed_points(run)
    assert placed
    n = max(p.n for p in run.points)
    for p, oc in placed:
        assert p.n == n and p.cache == "warm" and \
            var.role(p.variant) == var.STUDY
        if oc is not None:
            assert p.variant in text
            assert oc.kib == pytest.approx(model_kib(run, p))


def model_kib(run, p):
    from ewbench.analysis.report import model
    occupancy, _ = model.occupancy(run, p)
    return model.kib_in_flight_per_sm(p, occupancy,
                                      run.device.get("max_threads_per_sm"))


def _not_drawn(*args):
    return []


def test_plot_study_draws_the_curve_only_when_measured(study_dir, tmp_path,
                                                      figures_once,
                                                      monkeypatch):
    # The fixture's study as it is: drawn once a session
    # (conftest.FiguresDrawnOnce); with the curve, drawn here, its
    # concurrency figure alone: the others, drawn with a curve, are the
    # references' (each has one: tests/references.sh renders them all).
    plain = figures_once.plot_study(study.load_study(str(study_dir)),
                                    str(tmp_path / "a"))
    assert "concurrency" not in plain and "roofline" in plain
    with open(study_dir / "ceilings" / "ceilings.csv", "a",
              encoding="utf-8") as f:
        for name, (value, unit) in _curve_rows().items():
            f.write("20261121T204512Z-fixture-h100,%s,%r,%s,,curve\n" % (
                name, value, unit))
    from ewbench.analysis.report import figures
    for spec in figures.FIGURES:
        if spec.name != "concurrency":
            module, function = spec.draw.rsplit(".", 1)
            monkeypatch.setattr(importlib.import_module(
                "ewbench.analysis.report.plots." + module), function,
                _not_drawn)
    curved = plots.plot_study(study.load_study(str(study_dir)),
                              str(tmp_path / "b"))
    assert "concurrency" in curved
    check_outputs(curved["concurrency"])


def test_labels_beside_points_do_not_cover_one_another(fixture_run):
    fig, body = plots.new_figure([fixture_run], 4)
    ax = body.subplots()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    items = [(5 + 0.05 * k, 5 + 0.05 * k, "label %d" % k, "#000")
             for k in range(5)]
    for x, y, _, _ in items:
        ax.plot(x, y, "o")
    renderer = plots.settle(fig)
    notes = plots.place_labels(ax, items, renderer)
    # The texts themselves (Text's extent: an annotation's own adds its
    # leader on some matplotlib versions, and a leader may pass a label).
    for n in notes:
        n.update_positions(renderer)
    boxes = [Text.get_window_extent(n, renderer) for n in notes]
    assert [n.get_text() for n in notes] == [t for _, _, t, _ in items]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b)


def test_roofline_places_each_level_at_its_counted_bytes(fixture_run,
                                                         tmp_path):
    from ewbench.analysis.core import select as sel
    series = plots.roofline_points(fixture_run)
    # The study's adds only (relu and abs do no FLOPs), one point per
    # size, in one cache state.
    assert series and all(v.startswith("add_") and
                          var.role(v) == var.STUDY for v in series)
    # The fixture's counters are kernel replay over four passes: its warm
    # rows' counters do not describe a warm L2, so the cold rows are drawn.
    assert not sel.warm_counters_are_warm(fixture_run)
    for v, rows in series.items():
        assert len({p.n for p, _, _ in rows}) == len(rows)
        assert {p.cache for p, _, _ in rows} == {"cold"}
        for p, flops_per_s, levels in rows:
            assert flops_per_s == pytest.approx(
                p.flops / (p.bytes_moved / p.bandwidth))
            assert levels["DRAM"] == pytest.approx(
                p.flops / sel.dram_bytes(fixture_run, p))
            assert levels["L2"] == pytest.approx(
                p.flops / sel.metric(fixture_run, p, sel.M_L2_BYTES))
            assert levels["L1"] == pytest.approx(
                p.flops / sel.l1_bytes(fixture_run, p))
    user = dataclasses.replace(fixture_run, manifest=dict(
        fixture_run.manifest, counters=dict(
            fixture_run.manifest["counters"], replay="user")))
    assert {p.cache for rows in plots.roofline_points(user).values()
            for p, _, _ in rows} == {"warm"}
    run = _with_ceilings(fixture_run, BLOCK_RATES)
    paths = plots.plot_roofline(run, str(tmp_path))
    check_outputs(paths)
    text = _svg_text(paths)
    assert "counted at DRAM, L2, L1" in text and "(cold," in text
    assert "fp32_fma" in text and "block-launch roof" in text
    # A run without FLOPs or counters has no roofline.
    bare = dataclasses.replace(fixture_run, metrics=None)
    assert plots.plot_roofline(bare, str(tmp_path / "bare")) is None


def test_l2_bytes_from_sectors_where_lts_bytes_are_not_counted(
        fixture_run):
    from ewbench.analysis.core import select as sel
    from ewbench.analysis.core.load import MetricValue
    p = next(q for q in fixture_run.points if q.variant == "add_f32")
    values = {sel.M_L2_SECTORS[0]: 100.0, sel.M_L2_SECTORS[1]: 50.0}
    run = dataclasses.replace(fixture_run, metrics={p.key: {
        k: MetricValue(v, "sector", "cupti") for k, v in values.items()}})
    assert sel.l2_bytes(run, p) == 150 * sel.L2_SECTOR_BYTES
    assert sel.l2_bytes(fixture_run, p) == sel.metric(fixture_run, p,
                                                      sel.M_L2_BYTES)


def test_the_report_may_write_every_figure_plots_draws():
    """The output rule (atomic.unclaimed) refuses a directory holding a
    file the report does not write: every figure plots draws must be on
    the page's list (a new figure's name once was not, and a second
    render refused its own first)."""
    from ewbench.analysis.report.page import build
    from ewbench.analysis.report.plots import study
    assert set(study.FIGURES) <= set(build.FIGURES)


def test_every_role_has_its_one_colour():
    assert set(plots.ROLE_COLOURS) == set(var.ROLES)
    assert len(set(plots.ROLE_COLOURS.values())) == len(var.ROLES)


def test_a_run_holding_a_probe_draws_every_figure(run_copy, tmp_path):
    """A probe in the run (`run --kernel` without -v planned them) ended
    `report` in KeyError: 'probe' in the DRAM-share figure (issue 55,
    cause 1)."""
    for name in ("timing.csv", "metrics.csv", "run.json"):
        rewrite(run_copy / name,
                lambda t: t.replace("add_f32x4_grid", "add_f32_ilp2"))
    run = load_run(str(run_copy))
    assert var.PROBE in {var.role(p.variant) for p in run.points}
    out = plots.plot_study(study.single_run_study(run), str(tmp_path / "f"))
    assert {"dram_share", "instructions", "cache_tier"} <= set(out)
    for paths in out.values():
        check_outputs(paths)
    style = plots.family_styles(run.points)["add_f32_ilp2"]
    assert (style.colour, style.marker) == plots.PROBE_STYLE


def test_every_figure_draws_a_name_with_dollars(run_copy, tmp_path):
    """plot_text is the one way a name reaches matplotlib: a `$` pair
    that is no mathtext matplotlib can parse is drawn as typed, in every
    figure (issue 55, cause 8)."""
    bad = "add_$\\bogus{$"
    for name in ("timing.csv", "metrics.csv", "run.json"):
        rewrite(run_copy / name, lambda t: t.replace("add_f32x4_grid", bad))
    run = load_run(str(run_copy))
    out = plots.plot_study(study.single_run_study(run), str(tmp_path / "f"))
    assert {"dram_share", "instructions", "cache_tier"} <= set(out)
    for paths in out.values():
        check_outputs(paths)


def test_agg_canvas_size_either_rounding():
    """The palette PNG reads Agg's raw buffer at the size Agg made it: a
    side of 919.99... px is 919 on matplotlib 3.6 (rounded down) and 920
    on newer ones (rounded), and a buffer of neither size is an error,
    not a picture cut wrong (PyPI's 3.11 failed at 920 until 2026-11-29)."""
    from ewbench.analysis.report.plots import common
    size = (1180.0, 919.9999999)
    assert common._agg_size(size, 4 * 1180 * 919) == (1180, 919)
    assert common._agg_size(size, 4 * 1180 * 920) == (1180, 920)
    with pytest.raises(ValueError):
        common._agg_size(size, 4 * 1180 * 921)

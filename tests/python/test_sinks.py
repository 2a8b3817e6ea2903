"""Every string from the data made safe for the place it goes (issue 42,
items 4, 7, 8 and 13): markup, `$`, control characters and terminal
escapes in a device name, a run id, a variant, a host, a method and an
argument, rendered into report.md, report.html, the SVG figures,
contest.md, compare's Markdown and the messages."""

import json
import os
import re
import shutil
import xml.etree.ElementTree as ElementTree

import pytest

from ewbench.analysis.__main__ import EXIT_DATA, EXIT_OK, main
from ewbench.analysis.core import document as doc
from ewbench.analysis.core import sinks
from conftest import FIXTURE

# Each is a name ewbench would never write, and each breaks a sink that
# takes it raw: mathtext ($...$), HTML, Markdown emphasis, a code span, a
# link, a control character and a terminal escape.
DEVICE = "NVIDIA $\\frac{1}{$ H200 <script>alert(1)</script> **dev** \x01\x1b[2J"
RUN_ID = "run$x$<b>id</b>**rid**`tick`"
VARIANT = "add$\\frac{2}{$<i>v</i>**var**[l](#x)"
HOST = "<img src=x onerror=alert(2)>**host**"
METHOD = "__m__ <u>method</u> **meth**"
MARKERS = ("<script", "<b>", "<i>", "<img", "<u>", "**dev**", "**rid**",
           "**var**", "**host**", "**meth**", "](#x)")


def hostile_run(target):
    """A copy of the fixture with hostile strings in every kind of field
    (one variant renamed everywhere it appears)."""
    shutil.copytree(FIXTURE, target)
    path = os.path.join(target, "run.json")
    with open(path, encoding="utf-8") as f:
        manifest = json.load(f)
    manifest["device"]["name"] = DEVICE
    manifest["run_id"] = RUN_ID
    manifest["host"]["hostname"] = HOST
    manifest["argv"] = list(manifest["argv"]) + ["<b>arg</b>"]
    manifest["settings"]["variants"] = [
        VARIANT if v == "add_f32x4_grid" else v
        for v in manifest["settings"]["variants"]]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(manifest, f)
    for name in ("timing.csv", "metrics.csv", "ceilings.csv"):
        path = os.path.join(target, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        text = text.replace("20261121T204512Z-fixture-h100", RUN_ID)
        text = text.replace(",add_f32x4_grid,", ",%s," % VARIANT)
        text = text.replace('"read-only stream, 1 GiB"', '"%s"' % METHOD)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return target


def outside_code(markdown):
    """Markdown text with its code spans and backslash escapes taken out:
    what is left is read as markup."""
    text = re.sub(r"(`+)(?!`).+?(?<!`)\1(?!`)", " ", markdown, flags=re.S)
    return re.sub(r"\\[!-/:-@\[-`{-~]", " ", text)


def assert_no_markup_from_the_data(markdown):
    left = outside_code(markdown)
    for marker in MARKERS:
        assert marker not in left, (marker, [
            line for line in markdown.splitlines() if marker in
            outside_code(line)][:3])


@pytest.fixture
def hostile(tmp_path):
    return hostile_run(str(tmp_path / "hostile"))


def test_a_report_of_hostile_names_is_drawn_and_safe(hostile, tmp_path):
    # Item 4: two `$` in a name crashed the report inside matplotlib.
    out = tmp_path / "report"
    assert main(["report", hostile, "-o", str(out)]) == EXIT_OK
    # Item 7: a control character made the SVGs ill-formed XML.
    svgs = sorted((out / "figures").glob("*.svg"))
    assert svgs
    for svg in svgs:
        ElementTree.parse(str(svg))
        text = svg.read_text(encoding="utf-8")
        assert "\x01" not in text and "\x1b" not in text
    # The names are drawn as they are, escapes shown, `$` not math.
    footer = "$\\frac{1}{$ H200"
    assert any(footer in s.read_text(encoding="utf-8") for s in svgs)
    # Item 8: markup from the data reached report.md raw.
    md = (out / "report.md").read_text(encoding="utf-8")
    assert_no_markup_from_the_data(md)
    html = (out / "report.html").read_text(encoding="utf-8")
    for raw in ("<script", "<b>id", "<i>v", "<img src=x", "<u>method",
                "\x01", "\x1b"):
        assert raw not in html, raw
    assert "&lt;script&gt;" in html


def test_contest_and_compare_of_hostile_names_are_safe(hostile, tmp_path,
                                                       capsys):
    out = tmp_path / "c.md"
    assert main(["contest", hostile, hostile, "-o", str(out)]) == EXIT_OK
    assert_no_markup_from_the_data(out.read_text(encoding="utf-8"))
    out = tmp_path / "cmp.md"
    assert main(["compare", FIXTURE, hostile, "-o", str(out)]) == EXIT_OK
    text = out.read_text(encoding="utf-8")
    assert_no_markup_from_the_data(text)
    assert "\x1b" not in capsys.readouterr().out


def test_a_message_shows_escapes_and_stays_one_line(tmp_path, capsys):
    # Terminal: a data value in a message is shown, not obeyed.
    run = hostile_run(str(tmp_path / "r"))
    path = os.path.join(run, "run.json")
    with open(path, encoding="utf-8") as f:
        manifest = json.load(f)
    manifest["status"] = "bad\x1b[2J\nsecond line"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(manifest, f)
    assert main(["report", run, "-o", str(tmp_path / "o")]) == EXIT_DATA
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err, err


# The sinks themselves.

@pytest.mark.parametrize("text", [
    "add_f32", "dram__bytes_read.sum", "NVIDIA H100 80GB HBM3",
    "nvidia-h100-80gb-hbm3-20261121-204512", "reports/reference/nvidia-h100",
    "user:my_kernel", "GH100"])
def test_ordinary_names_are_left_as_they_are(text):
    assert sinks.markdown(text) == text
    assert sinks.code(text) == "`%s`" % text
    assert sinks.plot_text(text) == text
    assert sinks.terminal(text) == text


@pytest.mark.parametrize("text", [
    "~1M elements", "time <= 80 %", "a < b", "x & y", "add_f32 and dram__x",
    "**holds**", "`code`", "[1](#finding-1)"])
def test_authored_markup_is_written_as_it_is(text):
    assert doc._md_inline(text) == text


def test_markdown_and_html_read_the_same_text():
    for data in (VARIANT, RUN_ID, DEVICE, "a\\b", "`x`", "1. x"):
        for shown in (sinks.markdown(data), sinks.code(data)):
            html = doc.inline_html(shown)
            visible = sinks.visible(data)
            assert html.replace("<code>", "").replace("</code>", "") == \
                __import__("html").escape(visible, quote=False), (data, html)


def test_plot_text_never_starts_mathtext():
    from matplotlib.figure import Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    fig = Figure()
    FigureCanvasAgg(fig)
    fig.text(0.1, 0.5, sinks.plot_text(DEVICE))
    fig.canvas.draw()       # mathtext would raise here


def test_terminal_is_bounded_and_one_line():
    text = sinks.terminal("x" * 100000 + "\n\x1b", 80)
    assert len(text) < 120 and "\n" not in text
    assert text.endswith("... (100002 characters)")


def test_a_fleet_report_of_hostile_names_is_safe(tmp_path):
    from fleet_fixtures import make_fleet_dir
    member = "h-gpu0<b>m</b>**mem**$x$"
    root = make_fleet_dir(str(tmp_path / "f"), [member, "h-gpu1"],
                          slow={"h-gpu1": 0.8})
    out = tmp_path / "out"
    assert main(["fleet-report", root, "-o", str(out)]) == EXIT_OK
    md = (out / "report.md").read_text(encoding="utf-8")
    left = outside_code(md)
    for marker in ("<b>", "**mem**"):
        assert marker not in left, [line for line in md.splitlines()
                                    if marker in outside_code(line)][:3]
    for svg in (out / "figures").glob("*.svg"):
        ElementTree.parse(str(svg))

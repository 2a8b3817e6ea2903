"""report.md and report.html from the fixture."""

import os
import re

import pytest

from analysis import document as doc
from analysis import plots, report


@pytest.fixture(scope="module")
def written(fixture_run, tmp_path_factory):
    """(report dir, md path, html path, findings), drawn once per module."""
    out = tmp_path_factory.mktemp("report")
    md, html, judged = report.write_report(fixture_run, str(out),
                                           plots.plot_all)
    return out, md, html, judged


def test_markdown_has_every_section_and_six_verdicts(written):
    _, md_path, _, judged = written
    text = open(md_path, encoding="utf-8").read()
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings == list(report.SECTIONS)
    for number in range(1, 7):
        assert "### Finding %d" % number in text
    verdicts = re.findall(r"^\*\*Verdict: (holds|does not hold|not testable "
                          r"with this data)\*\*$", text, re.M)
    assert len(verdicts) == 6
    assert verdicts == [f.verdict for f in judged]
    assert "FIXTURE DATA" in text


def test_markdown_tables_are_well_formed(written):
    md_path = written[1]
    lines = open(md_path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("| ") and lines[i + 1].startswith("|---"):
            width = lines[i].count(" | ") + 1
            j = i + 2
            while j < len(lines) and lines[j].startswith("| "):
                cells = re.split(r"(?<!\\) \| ", lines[j])
                assert len(cells) == width, lines[j]
                j += 1
            i = j
        else:
            i += 1


def test_markdown_images_exist(written):
    tmp_path, md_path = written[0], written[1]
    text = open(md_path, encoding="utf-8").read()
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert len(images) == 4
    for rel in images:
        assert os.path.getsize(tmp_path / rel) > 0
        assert os.path.exists(tmp_path / rel.replace(".png", ".svg"))


def test_html_is_self_contained(written):
    html_path = written[2]
    text = open(html_path, encoding="utf-8").read()
    assert text.startswith("<!DOCTYPE html>")
    sources = re.findall(r'<img[^>]*src="([^"]+)"', text)
    assert len(sources) == 4
    assert all(s.startswith("data:image/png;base64,") for s in sources)
    assert not re.search(r'(src|href)\s*=\s*"https?:', text)
    assert "<link" not in text and "<script" not in text
    assert text.count("<h2 id=") == len(report.SECTIONS)


def test_document_renderers_escape_and_mark_up():
    blocks = [doc.Heading(2, "A <b> & c"),
              doc.Paragraph("use `x|y` and **bold**"),
              doc.Table(("k", "v"), (("a|b", "1"),))]
    md = doc.render_markdown(blocks)
    assert "| a\\|b | 1 |" in md
    html = doc.render_html(blocks, "t", ".")
    assert '<h2 id="a-b--c">A &lt;b&gt; &amp; c</h2>' in html
    assert "<code>x|y</code>" in html and "<strong>bold</strong>" in html
    # Links, and GitHub's heading anchors, in both renderings.
    linked = [doc.Paragraph("see [the sweep](sweep/report/report.html) "
                            "and [findings](#%s)" % doc.anchor("Findings"))]
    assert '<a href="sweep/report/report.html">the sweep</a>' in \
        doc.render_html(linked, "t", ".")
    assert "[findings](#findings)" in doc.render_markdown(linked)


def test_report_of_run_without_counters(run_copy, tmp_path):
    from analysis.load import load_run
    os.remove(run_copy / "metrics.csv")
    run = load_run(str(run_copy))
    md_path, _, judged = report.write_report(
        run, str(tmp_path), lambda *args: {})     # figures tested elsewhere
    by_number = {f.number: f for f in judged}
    assert by_number[4].verdict == "not testable with this data"
    assert "No counters" in open(md_path, encoding="utf-8").read()


def test_warm_slower_than_cold_is_a_threat(run_copy):
    import dataclasses
    from analysis.load import load_run
    run = load_run(str(run_copy))
    assert report.warm_slower_than_cold(run) == []
    points = tuple(dataclasses.replace(p, time_median_ns=3 * p.time_median_ns)
                   if (p.variant, p.n, p.cache) == ("add_f16", 1 << 20, "warm")
                   else p for p in run.points)
    run = dataclasses.replace(run, points=points)
    assert report.warm_slower_than_cold(run) == ["add_f16@1Mi"]
    text = doc.render_markdown(report.threats_section(run))
    assert "**Warm slower than cold** at add_f16@1Mi" in text

"""report.md and report.html from the fixture, as one run and as a study."""

import json
import os
import re

import pytest

from ewbench.analysis.core import document as doc
from ewbench.analysis.report import findings as fnd
from ewbench.analysis.report import plots
from ewbench.analysis.report import page as report
from ewbench.analysis.core import study


@pytest.fixture(scope="module")
def written(tmp_path_factory, figures_once):
    """(report dir, md path, html path, findings) of a fixture study (its
    figures drawn once a session: conftest.FiguresDrawnOnce)."""
    from conftest import make_study_dir
    root = make_study_dir(tmp_path_factory.mktemp("study"))
    out = root / "report"
    md, html, judged = report.write_report(study.load_study(str(root)),
                                           str(out), figures_once.plot_study)
    return out, md, html, judged


def test_markdown_has_every_section_and_six_verdicts(written):
    _, md_path, _, judged = written
    text = open(md_path, encoding="utf-8").read()
    headings = re.findall(r"^## (.+)$", text, re.M)
    # The fixture has no energy/ part and no experiments/ run: no Energy
    # per byte section, no Predictions scored.
    assert headings == ["Answers", "Contents"] + [
        t for a, t in report.SECTIONS if a not in ("energy", "predictions")]
    for number in fnd.NUMBERS:
        assert re.search(r"^### Finding %d: " % number, text, re.M)
    assert [f.verdict for f in judged] == re.findall(
        r"^\| \[\d\]\(#finding-\d-[\w-]+\) \| [^|]+ \| "
        r"\*\*([^*]+)\*\*[^|]* \|",
        text, re.M)
    # each row links to its finding's section, by the anchor GitHub gives
    # its heading (report.md has no <a id> of its own)
    slugs = {doc.github_slug(h) for h in re.findall(r"^#+ (.+)$", text, re.M)}
    for number in fnd.NUMBERS:
        target = re.search(r"^\| \[%d\]\(#([\w-]+)\)" % number, text,
                           re.M).group(1)
        assert target.startswith("finding-%d-" % number) and target in slugs
    assert "FIXTURE DATA" in text


def _prose(md):
    """The lines of Markdown outside tables and code blocks."""
    fenced = False
    for line in md.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and not line.startswith("|"):
            yield line


def test_markdown_reads_in_a_terminal(written):
    """Issue 41: report.md had 155 lines over 200 characters and raw
    <a id>/<details> tags.  Now: prose wrapped, no HTML, and every
    in-page link goes to a heading GitHub anchors."""
    text = open(written[1], encoding="utf-8").read()
    assert not re.search(r"</?(a|details|summary)\b", text)
    long = [line for line in _prose(text) if len(line) > doc.WRAP]
    assert not [line for line in long if len(line) > 120], long
    assert len(long) <= 3, long
    # The anchors GitHub gives the headings, repeats numbered.
    slugs = set(doc.markdown_targets([
        doc.Heading(1, h, str(i)) for i, h in
        enumerate(re.findall(r"^#+ (.+)$", text, re.M))]).values())
    links = re.findall(r"\]\(#([^)]+)\)", text)
    assert len(links) >= 12 and set(links) <= slugs, set(links) - slugs


def test_github_slug_is_githubs():
    """github-slugger's rule: lower case, letters, numbers, '-' and '_'
    kept, spaces to '-', the rest (an em dash, '~', ':') dropped."""
    assert doc.github_slug("Finding 1: ~1M elements: the launch sets the "
                           "time — **holds**") == \
        "finding-1-1m-elements-the-launch-sets-the-time--holds"
    assert doc.github_slug("### `article/`, cold".lstrip("# ")) == \
        "article-cold"
    assert doc.github_slug("ewbench's fastest add_f32 at 1.5 µs") == \
        "ewbenchs-fastest-add_f32-at-15-µs"
    blocks = [doc.Heading(2, "Results"), doc.Table(("a",), (), "t"),
              doc.Heading(3, "Results", "again")]
    assert doc.markdown_targets(blocks) == {"t": "results",
                                            "again": "results-1"}


def test_wrapped_prose_opens_no_block():
    words = ["word"] * 30
    for opener in ("-", "+", "*", "#", "1.", "2)", ">", "|", "<b>", "==",
                   "---", "```"):
        text = " ".join(words[:17] + [opener] + words)
        md = doc.render_markdown([doc.Paragraph(text)])
        for line in md.split("\n")[1:]:
            assert not line.startswith(opener), (opener, md)
        # the same words, once Markdown has read its escapes (sinks)
        assert re.sub(r"\\(.)", r"\1", " ".join(md.split())) == text


def test_a_shipped_reference_says_so_first(tmp_path):
    """Issue 41: a rendered reference said nothing of being one; read
    later, it passed for a measurement of the machine that rendered it."""
    import shutil
    from conftest import FIXTURE, unwrapped
    root = tmp_path / "reports" / "reference" / "fixture-gpu"
    for part in ("ceilings", "article"):
        shutil.copytree(FIXTURE, root / part)
    out = tmp_path / "rendered"
    md_path, html_path, _ = report.write_report(
        study.load_study(str(root)), str(out), lambda *args: {})
    md = open(md_path, encoding="utf-8").read()
    first = md.split("\n\n")[2]       # after the title and the fixture's
    assert first.startswith("> **Shipped reference: a study of one NVIDIA "
                            "H100 80GB HBM3")
    assert unwrapped(first) == (
        "> **Shipped reference: a study of one NVIDIA H100 80GB HBM3 "
        "(fixture), measured on 2026-11-21 at commit `fixture`, rendered "
        "from `reports/reference/fixture-gpu/`. A reading of the data "
        "ewbench ships, not a measurement of the machine that rendered "
        "it.**")
    html = open(html_path, encoding="utf-8").read()
    banner = html.index("Shipped reference: a study of one")
    assert banner < html.index("<h2")
    # Anywhere else, no such words.
    other = tmp_path / "mine"
    shutil.copytree(root, other)
    md_path, _, _ = report.write_report(study.load_study(str(other)),
                                        str(tmp_path / "r2"),
                                        lambda *args: {})
    assert "Shipped reference" not in open(md_path, encoding="utf-8").read()


def test_answers_come_before_the_contents(written):
    text = open(written[1], encoding="utf-8").read()
    first = text.index("## Contents")
    for piece in ("| # | claim | verdict | deciding number |",
                  "### ewbench's fastest add against cub and PyTorch",
                  "### Study variants that fall short"):
        assert text.index(piece) < first
    # A peer is never presented as ewbench's fastest.
    for line in text[:first].splitlines():
        if line.startswith("| DRAM") or line.startswith("| L2"):
            assert "`cub_" not in line.split("|")[3]
            assert "`torch_" not in line.split("|")[3]


def test_markdown_tables_are_well_formed(written):
    md_path = written[1]
    lines = open(md_path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines) - 1:
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


def test_markdown_images_are_the_svgs_beside_it(written):
    out, md_path = written[0], written[1]
    text = open(md_path, encoding="utf-8").read()
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert len(images) >= 3
    for rel in images:
        assert rel.endswith(".svg") and os.path.getsize(out / rel) > 0
    assert not [f for f in os.listdir(out / "figures")
                if f.endswith(".png")]


def test_html_is_self_contained_and_links_every_anchor(written):
    out, html_path = written[0], written[2]
    text = open(html_path, encoding="utf-8").read()
    assert text.startswith("<!DOCTYPE html>")
    sources = re.findall(r'<img[^>]*src="([^"]+)"', text)
    assert len(sources) >= 3
    assert all(s.startswith("data:image/png;base64,") for s in sources)
    assert not re.search(r'(src|href)\s*=\s*"https?:', text)
    assert "<link" not in text and "<script" not in text
    ids = set(re.findall(r' id="([^"]+)"', text))
    for target in re.findall(r'href="#([^"]+)"', text):
        assert target in ids
    for target in re.findall(r'href="(figures/[^"]+)"', text):
        assert os.path.exists(out / target)
    assert report.FINDINGS_TABLE in ids
    assert os.path.getsize(html_path) < 1.5e6


def test_document_renderers_escape_and_mark_up():
    blocks = [doc.Heading(2, "A <b> & c", "a"),
              doc.Paragraph("use `x|y` and **bold**"),
              doc.Table(("k", "v"), (("a|b", "1"),)),
              doc.Details("more", (doc.Paragraph("inside"),)),
              doc.Toc((("a", "A"),))]
    md = doc.render_markdown(blocks)
    assert "| a\\|b | 1 |" in md
    assert "**more**\n\ninside\n\n" in md and "details" not in md
    assert "- [A](#a-b--c)" in md
    html = doc.render_html(blocks, "t", ".")
    assert '<h2 id="a">A &lt;b&gt; &amp; c</h2>' in html
    assert "<code>x|y</code>" in html and "<strong>bold</strong>" in html
    assert '<a href="#a">A</a>' in html and "<summary>more</summary>" in html


def test_report_of_run_without_counters(run_copy, tmp_path):
    from ewbench.analysis.core.load import load_run
    os.remove(run_copy / "metrics.csv")
    run = load_run(str(run_copy))
    md_path, _, judged = report.write_report(
        run, str(tmp_path / "out"), lambda *args: {})   # figures: elsewhere
    by_number = {f.number: f for f in judged}
    assert by_number[4].verdict == "not testable with this data"
    text = open(md_path, encoding="utf-8").read()
    assert "has no counters" in text
    # One run is not titled a study (issue 54).
    assert text.startswith("# ewbench run: ")


def test_a_study_is_titled_so_and_its_spread_unit_explained(written):
    _, md_path, _, judged = written
    text = open(md_path, encoding="utf-8").read()
    assert text.startswith("# ewbench study: ")
    table, after = text.split("\n## Answers\n\n", 1)[1].split("\n\n", 1)
    assert "the cross-host spread" in table
    assert " ".join(after.split()).startswith(
        "Nx the cross-host spread S %: a difference in units of how far "
        "this GPU's results move")


def test_reproduce_lists_every_part(tmp_path):
    """experiments/ and each repeats/round-N/ with its command, in the
    order make report runs them (issue 54)."""
    import shutil
    from conftest import make_study_dir
    root = make_study_dir(tmp_path / "study")
    shutil.copytree(root / "article", root / "experiments")
    for r in (1, 2):
        shutil.copytree(root / "article", root / "repeats" / ("round-%d" % r))
    for part in ("ceilings", "article", "sweep", "blocks", "experiments",
                 "repeats/round-1", "repeats/round-2"):
        # Each run as make report names it (the fixture's argv has no -o).
        with open(root / part / "run.json", encoding="utf-8") as f:
            manifest = json.load(f)
        manifest["argv"] += ["-o", "s/" + part]
        with open(root / part / "run.json", "w", encoding="utf-8") as f:
            json.dump(manifest, f)
    blocks = report.reproduce_section(study.load_study(str(root)))
    code = [b.text for b in blocks if hasattr(b, "text") and
            "ewbench " in b.text][0]
    outs = re.findall(r" -o (STUDY/\S+)$", code, re.M)
    assert outs == ["STUDY/ceilings", "STUDY/article", "STUDY/sweep",
                    "STUDY/blocks", "STUDY/experiments",
                    "STUDY/repeats/round-1", "STUDY/repeats/round-2",
                    "STUDY/report"]


def test_warm_slower_than_cold_is_a_threat(run_copy):
    import dataclasses
    from ewbench.analysis.report import model
    from ewbench.analysis.core.load import load_run
    run = load_run(str(run_copy))
    assert model.warm_slower_than_cold(run) == []
    points = tuple(dataclasses.replace(p, time_median_ns=3 * p.time_median_ns)
                   if (p.variant, p.n, p.cache) == ("add_f16", 1 << 20, "warm")
                   else p for p in run.points)
    run = dataclasses.replace(run, points=points)
    # The fixture's cold 1Mi add_f16 takes 5.8 µs, beyond 2 x its 2.25 µs
    # launch floor: not launch scale, so not a host-timing artefact.
    assert model.warm_slower_than_cold(run) == []
    ceilings = dict(run.ceilings)
    ceilings["launch_stream"] = dataclasses.replace(
        ceilings["launch_stream"], value=4000.0)
    run = dataclasses.replace(run, ceilings=ceilings)
    slow = model.warm_slower_than_cold(run)
    assert [(p.variant, p.n) for p in slow] == [("add_f16", 1 << 20)]
    s = study.single_run_study(run)
    text = doc.render_markdown(report.threats_section(s, fnd.make_context(s)))
    assert "**warm slower than cold** at add_f16@1Mi" in text
    verdicts = dict(model.classify_run(run))
    assert verdicts[slow[0]].name == model.LAUNCH_BOUND


def test_method_names_where_the_torch_rows_are(run_copy, tmp_path):
    from ewbench.analysis.report import page as report
    from ewbench.analysis.core import study
    from test_peers import move_torch_rows

    def method_text(directory):
        loaded = study.open_study(str(directory))
        blocks = report.method_section(loaded)
        return " ".join(getattr(b, "text", "") for b in blocks)
    assert "appended to `timing.csv` by `python3 -m analysis torch`" in \
        method_text(run_copy)
    move_torch_rows(run_copy)
    assert "measured by `ewbench torch` into " \
        "`peer-torch.csv`" in method_text(run_copy)


def test_reproduce_names_the_peer_tool(fixture_dir):
    from ewbench.analysis.report import page as report
    from ewbench.analysis.core import study
    blocks = report.reproduce_section(study.open_study(fixture_dir))
    code = [b.text for b in blocks if hasattr(b, "text") and
            "ewbench " in b.text]
    assert any("ewbench torch RUN_DIR" in t for t in code)
    assert not any("analysis torch" in t for t in code)

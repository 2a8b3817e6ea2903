"""report.html as a person sees it: headless Chromium at 1400x900.

Renders the report of a study directory made of the fixture, opens it in
Chromium and checks, from inside the page, that every image decoded,
every in-page link (the table of contents, the findings) has its target,
and the findings table ends within the first screen; the SVGs the figures
link to exist; a screenshot of the first screen is saved (its path is
printed; EWB_SCREENSHOT=FILE keeps a copy).  Skips, saying why, where no
Chromium is installed (apt-get install chromium).
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

# tests/browser.sh puts the package (python/) on PYTHONPATH; the study of
# the fixture is made as tests/python's conftest makes it.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
from conftest import make_study_dir  # noqa: E402
WIDTH, HEIGHT = 1400, 900
PROBE_ID = "ewb-browser-check"
MAX_HTML_BYTES = 1.5e6

# Runs in the page once everything has loaded; writes what it found into
# a <pre> that --dump-dom prints.
PROBE = """<script>
window.addEventListener("load", function () {
  var r = {};
  var imgs = Array.prototype.slice.call(document.images);
  r.images = imgs.length;
  r.broken = imgs.filter(function (i) {
    return !(i.complete && i.naturalWidth > 0); }).map(function (i) {
    return i.alt; });
  var links = Array.prototype.slice.call(
    document.querySelectorAll('a[href^="#"]'));
  r.anchors = links.length;
  r.unresolved = links.map(function (a) {
    return a.getAttribute("href").slice(1); }).filter(function (id) {
    return !document.getElementById(id); });
  var t = document.getElementById("findings-table");
  r.findings_bottom = t ? t.getBoundingClientRect().bottom : null;
  r.findings_rows = t ? t.rows.length : 0;
  r.viewport = [window.innerWidth, window.innerHeight];
  var pre = document.createElement("pre");
  pre.id = "%s";
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
});
</script>""" % PROBE_ID


def chromium():
    override = os.environ.get("CHROMIUM")
    if override:
        return override
    for name in ("chromium", "chromium-browser", "google-chrome",
                 "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


BROWSER = chromium()
pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no Chromium here (apt-get install chromium, or "
    "set CHROMIUM=/path/to/chrome)")


def run_browser(*args):
    command = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
               "--hide-scrollbars", "--window-size=%d,%d" % (WIDTH, HEIGHT),
               *args]
    return subprocess.run(command, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    from ewbench.analysis.report import plots
    from ewbench.analysis.report import page as report
    from ewbench.analysis.core import study
    root = make_study_dir(tmp_path_factory.mktemp("study"))
    out = root / "report"
    report.write_report(study.load_study(str(root)), str(out),
                        plots.plot_study)
    return out


@pytest.fixture(scope="module")
def probed(report_dir):
    html = (report_dir / "report.html").read_text(encoding="utf-8")
    probe = report_dir / "probe.html"
    probe.write_text(html.replace("</body>", PROBE + "\n</body>"),
                     encoding="utf-8")
    proc = run_browser("--virtual-time-budget=10000", "--dump-dom",
                       probe.as_uri())
    match = re.search(r'<pre id="%s">(.*?)</pre>' % PROBE_ID, proc.stdout,
                      re.S)
    assert match, "the probe did not run: %s" % proc.stderr[-2000:]
    return json.loads(match.group(1).replace("&quot;", '"')
                      .replace("&amp;", "&").replace("&lt;", "<")
                      .replace("&gt;", ">"))


def test_every_figure_loads(probed, report_dir):
    assert probed["images"] >= 3
    assert probed["broken"] == []
    html = (report_dir / "report.html").read_text(encoding="utf-8")
    for target in re.findall(r'href="(figures/[^"]+\.svg)"', html):
        assert (report_dir / target).stat().st_size > 0


def test_every_in_page_link_resolves(probed):
    assert probed["anchors"] >= 9        # the table of contents at least
    assert probed["unresolved"] == []


def test_first_screen_holds_the_findings_table(probed):
    # Headless Chromium keeps room for its window frame: the page may see
    # fewer than HEIGHT rows, and the table must fit in what it sees.
    width, height = probed["viewport"]
    assert width == WIDTH and 0 < height <= HEIGHT
    assert probed["findings_rows"] == 7  # header and six findings
    assert 0 < probed["findings_bottom"] <= height


def test_page_is_small_and_self_contained(report_dir):
    html = (report_dir / "report.html").read_text(encoding="utf-8")
    assert len(html.encode("utf-8")) <= MAX_HTML_BYTES
    assert "<script" not in html and not re.search(
        r'(src|href)\s*=\s*"https?:', html)


def test_screenshot_of_the_first_screen(report_dir):
    shot = report_dir / "first-screen.png"
    proc = run_browser("--screenshot=%s" % shot,
                       (report_dir / "report.html").as_uri())
    assert shot.exists() and shot.stat().st_size > 10_000, proc.stderr
    keep = os.environ.get("EWB_SCREENSHOT")
    if keep:
        shutil.copyfile(shot, keep)
    print("first screen: %s" % (keep or shot))

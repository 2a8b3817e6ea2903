"""Shared pytest fixtures: the checked-in fixture run and writable copies.

The source tree's python/ goes on sys.path, and on PYTHONPATH for the
commands the tests start, so that `import ewbench.analysis` works from any
working directory (make check runs from the build tree).
"""

import os
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PYTHON_DIR = os.path.join(ROOT, "python")
PACKAGE = os.path.join(PYTHON_DIR, "ewbench")
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)
os.environ["PYTHONPATH"] = os.pathsep.join(
    [PYTHON_DIR] + [p for p in [os.environ.get("PYTHONPATH")] if p])

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "h100-fixture")


def unwrapped(md):
    """Markdown with each paragraph, list item and quote on one line again
    (document.py wraps prose for a terminal), for tests that look for a
    sentence or a line; tables and code are left as they are."""
    out, fenced = [], False
    for line in md.split("\n"):
        prev = out[-1] if out else ""
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line and prev and \
                not prev.startswith(("|", "```", "#")) and \
                not line.startswith(("|", "- ", "#", "![")):
            out[-1] = prev + " " + (line[2:] if line.startswith("> ")
                                    else line.strip())
            continue
        out.append(line)
    return "\n".join(out)


@pytest.fixture
def fixture_dir():
    return FIXTURE


@pytest.fixture
def run_copy(tmp_path):
    """A writable copy of the fixture run directory."""
    target = tmp_path / "run"
    shutil.copytree(FIXTURE, target)
    return target


@pytest.fixture(scope="session")
def fixture_report(tmp_path_factory):
    """The fixture run's report (report.md, report.html, figures/),
    rendered once a session.  A test that needs a previous report in its
    output directory copies this one (shutil.copytree) instead of drawing
    its own, some 5 s of CPU each: a render of one run is the same byte for
    byte (test_plots.py, test_figures_are_deterministic) and names no path,
    so the copy is what the test's own render would have left.  Never
    write into it."""
    from ewbench.analysis.__main__ import EXIT_OK, main
    root = tmp_path_factory.mktemp("fixture-report")
    shutil.copytree(FIXTURE, root / "run")
    out = root / "report"
    assert main(["report", str(root / "run"), "-o", str(out)]) == EXIT_OK
    return out


@pytest.fixture(scope="session")
def fixture_run():
    from ewbench.analysis.core.load import load_run
    return load_run(FIXTURE)


def rewrite(path, edit):
    """Replace a file's text by edit(text)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(edit(text))


def make_study_dir(root):
    """A study directory made of the fixture, at root (a pathlib.Path):
    ceilings/ (the fixture with its ceilings.csv), article/ and sweep/
    (the fixture's points) and blocks/ (its add_f32 block sweep).
    Structure, not physics: every part is the same synthetic run."""
    for part in ("ceilings", "article", "sweep", "blocks"):
        shutil.copytree(FIXTURE, root / part)
        if part != "ceilings":
            os.remove(root / part / "ceilings.csv")
    return root


@pytest.fixture
def study_dir(tmp_path):
    """make_study_dir in tmp_path/study."""
    return make_study_dir(tmp_path / "study")


TIME_COLUMNS = ("time_median_ns", "time_min_ns", "time_max_ns",
                "time_mean_ns", "time_stddev_ns")
RATE_COLUMNS = ("bandwidth_median_bytes_per_s", "bandwidth_max_bytes_per_s",
                "spec_dram_pct")


def scale_times(run_dir, factors, block="256"):
    """Make chosen points of a run slower or faster, consistently: factors
    maps (variant, n, cache) to a factor for the time columns of that row
    of timing.csv (at the given block); its bandwidth columns get the
    inverse, so the row still obeys bandwidth = bytes / time."""
    def edit(text):
        lines = text.split("\n")
        header = lines[0].split(",")
        for i, line in enumerate(lines[1:], 1):
            f = line.split(",")
            if len(f) < len(header) or f[header.index("block")] != block:
                continue
            factor = factors.get((f[1], int(f[4]), f[6]))
            if factor is None:
                continue
            for names, scale in ((TIME_COLUMNS, factor),
                                 (RATE_COLUMNS, 1 / factor)):
                for name in names:
                    c = header.index(name)
                    if f[c]:
                        f[c] = "%.17g" % (float(f[c]) * scale)
            lines[i] = ",".join(f)
        return "\n".join(lines)
    rewrite(os.path.join(run_dir, "timing.csv"), edit)

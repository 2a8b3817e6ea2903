"""Shared pytest fixtures: the checked-in fixture run and writable copies.

The source tree's python/ goes on sys.path, and on PYTHONPATH for the
commands the tests start, so that `import ewbench.analysis` works from any
working directory (make check runs from the build tree).
"""

import hashlib
import json
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


class FiguresDrawnOnce:
    """plot_study(study, outdir, marks) as a report calls it (the
    argument of report.write_report; plots.plot_study for `main`), but
    each study's figures drawn once a session (a worker's) and copied
    into outdir after, some 5 s of CPU each time: for the tests of what a
    render does around its figures (its words, its swap, its staging),
    not of the figures (test_plots.py, tests/references.sh draw their
    own).  A study's figures drawn twice are the same (the SVGs byte for
    byte: test_plots.py, test_figures_are_deterministic; the PNG previews
    to a few pixels) and name no path, so the copies are what the test's
    own drawing would have written.  Two studies are the same when the
    files they are read from are (_key).  A fleet report's figure alike
    (plot_fleet, about 0.5 s each).  The drawings are kept in root, one
    folder a study or fleet (its figures and NAMES: {figure: [file
    names]}), each moved in whole: pytest-xdist's workers share one."""

    NAMES = "names.json"

    def __init__(self, root):
        from ewbench.analysis.fleet import plots as fleet_plots
        self.root = root
        # The drawing itself (report_figures_drawn_once puts plot_fleet
        # in its place).
        self._plot_fleet = fleet_plots.plot_fleet

    @staticmethod
    def _key(roots, outdir, extra):
        """A digest of what the figures are drawn from: extra (the marks,
        a fleet's name) and every file, by its path, under roots, less the
        output (outdir, or the report whose staging's figures/ it is);
        None where one of them is a link or neither a file nor a folder,
        or the output holds them."""
        from ewbench.analysis.core import atomic
        report = os.path.realpath(outdir)
        if atomic.is_stage(os.path.basename(os.path.dirname(report))):
            report = os.path.dirname(os.path.dirname(report))
        digest = hashlib.sha256(repr(extra).encode())
        for root in roots:
            root = os.path.realpath(root)
            if report == root or root.startswith(report + os.sep):
                return None
            digest.update(b"\0root\0")
            for folder, dirs, files in os.walk(root):
                dirs[:] = sorted(d for d in dirs if os.path.realpath(
                    os.path.join(folder, d)) != report)
                for name in sorted(dirs + files):
                    path = os.path.join(folder, name)
                    if os.path.islink(path) or not (
                            os.path.isdir(path) or os.path.isfile(path)):
                        return None
                    digest.update(b"\0%s\0" % os.path.relpath(
                        path, root).encode())
                    if name in files:
                        with open(path, "rb") as f:
                            digest.update(f.read())
        return digest.hexdigest()

    def _drawn_once(self, key, outdir, draw):
        """draw()'s {name: [paths]} in outdir, drawn the first time a key
        is asked for, copied from the kept drawing after."""
        kept = os.path.join(self.root, key) if key else None
        if kept and os.path.isfile(os.path.join(kept, self.NAMES)):
            with open(os.path.join(kept, self.NAMES), encoding="utf-8") as f:
                names = json.load(f)
            os.makedirs(outdir, exist_ok=True)
            return {name: [shutil.copy(os.path.join(kept, f),
                                       os.path.join(outdir, f))
                           for f in files]
                    for name, files in names.items()}
        figures = draw()
        if kept:
            part = "%s.%d.part" % (kept, os.getpid())
            os.makedirs(part)
            for paths in figures.values():
                for path in paths:
                    shutil.copy(path, part)
            with open(os.path.join(part, self.NAMES), "w",
                      encoding="utf-8") as f:
                json.dump({name: [os.path.basename(p) for p in paths]
                           for name, paths in figures.items()}, f)
            try:
                os.rename(part, kept)
            except OSError:             # another worker's came first
                shutil.rmtree(part)
        return figures

    def plot_study(self, study, outdir, marks=None):
        from ewbench.analysis.report.plots import study as plot_module
        roots = [study.path] + [r.path for _, r in study.every_run()]
        if study.ceilings_path:
            roots.append(study.ceilings_path)
        key = self._key(roots, outdir, sorted((marks or {}).items()))
        return self._drawn_once(key, outdir, lambda: plot_module.plot_study(
            study, outdir, marks))

    def plot_fleet(self, judged, outdir):
        """fleet.plots.plot_fleet(judged, outdir) as a fleet report calls
        it, drawn once a session for each fleet folder's files and name
        (the figure's footer names the folder, never its path)."""
        path = judged.fleet.path
        key = self._key([path], outdir, ("fleet", os.path.basename(
            os.path.normpath(path))))
        figure = self._drawn_once(key, outdir, lambda: {
            "fleet": self._plot_fleet(judged, outdir) or []})
        return figure["fleet"] or None


@pytest.fixture(scope="session")
def figures_once(tmp_path_factory):
    """The session's FiguresDrawnOnce, one for all pytest-xdist workers:
    in the folder above theirs (xdist gives each worker a folder in the
    session's)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    root = base / "figures-once"
    root.mkdir(exist_ok=True)
    return FiguresDrawnOnce(str(root))


@pytest.fixture
def report_figures_drawn_once(monkeypatch, figures_once):
    """`main(["report", ...])` and `main(["fleet-report", ...])` with
    their figures from figures_once (a test of what the command does
    around its figures)."""
    from ewbench.analysis.fleet import plots as fleet_plots
    from ewbench.analysis.report import plots
    monkeypatch.setattr(plots, "plot_study", figures_once.plot_study)
    monkeypatch.setattr(fleet_plots, "plot_fleet", figures_once.plot_fleet)


@pytest.fixture(scope="session")
def fixture_report(tmp_path_factory, figures_once):
    """The fixture run's report (report.md, report.html, figures/),
    rendered once a session (its figures drawn: the first of
    figures_once's).  A test that needs a previous report in its output
    directory copies this one (shutil.copytree) instead of drawing its
    own, some 5 s of CPU each: a render of one run is the same byte for
    byte (test_plots.py, test_figures_are_deterministic) and names no path,
    so the copy is what the test's own render would have left.  Never
    write into it."""
    from ewbench.analysis.__main__ import EXIT_OK, main
    from ewbench.analysis.report import plots
    root = tmp_path_factory.mktemp("fixture-report")
    shutil.copytree(FIXTURE, root / "run")
    out = root / "report"
    real = plots.plot_study
    plots.plot_study = figures_once.plot_study
    try:
        assert main(["report", str(root / "run"), "-o", str(out)]) == EXIT_OK
    finally:
        plots.plot_study = real
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

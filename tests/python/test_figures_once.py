"""conftest.FiguresDrawnOnce, which the tests of a report's words and
outputs draw their figures through: a study read from the same files is
drawn once and copied after, by every worker sharing its folder; one
whose files or marks differ is drawn again; the output being written is
no part of what is compared."""

import json
import os
import shutil

import pytest

from ewbench.analysis.core import study as stu
from ewbench.analysis.report.plots import study as plot_module
from conftest import FiguresDrawnOnce


@pytest.fixture
def drawings(monkeypatch):
    """[outdir] of every real plot_study call; each draws one file saying
    which call it was."""
    calls = []

    def draw(study, outdir, marks=None):
        calls.append(outdir)
        os.makedirs(outdir)
        path = os.path.join(outdir, "f.svg")
        with open(path, "w", encoding="utf-8") as f:
            f.write("drawing %d\n" % len(calls))
        return {"f": [path]}
    monkeypatch.setattr(plot_module, "plot_study", draw)
    return calls


def _draw(once, study_dir, outdir, marks=None):
    figures = once.plot_study(stu.load_study(str(study_dir)), str(outdir),
                              marks)
    with open(figures["f"][0], encoding="utf-8") as f:
        return f.read()


def test_a_study_is_drawn_once_and_a_changed_one_again(study_dir, tmp_path,
                                                       drawings):
    once = FiguresDrawnOnce(str(tmp_path / "kept"))
    assert _draw(once, study_dir, tmp_path / "a") == "drawing 1\n"
    # Another worker's, in the same folder.
    other = FiguresDrawnOnce(str(tmp_path / "kept"))
    assert _draw(other, study_dir, tmp_path / "w") == "drawing 1\n"
    # Its own report's staging, inside the study (made as the figures
    # are copied, as plot_study makes it): the same study.
    stage = study_dir / "report" / ".render-h-1-x.tmp" / "figures"
    assert _draw(once, study_dir, stage) == "drawing 1\n"
    assert len(drawings) == 1 and (stage / "f.svg").is_file()
    shutil.rmtree(study_dir / "report")
    assert _draw(once, study_dir, tmp_path / "n") == "drawing 1\n"
    assert _draw(once, study_dir, tmp_path / "m", {"effective_l2": 1}) == \
        "drawing 2\n"
    run_json = study_dir / "sweep" / "run.json"
    doc = json.loads(run_json.read_text())
    run_json.write_text(json.dumps(doc, indent=3))      # the same data
    assert _draw(once, study_dir, tmp_path / "b") == "drawing 3\n"
    os.symlink(run_json, study_dir / "sweep" / "link.json")
    assert _draw(once, study_dir, tmp_path / "c") == "drawing 4\n"
    assert _draw(once, study_dir, tmp_path / "d") == "drawing 5\n"

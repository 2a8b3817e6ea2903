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


def test_a_fleet_is_drawn_once_and_a_changed_or_renamed_one_again(
        tmp_path, monkeypatch):
    from ewbench.analysis.fleet import answers, members
    from ewbench.analysis.fleet import plots as fleet_plots
    from fleet_fixtures import make_fleet_dir
    calls = []

    def draw(judged, outdir):
        calls.append(outdir)
        if len(judged.fleet.members) < 2:
            return None
        paths = [os.path.join(outdir, "fleet." + ext) for ext in
                 ("png", "svg")]
        for path in paths:
            with open(path, "w", encoding="utf-8") as f:
                f.write("drawing %d\n" % len(calls))
        return paths
    monkeypatch.setattr(fleet_plots, "plot_fleet", draw)
    once = FiguresDrawnOnce(str(tmp_path / "kept"))

    def drawn(fleet, outdir):
        os.makedirs(outdir)
        paths = once.plot_fleet(answers.judge(members.open_fleet(fleet)),
                                str(outdir))
        if paths is None:
            return None
        assert [os.path.basename(p) for p in paths] == ["fleet.png",
                                                        "fleet.svg"]
        with open(paths[1], encoding="utf-8") as f:
            return f.read()
    two = make_fleet_dir(str(tmp_path / "a" / "f"), ["h-gpu0", "h-gpu1"])
    assert drawn(two, tmp_path / "o1") == "drawing 1\n"
    # The same files under the same name elsewhere: the same figure.
    same = make_fleet_dir(str(tmp_path / "b" / "f"), ["h-gpu0", "h-gpu1"])
    assert drawn(same, tmp_path / "o2") == "drawing 1\n"
    # Under another name (the footer names the folder): drawn again.
    renamed = make_fleet_dir(str(tmp_path / "c" / "g"), ["h-gpu0",
                                                         "h-gpu1"])
    assert drawn(renamed, tmp_path / "o3") == "drawing 2\n"
    slowed = make_fleet_dir(str(tmp_path / "d" / "f"), ["h-gpu0", "h-gpu1"],
                            slow={"h-gpu1": 0.8})
    assert drawn(slowed, tmp_path / "o4") == "drawing 3\n"
    # No figure (one GPU) is kept as none.
    one = make_fleet_dir(str(tmp_path / "e" / "f"), ["h-gpu0"])
    assert drawn(one, tmp_path / "o5") is None
    assert drawn(one, tmp_path / "o6") is None and len(calls) == 4

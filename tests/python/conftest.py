"""Shared pytest fixtures: the checked-in fixture run and writable copies.

The repository root goes on sys.path so that `import analysis` works from
any working directory (make check runs from the build tree).
"""

import os
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "h100-fixture")


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
def fixture_run():
    from analysis.load import load_run
    return load_run(FIXTURE)


def rewrite(path, edit):
    """Replace a file's text by edit(text)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(edit(text))


@pytest.fixture
def study_dir(tmp_path):
    """A study directory made of the fixture: ceilings/ (the fixture with
    its ceilings.csv), article/ and sweep/ (the fixture's points) and
    blocks/ (its add_f32 block sweep).  Structure, not physics: every part
    is the same synthetic run."""
    root = tmp_path / "study"
    for part in ("ceilings", "article", "sweep", "blocks"):
        shutil.copytree(FIXTURE, root / part)
    for part in ("article", "sweep", "blocks"):
        os.remove(root / part / "ceilings.csv")
    return root

"""The ceilings cache (analysis/core/ceilings_cache.py, src/ceilings/
cache.c): a run directory without ceilings.csv is judged against the
measured ceilings of its own GPU and build when `ewbench ceilings` left
them in the cache, and the report says so; another GPU, build or driver,
an incomplete run or a cache others may write to is not used.

The entries here are the H200 reference's own ceilings run, copied where
`ewbench ceilings` would have put it (the same GPU, build and driver as
its article)."""

import json
import os
import shutil

import pytest

from ewbench.analysis.core import ceilings_cache as cc
from ewbench.analysis.core import study as stu
from ewbench.analysis.report import model
from ewbench.analysis.report import user_kernels as uk
from ewbench.analysis.report.findings import common

import user_rows as ur

GPU = "nvidia-h200"


def _reference_key():
    """The UUID and revision of the reference's article run, the key its
    ceilings would be cached under (both from its run.json, never
    written here: the reference is measured again from time to time)."""
    path = os.path.join(ur.reference(GPU, "article"), "run.json")
    if not os.path.exists(path):
        return None, None
    with open(path, encoding="utf-8") as f:
        m = json.load(f)
    return m["device"]["uuid"], m["tool"]["git_revision"]


UUID, REVISION = _reference_key()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty private cache (XDG_CACHE_HOME), and a user's run made of
    add_f32's article rows, without ceilings."""
    if not os.path.isdir(ur.reference(GPU, "ceilings")):
        pytest.skip("%s is not in this tree" % GPU)
    home = tmp_path / "xdg"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    run = tmp_path / "run"
    ur.as_user(ur.reference(GPU, "article"), str(run), "add_f32", "mine")
    return home, run


def _store(home, uuid=UUID, revision=REVISION, edit=None):
    """What `ewbench ceilings` stores (cache.c): its ceilings.csv and
    run.json in ewbench/ceilings/UUID/REVISION, each directory 0700."""
    entry = home / "ewbench" / "ceilings" / uuid / revision
    for d in (home / "ewbench", home / "ewbench" / "ceilings",
              entry.parent, entry):
        d.mkdir(mode=0o700, exist_ok=True)
    source = ur.reference(GPU, "ceilings")
    shutil.copy(os.path.join(source, "ceilings.csv"), entry)
    with open(os.path.join(source, "run.json"), encoding="utf-8") as f:
        m = json.load(f)
    if edit:
        edit(m)
    (entry / "run.json").write_text(json.dumps(m), encoding="utf-8")
    return entry


def _verdict(run_dir, n=256 << 20):
    study = stu.open_study(str(run_dir))
    sctx = common.make_context(study)
    rows = [(p, v) for p, v, _ in uk.judged(sctx)
            if (p.n, p.cache, p.launch) == (n, "warm", "stream")]
    return study, sctx, rows[0][1]


def test_a_run_takes_its_gpus_cached_ceilings(cache):
    home, run = cache
    _, _, before = _verdict(run)
    assert before.name == model.UNKNOWN     # no curve: nothing decides
    entry = _store(home)
    assert cc.lookup(json.loads((run / "run.json").read_text())) == \
        str(entry)
    study, sctx, after = _verdict(run)
    assert study.main.ceilings is not None
    # The concurrency curve, measured on this GPU, places it.
    assert after.name == model.LATENCY_BOUND, after
    text = " ".join(b.text for b in uk.why_blocks(study, sctx)
                    if hasattr(b, "text") and isinstance(b.text, str))
    assert "found in the ceilings cache" in text
    assert "measured dram_add" in text


@pytest.mark.parametrize("why", ("driver", "gpu", "build", "incomplete",
                                 "command"))
def test_an_entry_of_another_gpu_build_or_driver_is_not_used(cache, why):
    home, run = cache

    def edit(m):
        if why == "driver":
            m["versions"]["nvidia_driver"] = "590.1"
        elif why == "incomplete":
            m["status"] = "interrupted"
        elif why == "command":
            m["command"] = "run"
        elif why == "build":
            m["tool"]["git_revision"] = "0123456789ab"
        elif why == "gpu":
            m["device"]["uuid"] = "GPU-00000000"
    _store(home, edit=edit)
    assert cc.lookup(json.loads((run / "run.json").read_text())) is None
    study = stu.open_study(str(run))
    assert study.main.ceilings is None


def test_a_cache_others_may_write_to_is_not_used(cache):
    home, run = cache
    _store(home)
    os.chmod(home / "ewbench", 0o777)
    assert cc.lookup(json.loads((run / "run.json").read_text())) is None


def test_a_runs_own_ceilings_come_first(cache, tmp_path):
    """A run directory with its own ceilings.csv keeps them; --ceilings
    too: the cache is the last resort."""
    home, run = cache
    _store(home)
    shutil.copy(os.path.join(ur.reference(GPU, "ceilings"), "ceilings.csv"),
                run / "ceilings.csv")
    # Its own ceilings.csv names another run id: the run's own, refused
    # as not its rows, proves it was read and not the cache's.
    from ewbench.analysis.core.load import DataError
    with pytest.raises(DataError):
        stu.open_study(str(run))


def test_an_odd_uuid_or_revision_is_no_path():
    assert cc.entry_dir("/c", "../x", "abc") is None
    assert cc.entry_dir("/c", "GPU-1", "a/b") is None
    assert cc.entry_dir("/c", "GPU-1", ".hidden") is None
    assert cc.entry_dir("/c", "GPU-1", "c810e0f0fd86-dirty") == \
        "/c/ceilings/GPU-1/c810e0f0fd86-dirty"

"""Small helpers: size labels, the middle size, primary blocks."""

import os

import pytest

from ewbench.analysis.core import select as sel
from ewbench.analysis.core.units import (bytes_label, clock_label,
                                    cuda_version, size_label, us)
from test_model import make_point


def test_size_label_is_binary_with_one_decimal_where_not_whole():
    assert size_label(1 << 20) == "1Mi"
    assert size_label(268435456) == "256Mi"
    assert size_label(174763 << 10) == "170.7Mi"
    assert size_label(1000003) == "976.6Ki"
    assert size_label(3 << 30) == "3Gi"
    assert size_label(1000) == "1000"


def test_clock_and_cuda_version_labels():
    assert clock_label(2619000) == "2619 MHz"
    assert clock_label(1980000) == "1.98 GHz"
    assert clock_label(None) == "n/a"
    assert cuda_version(13000) == "CUDA 13.0"
    assert cuda_version(12080) == "CUDA 12.8"


def test_bytes_and_time_labels():
    assert bytes_label(12 << 20) == "12 MiB"
    assert bytes_label(int(37.5 * (1 << 20))) == "37.5 MiB"
    assert bytes_label(512) == "512 B"
    assert bytes_label(None) == "n/a"
    assert us(4474.0) == "4.47" and us(77400.0) == "77.4" and \
        us(779000.0) == "779"


def test_mid_size():
    assert sel.mid_size([1 << 20, 1 << 24, 1 << 28]) == 1 << 24
    assert sel.mid_size([1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28]) == \
        1 << 24
    assert sel.mid_size([1 << 20, 1 << 28]) is None


def _old_run(command, points, user_kernels=()):
    """A run written before 2026-11-29: run.json without
    settings.primary_blocks."""
    import types
    return types.SimpleNamespace(points=points, manifest={
        "command": command, "settings": {},
        "user_kernels": [{"variant": v, "default_block": b}
                         for v, b in user_kernels]})


def test_an_old_runs_primary_block_is_the_first_it_ran_with():
    # `run --block 512,256`: rows in case order (size, then the --block
    # order), add_f32's published 256 timed at fewer sizes than 512 and
    # slower, add_f32x4 (published 64) not at its own: the published
    # block, else the first; the old tie-break took 512 for add_f32 (most
    # sizes) and 256 for add_f32x4 (faster).
    pts = [make_point(variant="add_f32", n=1, block=512, time_median_ns=9.0),
           make_point(variant="add_f32x4", n=1, block=512,
                      time_median_ns=9.0),
           make_point(variant="add_f32x4", n=1, block=256,
                      time_median_ns=5.0),
           make_point(variant="add_f32", n=2, block=512, time_median_ns=9.0),
           make_point(variant="add_f32", n=2, block=256, time_median_ns=12.0),
           make_point(variant="cub_add_f32", n=2, block=None)]
    run = _old_run("run", pts)
    assert sel.rule_primary_blocks(run) == {
        "add_f32": 256, "add_f32x4": 512, "cub_add_f32": None}
    assert [(p.variant, p.n, p.block) for p in sel.primary_points(run)] == [
        ("add_f32x4", 1, 512), ("add_f32", 2, 256), ("cub_add_f32", 2, None)]


def test_an_old_users_kernel_is_judged_at_its_kernel_block():
    # --kernel-block 128 with --block 64,128: the given block, not the
    # first; without it, the first.
    pts = [make_point(variant="user:k", block=b, time_median_ns=t)
           for b, t in ((64, 4.0), (128, 5.0))]
    assert sel.rule_primary_blocks(
        _old_run("run", pts, [("user:k", 128)])) == {"user:k": 128}
    assert sel.rule_primary_blocks(_old_run("run", pts)) == {"user:k": 64}


def test_an_old_tune_runs_primary_block_is_its_fastest_at_its_largest_size():
    # The least median time at the variant's largest size, whatever it
    # was at smaller sizes or in how many rows; a tie: the smaller block.
    times = {(1, 32): 1.0, (2, 32): 9.0, (2, 256): 5.0, (2, 512): 5.0,
             (2, 1024): 5.1, (1, 1024): 0.5}
    pts = [make_point(n=n, block=b, time_median_ns=t)
           for (n, b), t in times.items()]
    pts.append(make_point(n=1, block=1024, cache="cold", time_median_ns=0.4))
    assert sel.rule_primary_blocks(_old_run("tune", pts)) == {"v": 256}
    # The same rows written by `run`: the first block it ran with.
    assert sel.rule_primary_blocks(_old_run("run", pts)) == {"v": 32}


def test_a_recorded_primary_block_is_read_not_inferred():
    # run.json's settings.primary_blocks (since 2026-11-29) decides, even
    # where the rule would pick another block (512, the fastest).
    times = {256: 5200.0, 512: 5000.0}
    pts = [make_point(n=n, block=b, time_median_ns=t * n)
           for b, t in times.items() for n in (1, 2)]
    pts.append(make_point(variant="cub", block=None))
    run = _old_run("tune", pts)
    run.manifest["settings"] = {"primary_blocks": {"v": 256, "cub": None}}
    assert sel.recorded_primary_blocks(run) == {"v": 256, "cub": None}
    chosen = sel.primary_points(run)
    assert {(p.variant, p.block) for p in chosen} == {("v", 256),
                                                       ("cub", None)}
    # Without it (runs written before): tune's rule, the fastest block.
    run.manifest["settings"] = {}
    assert sel.recorded_primary_blocks(run) is None
    assert {p.block for p in sel.primary_points(run)
            if p.variant == "v"} == {512}


# Residency from one-pass counters

def _with_fraction(run, passes, fraction):
    """A copy of run whose first point has derived__dram_read_fraction."""
    import copy
    from ewbench.analysis.core.load import MetricValue
    run = copy.deepcopy(run)
    run.manifest.setdefault("counters", {})["passes"] = passes
    p = run.points[0]
    run.metrics.setdefault(p.key, {})[sel.M_DRAM_READ_FRACTION] = \
        MetricValue(fraction, "ratio", "derived")
    return run, p


def test_l2_read_served_only_from_one_pass_sets(fixture_run):
    run, p = _with_fraction(fixture_run, 1, 0.25)
    assert sel.l2_read_served(run, p) == pytest.approx(75.0)
    # Multi-pass replay loses the warm L2: no residency claimed.
    run, p = _with_fraction(fixture_run, 4, 0.25)
    assert sel.l2_read_served(run, p) is None
    # Clamped: DRAM may read a little more than the kernel (stray lines).
    run, p = _with_fraction(fixture_run, 1, 1.02)
    assert sel.l2_read_served(run, p) == 0.0


def test_graph_points_use_the_stream_counter_rows(run_copy):
    """Counter rows say launch=stream (the profiler replays one launch);
    load attaches them to the point in every launch mode, so a graph
    point's counters are found by its own key."""
    from ewbench.analysis.core import load
    from conftest import rewrite
    first = "20261121T204512Z-fixture-h100,add_f32,add,f32,1048576,256,warm,"
    rewrite(os.path.join(run_copy, load.TIMING),
            lambda text: text.replace(first + "stream,", first + "graph,", 1))
    run = load.load_run(str(run_copy))
    g = next(q for q in run.points if q.launch == "graph")
    assert g.key not in [q.key for q in run.points if q is not g]
    assert run.metrics[g.key] is run.metrics[g.key[:-1] + ("stream",)]
    assert sel.metric(run, g, sel.M_DRAM_READ) is not None
    # a point with rows of its own keeps them over the stream key's
    metrics = {g.key[:-1] + ("stream",): {"a": 1, "b": 2}, g.key: {"b": 3}}
    load.attach_launch_modes(metrics, (g,))
    assert metrics[g.key] == {"a": 1, "b": 3}


def test_study_variants_are_the_registry_study_rows():
    """variants.STUDY_VARIANTS are kernels/study.def's lines, in order:
    the fourteen kernels of the study, add_f32 first, abs_f32_functor
    last."""
    from ewbench.analysis.core import variants
    assert len(variants.STUDY_VARIANTS) == 14
    assert variants.STUDY_VARIANTS[0] == "add_f32"
    assert variants.STUDY_VARIANTS[-1] == "abs_f32_functor"
    assert "add_f16x8_pack" in variants.STUDY_VARIANTS
    assert variants.role("cub_add_f32") == variants.PEER
    assert variants.role("torch_relu_f32") == variants.PEER
    assert variants.role("add_f32_tma") == variants.ADDITION
    assert variants.role("add_f16x8_pack") == variants.STUDY


def test_published_blocks_are_study_def_default_blocks(fixture_run):
    """variants.STUDY_BLOCKS: study.def's default block of each study
    variant, the block the figure circles; the fixture's article-style
    run times every study variant it has at that block."""
    from ewbench.analysis.core import variants
    assert set(variants.STUDY_BLOCKS) == set(variants.STUDY_VARIANTS)
    assert variants.STUDY_BLOCKS["add_f32"] == 256
    assert variants.STUDY_BLOCKS["add_f32x4"] == 64
    assert variants.STUDY_BLOCKS["add_f16x8_pack"] == 32
    primary = sel.rule_primary_blocks(fixture_run)
    timed = [v for v in primary if v in variants.STUDY_BLOCKS]
    assert timed
    assert all(primary[v] == variants.STUDY_BLOCKS[v] for v in timed)

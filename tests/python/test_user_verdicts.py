"""The verdict of a user's kernel (`ewbench run --kernel`): the study's
rules applied to its rows, never contradicted by its own counters, and
the classic faults of an elementwise kernel named by the counter that
shows them, each with the bandwidth its fix predicts (model/faults.py,
docs/user-kernels.md).

Two kinds of fixture (tests/python/user_rows.py):
- real: a study variant's rows of the shipped H200 reference, added again
  under a user's id, in a run directory without ceilings (as `ewbench run
  --kernel` writes one) or with the reference's measured ceilings;
- constructed (named so in each test): those rows with times and
  counters edited by the geometry of a fault.  Not measurements; the
  shape of one, where no shipped reference holds such a kernel."""

import os
import re

import pytest

from ewbench.analysis.core import study as stu
from ewbench.analysis.core.load import load_run
from ewbench.analysis.report import model
from ewbench.analysis.report.findings import common
from ewbench.analysis.report.model import faults

import test_labels
import user_rows as ur

GPU = "nvidia-h200"
MI = 1 << 20
BIG = 256 * MI


def _have(part):
    if not os.path.isdir(ur.reference(GPU, part)):
        pytest.skip("%s/%s is not in this tree" % (GPU, part))


def _ceilings():
    return ur.reference(GPU, "ceilings")


def _l2_ceiling():
    """The H200 reference's measured l2_read (byte/s)."""
    run = load_run(ur.reference(GPU, "article"), ceilings_from=_ceilings())
    return model.l2_ceiling(run.ceilings).value


def _verdicts(run_dir, ceilings=False):
    """{(variant, n, cache, launch, block): Verdict} of a run directory."""
    run = load_run(str(run_dir), ceilings_from=_ceilings() if ceilings
                   else None)
    return run, {(p.variant, p.n, p.cache, p.launch, p.block): v
                 for p, v in model.classify_run(run)}


def _user_points(run, user):
    return [p for p in run.points if p.variant == user]


# 1. No verdict of a user's kernel that its own counters contradict

def _contradicted(run_dir, user, ceilings, l2):
    """test_labels' criteria on the user's points, and two more: L2-bound
    needs a measured L2 ceiling and half of it (measured on this GPU: l2),
    and undetermined is contradicted where the counters show sectors a
    request beyond those the requested bytes need while a kernel moving
    the same bytes with whole sectors is faster (recomputed here from the
    raw counters, not from faults.py)."""
    run = load_run(str(run_dir), ceilings_from=_ceilings() if ceilings
                   else None)
    ctx = common.run_context(run)
    points = [p for p in ctx.points if p.variant == user]
    out = test_labels.contradicted_in(ctx, points)
    for p in points:
        v = ctx.verdicts[p.key]
        why = None
        if v.name == model.L2_BOUND and (
                model.l2_ceiling(run.ceilings) is None or
                p.bandwidth < model.L2_SHARE * l2):
            why = "%.0f GB/s, %.2f of the L2 ceiling" % (
                p.bandwidth / 1e9, p.bandwidth / l2)
        elif v.name == model.UNKNOWN and _wasteful(run, p):
            why = "its sectors per request show a fault"
        if why:
            out.append((p.variant, p.n, p.cache, p.launch, v.name, why))
    return out


def _sectors_extra(run, p, op):
    m = run.metrics.get(p.key, {})
    req = m.get("l1tex__t_requests_pipe_lsu_mem_global_op_%s.sum" % op)
    sec = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_%s.sum" % op)
    if req is None or sec is None or not req.value:
        return None
    size = 4 if p.dtype == "f32" else 2
    moved = p.n * size if op == "st" else p.bytes_moved - p.n * size
    return sec.value / req.value - max(1.0, moved / req.value / 32.0)


def _wasteful(run, p):
    extra = [x for x in (_sectors_extra(run, p, "ld"),
                         _sectors_extra(run, p, "st")) if x is not None]
    if not extra or max(extra) < 0.5:
        return False
    return any(q.bandwidth > 1.05 * p.bandwidth and
               (q.n, q.cache, q.launch, q.bytes_moved) ==
               (p.n, p.cache, p.launch, p.bytes_moved) and
               all((_sectors_extra(run, q, d) or 0.0) < 0.5
                   for d in ("ld", "st")) for q in run.points)


# Variants whose rows once gave a user's kernel L2-bound far below the L2
# ceiling without ceilings (cub_add_f32, add_f32_tma_st, abs_f32_unroll in
# the sweep), one with per-instruction waste (abs_f32_unroll), the plain
# scalar add and a persistent grid.
AS_USER = ("cub_add_f32", "add_f32_tma_st", "abs_f32_unroll", "add_f32",
           "add_f32x4_grid")


@pytest.mark.parametrize("part", ("article", "sweep"))
@pytest.mark.parametrize("ceilings", (False, True))
def test_no_user_label_is_contradicted_by_its_counters(tmp_path, part,
                                                       ceilings):
    _have(part)
    l2 = _l2_ceiling()
    found = []
    for variant in AS_USER:
        target = tmp_path / variant
        user = ur.as_user(ur.reference(GPU, part), str(target), variant,
                          "mine_" + variant)
        found += _contradicted(target, user, ceilings, l2)
    assert found == [], "%d contradicted: %s" % (len(found), found[:5])


def test_without_a_measured_l2_ceiling_nothing_is_l2_bound(tmp_path):
    """Real rows: the sweep's cub_add_f32 as a user's kernel, no ceilings
    (as `ewbench run` writes): the footprint rule alone once named its
    small warm graph points L2-bound at 2.3-3.0 TB/s, a quarter of the
    H200's measured 9.8 TB/s L2 ceiling."""
    _have("sweep")
    user = ur.as_user(ur.reference(GPU, "sweep"), str(tmp_path / "r"),
                      "cub_add_f32", "mine")
    run, verdicts = _verdicts(tmp_path / "r")
    labels = [verdicts[k].name for k in verdicts if k[0] == user]
    assert model.L2_BOUND not in labels
    # The fallback says what is missing.
    texts = [verdicts[k].rule for k in verdicts if k[0] == user and
             verdicts[k].name == model.UNKNOWN]
    assert any("no measured L2 ceiling" in t for t in texts)
    # With the GPU's measured ceilings, L2-bound only at half of it.
    run, verdicts = _verdicts(tmp_path / "r", ceilings=True)
    l2 = model.l2_ceiling(run.ceilings).value
    for p in _user_points(run, user):
        if verdicts[(p.variant, p.n, p.cache, p.launch, p.block)].name == \
                model.L2_BOUND:
            assert p.bandwidth >= model.L2_SHARE * l2


def test_real_per_instruction_waste_is_named_where_it_costs(tmp_path):
    """Real rows: abs_f32_unroll (4 consecutive floats a thread, scalar
    loads and stores: 16 sectors a request where 4 would do) as a user's
    kernel.  At 1Mi, warm, its stores reach L2 as 1.5x the coalesced
    kernels' sectors and the fastest whole-sector abs (abs_f32x4 in the
    references of 2026-11-29, abs_f32x4_ilp4 in the one before) is 38-42 %
    faster (42.2 % in the reference of GPU-167a489c): uncoalesced access,
    its fix predicting that kernel's
    bandwidth.  At 256Mi L1 and
    L2 absorb the waste and it streams at the DRAM ceiling: DRAM-bound,
    the fault not named."""
    _have("article")
    user = ur.as_user(ur.reference(GPU, "article"), str(tmp_path / "r"),
                      "abs_f32_unroll", "mine")
    run, verdicts = _verdicts(tmp_path / "r", ceilings=True)
    small = verdicts[(user, MI, "warm", "stream", 256)]
    assert small.name == model.UNCOALESCED
    assert "16.0 sectors per global store request" in small.rule
    assert re.search(r"abs_f32x4\w*, moving the same bytes with whole "
                     r"sectors, is \+(3[89]|4[0-2])\.\d % faster", small.rule)
    assert "should reach" in small.rule
    big = verdicts[(user, BIG, "warm", "stream", 256)]
    assert big.name == model.DRAM_BOUND


def test_a_copy_of_a_study_kernel_gets_the_study_kernels_verdict(tmp_path):
    """Real rows: a user's kernel measured exactly as add_f32 (the same
    rows) is judged as add_f32 is, point for point: the rules know no
    role, only the faults that a study variant never shows here."""
    _have("article")
    user = ur.as_user(ur.reference(GPU, "article"), str(tmp_path / "r"),
                      "add_f32", "mine")
    for ceilings in (False, True):
        _, verdicts = _verdicts(tmp_path / "r", ceilings)
        pairs = [(verdicts[k].name, verdicts[("add_f32",) + k[1:]].name)
                 for k in verdicts if k[0] == user]
        assert pairs and all(a == b for a, b in pairs), pairs


# 2. The classic faults, on constructed rows

TIMES = ("time_median_ns", "time_min_ns", "time_max_ns", "time_mean_ns",
         "time_stddev_ns", "time_ci_low_ns", "time_ci_high_ns",
         "time_iqr_ns", "activity_median_ns")


def _slower(factor):
    def edit(row):
        for k in TIMES:
            if row.get(k):
                row[k] = repr(float(row[k]) * factor)
    return edit


def _counters(scale):
    """metrics(row, name, value) multiplying the named counters."""
    def edit(row, name, value):
        return value * scale.get(name, 1.0)
    return edit


def _sectors(ld, st, l2_read, l2_write, time):
    return {faults.SECTORS["loads"]: ld, faults.SECTORS["stores"]: st,
            "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum": ld,
            "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum": st,
            faults.L2_SECTORS["loads"]: l2_read,
            faults.L2_SECTORS["stores"]: l2_write,
            "gpu__time_duration.sum": time}


def test_strided_add_is_uncoalesced_with_its_gain(tmp_path):
    """Constructed: add_f32's article rows with the geometry of a thread
    walking its own chunk (each warp request touching 32 sectors where 4
    do, twice the L2 sectors for what L1 cannot hold) and 3.4x the time:
    1.3 TB/s at 256Mi, the textbook slow add of issue 52.  Without
    ceilings it was undetermined; now uncoalesced access, predicting the
    fastest add of the run whose counters show whole sectors."""
    _have("article")
    user = ur.construct(
        ur.reference(GPU, "article"), str(tmp_path / "r"), "add_f32",
        "chunked", timing=_slower(3.4),
        metrics=_counters(_sectors(8.0, 8.0, 2.0, 2.0, 3.4)))
    run, verdicts = _verdicts(tmp_path / "r")
    v = verdicts[(user, BIG, "warm", "stream", 256)]
    assert v.name == model.UNCOALESCED, v
    assert "32.0 sectors per global load request" in v.rule
    best = max((p for p in run.points if p.n == BIG and p.cache == "warm"
                and p.launch == "stream" and p.op == "add" and
                p.dtype == "f32" and not p.variant.startswith("user:") and
                faults._whole_sectors(run, p)),
               key=lambda p: p.bandwidth)
    f = faults.access_fault(run, next(
        p for p in _user_points(run, user) if
        (p.n, p.cache, p.launch) == (BIG, "warm", "stream")))
    assert f.predicted == pytest.approx(best.bandwidth)


def test_misaligned_add_is_named_misaligned(tmp_path):
    """Constructed: add_f32's rows with each request straddling one more
    sector (5 for its 128 bytes, as operands 4 bytes off a boundary) and
    1.15x the time."""
    _have("article")
    user = ur.construct(
        ur.reference(GPU, "article"), str(tmp_path / "r"), "add_f32",
        "offset", timing=_slower(1.15),
        metrics=_counters(_sectors(1.25, 1.25, 1.25, 1.25, 1.15)))
    _, verdicts = _verdicts(tmp_path / "r", ceilings=True)
    v = verdicts[(user, BIG, "warm", "stream", 256)]
    assert v.name == model.MISALIGNED, v
    assert "5.0 sectors per global load request" in v.rule


def test_per_request_waste_that_costs_nothing_is_not_a_cause(tmp_path):
    """Constructed: the same misaligned geometry at add_f32x4's speed
    (no time added, its L2 sectors unchanged): nothing faster, nothing
    reaching L2, so no fault is the verdict."""
    _have("article")
    user = ur.construct(
        ur.reference(GPU, "article"), str(tmp_path / "r"), "add_f32x4",
        "offset4", metrics=_counters(_sectors(17 / 16, 17 / 16, 1.0, 1.0,
                                              1.0)))
    _, verdicts = _verdicts(tmp_path / "r", ceilings=True)
    v = verdicts[(user, BIG, "warm", "stream", 64)]
    assert v.name not in model.FAULTS, v


def test_grid_of_one_block_per_sm_is_grid_limited(tmp_path):
    """Constructed: add_f32's rows launched as 132 blocks (one per SM of
    the H200, a persistent loop) at 4x the time.  The GPU holds 1056
    blocks of 256: grid-limited, Little's law predicting 8x, capped by
    the DRAM ceiling."""
    _have("article")

    def edit(row):
        _slower(4.0)(row)
        row["grid"] = str(min(int(row["grid"]), 132))
    user = ur.construct(
        ur.reference(GPU, "article"), str(tmp_path / "r"), "add_f32",
        "persistent", timing=edit,
        metrics=_counters({"gpu__time_duration.sum": 4.0}))
    run, verdicts = _verdicts(tmp_path / "r", ceilings=True)
    v = verdicts[(user, BIG, "warm", "stream", 256)]
    assert v.name == model.GRID_LIMITED, v
    assert "grid of 132 blocks where the GPU holds 1056" in v.rule
    dram = model.run_dram_ceiling(run, "add").value
    p = next(p for p in _user_points(run, user)
             if (p.n, p.cache, p.launch) == (BIG, "warm", "stream"))
    f = faults.grid_fault(run, p, model.block_slots(run, p),
                          model.run_dram_ceiling(run, "add"))
    assert f.predicted == pytest.approx(min(dram, 8 * p.bandwidth))


def test_study_variants_are_never_given_a_fault(tmp_path):
    """The faults judge users' kernels only: the reference's own
    abs_f32_unroll keeps its study verdict beside its user copy."""
    _have("article")
    ur.as_user(ur.reference(GPU, "article"), str(tmp_path / "r"),
               "abs_f32_unroll", "mine")
    _, verdicts = _verdicts(tmp_path / "r", ceilings=True)
    assert all(v.name not in model.FAULTS for k, v in verdicts.items()
               if not k[0].startswith("user:"))


def test_a_study_is_unchanged_by_a_users_rows():
    """stu.open_study on the reference gives no fault (no user rows)."""
    _have("article")
    sctx = common.make_context(stu.open_study(ur.reference(GPU)))
    names = {v.name for ctx in sctx.parts.values()
             for v in ctx.verdicts.values()}
    assert not names & set(model.FAULTS)


# 3. The experiment of a user's kernel, and its published block

def test_a_users_block_xk_change_is_predicted_and_scored(tmp_path):
    """Real rows: add_f16x8 (block 32, block-launch-bound at 256Mi warm on
    the H200) as a user's kernel, with the study's experiments run's
    measurements of it at blocks 64 and 128 added as its `--block 64,128`
    rows.  Its experiment predicts each from its own counters as the
    study's loop does (the same predictions as the study's experiment of
    add_f16x8) and scores them."""
    from ewbench.analysis.report import experiments as ex
    from ewbench.analysis.report import user_kernels as uk
    _have("experiments")
    target = tmp_path / "r"
    user = ur.as_user(ur.reference(GPU, "article"), str(target),
                      "add_f16x8", "mine", entry={"default_block": 32})
    ur.add_rows(ur.reference(GPU, "experiments"), str(target), "add_f16x8",
                user, lambda r: r["block"] in ("64", "128"))
    study = stu.open_study(str(target), ceilings_from=_ceilings())
    sctx = common.make_context(study)
    tested = {(p.n, p.cache, p.launch): (v, e) for p, v, e in uk.judged(sctx)
              if p.block == 32}
    v, e = tested[(BIG, "warm", "stream")]
    assert e is not None and e.verdict.name == model.BLOCK_LAUNCH_BOUND
    assert sorted(t.point.block for t in e.trials) == [64, 128]
    assert all(t.score is not None for t in e.trials)
    assert e.outcome in ex.OUTCOMES
    # The study's own experiment of add_f16x8 predicted the same.
    ref = common.make_context(stu.open_study(ur.reference(GPU)))
    mine = {t.point.block: t.predicted for t in e.trials}
    theirs = {t.point.block: t.predicted
              for t in ref.experiments["add_f16x8"].trials
              if t.kind == ex.BLOCKS}
    assert mine == pytest.approx(theirs)


@pytest.mark.parametrize("part", ["blocks", "experiments",
                                  os.path.join("repeats", "round-1")])
def test_the_old_runs_rule_gives_the_blocks_c_recorded(part):
    """Real rows: H200 runs that record settings.primary_blocks (a tune
    run of ten blocks; `--block own,x2,x4`; `--block own,128,...,1024`).
    Without the record, the rule the analysis applies to older runs
    (select.rule_primary_blocks) gives each variant the block C wrote."""
    import dataclasses
    from ewbench.analysis.core import select as sel
    _have(part)
    run = load_run(ur.reference(GPU, part))
    recorded = sel.recorded_primary_blocks(run)
    assert recorded
    old = dataclasses.replace(run, manifest=dict(run.manifest, settings={
        k: v for k, v in run.manifest["settings"].items()
        if k != "primary_blocks"}))
    assert sel.recorded_primary_blocks(old) is None
    rule = sel.rule_primary_blocks(old)
    # peer-torch.csv's rows are not the run's plan: not recorded.
    assert {v: rule[v] for v in recorded} == recorded
    assert sel.primary_points(old) == sel.primary_points(run)

"""Residency held by a per-block resource (report/model/blocks.py,
residency()): a kernel whose resident blocks no thread, block or
register limit explains keeps that count of blocks at a larger block, so
its resident threads grow with the block; and the outcome of an
experiment whose change rose beyond a refuted prediction
(report/experiments.py).

Real rows: reports/reference/nvidia-h200-user-kernels/userfaults/low,
examples/add_low_occupancy.cu (a 48 KiB static shared tile) measured on
an H200 at blocks 128, 256 and 512.  Its run directory holds no
ceilings (they came from the device's ceilings cache): it is judged here
against the ceilings run that filled that cache a minute before, kept
beside it (userfaults/ceilings: the same GPU, call and measurement as
userfaults/verdicts.txt's)."""

import os
from types import SimpleNamespace

import pytest

from ewbench.analysis.core import select as sel
from ewbench.analysis.core import study as stu
from ewbench.analysis.core import variants as var
from ewbench.analysis.report import experiments as ex
from ewbench.analysis.report import model
from ewbench.analysis.report import user_kernels as uk
from ewbench.analysis.report.findings import common
from ewbench.analysis.report.model import blocks

from test_block_model import REFERENCES
from test_experiments import BLOCK, point, trial

TOP = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
REF = os.path.join(TOP, "reports", "reference")
LOW = os.path.join(REF, "nvidia-h200-user-kernels", "userfaults", "low")
CEILINGS = os.path.join(REF, "nvidia-h200-user-kernels", "userfaults",
                        "ceilings")
USER = "user:add_low_occupancy"

# An H200's device record (run.json of the references).
H200 = {"compute_capability": "9.0", "max_threads_per_sm": 2048,
        "max_blocks_per_sm": 32, "registers_per_sm": 65536}


def _run(block, theoretical_pct, registers, device=H200):
    """A run holding one point's occupancy-API counters (constructed)."""
    p = point("mine", 1000, block=block)
    entry = {sel.M_THEORETICAL_OCCUPANCY: theoretical_pct,
             sel.M_REGISTERS: registers}
    metrics = {p.key: {k: SimpleNamespace(value=v)
                       for k, v in entry.items() if v is not None}}
    return SimpleNamespace(device=device, metrics=metrics), p


# The rule

def test_a_count_no_limit_explains_is_held_by_a_per_block_resource():
    # constructed: 4 blocks of 128 threads (25 %), 14 registers a thread:
    # the thread limit allows 16, the block limit 32, the registers 32
    run, p = _run(128, 25.0, 14)
    r = blocks.residency(run, p)
    assert (r.blocks, r.per_block) == (4, True)
    # the same 4 blocks at 2x and 4x the block; the thread limit at 8x
    assert [r.slot_threads(H200, b) for b in (128, 256, 512, 1024)] == \
        [512, 1024, 2048, 2048]
    # without the per-block resource, the SM's limits alone
    assert blocks.slot_threads(H200, 512) == 2048


def test_registers_and_the_sms_limits_explain_their_counts():
    # constructed, with the counts the occupancy API gave the study's
    # kernels on the H200 (add_f32x4_ilp4: 40 registers, 75 %;
    # add_f32x4_occ: 46, 62.5 %; add_f16x8: block 32, 50 %, 32 blocks)
    for block, pct, regs, count in ((256, 75.0, 40, 6), (256, 62.5, 46, 5),
                                    (32, 50.0, 18, 32), (256, 100.0, 12, 8)):
        run, p = _run(block, pct, regs)
        r = blocks.residency(run, p)
        assert (r.blocks, r.per_block) == (count, False), (block, regs)
    # 40 registers: 3 blocks of 512 threads where the threads allow 4
    run, p = _run(256, 75.0, 40)
    assert blocks.residency(run, p).slot_threads(H200, 512) == 1536


def test_without_the_register_rule_nothing_is_called_per_block():
    # no registers counter, or a compute capability cuda_occupancy.h's
    # rule does not cover: the low count is not blamed on shared memory
    for regs, device in ((None, H200),
                         (14, dict(H200, compute_capability="2.0")),
                         (14, dict(H200, registers_per_sm=None))):
        run, p = _run(128, 25.0, regs, device)
        assert blocks.residency(run, p).per_block is False


@pytest.mark.parametrize("gpu", REFERENCES)
def test_the_register_rule_gives_the_occupancy_apis_counts(gpu):
    # real: every point of a reference's article and sweep runs, its
    # theoretical occupancy and registers from the occupancy API; the
    # rule (thread, block and register limits) gives each count, so none
    # is per-block (1292 points a reference)
    path = os.path.join(REF, gpu)
    if not os.path.isdir(os.path.join(path, "article")):
        pytest.skip("%s is not in this tree" % gpu)
    study = stu.open_study(path)
    seen = 0
    for part in ("article", "sweep"):
        run = study.run(part)
        for p in run.points:
            r = blocks.residency(run, p)
            if r is None or r.registers is None:
                continue
            seen += 1
            assert not r.per_block, p.key
            assert r.blocks == blocks.slot_blocks(run.device, p.block,
                                                  r.registers), p.key
    assert seen >= 1000


# The measured kernel

@pytest.fixture(scope="module")
def low():
    if not os.path.isdir(LOW) or not os.path.isdir(CEILINGS):
        pytest.skip("userfaults/low or the H200 ceilings are not here")
    sctx = common.make_context(stu.open_study(LOW, ceilings_from=CEILINGS))
    judged = [(p, v, e) for p, v, e in uk.judged(sctx)
              if p.variant == USER]
    return sctx, judged


def test_add_low_occupancy_is_held_by_its_shared_tile(low):
    sctx, judged = low
    run = sctx.study.main
    (p, _, _), = judged
    r = blocks.residency(run, p)
    # 25 % of 64 warps at 4 warps a block, 14 registers: 4 blocks
    assert (p.block, r.blocks, r.registers, r.per_block) == (128, 4, 14, True)
    # the occupancy API measured at 256 and 512 threads what the rule
    # gives from block 128 alone: 4 blocks of each, 50 % and 100 %
    most = run.device["max_threads_per_sm"]
    for q in run.points:
        if q.variant == USER and q.block in (256, 512):
            measured = sel.metric(run, q, sel.M_THEORETICAL_OCCUPANCY)
            assert r.slot_threads(run.device, q.block) == \
                measured / 100.0 * most, q.block


def test_add_low_occupancy_is_occupancy_bound_and_its_experiment_confirms(
        low):
    _, judged = low
    (p, v, e), = judged
    assert e.verdict.name == model.OCCUPANCY_BOUND
    assert v.name == model.OCCUPANCY_BOUND and e.final == v.name
    # 1906 and 2965 GB/s measured at 256 and 512 (1802 and 2827 on an
    # earlier board); the model before this predicted 992 and 758
    # (resident threads held by the slots); now each is predicted to
    # rise, 256 outside the band (x0.86), 512 in it
    trials = {t.point.block: t for t in e.trials}
    assert sorted(trials) == [256, 512]
    for t in trials.values():
        assert t.rose and t.predicted > p.bandwidth
    assert trials[256].score.outcome == ex.SIZE_OFF
    # x0.913 in a band of ±11.3 % (x0.875 in ±13.0 % on the earlier
    # board: inside, by half a percent)
    assert trials[512].score.outcome == ex.CONFIRMED
    assert e.outcome == ex.CONFIRMED
    assert "no rise" not in e.text
    assert var.role(p.variant) == var.USER


# The outcome's words

def test_a_rise_beyond_a_refuted_prediction_is_no_no_rise():
    # constructed: an occupancy-bound kernel at 1025 GB/s whose block 256
    # rose to 1802 where a flat 992 was predicted: the prediction is
    # refuted, but the change rose as the verdict says
    occupancy = model.Verdict(model.OCCUPANCY_BOUND, "rule")
    base = point("mine", 1025, block=128)
    rose = trial(ex.BLOCKS, base, point("mine", 1802, block=256),
                 predicted=992e9)
    assert rose.score.outcome == ex.REFUTED and rose.rose
    outcome, final, text = ex.judge(occupancy, base, (rose,))
    assert (outcome, final) == (ex.SIZE_OFF, model.OCCUPANCY_BOUND)
    assert "no rise" not in text
    assert "refuted; above the concurrency curve it said binds" in text
    # a change that did not rise is still refuted, and says so
    flat = trial(ex.BLOCKS, base, point("mine", 1030, block=256),
                 predicted=1500e9)
    outcome, _, text = ex.judge(BLOCK, base, (flat,))
    assert outcome == ex.REFUTED and "no rise" in text

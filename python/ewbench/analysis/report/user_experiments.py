"""The experiments of a user's kernel (`ewbench run --kernel`).

A user's kernel (user_experiments) is tested the same way where its run
holds the change: its points at 2x and 4x its block (`--block`), the
work-per-block lever.  A cause that cannot be fixed from outside is
tested where the run also holds the family generated for the same op
(`--kernel K.cu --elementwise OP.cu`): the generated member that makes
exactly the change the cause names, at the kernel's own size, cache
state, launch and block (fix_member()), is the trial (FIX; for
latency-bound, BYTES), its measured bandwidth scored like every other
trial against the prediction of that member (member_prediction(): the
curve at its own word and words a thread).  Where the run has no such member,
the verdict says which run would test it (fix_command()).
"""

from dataclasses import replace

from ..core import select as sel
from ..core import variants as var
from ..core.validate.contract import DTYPE_BYTES
from ..core.generated import GENERATED_PREFIX, SHAPES, member
from . import model
from .model import blocks
from .model.facts import user_faults
from .model.faults import coalesced_faster
from .model.thresholds import MAX_SINGLE_PASS_READ_BYTES
from .experiments import (BYTES, CO_LIMITED, FIX, ROOF_BLOCKS,
                          ROOF_COALESCED, ROOF_DRAM, ROOF_RESIDENT,
                          Experiment, change_trials, co_limited, judge,
                          lowest_roof, make_trial, predict, refused,
                          refused_text, run_spread)
from .scoring import Prediction, band_of, score


# the fix of a user's kernel, made by a generated member of its op

# The members' words beside the element's own, and words a thread
# (whatif.member; docs/user-kernels.md: v16 or v32, v64, v128; k1-k8).
MEMBER_WIDE_BITS = (64, 128)
MEMBER_WORDS = (1, 2, 4, 8)


def _geometry(run, point):
    """(shape, bits, words) a generated member of the kernel's own access
    would be named by: the word a thread loads (its warp's requested bytes
    a load instruction / 32), the words a thread loads per input (a
    single pass: its load instructions a warp / inputs; a kernel whose
    threads loop loads one word an input an iteration, and its member is
    the grid-stride one); None where a counter is missing or no member
    has that width."""
    size = DTYPE_BYTES.get(point.dtype)
    request = sel.metric(run, point, sel.M_LD_REQUESTED_BYTES_PER_INST)
    if not size or not request or not point.grid or not point.block:
        return None
    bits = int(round(request / 32.0 * 8))
    read = point.bytes_moved - point.n * size
    inputs = int(round(read / float(point.n * size)))
    if bits not in (8 * size,) + MEMBER_WIDE_BITS or inputs < 1:
        return None
    if read / (point.grid * point.block) > MAX_SINGLE_PASS_READ_BYTES:
        return "stride", bits, 1
    loads = sel.metric(run, point, sel.M_LD_INST_PER_WARP)
    words = max([k for k in MEMBER_WORDS if loads and k <= loads / inputs],
                default=1)
    return "tile", bits, words


def fix_target(run, point, cause):
    """(shape, bits, words) of the generated member that makes exactly
    the change the cause names, and a phrase of that change; None where
    the cause names none: uncoalesced or misaligned access, the same
    shape, word and words a thread, coalesced and aligned (every member
    is); grid-limited, the grid-stride member (its grid one wave of the
    GPU); latency-bound, twice the words a thread."""
    shape = _geometry(run, point)
    if shape is None:
        return None
    kind, bits, words = shape
    if cause in (model.UNCOALESCED, model.MISALIGNED):
        return shape, "coalesced and aligned, as its %d-bit words, %d " \
            "an input a thread, %s" % (bits, words, SHAPES[kind])
    if cause == model.GRID_LIMITED:
        return ("stride", bits, words), "grid-stride over a grid of one " \
            "wave, as its %d-bit words, %d an input a thread" % (bits, words)
    if cause == model.LATENCY_BOUND and 2 * words in MEMBER_WORDS:
        return (kind, bits, 2 * words), "2x the loads per thread, %d " \
            "%d-bit words an input, %s" % (2 * words, bits, SHAPES[kind])
    return None


def fix_member(run, point, target):
    """The run's checked generated member named by target at the point's
    size, dtype, cache state, launch and block, moving its bytes; None."""
    for q in run.points:
        if q.variant.startswith(GENERATED_PREFIX) and \
                tuple(member(q.variant) or ()) == target and \
                (q.n, q.dtype, q.cache, q.launch, q.block,
                 q.bytes_moved) == (point.n, point.dtype, point.cache,
                                    point.launch, point.block,
                                    point.bytes_moved) and \
                q.check in (None, "pass") and q.bandwidth:
            return q
    return None


def member_prediction(run, point, member_point, dram, resident=None):
    """The Prediction of a generated member run in place of the user's
    point (same size, block, cache state and launch), from what its name
    says it loads: the lowest of the DRAM ceiling, the block-launch roof
    of its grid and the concurrency curve at its own request (32 of its
    words a warp load) and its own loads in flight per SM, a thread's
    inputs x words x word bytes (a grid-stride or persistent member's, an
    iteration's) times the threads resident per SM, and its request, a
    bulk-copy member's the copy of its tile (words x word bytes x block,
    one per input: read on the series of the largest requests), any
    other's 32 of its words:

      tile, bulk, bulkone
                    the user's point's achieved occupancy (or
                    `resident`, threads per SM, where given): the same
                    block, the same launch; the fix changes what each
                    thread loads, not how many threads are resident
      stride, runs  its grid's threads per SM (a one-wave grid, resident
                    for the whole kernel), at most the SM's slots

    A one-tile member is read on the curve scaled to the op's DRAM ceiling
    (OnCurve.reachable), as predict() reads every one-tile kernel; a
    looping member on the curve as measured: the curve's own kernel is a
    persistent grid, and its shortfall against one-tile kernels is that
    shape's (on the H200 reference, add_f32x4_grid, 64 KiB of 512-byte
    requests in flight per SM, measured 4122 GB/s where the curve reads
    4101).  None where the curve, the counters or the device record
    cannot place it."""
    found = member(member_point.variant)
    size = DTYPE_BYTES.get(point.dtype)
    most = run.device.get("max_threads_per_sm")
    if found is None or not size or not most or dram is None or \
            not member_point.block:
        return None
    inputs = int(round((point.bytes_moved - point.n * size) /
                       float(point.n * size)))
    one_tile = found.shape in ("tile", "bulk", "bulkone")
    if one_tile:
        if resident is None:
            occ, _ = model.occupancy(run, point)
            resident = occ / 100.0 * most if occ else None
    else:
        sms = run.device.get("sm_count")
        slots = blocks.slot_threads(run.device, member_point.block)
        resident = min(member_point.grid * member_point.block / float(sms),
                       slots) if sms and slots and member_point.grid \
            else None
    if not resident or inputs < 1:
        return None
    kib = inputs * found.words * found.bits / 8.0 * resident / 1024.0
    request = found.words * found.bits / 8.0 * member_point.block \
        if found.shape in ("bulk", "bulkone") else 32 * found.bits / 8.0
    placed = model.place(run.ceilings, point.op, request, kib,
                         dram)
    if placed is None:
        return None
    if one_tile:
        on_curve = placed.reachable
        fixed = model.stream_fixed_cost(run.ceilings)
        fixed_ns = fixed.value if fixed is not None else None
    else:
        on_curve = min(placed.ceiling, placed.series.bandwidth_at(kib))
        fixed_ns = placed.series.fixed_cost_at(kib)
    return with_fixed_cost(member_point,
                           lowest_roof(run, member_point, dram, on_curve),
                           fixed_ns)


def candidate_prediction(run, member_point):
    """The Prediction of a generated member on its own, as the what-if
    ranks it (analysis/whatif.py): member_prediction at its own geometry,
    a one-tile member at its own occupancy where the run measured it, else
    at the threads its block's slots hold by the SM's thread and block
    limits (the what-if runs without counters; a member's register cap of
    64 a thread could hold fewer at blocks of 1024, and its resident
    threads are then over-counted).  A generated op's rows say op
    "custom": it is read as the study's op of its byte mix, as
    tests/gpu/elementwise.sh sets its winner against the DRAM ceiling: two
    inputs or more, add's (dram_add, the add series); one, relu's
    (dram_copy, the copy series).  None where nothing places it."""
    size = DTYPE_BYTES.get(member_point.dtype)
    if not size or not member_point.n:
        return None
    read = member_point.bytes_moved - member_point.n * size
    like = "add" if read >= 2 * member_point.n * size else "relu"
    q = replace(member_point, op=like)
    dram = model.dram_ceiling(run.ceilings, run.spec_dram_bandwidth, like)
    occ, _ = model.occupancy(run, member_point)
    most = run.device.get("max_threads_per_sm")
    resident = occ / 100.0 * most if occ and most else \
        blocks.slot_threads(run.device, member_point.block)
    return member_prediction(run, q, q, dram, resident)


def with_fixed_cost(point, prediction, fixed_ns):
    """The Prediction of a launch that moves the point's bytes at the
    predicted rate after a measured fixed cost t0 (ns): bytes / (t0 +
    bytes / rate).  The rates are a long stream's (the DRAM ceiling and
    the curve are measured over arrays of 0.5-1 GiB), so without t0 a fix
    at 16Mi f32 add, ~58 us, is over-predicted by a few percent (on an
    H200 every add kernel's time over 8Mi-256Mi is 1.5-3 us + bytes / its
    rate).  t0 is that of the kernel of the member's shape: a one-tile
    member's, dram_add's (model.stream_fixed_cost); a looping member's,
    the curve's persistent grid at its loads in flight (Series.
    fixed_cost_at), whose warps end their last iterations apart.  The
    block-launch roof keeps its own fixed terms; without a measured t0
    (ceilings older than the rows) the rate alone.  (The study's
    experiments run at 2^28, where t0 is 0.3 % of a launch, and predict
    the rate alone.)"""
    if not fixed_ns or prediction.roof == ROOF_BLOCKS or \
            not point.bytes_moved or not prediction.value > 0:
        return prediction
    seconds = fixed_ns * 1e-9 + point.bytes_moved / prediction.value
    return replace(prediction, value=point.bytes_moved / seconds)


def _fix_prediction(run, point, cause, member_point, dram):
    """The Prediction of the fix made by the generated member
    `member_point`: the member's own (member_prediction(): its word, its
    words a thread); latency-bound's, the curve at twice the loads
    (predict()).  Where the curve cannot place the member, a fault's own
    (model/faults.py: the run's fastest whole-sector kernel, or Little's
    law on resident blocks up to the DRAM ceiling), its roof named so;
    None without one."""
    if cause == model.LATENCY_BOUND:
        return predict(run, point, member_point, BYTES, 2, dram)
    own = member_prediction(run, point, member_point, dram)
    if own is not None:
        return own
    fault = next((f for f in user_faults(run, point,
                                         model.block_slots(run, point), dram)
                  if f.name == cause), None)
    if fault is None or not fault.predicted:
        return None
    if cause == model.GRID_LIMITED:
        roof = ROOF_DRAM if dram is not None and \
            fault.predicted >= dram.value else ROOF_RESIDENT
    else:
        roof = ROOF_COALESCED
    return Prediction(fault.predicted, roof)


def fix_trial(run, point, cause, dram):
    """(Trial or None, target, change phrase): the generated member that
    makes the cause's fix, measured beside the point, with the fix's
    prediction; (None, None, None) where the cause names no member."""
    found = fix_target(run, point, cause)
    if found is None:
        return None, None, None
    target, change = found
    q = fix_member(run, point, target)
    if q is None:
        return None, target, change
    kind = BYTES if cause == model.LATENCY_BOUND else FIX
    factor = 2 if kind == BYTES else 1
    return make_trial(kind, "%s (%s, generated)" % (change, q.variant), q,
                  factor, _fix_prediction(run, point, cause, q, dram),
                  point), target, change


def fix_command(run, point, target, change):
    """The one line that says which run would test the fix: the user's
    kernel again, with the op's family generated beside it."""
    entry = next((e for e in run.manifest.get("user_kernels") or ()
                  if isinstance(e, dict) and e.get("variant") ==
                  point.variant), {})
    kernel = entry.get("file") or "K.cu"
    if entry.get("function"):
        kernel += ":" + entry["function"]
    per = " --elems-per-thread %d" % entry["elems_per_thread"] \
        if isinstance(entry.get("elems_per_thread"), int) and \
        entry["elems_per_thread"] > 1 else ""
    # the kernel the fault's prediction is, where it is one
    faster = coalesced_faster(run, point)
    beside = " -v %s" % faster[0] if faster else ""
    shape, bits, words = target
    return "Its fix (%s) is untested: no generated member of its op in " \
        "this run. `ewbench run --kernel %s%s --elementwise OP.cu -s %d " \
        "--cache %s --block %d%s` tests it (OP.cu: your op as a " \
        "per-element function, docs/user-kernels.md), with the member " \
        "gen:FUNCTION:%s_v%d_k%d" % (
            change, kernel, per, point.n, point.cache, point.block, beside,
            shape, bits, words)


# the experiments of a user's kernel

def user_experiments(ctx):
    """point key -> Experiment for each point of a user's kernel (at its
    published block) whose run also holds it at 2x, 4x ... that block,
    same size, cache state and launch (`ewbench run --kernel ... --block
    LIST`): its verdict's change made from outside, predicted and scored
    as the study's are.  The band is the model's error on the run's own
    points at the bases' sizes, each predicted from its own counters at
    its own block."""
    run = ctx.run
    users = [p for p in ctx.points
             if var.role(p.variant) == var.USER and p.key in ctx.verdicts]
    # The spread of warp lifetimes a larger block is predicted with: that
    # of the run's kernels at the users' sizes, cache states and launches,
    # as the study's experiments take it of theirs.
    shapes = {(p.n, p.cache, p.launch) for p in users}
    spread = run_spread(run, [q for q in ctx.points if
                              (q.n, q.cache, q.launch) in shapes]) \
        if users else None
    bases, untested, out = [], {}, {}
    for p in users:
        dram = model.run_dram_ceiling(run, p.op)
        verdict = ctx.verdicts[p.key]
        trials = change_trials(run, run, p, p, dram, spread)
        fix, target, change = fix_trial(run, p, verdict.name, dram)
        if fix is not None:
            trials += (fix,)
        elif target is not None:
            untested[p.key] = fix_command(run, p, target, change)
        if trials:
            bases.append((p, dram, trials))
        elif p.key in untested:     # nothing measured: the line alone
            out[p.key] = Experiment(p.variant, p, verdict, (), None,
                                    verdict.name, "",
                                    to_test=untested[p.key])
    if not bases:
        return out
    shapes = {(p.n, p.cache, p.launch) for p, _, _ in bases}
    # The generated members are the fixes' trials: they set no band.
    errors = []
    for q in ctx.points:
        if (q.n, q.cache, q.launch) not in shapes or \
                q.variant.startswith(GENERATED_PREFIX):
            continue
        own = predict(run, q, q, BYTES, 1, model.run_dram_ceiling(run, q.op))
        if own is not None and own.value > 0 and not refused(run, (q,)):
            errors.append(abs(q.bandwidth / own.value - 1.0))
    band = band_of(errors)
    for p, dram, trials in bases:
        verdict = ctx.verdicts[p.key]
        trials = tuple(replace(t, score=score(t, p, band)) for t in trials)
        bad = refused(run, (p,) + tuple(t.point for t in trials))
        trials = tuple(t for t in trials if t.point not in bad)
        outcome, final, text = judge(verdict, p, trials)
        both = co_limited(verdict, outcome, trials)
        if both is not None:
            final, text = CO_LIMITED, text + "; " + both
        if bad:
            text += ("; " if text else "") + refused_text(run, bad)
        out[p.key] = Experiment(p.variant, p, verdict, trials, outcome,
                                final, text, bad, band,
                                untested.get(p.key, ""))
    return out

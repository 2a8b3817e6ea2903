"""The classic faults of an elementwise kernel, each named by the counter
that shows it, with the bandwidth its fix predicts (docs/user-kernels.md,
"How the verdict is reached").

  uncoalesced access  a warp's global loads (or stores) touch more 32-byte
                      sectors per request than its bytes need, by
                      STRIDED_EXTRA sectors or more (l1tex__t_sectors_... /
                      l1tex__t_requests_... against requested bytes / 32):
                      neighbouring threads do not touch neighbouring
                      addresses (a stride, a chunk per thread)
  misaligned access   by MISALIGNED_EXTRA to STRIDED_EXTRA sectors more a
                      request: each request straddles one more sector than
                      its bytes need (operands off a 32-byte boundary,
                      vectors split across sectors)
  grid-limited        a kernel whose threads loop (more than
                      MAX_SINGLE_PASS_READ_BYTES read a thread: grid-stride,
                      persistent, a chunk a thread) launched with fewer
                      blocks than the GPU holds at once (the grid against
                      SMs x resident blocks of its size, one wave), below
                      GRID_FILL of those its size would fill at one element
                      a thread: slots stand empty, and more blocks would
                      each keep as many loads in flight.  A single pass a
                      thread with few blocks is a small size, not a fault

A fault of the access pattern is a cause only where it costs: the point
is slower, beyond the noise and MATERIAL_PCT, than a kernel of the same
run moving the same bytes with whole sectors (its fix predicts that
kernel's bandwidth), or its waste reaches L2 (L2 sectors per byte above
L2_WASTE x those of the run's coalesced kernels at the same size and
cache state).  Per-instruction waste that L1 absorbs (a thread's
consecutive scalar loads: the study's abs_f32_unroll at the DRAM
ceiling) is no cause.

A grid-limited point's fix predicts Little's law: bytes in flight, so
bandwidth, in proportion to resident blocks, up to the DRAM ceiling.

Only points of a user's kernel are judged here (rules.rule_fault): the
study's variants are judged by their experiments.
"""

from dataclasses import dataclass
from typing import Optional

from ...core import compare
from ...core import select as sel
from ...core.units import gbps
from ...core.validate.contract import DTYPE_BYTES
from ...core.generated import GENERATED_PREFIX
from .thresholds import (GRID_LIMITED, MATERIAL_PCT,
                         MAX_SINGLE_PASS_READ_BYTES, MISALIGNED, UNCOALESCED)

# Extra sectors per request, over what the requested bytes need: from
# MISALIGNED_EXTRA one sector more (a request straddling a boundary: 5
# sectors for a warp's 128 bytes of f32 off a 32-byte boundary, 3 for f16's
# 64); from STRIDED_EXTRA, more than one boundary explains.
MISALIGNED_EXTRA = 0.5
STRIDED_EXTRA = 1.5
# The waste reaches L2: L2 sectors per byte this far above the run's
# coalesced kernels' at the same size, cache state and launch.
L2_WASTE = 1.2
# A grid is limited below this share of the blocks the GPU holds at once
# (one wave) that the size could fill: a fix then predicts x1.33 or more.
GRID_FILL = 0.75


# Counters, as CUPTI spells them (metrics/default.txt collects them all).
REQUESTS = {"loads": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
            "stores": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"}
SECTORS = {"loads": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
           "stores": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"}
L2_SECTORS = {"loads": sel.M_L2_READ_SECTORS,
              "stores": sel.M_L2_WRITE_SECTORS}


@dataclass(frozen=True)
class Access:
    """One direction's access geometry, from the point's counters."""
    direction: str          # "loads" or "stores"
    per_request: float      # sectors a request touched
    ideal: float            # sectors its requested bytes need
    l2_per_byte: Optional[float]    # L2 sectors x 32 / bytes

    @property
    def extra(self):
        return self.per_request - self.ideal

    @property
    def kind(self):
        if self.extra >= STRIDED_EXTRA:
            return UNCOALESCED
        if self.extra >= MISALIGNED_EXTRA:
            return MISALIGNED
        return None

    def text(self):
        return "%.1f sectors per global %s request where its %.0f " \
            "requested bytes need %.1f (%s and %s)" % (
                self.per_request, self.direction[:-1], 32 * self.ideal,
                self.ideal, SECTORS[self.direction],
                REQUESTS[self.direction])


@dataclass(frozen=True)
class Fault:
    name: str               # rules.FAULTS
    evidence: str           # the counters and numbers that show it
    predicted: Optional[float]  # byte/s its fix would give; None: no model
    fix: str                # the change

    def text(self, bandwidth):
        gain = ""
        if self.predicted:
            gain = "; fixed, it should reach about %s (x%.2f)" % (
                gbps(self.predicted), self.predicted / bandwidth)
        return "%s%s; %s" % (self.evidence, gain, self.fix)


def _bytes(point):
    """(read, written) bytes: one output element per element."""
    size = DTYPE_BYTES.get(point.dtype)
    if not size:
        return None, None
    written = point.n * size
    return point.bytes_moved - written, written


def access(run, point, direction):
    """The Access of one direction, or None where its counters were not
    collected (or it moves nothing that way: an in-place kernel's reads
    are its writes' bytes, counted apart)."""
    read, written = _bytes(point)
    moved = read if direction == "loads" else written
    requests = sel.metric(run, point, REQUESTS[direction])
    sectors = sel.metric(run, point, SECTORS[direction])
    if not moved or not requests or sectors is None:
        return None
    l2 = sel.metric(run, point, L2_SECTORS[direction])
    return Access(direction, sectors / requests,
                  max(1.0, moved / requests / 32.0),
                  32.0 * l2 / moved if l2 is not None else None)


def _coalesced_l2(run, point, direction):
    """The fewest L2 sectors per byte of the run's kernels at the point's
    size, cache state and launch whose accesses that way are whole
    (extra < MISALIGNED_EXTRA): the chip's own baseline (1.5 on an H100 or
    H200, whose L2 counts a partition crossing twice)."""
    best = None
    for q in run.points:
        if q is point or (q.n, q.cache, q.launch) != \
                (point.n, point.cache, point.launch) or q.check == "fail":
            continue
        a = access(run, q, direction)
        if a is None or a.kind is not None or a.l2_per_byte is None:
            continue
        best = a.l2_per_byte if best is None else min(best, a.l2_per_byte)
    return best


def _whole_sectors(run, q):
    """q's accesses were measured and none touches extra sectors."""
    found = [a for a in (access(run, q, "loads"), access(run, q, "stores"))
             if a is not None]
    return bool(found) and all(a.kind is None for a in found)


def coalesced_faster(run, point):
    """(variant, % faster, byte/s) of the fastest kernel of the run that
    moves the same bytes (same size, cache state and launch) with whole
    sectors, faster than the point beyond the noise and by more than
    MATERIAL_PCT (facts.faster_sibling's test); None.  A generated
    member of the op (`--elementwise`) is not one: it is the fix's test
    (user_experiments.fix_trial), not its prediction."""
    best = None
    for q in run.points:
        if q is point or q.variant.startswith(GENERATED_PREFIX) or \
                (q.n, q.cache, q.launch, q.bytes_moved) != \
                (point.n, point.cache, point.launch, point.bytes_moved) or \
                q.check == "fail" or not q.bandwidth or \
                not _whole_sectors(run, q):
            continue
        change = compare.compare_points(point, q)
        pct = change.bandwidth_pct or 0.0
        if change.flag == compare.FASTER and pct > MATERIAL_PCT and \
                (best is None or q.bandwidth > best[2]):
            best = (q.variant, pct, q.bandwidth)
    return best


def access_fault(run, point):
    """The Fault of the point's access pattern, or None: the worse of its
    loads' and stores' geometry, where it costs."""
    found = [a for a in (access(run, point, "loads"),
                         access(run, point, "stores"))
             if a is not None and a.kind is not None]
    if not found:
        return None
    faster = coalesced_faster(run, point)
    worst = max(found, key=lambda a: a.extra / a.ideal)
    costs = []
    for a in found:
        base = _coalesced_l2(run, point, a.direction)
        if a.l2_per_byte is not None and base and \
                a.l2_per_byte >= L2_WASTE * base:
            costs.append("its %s reach L2 as %.2f sectors per 32 bytes, "
                         "%.1fx the run's coalesced kernels' %.2f" % (
                             a.direction, a.l2_per_byte,
                             a.l2_per_byte / base, base))
    if faster is not None:
        costs.append("%s, moving the same bytes with whole sectors, is "
                     "%+.1f %% faster" % (faster[0], faster[1]))
    if not costs:
        return None
    if worst.kind == UNCOALESCED:
        fix = "neighbouring threads on neighbouring elements (thread i " \
            "takes element i, a grid-stride loop over the rest) lift it"
    else:
        fix = "aligned operands, or a scalar head up to the first " \
            "aligned element before the vector loop, lift it"
    evidence = "; ".join([a.text() for a in found] + costs)
    return Fault(worst.kind, evidence, faster[2] if faster else None, fix)


def grid_fault(run, point, block_slots, dram):
    """A looping kernel's grid smaller than one wave of the GPU where the
    size could fill it (one element a thread would): Fault, or None.  A
    size too small to fill the GPU is the size's limit, not the
    kernel's."""
    if not point.grid or not point.block or not block_slots:
        return None
    read, _ = _bytes(point)
    if read is None or \
            read / (point.grid * point.block) <= MAX_SINGLE_PASS_READ_BYTES:
        return None     # one pass a thread: few blocks means little work
    could = min(block_slots, point.n // point.block)
    if point.grid >= GRID_FILL * could:
        return None
    sms = run.device.get("sm_count")
    evidence = "grid of %d blocks where the GPU holds %d blocks of %d " \
        "threads at once (%s SMs x %d resident): %.0f %% of its slots " \
        "filled, at a size that fills %d" % (
            point.grid, block_slots, point.block, sms,
            block_slots // sms if sms else 0,
            100.0 * point.grid / block_slots, could)
    predicted = point.bandwidth * could / point.grid
    if dram is not None:
        predicted = min(predicted, dram.value)
    return Fault(GRID_LIMITED, evidence, predicted,
                 "more blocks (fewer elements per thread, "
                 "--elems-per-thread, or a grid sized to the GPU) lift it; "
                 "the prediction is Little's law, bytes in flight in "
                 "proportion to resident blocks, up to the DRAM ceiling")

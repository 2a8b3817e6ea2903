"""Resident threads at another block size: Little's law on blocks.

A block holds its slot on an SM from its launch until its last warp ends.
Little's law, for blocks and for warps alike:

  resident blocks = block throughput x block lifetime
  active warps    = warp throughput  x warp lifetime

so the share of a resident block's warp slots that hold a running warp,
its fill, is the mean warp lifetime over the block's lifetime.  A
block's lifetime is the longest of its w warps' lifetimes; with the
warps' lifetimes spread beyond their shortest as an exponential tail
(the loads' round trips vary), the longest of w is the shortest plus the
tail's mean times the harmonic number H(w), so

  fill(w) = 1 / (1 + spread x (H(w) - 1))

with `spread` the tail's share of a warp's mean lifetime: 1 for a
one-warp block, falling as blocks grow.  A larger block of the same
kernel keeps the slots full of blocks but fewer of their warps running,
which is why a latency-bound kernel falls at 512 and 1024 threads.

Who holds residency at the kernel's own block decides what a larger
block changes:

  the slots       (the kernel's block throughput below BLOCK_LAUNCH_SHARE
                  of the measured block-launch rate of its size): its
                  achieved occupancy is the slots' threads x fill(w), and
                  `spread` follows from it; at k x the block, the new
                  slots' threads x fill(k w)
  launches        (its block throughput at the measured rate): resident
                  blocks = launch rate x lifetime, below the slots.  A
                  lifetime is the loads' round trip, which lengthens as
                  the memory fills (Little's law on bytes), so at a
                  larger block, whose grid the launcher issues with time
                  to spare, residency grows with the bandwidth until the
                  slots are full (the new grid's launch roof, the other
                  end, is a roof of its own in the prediction): the new
                  slots' threads x fill(k w), with the `spread` of the
                  run's kernels whose slots hold residency (their median:
                  its own occupancy says nothing of its warps' spread)

What the slots hold is the kernel's own: its theoretical occupancy
(sm__maximum_warps_per_active_cycle_pct, the occupancy API's) gives its
resident blocks per SM at its block (residency()).  The SM's thread and
block limits and its register file (launch__registers_per_thread against
registers_per_sm) explain that count for most kernels, and at k x the
block the same limits give the new count.  Where none of them explains
it, a per-block resource (shared memory: a static tile is the same at
any block) holds it: at k x the block the same number of blocks stays
resident, capped by the thread, block and register limits, so its
resident threads grow k-fold.

A kernel whose threads loop over the data (a persistent grid-stride
loop: grid x block fixed) keeps its resident threads and its loads at
any block: the same bandwidth.
"""

from dataclasses import dataclass
from typing import Optional

from ...core import select as sel
from .ceilings import block_rate, measured_block_rate
from .thresholds import BLOCK_LAUNCH_SHARE

WARP = 32

# How the register file is handed out, which run.json's device record
# does not hold (it records registers_per_sm alone): from the CUDA
# toolkit's cuda_occupancy.h (cudaOccRegAllocationGranularity,
# cudaOccSubPartitionsPerMultiprocessor), for compute capabilities 3 to
# 12: a warp's registers are allocated in units of 256, and the file is
# split evenly among 4 sub-partitions (2 on compute capability 6.0), each
# holding whole warps.
REGISTER_UNIT = 256
REGISTER_MAJORS = range(3, 13)

SLOTS = "slots"
LAUNCHES = "launches"


def harmonic(n):
    """H(n) = 1 + 1/2 + ... + 1/n."""
    return sum(1.0 / i for i in range(1, n + 1))


def fill(spread, warps):
    """The share of a resident block's warp slots that run a warp, for
    blocks of `warps` warps whose lifetimes have this spread."""
    return 1.0 / (1.0 + spread * (harmonic(max(warps, 1)) - 1.0))


def spread_of(fill_share, warps):
    """The spread that gives fill(spread, warps) == fill_share; None for
    one-warp blocks (nothing to learn) or a fill outside (0, 1]."""
    if warps <= 1 or not fill_share or fill_share <= 0 or fill_share > 1:
        return None
    return (1.0 / fill_share - 1.0) / (harmonic(warps) - 1.0)


def warps_of(block):
    """Warps of a `block`-thread block."""
    return -(-block // WARP)


def register_blocks(device, registers, block):
    """Blocks of `block` threads using `registers` each that the SM's
    register file holds (cuda_occupancy.h's rule, REGISTER_UNIT), or None
    when the device record lacks registers_per_sm or a compute capability
    that rule covers."""
    file_size = device.get("registers_per_sm")
    cc = str(device.get("compute_capability") or "")
    major = cc.split(".")[0]
    if not file_size or not registers or not block or \
            not major.isdigit() or int(major) not in REGISTER_MAJORS:
        return None
    parts = 2 if cc == "6.0" else 4
    per_warp = -(-int(registers) * WARP // REGISTER_UNIT) * REGISTER_UNIT
    return (file_size // parts // per_warp) * parts // warps_of(block)


def slot_blocks(device, block, registers=None, held_blocks=None):
    """Blocks of `block` threads an SM holds: its thread and block limits,
    its register file where `registers` (per thread) are given and the
    rule is known (register_blocks), and `held_blocks` where a per-block
    resource holds that many; None without the device's thread limit."""
    most = device.get("max_threads_per_sm")
    if not most or not block:
        return None
    limits = [most // block, device.get("max_blocks_per_sm"),
              register_blocks(device, registers, block) if registers
              else None, held_blocks]
    return min(n for n in limits if n is not None)


def slot_threads(device, block, registers=None, held_blocks=None):
    """Threads of `block`-thread blocks an SM holds (slot_blocks); None
    without the device's limits."""
    n = slot_blocks(device, block, registers, held_blocks)
    return None if n is None else n * block


@dataclass(frozen=True)
class Residency:
    """Resident blocks per SM of a kernel at its own block."""
    blocks: int             # from its theoretical occupancy
    registers: Optional[int]  # per thread (launch__registers_per_thread)
    per_block: bool         # no thread, block or register limit explains
    #                         `blocks`: a per-block resource holds it

    def slot_threads(self, device, block):
        """Threads of `block`-thread blocks the SM holds by the limits
        that held this kernel: the same count of blocks where a per-block
        resource held it, under the thread, block and register limits."""
        return slot_threads(device, block, self.registers,
                            self.blocks if self.per_block else None)


def residency(run, point):
    """The Residency of the point at its block: its theoretical occupancy
    (% of the SM's warps) over its warps a block, set against the limits
    the device record and its registers explain; None without the
    occupancy counter or the device's thread limit.  Without its
    registers or the register file's rule, nothing says a per-block
    resource holds it (per_block False)."""
    pct = sel.metric(run, point, sel.M_THEORETICAL_OCCUPANCY)
    most = run.device.get("max_threads_per_sm")
    if pct is None or not most or not point.block:
        return None
    count = int(round(pct / 100.0 * most / WARP / warps_of(point.block)))
    if count < 1:
        return None
    registers = sel.metric(run, point, sel.M_REGISTERS)
    registers = int(registers) if registers else None
    explained = slot_blocks(run.device, point.block, registers)
    known = registers is not None and \
        register_blocks(run.device, registers, point.block) is not None
    return Residency(count, registers, known and count < explained)


def launches_hold(run, point):
    """True when the point's blocks are launched at the measured
    block-launch rate of its size (BLOCK_LAUNCH_SHARE of it or more):
    launches, not the slots, hold its residency; None without the rate."""
    rate = measured_block_rate(run.ceilings, point.block)
    mine = block_rate(point)
    if rate is None or mine is None:
        return None
    return mine >= BLOCK_LAUNCH_SHARE * rate.value


@dataclass(frozen=True)
class Held:
    """How a kernel's residency is held at its own block."""
    by: str                 # SLOTS or LAUNCHES
    fill: float             # achieved threads over the slots' threads
    spread: Optional[float]  # its warps' spread (SLOTS, more than a warp)
    limits: Optional[Residency] = None  # what its slots are (residency())

    def slot_threads(self, device, block):
        """Threads the SM holds at blocks of `block` threads, by the
        limits that held the kernel where its counters say, else by the
        thread and block limits."""
        if self.limits is not None:
            return self.limits.slot_threads(device, block)
        return slot_threads(device, block)


def held(run, point, occupancy_pct):
    """Held of the point at its block from its achieved occupancy (%),
    or None without what it takes.  Its slots are its resident blocks by
    its theoretical occupancy (residency()) where measured, else the
    thread and block limits'."""
    most = run.device.get("max_threads_per_sm")
    limits = residency(run, point)
    slots = limits.blocks * point.block if limits is not None else \
        slot_threads(run.device, point.block)
    hold = launches_hold(run, point)
    if occupancy_pct is None or not most or not slots or hold is None:
        return None
    share = min(1.0, occupancy_pct / 100.0 * most / slots)
    if hold:
        return Held(LAUNCHES, share, None, limits)
    return Held(SLOTS, share, spread_of(share, warps_of(point.block)),
                limits)


def resident_threads(device, held_at_base, block, run_spread):
    """Resident threads per SM at blocks of `block` threads: the slots'
    threads (Held.slot_threads: a per-block resource's count of blocks
    stays) x fill(its warps), with the kernel's own spread where its
    slots held residency, else `run_spread` (the run's slot-held
    kernels'); None when no spread is known."""
    slots = held_at_base.slot_threads(device, block)
    spread = held_at_base.spread if held_at_base.by == SLOTS else None
    if spread is None:
        spread = run_spread
    if slots is None or spread is None:
        return None
    return slots * fill(spread, warps_of(block))

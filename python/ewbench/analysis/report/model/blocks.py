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

A kernel whose threads loop over the data (a persistent grid-stride
loop: grid x block fixed) keeps its resident threads and its loads at
any block: the same bandwidth.
"""

from dataclasses import dataclass
from typing import Optional

from .ceilings import block_rate, measured_block_rate
from .rules import BLOCK_LAUNCH_SHARE

WARP = 32

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


def slot_threads(device, block):
    """Threads of `block`-thread blocks an SM holds (thread and block
    limits; registers and shared memory are not known here); None
    without the device's limits."""
    most = device.get("max_threads_per_sm")
    if not most or not block:
        return None
    per_sm = most // block
    limit = device.get("max_blocks_per_sm")
    if limit:
        per_sm = min(per_sm, limit)
    return per_sm * block


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


def held(run, point, occupancy_pct):
    """Held of the point at its block from its achieved occupancy (%),
    or None without what it takes."""
    most = run.device.get("max_threads_per_sm")
    slots = slot_threads(run.device, point.block)
    hold = launches_hold(run, point)
    if occupancy_pct is None or not most or not slots or hold is None:
        return None
    share = min(1.0, occupancy_pct / 100.0 * most / slots)
    if hold:
        return Held(LAUNCHES, share, None)
    return Held(SLOTS, share, spread_of(share, point.block // WARP))


def resident_threads(device, held_at_base, block, run_spread):
    """Resident threads per SM at blocks of `block` threads: the slots'
    threads x fill(its warps), with the kernel's own spread where its
    slots held residency, else `run_spread` (the run's slot-held
    kernels'); None when no spread is known."""
    slots = slot_threads(device, block)
    spread = held_at_base.spread if held_at_base.by == SLOTS else None
    if spread is None:
        spread = run_spread
    if slots is None or spread is None:
        return None
    return slots * fill(spread, block // WARP)

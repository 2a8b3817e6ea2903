"""The verdict rules' thresholds (each with why it is what it is, and
the data it was set on), the verdicts' names and Verdict: the numbers
rules.py, facts.py, faults.py and the experiments judge by, declared once;
docs/analysis.md repeats them (tests/python/test_docs_numbers.py)."""

from dataclasses import dataclass

# A change, or a sibling, is faster by a material amount above this, and
# beyond the noise: the experiments' criterion (report/experiments.py),
# and the DRAM rule's (on the H100 the kernels at the DRAM ceiling differ
# by up to 1.7 % from one another and from the ceilings' own kernels).
MATERIAL_PCT = 3.0
LAUNCH_FACTOR = 2.0
LAUNCH_ABS_NS = 10_000.0
# Within LAUNCH_BAND of LAUNCH_FACTOR x the floor, either side, a point is
# not called launch-bound: a host's stream launch floor (host-event times)
# moves from run to run (2.5-9 % spread within one run on the H100s, 2.8
# to 4.3 us across three H100 hosts), and the GPU-side cost (kernel
# durations) is a floor from empty kernels, short of a real kernel's fixed
# cost by its first loads' latency and last wave's tail.
LAUNCH_BAND = 0.10
L2_DRAM_FRACTION = 0.5
DRAM_FRACTION = 0.80
OCCUPANCY_PCT = 50.0
ISSUE_BYTES_PER_INST = 16.0
# The issue rule's siblings at the ceiling are those at SIBLING_FRACTION of
# the best one or more; the latency rule's stall test sees room for more
# below SIBLING_FRACTION - SIBLING_BAND of it.  (Until issue 51 the DRAM
# rule used them too: 19 of 118 H100 and 34 of 105 H200 DRAM-bound labels
# had a sibling faster beyond the noise and MATERIAL_PCT, which the
# experiments count as a refutation.)
SIBLING_FRACTION = 0.90
SIBLING_BAND = 0.05
# Latency-bound on the concurrency curve: its loads in flight reach less
# than CURVE_ENOUGH of the curve's top, and the point is at most
# CURVE_TOLERANCE above or below what the curve predicts for them (set on
# the H100 reference, where the curve's scale fits: base points at
# 0.94-1.03 of it; judged on the H200, where it over-predicts and 13 of 30
# latency labels fell below 0.9 until issue 51).  (On the H100
# the scalar study kernels sit within 3 % of it: add_f32 2720 GB/s
# against 2784, relu_f32 2256 against 2324.)
CURVE_ENOUGH = 0.95
CURVE_TOLERANCE = 0.10
# Fixed-cost-bound: the fitted fixed cost is at least FIXED_SHARE of the
# time and, with the bytes the window moved at the serving level's
# ceiling, explains at
# least FIXED_COST_SHARE of it.
FIXED_SHARE = 0.25
# A series' fit gives its own fixed cost only with its largest relative
# residual at most FIT_RESIDUAL (facts.fit_holds; the H100 reference's
# article fits: median 4 %, p90 6.6 %, the largest 11 %).
FIT_RESIDUAL = 0.10
FIXED_COST_SHARE = 0.80
# Within FIXED_BAND below either limit, a point no other rule names says
# "borderline fixed-cost-bound": the fitted intercept moves by 1-4 % with
# the sweep's sizes.  Below only: the study's 1Mi kernels sit at 93-96 %,
# and a band above the limit put its edge among them (two H100 studies of
# 2026-11-27 split on four of them).
FIXED_BAND = 0.05
# Within DRAM_BAND of DRAM_FRACTION of the ceiling, either side, a point
# is not called DRAM-bound (borderline, said so if no other rule names
# it): on the H200 three 16Mi cold points sat at 79.7-80.9 % of it and
# split between two studies.
DRAM_BAND = 0.025
# L2-bound only at L2_SHARE of the measured L2 ceiling or more.
L2_SHARE = 0.5
# Stall reasons (metrics/stalls.txt) that mean warps wait on memory
# latency, and the share of all stalls they must reach to decide it.
LATENCY_STALLS = ("long_scoreboard",)
ISSUE_STALLS = ("not_selected", "math_pipe_throttle", "dispatch_stall",
                "mio_throttle", "lg_throttle")
STALL_DOMINANT = 0.5
ISSUE_MARGIN = 0.75
# Within ISSUE_BAND of that limit, either side, the point is borderline,
# not issue-bound: the limit rests on which siblings reach the ceiling in
# this run (an H200 relu_f32 at 2^24: 11.1 B against 0.75 x 14.9 = 11.2 B
# in one study, issue-bound; against 0.75 x 14.7 = 11.0 B in the next,
# undetermined).
ISSUE_BAND = 0.05
# Read bytes per launched thread above this mean the thread loops over the
# data, and its loads in flight cannot be told from the totals.
MAX_SINGLE_PASS_READ_BYTES = 64
# Block-launch-bound: its grid at the block-launch ceiling plus one
# launch's cost and one load's round trip is at least BLOCK_LAUNCH_SHARE
# of the time (a floor: the last blocks' stores and tail are not in it,
# so 90 %, not 100 %), and its
# achieved occupancy is below BLOCK_OCCUPANCY_FRACTION of the theoretical
# one (block slots stand empty) where both were measured.  Without a
# measured ceiling, the fastest block rate of the run's grids of at least
# BLOCK_RATE_MIN_GRID blocks stands in when BLOCK_RATE_AGREE points of
# different variants or blocks reach it within BLOCK_RATE_BAND: a shared
# limit, not one kernel's speed.
BLOCK_LAUNCH_SHARE = 0.90
BLOCK_RATE_BAND = 0.05
BLOCK_RATE_MIN_GRID = 1 << 16
BLOCK_OCCUPANCY_FRACTION = 0.75
BLOCK_RATE_AGREE = 2

LAUNCH_BOUND = "launch-bound"
BLOCK_LAUNCH_BOUND = "block-launch-bound"
FIXED_COST_BOUND = "fixed-cost-bound"
L2_BOUND = "L2-bound"
DRAM_BOUND = "DRAM-bound"
LATENCY_BOUND = "latency-bound"
OCCUPANCY_BOUND = "occupancy-bound"
ISSUE_BOUND = "issue-bound"
WRITES_DEFERRED = "writes deferred into L2"
UNKNOWN = "undetermined"
# The faults a user's kernel is named by (faults.py).
UNCOALESCED = "uncoalesced access"
MISALIGNED = "misaligned access"
GRID_LIMITED = "grid-limited"
FAULTS = (UNCOALESCED, MISALIGNED, GRID_LIMITED)
VERDICTS = (LAUNCH_BOUND, L2_BOUND, DRAM_BOUND, BLOCK_LAUNCH_BOUND,
            FIXED_COST_BOUND) + FAULTS + (LATENCY_BOUND, OCCUPANCY_BOUND,
                                          ISSUE_BOUND, WRITES_DEFERRED,
                                          UNKNOWN)

# A kernel that writes all its output to DRAM inside its timed window may
# beat the op's measured ceiling by this much: the ceiling is one kernel's
# median (ceilings.md), not the memory's limit.  Farther above it, nothing
# is called DRAM-bound.
CEILING_BEATEN_PCT = 3.0

# Fraction of bytes_moved that is read, per op (add: 2 reads + 1 write;
# relu out of place and abs in place: 1 read + 1 write).
READ_FRACTION = {"add": 2.0 / 3.0, "relu": 0.5, "abs": 0.5}


@dataclass(frozen=True)
class Verdict:
    name: str
    rule: str

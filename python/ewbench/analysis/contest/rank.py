"""Who is fastest among the add kernels, judged over interleaved repeats:
rankings, margins and whether a margin is larger than the round-to-round
spread.  contest_report.py renders the result.

One run is not enough to say that a kernel beats cub or torch.add by a
percent: clocks and DRAM refresh move a median by about that much from run
to run, and the per-launch scatter inside one run does not show it.  So
`contest` reads R run directories that are repeats of one plan, run
interleaved (round 1 of every contender, then round 2, ...), so that a
drift of the machine hits every contender alike, and asks whether a
difference is larger than the repeat-to-repeat spread.

Definitions:

  - A point key is load.PointKey (variant, n, block, cache, launch).
    Only keys present in EVERY run are used; the others are counted and
    listed in a note.  Points whose correctness check failed in any run
    are left out (a wrong kernel wins nothing), also with a note.
  - Per key, each run gives one bandwidth, bytes_moved / time_median_ns
    (load.Point.bandwidth).  The entry's bandwidth is the median over runs
    of those R bandwidths; its spread is the standard deviation of the
    same R numbers in % of that median (noise.repeat_spread_pct), unknown
    with one run.  The spread comes from the repeats only, never from
    time_stddev_ns, so graph and stream rows are judged alike.
  - Origin of a variant: "cub" if it starts with "cub_", "torch" if
    "torch_", else "ewbench" (ewbench's own and the study's variants).
  - Only op == "add" enters.  A contest is one (dtype, n, cache, launch)
    group: the ewbench entries ranked by median bandwidth, best first (all
    blocks of all variants compete, so a variant may appear at several
    blocks), plus the cub entry and the torch entry when present (torch
    rows are stream launches only).  Groups without an ewbench entry are
    not contests.
  - margin = 100 x (best ewbench / faster present peer - 1).  It is beyond
    the noise by the noise rule (noise.py) with the two entries' spreads
    and, as the floor, the cross-host spread of the GPU (noise.Floor: F of
    its median time, 0.2 % on the H100, 1.1 % on the H200, or the timer
    step): interleaved rounds on one host hold that host's drift, not the
    spread between hosts of the GPU, and a margin that another host can
    undo is no lead (the H100 reference's DRAM tier: 3 x the rounds'
    spread was +-0.02 %, ten times tighter than the 0.2 % four H100 hosts
    need).
  - The best entry is the best of `searched` configurations (every block
    of every variant), chosen on the very rounds it is scored on; so the
    margin is also scored held out (held_out): for each round, the entry
    that is best over the other rounds, against the faster peer of the
    other rounds, on that round; the median over the rounds.
  - All runs must name the same device, and a key must mean the same work
    (op, dtype, bytes_moved) in every run, else DataError
    (validate.check_rounds).
  - Tier of a group: when run.json settings carry size_choices (written by
    `ewbench run --preset tiers`) and (3 x element size, n) matches a
    choice, the choice's tier (latency, l2, dram); else the working set
    3 x n x element size relative to the L2 capacity.
"""

import statistics
from dataclasses import dataclass
from operator import attrgetter
from typing import Optional

from ..core import noise
from ..core import sinks
from ..core import variants as var
from ..core.load import PointKey
from ..core.validate import CACHES, DTYPE_BYTES, DTYPES, LAUNCHES, check_rounds
from ..core.units import bytes_label, size_label

LISTED = 5                  # missing keys named in a note

EWBENCH = "ewbench"
CUB = "cub"
TORCH = "torch"
USER = "user"           # a user's kernel (--kernel): never ranked as ewbench's

ADD_ARRAYS = 3              # a + b -> c: two reads and a write per element

AHEAD = "ahead"             # best ewbench faster, beyond the spread
BEHIND = "behind"           # the peer faster, beyond the spread
LEVEL = "level"             # the margin is within the spread
NO_PEER = "no peer"


@dataclass(frozen=True)
class Entry:
    """One point key over all runs: per-run bandwidths in run order."""
    key: PointKey           # the same in every run
    op: str
    dtype: str
    bandwidths: tuple       # byte/s, one per run

    variant = property(attrgetter("key.variant"))
    n = property(attrgetter("key.n"))
    block = property(attrgetter("key.block"))
    cache = property(attrgetter("key.cache"))
    launch = property(attrgetter("key.launch"))

    @property
    def origin(self):
        return origin(self.variant)

    @property
    def repeats(self):
        return len(self.bandwidths)

    @property
    def bandwidth(self):
        return statistics.median(self.bandwidths)

    @property
    def spread_pct(self):
        return noise.repeat_spread_pct(self.bandwidths)

    @property
    def time_ns(self):
        """The median time of one launch, from the median bandwidth and
        an add's bytes (noise.Floor needs it: its step is in ns)."""
        return ADD_ARRAYS * DTYPE_BYTES[self.dtype] * self.n / \
            self.bandwidth * 1e9

    def without(self, index):
        """The bandwidth over every round but one (held-out choice)."""
        rest = self.bandwidths[:index] + self.bandwidths[index + 1:]
        return statistics.median(rest)

    @property
    def label(self):
        """variant@block for kernels, the bare variant for peers."""
        if self.origin != EWBENCH or self.block is None:
            return self.variant
        return "%s@%d" % (self.variant, self.block)


@dataclass(frozen=True)
class Margin:
    """The best ewbench entry against the faster peer of its contest."""
    ratio: Optional[float]      # best / peer; None without a peer
    margin_pct: Optional[float]
    limit_pct: Optional[float]  # what the margin must exceed (noise.py)
    standing: str               # AHEAD, BEHIND, LEVEL or NO_PEER


@dataclass(frozen=True)
class HeldOut:
    """The margin scored on rounds the winner was not chosen on: per
    round, the best ewbench entry and the faster peer over the other
    rounds, scored on that round."""
    margin_pct: float       # the median over the rounds
    margins_pct: tuple      # per round
    chosen: tuple           # the label chosen for each round
    standing: str           # against the contest's limit


@dataclass(frozen=True)
class Contest:
    dtype: str
    n: int
    cache: str
    launch: str
    tier: Optional[str]     # size_choices tier, None when not chosen so
    tier_label: str
    ranked: tuple           # ewbench entries, best first
    cub: Optional[Entry]
    torch: Optional[Entry]
    floor: Optional[object] = None  # noise.Floor: the cross-host spread

    @property
    def best(self):
        return self.ranked[0]

    @property
    def searched(self):
        """How many configurations the best was chosen from."""
        return len(self.ranked)

    @property
    def peer(self):
        """The faster of cub and torch, or None when neither is present."""
        return _fastest([e for e in (self.cub, self.torch) if e is not None])

    @property
    def margin(self):
        return judge(self.best, self.peer, self.floor)

    @property
    def held_out(self):
        """HeldOut, or None without a peer or with fewer than two
        rounds."""
        peers = [e for e in (self.cub, self.torch) if e is not None]
        rounds = self.best.repeats
        limit = self.margin.limit_pct
        if not peers or rounds < 2 or limit is None:
            return None
        margins, chosen = [], []
        for r in range(rounds):
            pick = max(self.ranked, key=lambda e: e.without(r))
            peer = max(peers, key=lambda e: e.without(r))
            margins.append(100.0 * (pick.bandwidths[r] /
                                    peer.bandwidths[r] - 1.0))
            chosen.append(pick.label)
        middle = statistics.median(margins)
        return HeldOut(middle, tuple(margins), tuple(chosen),
                       _standing(middle, limit))

    @property
    def winner(self):
        """The fastest entry of all, peers included."""
        return _fastest([e for e in (self.best, self.peer) if e is not None])


def origin(variant):
    if var.role(variant) == var.USER:
        return USER
    if variant.startswith("cub_"):
        return CUB
    if variant.startswith("torch_"):
        return TORCH
    return EWBENCH


# gathering

def gather(runs):
    """Add entries over all runs and notes on what was left out.

    Returns (entries, notes); entries keep the key order of the first run.
    """
    # One GPU (a contest across GPUs would rank the machines, not the
    # kernels) and one meaning per point key in every run.
    check_rounds(runs)
    notes = []
    per_run = [{p.key: p for p in run.points if p.op == "add"}
               for run in runs]
    keys = list(dict.fromkeys(k for table in per_run for k in table))
    missing = [k for k in keys if any(k not in t for t in per_run)]
    left_out = set(missing)
    failed = []
    entries = []
    for key in keys:
        if key in left_out:
            continue
        points = [t[key] for t in per_run]
        if any(p.check == "fail" for p in points):
            failed.append(key)
            continue
        bandwidths = tuple(p.bandwidth for p in points)
        if any(not b for b in bandwidths):
            missing.append(key)
            continue
        first = points[0]
        entries.append(Entry(first.key, first.op, first.dtype, bandwidths))
    if len(runs) == 1:
        notes.append("one repeat: the spread is unknown; %g %% stands in "
                     "for it (the noise rule)" % noise.UNKNOWN_PCT)
    ids = [run.run_id for run in runs]
    for run_id in sorted(set(i for i in ids if ids.count(i) > 1)):
        notes.append("run %s is given %d times: copies of one run have "
                     "no spread between them" % (sinks.code(run_id),
                                                 ids.count(run_id)))
    for run in {run.run_id: run for run in runs}.values():
        if run.is_fixture:
            notes.append("%s is a fixture (synthetic numbers)" %
                         sinks.code(run.run_id))
        if run.manifest.get("status") not in (None, "complete"):
            notes.append("%s is %s" % (sinks.code(run.run_id),
                                        run.manifest["status"]))
    if missing:
        notes.append("%d add point%s not in every run (or without a "
                     "time), left out: %s" % (len(missing), _s(missing),
                                              _keys_text(missing)))
    if failed:
        notes.append("%d add point%s failed the correctness check in some "
                     "run, left out: %s" % (len(failed), _s(failed),
                                            _keys_text(failed)))
    return tuple(entries), tuple(notes)


def _s(items):
    return "" if len(items) == 1 else "s"


def _keys_text(keys):
    shown = ", ".join("%s n=%s block=%s %s %s" % (
        v, size_label(n), "" if b is None else b, c, l)
        for v, n, b, c, l in keys[:LISTED])
    return shown + (", ..." if len(keys) > LISTED else "")


# contests

def size_choices(run):
    """The --preset tiers choices of a run (run.json settings.size_choices),
    [] when there are none."""
    settings = run.manifest.get("settings") or {}
    return [c for c in settings.get("size_choices") or ()
            if isinstance(c, dict)]


def tier_of(run, dtype, n):
    """(tier or None, label) of an add of dtype with n elements."""
    per_element = ADD_ARRAYS * DTYPE_BYTES[dtype]
    footprint = per_element * n
    where = _l2_share(footprint, run.l2_bytes)
    for choice in size_choices(run):
        if (choice.get("footprint_bytes_per_element") == per_element and
                choice.get("n") == n):
            tier = choice.get("tier")
            return tier, "%s tier: %s" % (tier, where)
    return None, where


def _l2_share(footprint, l2_bytes):
    text = bytes_label(footprint)
    if not l2_bytes:
        return text
    share = footprint / l2_bytes
    if share >= 10:
        return "%s = %.0fx L2" % (text, share)
    if share >= 1:
        return "%s = %.1fx L2" % (text, share)
    return "%s = %.*f %% of L2" % (text, 1 if share < 0.1 else 0,
                                   100 * share)


def floor_pct(floor, *entries):
    """The cross-host floor of a comparison, in %: the larger of the
    entries' (noise.Floor at each one's median time); 0 without a
    Floor."""
    if floor is None:
        return 0.0
    return max(floor.pct_at(e.time_ns) for e in entries)


def _standing(margin, limit):
    return LEVEL if not noise.beyond_noise(margin, limit) else \
        AHEAD if margin > 0 else BEHIND


def judge(best, peer, floor=None):
    """best's margin over peer, and whether it beats the noise: three
    times the rounds' spreads, at least the cross-host floor (floor, a
    noise.Floor; None: no floor)."""
    if peer is None:
        return Margin(None, None, None, NO_PEER)
    ratio = best.bandwidth / peer.bandwidth
    margin = 100.0 * (ratio - 1.0)
    limit = noise.noise_limit_pct(best.spread_pct, peer.spread_pct,
                                  floor_pct=floor_pct(floor, best, peer))
    return Margin(ratio, margin, limit, _standing(margin, limit))


def _fastest(entries):
    return max(entries, key=lambda e: e.bandwidth) if entries else None


def contests(entries, runs):
    """One Contest per (dtype, n, cache, launch) with an ewbench entry,
    ordered f32 then f16, n ascending, warm before cold, stream before
    graph."""
    groups = {}
    for e in entries:
        if e.op == "add":
            groups.setdefault((e.dtype, e.n, e.cache, e.launch),
                              []).append(e)
    result = []
    for key in sorted(groups, key=lambda k: (
            DTYPES.index(k[0]), k[1], CACHES.index(k[2]),
            LAUNCHES.index(k[3]))):
        group = groups[key]
        ranked = sorted((e for e in group if e.origin == EWBENCH),
                        key=lambda e: -e.bandwidth)
        if not ranked:
            continue
        tier, label = tier_of(runs[0], key[0], key[1])
        result.append(Contest(
            key[0], key[1], key[2], key[3], tier, label, tuple(ranked),
            _fastest([e for e in group if e.origin == CUB]),
            _fastest([e for e in group if e.origin == TORCH]),
            noise.run_floor(runs[0])))
    return tuple(result)


def analyse(runs):
    """gather and contests in one go: (entries, notes, contests)."""
    entries, notes = gather(runs)
    return entries, notes, contests(entries, runs)

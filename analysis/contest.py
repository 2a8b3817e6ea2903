"""Who is fastest among the add kernels, judged over interleaved repeats.

One run is not enough to claim that a kernel beats cub or torch.add by a
percent: clocks and DRAM refresh move a median by about that much from run
to run, and the per-launch scatter inside one run does not show it.  So
`contest` reads R run directories that are repeats of one plan, run
interleaved (round 1 of every contender, then round 2, ...), so that a
drift of the machine hits every contender alike, and asks whether a
difference is larger than the repeat-to-repeat spread.

Definitions:

  - A point key is (variant, n, block, cache, launch), as load.Point.key.
    Only keys present in EVERY run are used; the others are counted and
    listed in a note.  Points whose correctness check failed in any run
    are left out (a wrong kernel wins nothing), also with a note.
  - Per key, each run gives one bandwidth, bytes_moved / time_median_ns
    (load.Point.bandwidth).  The entry's bandwidth is the median over runs
    of those R bandwidths, and
        spread_pct = 100 x (max - min) / median
    of the same R numbers.  With one run the spread is 0 by this formula
    but says nothing: it is reported as unknown and no win is claimed.
  - Origin of a variant: "cub" if it starts with "cub_", "torch" if
    "torch_", else "ewbench" (ewbench's own and the study's variants).
  - Only op == "add" enters.  A contest is one (dtype, n, cache, launch)
    group: the ewbench entries ranked by median bandwidth, best first (all
    blocks of all variants compete, so a variant may appear at several
    blocks), plus the cub entry and the torch entry when present (torch
    rows are stream launches only).  Groups without an ewbench entry are
    not contests.
  - ratio = best ewbench median / median of the faster present peer.  A
    win is claimable when ratio >= WIN_RATIO and the spreads of both the
    best ewbench entry and that peer are < MAX_SPREAD_PCT (the issue's
    rule: a claimed 1 % win needs a repeat-to-repeat spread below 0.5 %).
  - % of spec = 100 x bandwidth / device.dram_bandwidth_bytes_per_s of
    run.json.  All runs must name the same device, and a key must mean
    the same work (op, dtype, bytes_moved) in every run, else DataError
    (validate.check_rounds).
  - The spread comes from the repeats only, never from time_stddev_ns:
    warm graph rows, whose stddev is that of replay means, are judged by
    the same rule as stream rows.
  - Tier of a group: when run.json settings carry size_choices (written by
    `ewbench run --preset tiers`) and (3 x element size, n) matches a
    choice, the choice's tier (latency, l2, dram); else the working set
    3 x n x element size relative to the L2 capacity.

Goals, per dtype (the DRAM size is dram_n, 2^28 = "256M elements" unless
told otherwise):

  G1  n = dram_n, warm stream: best ewbench >= WIN_RATIO x the faster of
      cub and torch.add, both spreads < MAX_SPREAD_PCT.  Undecided when cub
      or torch is missing there, or when one repeat cannot give a spread.
  G2  n = dram_n, warm stream: best ewbench >= SPEC_GOAL_PCT % of spec.
  G3  L2 tier (size_choices tier l2), warm graph: best ewbench >= cub
      (plain >= of the medians).  Undecided without an l2 tier, graph rows
      or cub.
"""

import statistics
from dataclasses import dataclass
from typing import Optional

from .validate import CACHES, DTYPE_BYTES, DTYPES, LAUNCHES, check_rounds
from .units import bytes_label, gbps_number, pct, size_label

WIN_RATIO = 1.01
MAX_SPREAD_PCT = 0.5
SPEC_GOAL_PCT = 93.0
DEFAULT_DRAM_N = 1 << 28
TOP = 3                     # ewbench entries shown per contest
LISTED = 5                  # missing keys named in a note

EWBENCH = "ewbench"
CUB = "cub"
TORCH = "torch"

ADD_ARRAYS = 3              # a + b -> c: two reads and a write per element

MET = "met"
NOT_MET = "not met"
UNDECIDED = "undecided"


@dataclass(frozen=True)
class Entry:
    """One point key over all runs: per-run bandwidths in run order."""
    variant: str
    op: str
    dtype: str
    n: int
    block: Optional[int]
    cache: str
    launch: str
    bandwidths: tuple       # byte/s, one per run

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
        return spread_pct(self.bandwidths)

    @property
    def label(self):
        """variant@block for kernels, the bare variant for peers."""
        if self.origin != EWBENCH or self.block is None:
            return self.variant
        return "%s@%d" % (self.variant, self.block)


@dataclass(frozen=True)
class Claim:
    """The best ewbench entry against the faster peer of its contest."""
    ratio: Optional[float]  # best / peer; None without a peer
    claimable: bool
    standing: str           # "ahead", "level", "behind" or "no peer"
    reason: str


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

    @property
    def best(self):
        return self.ranked[0]

    @property
    def peer(self):
        """The faster of cub and torch, or None when neither is present."""
        return _fastest([e for e in (self.cub, self.torch) if e is not None])

    @property
    def claim(self):
        return judge(self.best, self.peer)


@dataclass(frozen=True)
class Goal:
    name: str
    text: str
    dtype: str
    verdict: str
    numbers: str


def origin(variant):
    if variant.startswith("cub_"):
        return CUB
    if variant.startswith("torch_"):
        return TORCH
    return EWBENCH


def spread_pct(values):
    """100 x (max - min) / median: the repeat-to-repeat spread."""
    middle = statistics.median(values)
    if not middle:
        return None
    return 100.0 * (max(values) - min(values)) / middle


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
        entries.append(Entry(first.variant, first.op, first.dtype, first.n,
                             first.block, first.cache, first.launch,
                             bandwidths))
    if len(runs) == 1:
        notes.append("one repeat: the spread is unknown and no win can be "
                     "claimed")
    ids = [run.run_id for run in runs]
    for run_id in sorted(set(i for i in ids if ids.count(i) > 1)):
        notes.append("run `%s` is given %d times: copies of one run have "
                     "no spread between them" % (run_id, ids.count(run_id)))
    for run in {run.run_id: run for run in runs}.values():
        if run.is_fixture:
            notes.append("`%s` is a fixture (synthetic numbers)" %
                         run.run_id)
        if run.manifest.get("status") not in (None, "complete"):
            notes.append("`%s` is %s" % (run.run_id,
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


def judge(best, peer):
    """Is best's lead over peer a win that survives the noise?"""
    if peer is None:
        return Claim(None, False, "no peer", "no cub or torch entry here")
    ratio = best.bandwidth / peer.bandwidth
    standing = ("ahead" if ratio >= WIN_RATIO else
                "behind" if ratio < 1.0 else "level")
    if standing == "behind":
        return Claim(ratio, False, standing, "ratio %.4f < 1: behind %s" %
                     (ratio, peer.variant))
    if standing == "level":
        return Claim(ratio, False, standing, "ratio %.4f < %.2f: ahead by "
                     "less than %.0f %%" % (ratio, WIN_RATIO,
                                            100 * (WIN_RATIO - 1)))
    if min(best.repeats, peer.repeats) < 2:
        return Claim(ratio, False, standing, "spread unknown with one "
                     "repeat")
    noisy = [e for e in (best, peer)
             if e.spread_pct is None or e.spread_pct >= MAX_SPREAD_PCT]
    if noisy:
        return Claim(ratio, False, standing, "; ".join(
            "spread of %s is %s >= %.1f %%" % (e.label, spread_text(e),
                                               MAX_SPREAD_PCT)
            for e in noisy))
    return Claim(ratio, True, standing, "ratio %.4f >= %.2f, spreads %s "
                 "and %s < %.1f %%" % (ratio, WIN_RATIO, spread_text(best),
                                       spread_text(peer), MAX_SPREAD_PCT))


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
            _fastest([e for e in group if e.origin == TORCH])))
    return tuple(result)


# goals

def n_text(n):
    """2^28 for powers of two, else the size label."""
    if n > 0 and n & (n - 1) == 0:
        return "2^%d" % (n.bit_length() - 1)
    return size_label(n)


def _find(found, dtype, n, cache, launch):
    for c in found:
        if (c.dtype, c.n, c.cache, c.launch) == (dtype, n, cache, launch):
            return c
    return None


def _entry_text(e, spec):
    text = "%s %s GB/s" % (e.label, gbps_number(e.bandwidth))
    if spec:
        text += " (%s of spec)" % pct(100 * e.bandwidth / spec)
    if e.repeats > 1:
        text += ", spread %s" % spread_text(e)
    return text


def goals(found, dram_n=DEFAULT_DRAM_N, spec=None, l2_sizes=None):
    """G1-G3 per dtype.  spec: DRAM byte/s for G2; l2_sizes: {dtype: n} of
    the size_choices l2 tier (None or absent: no l2 tier chosen)."""
    l2_sizes = l2_sizes or {}
    at = "n = %s, warm stream" % n_text(dram_n)
    result = []
    for dtype in DTYPES:
        c = _find(found, dtype, dram_n, "warm", "stream")
        text = ("G1 %s: best ewbench add >= %.2fx the faster of cub and "
                "torch.add, both spreads < %.1f %%" % (at, WIN_RATIO,
                                                        MAX_SPREAD_PCT))
        result.append(Goal("G1", text, dtype, *_g1(c, dtype, dram_n)))
        text = ("G2 %s: best ewbench add >= %.0f %% of spec DRAM "
                "bandwidth" % (at, SPEC_GOAL_PCT))
        result.append(Goal("G2", text, dtype, *_g2(c, dtype, dram_n, spec)))
        text = ("G3 L2 tier (size_choices tier l2), warm graph launch: "
                "best ewbench add >= cub")
        n = l2_sizes.get(dtype)
        c3 = None if n is None else _find(found, dtype, n, "warm", "graph")
        result.append(Goal("G3", text, dtype, *_g3(c3, dtype, n)))
    return tuple(result)


def _g1(c, dtype, dram_n):
    if c is None:
        return UNDECIDED, "no warm stream %s add at n = %s" % (
            dtype, size_label(dram_n))
    absent = [name for name, e in (("cub", c.cub), ("torch", c.torch))
              if e is None]
    have = ", ".join(_entry_text(e, None)
                     for e in (c.best, c.cub, c.torch) if e is not None)
    if absent:
        return UNDECIDED, "%s missing at this point; %s" % (
            " and ".join(absent), have)
    numbers = "%s; %s" % (have, c.claim.reason)
    if c.claim.claimable:
        return MET, numbers
    if c.claim.standing == "ahead" and min(c.best.repeats,
                                           c.peer.repeats) < 2:
        return UNDECIDED, numbers
    return NOT_MET, numbers


def _g2(c, dtype, dram_n, spec):
    if c is None:
        return UNDECIDED, "no warm stream %s add at n = %s" % (
            dtype, size_label(dram_n))
    if not spec:
        return UNDECIDED, "no spec DRAM bandwidth in run.json; best %s" % (
            _entry_text(c.best, None))
    share = 100 * c.best.bandwidth / spec
    return (MET if share >= SPEC_GOAL_PCT else NOT_MET,
            "%s; spec %s GB/s" % (_entry_text(c.best, spec),
                                  gbps_number(spec)))


def _g3(c, dtype, n):
    if n is None:
        return UNDECIDED, "no l2 tier in run.json size_choices for %s" % (
            dtype)
    if c is None:
        return UNDECIDED, "no warm graph %s add at the l2 tier n = %s" % (
            dtype, size_label(n))
    if c.cub is None:
        return UNDECIDED, "no cub at the l2 tier n = %s; best %s" % (
            size_label(n), _entry_text(c.best, None))
    verdict = MET if c.best.bandwidth >= c.cub.bandwidth else NOT_MET
    return verdict, "n = %s: %s vs %s (ratio %.4f)" % (
        size_label(n), _entry_text(c.best, None), _entry_text(c.cub, None),
        c.best.bandwidth / c.cub.bandwidth)


def l2_tier_sizes(run):
    """{dtype: n} of the l2 tier among the run's size_choices."""
    sizes = {}
    for dtype, size in DTYPE_BYTES.items():
        for choice in size_choices(run):
            if (choice.get("tier") == "l2" and
                    choice.get("footprint_bytes_per_element") ==
                    ADD_ARRAYS * size):
                sizes[dtype] = choice.get("n")
    return sizes


def analyse(runs, dram_n=DEFAULT_DRAM_N):
    """gather, contests and goals in one go: (entries, notes, found,
    goal list)."""
    entries, notes = gather(runs)
    found = contests(entries, runs)
    goal_list = goals(found, dram_n, runs[0].spec_dram_bandwidth,
                      l2_tier_sizes(runs[0]))
    return entries, notes, found, goal_list


# Markdown

def spread_text(e):
    if e.repeats < 2 or e.spread_pct is None:
        return "unknown"
    return "%.2f %%" % e.spread_pct


def _row(rank, e, peer, spec):
    return "| %s | %s | %s | %s | %s | %s | %s |" % (
        rank, e.variant,
        "" if e.origin != EWBENCH or e.block is None else e.block,
        gbps_number(e.bandwidth),
        pct(100 * e.bandwidth / spec) if spec else "n/a",
        spread_text(e),
        "n/a" if peer is None else "%.3fx" % (e.bandwidth / peer.bandwidth))


def _summary_line(c):
    best, peer, claim = c.best, c.peer, c.claim
    if peer is None:
        return "best %s: no cub or torch entry here; nothing to compare." % (
            best.label)
    return "best %s is %+.1f %% vs the faster peer (%s); claimable: %s " \
        "(%s)." % (best.label, 100 * (claim.ratio - 1), peer.variant,
                   "yes" if claim.claimable else "no", claim.reason)


def render_markdown(runs, notes, found, goal_list, dram_n=DEFAULT_DRAM_N):
    """The contest as GitHub Markdown text."""
    spec = runs[0].spec_dram_bandwidth
    lines = ["# ewbench contest", "",
             "- device: %s; spec DRAM bandwidth %s" % (
                 runs[0].device.get("name") or "unknown",
                 "%s GB/s (run.json)" % gbps_number(spec) if spec
                 else "unknown"),
             "- repeats: R = %d (interleaved runs of one plan)" % len(runs)]
    lines += ["  %d. `%s` (%s)" % (i, run.run_id, run.path)
              for i, run in enumerate(runs, 1)]
    lines += ["- per point: median over runs of bytes moved / median time; "
              "spread = 100 x (max - min) / median of the per-run "
              "bandwidths",
              "- rule: a win is claimable when best ewbench / faster peer "
              ">= %.2f and both spreads are < %.1f %%" % (WIN_RATIO,
                                                          MAX_SPREAD_PCT),
              "- DRAM goal size: n = %s (%s)" % (n_text(dram_n),
                                                size_label(dram_n))]
    lines += ["- note: %s" % n for n in notes]
    lines += ["", "## Goals", "",
              "| goal | dtype | verdict | numbers |", "|---|---|---|---|"]
    for g in goal_list:
        lines.append("| %s | %s | %s | %s |" % (
            g.text, g.dtype, g.verdict, g.numbers))
    lines += ["", "## Contests", ""]
    if not found:
        lines += ["No add point with an ewbench kernel in every run.", ""]
    for c in found:
        peer = c.peer
        lines += ["### %s add, n = %s (%s), %s, %s" % (
            c.dtype, size_label(c.n), c.tier_label, c.cache, c.launch), "",
            "| rank | variant | block | median GB/s | % spec | spread % "
            "| ratio to faster peer |",
            "|---|---|---|---|---|---|---|"]
        lines += [_row(i, e, peer, spec)
                  for i, e in enumerate(c.ranked[:TOP], 1)]
        for name, e in (("cub", c.cub), ("torch", c.torch)):
            if e is not None:
                lines.append(_row(name, e, peer, spec))
        lines += ["", _summary_line(c), ""]
    return "\n".join(lines).rstrip("\n") + "\n"

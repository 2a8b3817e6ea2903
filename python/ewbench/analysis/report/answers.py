"""The answers a reader wants first, computed from a judged study.

  ceilings      the measured ceilings with their share of the spec value
  versus_peers  at the DRAM tier, per dtype, ewbench's best add kernel
                against cub and torch.add: GB/s, % of spec, margin, beyond
                the noise?  From the study's repeat rounds when it has them
                (dram_repeats), else from the one run
  dram_repeats  the same over the study's rounds (Study.rounds): medians
                over the rounds, beyond the round-to-round spread?
  l2_ranges     at the L2 tier, the same over every L2-resident size: the
                margin's min / median / max, each beyond the noise or not
  shortfalls    the study's variants that fall short of their best sibling
                at the largest size, with the counter evidence and the
                best block from the block sweep

Pure functions of a findings.StudyContext; report.py renders them.
"""

from dataclasses import dataclass, replace
from typing import Optional

from ..core import compare
from ..contest import rank as contest
from . import findings as fnd
from . import model
from ..core import sass
from ..core import select as sel
from ..core import study as stu
from ..core import variants as var

SHORT_FRACTION = 0.90       # a study variant below this x its best sibling

CEILING_ORDER = ("dram_add", "dram_copy", "dram_read", "dram_write",
                 "l2_read", "launch_stream", "launch_graph", "fp32_fma",
                 "fp16_fma")


@dataclass(frozen=True)
class CeilingRow:
    name: str
    value: float
    unit: str
    spec_pct: Optional[float]       # None where no spec value exists


def ceilings(ceiling_map):
    """CeilingRow per measured ceiling, in CEILING_ORDER."""
    rows = []
    for name in CEILING_ORDER:
        c = (ceiling_map or {}).get(name)
        if c is None:
            continue
        spec = 100.0 * c.value / c.spec_value if c.spec_value else None
        rows.append(CeilingRow(name, c.value, c.unit, spec))
    return rows


@dataclass(frozen=True)
class Versus:
    tier: str               # "DRAM" or "L2"
    part: str
    dtype: str
    n: int
    cache: str
    launch: str
    best: object            # load.Point: ewbench's fastest
    cub: Optional[object]
    torch: Optional[object]
    spec: Optional[float]   # byte/s

    @property
    def peer(self):
        """The faster present peer, or None."""
        return _fastest([p for p in (self.cub, self.torch) if p is not None])

    @property
    def margin_pct(self):
        peer = self.peer
        if peer is None:
            return None
        return 100.0 * (self.best.bandwidth / peer.bandwidth - 1)

    @property
    def beyond_noise(self):
        """'ahead', 'behind' or 'within noise' (noise.py's CI rule on the
        two points, as compare applies it), None without a peer."""
        peer = self.peer
        if peer is None:
            return None
        flag = compare.compare_points(peer, self.best).flag
        return {compare.FASTER: "ahead", compare.SLOWER: "behind"}.get(
            flag, "within noise")


def _fastest(points):
    return max(points, key=lambda p: p.bandwidth) if points else None


def _versus(part, ctx, tier, dtype, n, cache, at=None):
    """Versus at one point of the plan; at: the run's add points of that
    dtype, n and cache when the caller has them (l2_ranges, one pass over
    the points for every size instead of one per size)."""
    if at is None:
        at = sel.select(ctx.points, op="add", dtype=dtype, n=n, cache=cache)
    launches = sorted({p.launch for p in at if var.is_own(p.variant)})
    if not launches:
        return None
    launch = launches[0]    # graph sorts first: the kernel without host
    own = [p for p in at if var.is_own(p.variant) and p.launch == launch]
    # torch rows exist for stream launches only: compare them there.
    peers = [p for p in at if not var.is_own(p.variant) and
             (p.launch == launch or var.peer_name(p.variant) == "torch")]
    if not own:
        return None
    return Versus(tier, part, dtype, n, cache, launch, _fastest(own),
                  _fastest([p for p in peers
                            if var.peer_name(p.variant) == "cub"]),
                  _fastest([p for p in peers
                            if var.peer_name(p.variant) == "torch"]),
                  ctx.run.spec_dram_bandwidth)


def versus_peers(sctx):
    """[Versus] at the DRAM tier: the article's largest size (warm), one
    per dtype; [RepeatVersus] instead when the study has repeat rounds
    (dram_repeats).  The L2 tier is a range of sizes: l2_ranges."""
    repeated = dram_repeats(sctx)
    if repeated:
        return repeated
    out = []
    part, ctx = sctx.part(stu.ARTICLE, stu.SWEEP)
    if ctx is not None:
        adds = [p for p in ctx.points if p.op == "add"]
        for dtype in ("f32", "f16"):
            rows = [p for p in adds if p.dtype == dtype]
            if not rows:
                continue
            n = max(p.n for p in rows)
            cache = sel.preferred_cache([p for p in rows if p.n == n])
            v = _versus(part, ctx, "DRAM", dtype, n, cache)
            if v is not None:
                out.append(v)
    return out


@dataclass(frozen=True)
class RepeatVersus:
    """A Versus judged over rounds: best, cub and torch are contest
    Entries (bandwidth = the median over the rounds), and beyond the noise
    means beyond the round-to-round spread (contest.judge)."""
    tier: str
    dtype: str
    n: int
    cache: str
    launch: str
    best: object            # contest.Entry
    cub: Optional[object]
    torch: Optional[object]
    spec: Optional[float]
    rounds: int
    judged: object          # contest.Margin

    peer = Versus.peer

    @property
    def margin_pct(self):
        return self.judged.margin_pct

    @property
    def beyond_noise(self):
        return {contest.AHEAD: "ahead", contest.BEHIND: "behind",
                contest.LEVEL: "within noise"}.get(self.judged.standing)


def dram_repeats(sctx):
    """[RepeatVersus] per dtype at the DRAM tier from the study's rounds
    (Study.rounds): the article's largest size, warm, stream, judged as
    `ewbench contest` judges its rounds (docs/analysis.md): every block
    measured competes.  Only the add points present in every round take
    part.  [] without repeat rounds."""
    study = sctx.study
    article = study.run(stu.ARTICLE)
    runs = study.rounds
    if len(runs) < 2 or article is None or not article.points:
        return []
    n = max(p.n for p in article.points)

    def dram_adds(run):
        return {p.key for p in run.points if p.op == "add" and p.n == n and
                p.cache == "warm" and p.launch == "stream"}
    keys = dram_adds(runs[0])
    for run in runs[1:]:
        keys &= dram_adds(run)
    if not keys:
        return []
    rounds = [replace(run, points=tuple(p for p in run.points
                                        if p.key in keys))
              for run in runs]
    _, _, found = contest.analyse(rounds)
    return [RepeatVersus("DRAM", c.dtype, c.n, c.cache, c.launch, c.best,
                         c.cub, c.torch, article.spec_dram_bandwidth,
                         len(rounds), c.margin) for c in found]


@dataclass(frozen=True)
class SizeMargin:
    versus: Versus          # ewbench's fastest and the peer at one size

    @property
    def margin_pct(self):
        return self.versus.margin_pct


@dataclass(frozen=True)
class VersusRange:
    """ewbench's fastest add against one peer over every L2-resident size
    of one dtype: the margin's min, median and max, each with its size."""
    part: str
    dtype: str
    peer: str               # "cub" or "torch"
    limit_bytes: float      # the footprints judged are <= this
    limit_source: str
    sizes: tuple            # SizeMargin, ascending footprint

    def _ordered(self):
        return sorted(self.sizes, key=lambda m: m.margin_pct)

    @property
    def lowest(self):
        return self._ordered()[0]

    @property
    def highest(self):
        return self._ordered()[-1]

    @property
    def middle(self):
        ordered = self._ordered()
        return ordered[len(ordered) // 2]

    def count(self, standing):
        return sum(m.versus.beyond_noise == standing for m in self.sizes)


def fixed_cost(ctx, point):
    """The fixed cost of one launch of a point, ns: the larger of the
    measured launch floor (empty kernels) and the fitted intercept t0 of
    its cache state and launch mode (which includes the ramp of a real
    kernel); None when neither is known."""
    floors = [f for f in (model.launch_floor(ctx.run, point, ctx.fits)[0],
                          model.fitted_launch_floor(ctx.fits, point.cache,
                                                    point.launch)[0])
              if f is not None]
    return max(floors) if floors else None


def l2_limit(ctx):
    """(bytes, source): the largest footprint counted as L2-resident: the
    last one below finding 2's effective L2, else half the nominal L2."""
    eff = fnd.effective_l2(ctx)
    if eff is not None:
        return eff[1], "up to the effective L2"
    return fnd.F2_FIT_FRACTION * ctx.run.l2_bytes, "up to half the L2"


def l2_ranges(sctx):
    """[VersusRange]: per dtype and peer, ewbench's fastest add against
    the peer at every warm size whose footprint is L2-resident (l2_limit)
    and where ewbench's fastest takes at least LAUNCH_FACTOR x the fixed
    cost of a launch (fixed_cost), so that L2 bandwidth sets its time
    (from the sweep when there is one)."""
    part, ctx = sctx.part(stu.SWEEP, stu.ARTICLE)
    if ctx is None or not ctx.run.l2_bytes:
        return []
    limit, source = l2_limit(ctx)
    at = {}         # (dtype, n): the warm add points there
    for p in ctx.points:
        if p.op == "add" and p.cache == "warm":
            at.setdefault((p.dtype, p.n), []).append(p)
    out = []
    for dtype in ("f32", "f16"):
        sizes = sorted({p.n for p in ctx.points if p.op == "add" and
                        p.dtype == dtype and p.cache == "warm" and
                        p.footprint_bytes <= limit})
        per_peer = {"cub": [], "torch": []}
        for n in sizes:
            v = _versus(part, ctx, "L2", dtype, n, "warm", at[dtype, n])
            if v is None or ctx.verdicts[v.best.key].name == \
                    model.LAUNCH_BOUND:
                continue
            fixed = fixed_cost(ctx, v.best)
            if fixed and v.best.time_median_ns < \
                    model.LAUNCH_FACTOR * fixed:
                continue
            for name, peer in (("cub", v.cub), ("torch", v.torch)):
                if peer is not None:
                    one = Versus(v.tier, part, dtype, n, "warm", v.launch,
                                 v.best, peer if name == "cub" else None,
                                 peer if name == "torch" else None, v.spec)
                    per_peer[name].append(SizeMargin(one))
        for name, margins in per_peer.items():
            if margins:
                out.append(VersusRange(part, dtype, name, limit, source,
                                       tuple(margins)))
    return out


@dataclass(frozen=True)
class Shortfall:
    point: object           # the study variant's point
    sibling: object         # the best sibling's point
    verdict: object         # model.Verdict
    occupancy: Optional[float]
    occupancy_kind: str
    kib_in_flight: Optional[float]
    bytes_per_inst: Optional[float]
    contrast: Optional[object]      # the fastest sibling near the best
    #                                 whose loads in flight are known
    contrast_kib_in_flight: Optional[float]
    best_block: Optional[object]    # the variant's fastest point in the
    #                                 block sweep at its largest size
    published_block: Optional[object]  # the same sweep at the article block
    top_stall: Optional[tuple] = None   # (reason, % of all stalls), from
    #                                     the stall counters (stalls/ part)
    loads: str = ""             # its loads: requested and sector bytes per
    #                             instruction, SASS (findings.load_story)
    sass_missing: str = ""      # why its SASS is not there, '' if it is
    experiment: Optional[object] = None  # experiments.Experiment, if run

    @property
    def share(self):
        return self.point.bandwidth / self.sibling.bandwidth


def _kib(run, p):
    occ, _ = model.occupancy(run, p)
    return model.kib_in_flight_per_sm(p, occ,
                                      run.device.get("max_threads_per_sm"))


def _block_fix(sctx, variant, block):
    """(fastest point, point at block) of the variant's block sweep at the
    largest size it was swept, warm preferred; (None, None) without one."""
    for name in (stu.BLOCKS,) + stu.PARTS:
        ctx = sctx.parts.get(name)
        if ctx is None:
            continue
        sweeps = [(k, rows) for k, rows in fnd.block_sweeps(ctx).items()
                  if k[0] == variant]
        if not sweeps:
            continue
        n = max(k[1] for k, _ in sweeps)
        rows = [r for k, rs in sweeps if k[1] == n for r in rs]
        cache = sel.preferred_cache(rows)
        rows = [p for p in rows if p.cache == cache]
        at_block = [p for p in rows if p.block == block]
        return _fastest(rows), (_fastest(at_block) if at_block else None)
    return None, None


def _top_stall(run, p):
    stalls = sel.stall_shares(run, p)
    total = sum(v for _, v in stalls)
    if not stalls or not total:
        return None
    return stalls[0][0], 100.0 * stalls[0][1] / total


def _tested(experiment, point):
    """The experiment was of this point (its size, cache, launch, block)."""
    return experiment is not None and (
        experiment.base.n, experiment.base.cache, experiment.base.launch,
        experiment.base.block) == (point.n, point.cache, point.launch,
                                   point.block)


def shortfalls(sctx):
    """[Shortfall] of the study variants below SHORT_FRACTION x their best
    sibling at the article's largest size, slowest share first."""
    part, ctx = sctx.part(stu.ARTICLE, stu.SWEEP)
    if ctx is None:
        return []
    run = ctx.run
    all_sizes = sorted({p.n for p in ctx.points})
    if not all_sizes:
        return []
    pts, _ = fnd.at_size(ctx, all_sizes[-1])
    out = []
    for p in pts:
        if var.role(p.variant) != var.STUDY:
            continue
        siblings = [q for q in pts if (q.op, q.dtype, q.launch) ==
                    (p.op, p.dtype, p.launch)]
        best = _fastest(siblings)
        if best is None or p.bandwidth >= SHORT_FRACTION * best.bandwidth:
            continue
        occ, kind = model.occupancy(run, p)
        fast_block, at_block = _block_fix(sctx, p.variant, p.block)
        contrast = [q for q in siblings
                    if q.bandwidth >= SHORT_FRACTION * best.bandwidth and
                    _kib(run, q) is not None]
        contrast = _fastest(contrast)
        out.append(Shortfall(
            p, best, ctx.verdicts[p.key], occ, kind, _kib(run, p),
            sel.metric(run, p, sel.M_BYTES_PER_INST), contrast,
            _kib(run, contrast) if contrast else None, fast_block,
            at_block, _top_stall(run, p), fnd.load_story(run, p),
            "" if sass.rows(run, p.variant) else sass.why_not(run),
            sctx.experiments.get(p.variant) if part == stu.ARTICLE and
            _tested(sctx.experiments.get(p.variant), p) else None))
    return sorted(out, key=lambda s: s.share)

"""The facts of a point the verdict rules look at, from a run, and
classify_run."""

from dataclasses import dataclass
from typing import Optional

from ...core import compare
from ...core import select as sel
from ...core import variants as var
from . import blocks as blk
from . import calibration
from . import curve
from . import faults as flt
from .ceilings import (Bound, block_rate, fitted_launch_floor, idle_latency,
                       l2_ceiling, launch_floor, measured_block_rate,
                       run_block_rate, run_dram_ceiling)
from .above import late_writes
from .inflight import kib_in_flight_per_sm, occupancy
from .fit import fit_series, series_key
from .rules import (CEILING_BEATEN_PCT, DRAM_FRACTION, FIT_RESIDUAL, LAUNCH_ABS_NS, LAUNCH_FACTOR,
                    MATERIAL_PCT,
                    SIBLING_FRACTION, classify)


@dataclass(frozen=True)
class PointFacts:
    """What the verdict rules look at, for one point."""
    time_ns: float
    bytes_moved: int
    footprint_bytes: int
    bandwidth: float
    l2_bytes: Optional[int] = None
    dram_ceiling: Optional[Bound] = None
    launch_floor_ns: Optional[float] = None
    launch_floor_source: Optional[str] = None
    dram_bytes: Optional[float] = None
    occupancy_pct: Optional[float] = None
    occupancy_kind: str = "achieved"
    bytes_per_inst: Optional[float] = None
    kib_in_flight_per_sm: Optional[float] = None
    cold_time_ns: Optional[float] = None    # warm points slower than their
    #   cold twin beyond the noise: the cold twin's time (else None)
    best_sibling: Optional[str] = None      # fastest sibling's variant
    best_sibling_bandwidth: Optional[float] = None
    full_speed_bytes_per_inst: Optional[float] = None  # lowest of siblings
    #   at this size that are DRAM-bound (None: none is, or no counters)
    full_speed_kib_in_flight: Optional[float] = None   # the fewest of
    #   the DRAM-bound siblings whose loads in flight are known
    full_speed_sibling: Optional[str] = None
    on_curve: Optional[curve.OnCurve] = None  # its loads in flight on the
    #   measured concurrency curve: what they allow
    stalls: tuple = ()      # ((reason, % of active warps), ...), largest
    #                         first (metrics/stalls.txt)
    grid: Optional[int] = None
    block_rate: Optional[float] = None      # blocks/s
    block_rate_ceiling: Optional[Bound] = None
    theoretical_occupancy_pct: Optional[float] = None
    cache: Optional[str] = None             # warm | cold; None: not known
    load_latency_ns: Optional[float] = None  # measured dram_latency
    l2_ceiling: Optional[Bound] = None      # measured l2_read
    fixed_ns: Optional[float] = None        # fitted intercept t0 of its
    fixed_source: Optional[str] = None      #   series (else the median)
    block_slots: Optional[int] = None       # blocks of its size the GPU
    #   holds at once (one wave)
    window: Optional[object] = None         # above.Window: part of the
    #   output written to DRAM after the end stamp (else None)
    faster_sibling: Optional[tuple] = None  # (variant, % faster) of the
    #   fastest sibling faster beyond the noise and MATERIAL_PCT, or None
    faults: tuple = ()      # faults.Fault its counters show, a user's
    #   kernel only: access pattern first, then the grid

    @property
    def window_bytes(self):
        """The bytes the timed window moved at DRAM's side: those the
        DRAM rules judge (all of them unless part of the output was
        written after the end stamp)."""
        return self.window.bytes if self.window is not None else \
            self.bytes_moved

    def stall_share(self, reasons):
        """The share of all stall cycles spent on these reasons, or None
        without stall counters.  All = the reasons measured (a reason the
        chip lacks is absent, not 0): their shares sum to 1."""
        total = sum(v for _, v in self.stalls)
        if not total:
            return None
        return sum(v for r, v in self.stalls if r in reasons) / total

    @property
    def stall_text(self):
        return "top warp stalls, in %% of active warps: %s" % ", ".join(
            "%s %.0f%%" % (r, v) for r, v in self.stalls[:3]) \
            if self.stalls else ""

    @property
    def dram_bandwidth(self):
        """The bandwidth DRAM is judged on: of the bytes the timed window
        moved (the window's, where part of the output was written after
        the end stamp), else of the bytes moved."""
        return self.window.bandwidth if self.window is not None else \
            self.bandwidth

    @property
    def dram_pct(self):
        if self.dram_ceiling is None:
            return None
        return 100.0 * self.dram_bandwidth / self.dram_ceiling.value

    @property
    def sibling_share(self):
        """Bandwidth as a fraction of the best sibling's, or None."""
        if not self.best_sibling_bandwidth:
            return None
        return self.bandwidth / self.best_sibling_bandwidth


# facts from a run

def sibling_key(point):
    """Points that move the same bytes under the same conditions."""
    return (point.op, point.dtype, point.n, point.cache, point.launch)


def sibling_groups(run):
    """sibling key -> points with a passing (or unknown) check."""
    out = {}
    for p in run.points:
        if p.check != "fail" and p.bandwidth:
            out.setdefault(sibling_key(p), []).append(p)
    return out


def point_facts(run, point, fits, siblings=None, cold=None,
                block_ceiling=None, fixed_fits=None):
    """The facts of one point; siblings (from sibling_groups), cold (warm
    point key -> cold twin) and block_ceiling (block_rate_ceiling) are
    computed once per run by classify_run; fixed_fits, the fits of
    another run of the study with more sizes (fixed_cost)."""
    floor_ns, floor_source = launch_floor(run, point, fits)
    occ, occ_kind = occupancy(run, point)
    dram = run_dram_ceiling(run, point.op)
    best = None
    full_bpi = full_kib = full_name = None
    max_threads = run.device.get("max_threads_per_sm")
    if siblings is not None:
        group = siblings.get(sibling_key(point), [])
        if group:
            best = max(group, key=lambda p: p.bandwidth)
        if dram is not None:
            top = best.bandwidth if best else 0.0
            full = [p for p in group
                    if p.bandwidth >= DRAM_FRACTION * dram.value and
                    p.bandwidth >= SIBLING_FRACTION * top]
            bpis = [v for v in (sel.metric(run, p, sel.M_BYTES_PER_INST)
                                for p in full) if v is not None]
            full_bpi = min(bpis) if bpis else None
            # The leanest sibling at the ceiling: the fewest bytes in
            # flight this run shows to be enough.
            for p in full:
                kib = kib_in_flight_per_sm(p, occupancy(run, p)[0],
                                           max_threads)
                if kib is not None and (full_kib is None or kib < full_kib):
                    full_kib, full_name = kib, p.variant
    kib = kib_in_flight_per_sm(point, occ, max_threads)
    fixed, fixed_source = fixed_cost(point, fits, fixed_fits, dram)
    faster = faster_sibling(point, (siblings or {}).get(sibling_key(point),
                                                        ()))
    slots = block_slots(run, point)
    twin = (cold or {}).get(point.key) if point.cache == "warm" else None
    if twin is not None and not _host_artefact(point, twin, floor_ns):
        twin = None
    return PointFacts(
        time_ns=point.time_median_ns,
        bytes_moved=point.bytes_moved,
        footprint_bytes=point.footprint_bytes,
        bandwidth=point.bandwidth,
        l2_bytes=run.l2_bytes,
        dram_ceiling=dram,
        launch_floor_ns=floor_ns,
        launch_floor_source=floor_source,
        dram_bytes=sel.dram_bytes(run, point),
        occupancy_pct=occ,
        occupancy_kind=occ_kind,
        bytes_per_inst=sel.metric(run, point, sel.M_BYTES_PER_INST),
        kib_in_flight_per_sm=kib,
        cold_time_ns=twin.time_median_ns if twin else None,
        best_sibling=best.variant if best else None,
        best_sibling_bandwidth=best.bandwidth if best else None,
        full_speed_bytes_per_inst=full_bpi,
        full_speed_kib_in_flight=full_kib,
        full_speed_sibling=full_name,
        on_curve=curve.place(run.ceilings, point.op, sel.metric(
            run, point, sel.M_LD_REQUESTED_BYTES_PER_INST), kib, dram,
            calibration.series_for(run, point.variant)),
        stalls=tuple(sel.stall_shares(run, point)),
        grid=point.grid,
        block_rate=block_rate(point),
        block_rate_ceiling=block_ceiling,
        theoretical_occupancy_pct=sel.metric(
            run, point, sel.M_THEORETICAL_OCCUPANCY),
        cache=point.cache,
        load_latency_ns=idle_latency(run),
        l2_ceiling=l2_ceiling(run.ceilings),
        fixed_ns=fixed,
        fixed_source=fixed_source,
        block_slots=slots,
        window=late_writes(run, point),
        faster_sibling=faster,
        faults=user_faults(run, point, slots, dram))


def user_faults(run, point, slots, dram):
    """The faults (faults.py) a user's kernel's counters show and that
    cost, its access pattern's first; () for every other kernel."""
    if var.role(point.variant) != var.USER:
        return ()
    return tuple(x for x in (flt.access_fault(run, point),
                             flt.grid_fault(run, point, slots, dram))
                 if x is not None)


def faster_sibling(point, group):
    """(variant, % faster) of the fastest of group faster than point
    beyond the noise (compare's rule) and by more than MATERIAL_PCT: the
    experiments' refutation of DRAM-bound; None."""
    best = None
    for q in group:
        if q is point or q.key == point.key:
            continue
        change = compare.compare_points(point, q)
        pct = change.bandwidth_pct or 0.0
        if change.flag == compare.FASTER and pct > MATERIAL_PCT and \
                (best is None or pct > best[1]):
            best = (q.variant, pct)
    return best


def fit_holds(fit, ceiling=None):
    """A series' fit good enough to give its own fixed cost: usable, its
    largest relative residual at most FIT_RESIDUAL, and its DRAM slope not
    above the measured DRAM ceiling (by more than CEILING_BEATEN_PCT): a
    steeper slope means the times miss bytes (writes left in L2), and the
    intercept it gives is distorted with it."""
    if fit is None or not fit.usable or \
            fit.max_rel_residual > FIT_RESIDUAL:
        return False
    value = getattr(ceiling, "value", ceiling)
    return not value or fit.bandwidth is None or \
        fit.bandwidth <= (1 + CEILING_BEATEN_PCT / 100.0) * value


def fixed_cost(point, fits, other=None, ceiling=None):
    """(ns, source): the fixed cost of a launch of this point's series,
    its fitted intercept t0 where that fit holds (fit_holds, against the
    DRAM ceiling); else, for a kernel's
    own duration (which no launch mode changes), the usable fit of the same
    variant, block and cache state in `other` (the fits of a run with more
    sizes: the study's sweep, whose launches are graphed); else the median
    t0 of the usable fits of its cache state and launch mode, in its run
    or (a kernel's own duration) in `other`; (None, None)."""
    fit = (fits or {}).get(series_key(point))
    if fit_holds(fit, ceiling):
        return fit.t0_ns, "its series' fitted intercept"
    if point.kernel_timed:
        for (variant, block, cache, _), fit in (other or {}).items():
            if (variant, block, cache) == (point.variant, point.block,
                                           point.cache) and \
                    fit_holds(fit, ceiling):
                return fit.t0_ns, "the fitted intercept of its sweep"
    ns, source = fitted_launch_floor(fits or {}, point.cache, point.launch)
    if ns is None and point.kernel_timed and other:
        ns, source = fitted_launch_floor(other, point.cache)
        source = source and source + " of the sweep"
    return ns, source


def block_slots(run, point):
    """How many blocks of the point's block size the GPU holds at once:
    its resident blocks per SM (blocks.residency, from its theoretical
    occupancy; without that counter, the device's thread and block limits,
    blocks.slot_blocks) x SMs; None when not known."""
    sms = run.device.get("sm_count")
    if not point.block or not sms:
        return None
    if sel.metric(run, point, sel.M_THEORETICAL_OCCUPANCY) is not None:
        held = blk.residency(run, point)
        per_sm = held.blocks if held is not None else None
    else:
        per_sm = blk.slot_blocks(run.device, point.block)
    return per_sm * sms if per_sm else None


def cold_twins(points):
    """warm point key -> the cold point of the same variant, n, block and
    launch."""
    cold = {(p.variant, p.n, p.block, p.launch): p for p in points
            if p.cache == "cold"}
    return {p.key: cold[(p.variant, p.n, p.block, p.launch)]
            for p in points if p.cache == "warm" and
            (p.variant, p.n, p.block, p.launch) in cold}


def _host_artefact(warm, cold, floor_ns):
    """At launch scale, warm slower than cold beyond the noise
    (noise.py's rule, as compare applies it), on host-side timers only:
    a kernel's own duration has no host in it."""
    if warm.kernel_timed:
        return False
    scale = LAUNCH_FACTOR * floor_ns if floor_ns else LAUNCH_ABS_NS
    return cold.time_median_ns <= scale and \
        compare.compare_points(cold, warm).flag == compare.SLOWER


def warm_slower_kernels(run):
    """[(warm, cold)] of kernel-timed points whose warm duration exceeds
    the cold one beyond the noise: no timer artefact, the L2 at work (a
    warm launch can find earlier output dirty in L2 and write it back
    while it runs; a cold one starts after a read-only flush)."""
    twins = cold_twins(run.points)
    return [(p, twins[p.key]) for p in run.points
            if p.key in twins and p.kernel_timed and
            compare.compare_points(twins[p.key], p).flag == compare.SLOWER]


def warm_slower_than_cold(run, fits=None):
    """Warm points of a run slower than their cold twin beyond the noise,
    at launch scale: a warm launch never loses to a flushed one there, so
    the timer saw the GPU wait for the host."""
    if fits is None:
        fits = fit_series(run.points, run.l2_bytes,
                          run.spec_dram_bandwidth)
    twins = cold_twins(run.points)
    return [p for p in run.points if p.key in twins and _host_artefact(
        p, twins[p.key], launch_floor(run, p, fits)[0])]


def classify_run(run, fits=None, fixed_fits=None):
    """[(point, Verdict)] for every point of the run, in file order;
    fixed_fits: fixed_cost's fits of a run with more sizes."""
    if fits is None:
        fits = fit_series(run.points, run.l2_bytes,
                          run.spec_dram_bandwidth)
    siblings = sibling_groups(run)
    cold = cold_twins(run.points)
    run_rate = run_block_rate(run)
    return [(p, classify(point_facts(
        run, p, fits, siblings, cold,
        measured_block_rate(run.ceilings, p.block) or run_rate,
        fixed_fits))) for p in run.points]

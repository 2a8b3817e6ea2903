"""The bottleneck verdict rules, and classify.

Verdict rules, tried in order; the first that fires names the point.
Siblings: the points of the same op, dtype, size, cache, launch and timer.

  launch-bound     at launch scale (cold time <= LAUNCH_FACTOR x the
                   launch floor, or < LAUNCH_ABS_NS without one), warm time
                   above the cold time of the same point by more than the
                   noise (noise.py's rule: the timer saw the GPU wait for
                   the host; at DRAM sizes warm may lose to cold for a real
                   reason, the write-back of the previous launch), or time
                   <= (1 - LAUNCH_BAND) x LAUNCH_FACTOR x launch floor
                   (the fixed cost is at least half the time, beyond the
                   host's drift; within the band: undetermined, said
                   borderline); with no floor known at all, time <
                   LAUNCH_ABS_NS.
  block-launch-bound  grid / the block-launch ceiling at its block size +
                   the launch floor + the measured dram_latency (the last
                   block's loads) >= BLOCK_LAUNCH_SHARE x time, with
                   achieved occupancy < BLOCK_OCCUPANCY_FRACTION x the
                   theoretical where both are measured: launching the
                   kernel and its blocks sets the time, whatever memory
                   serves the data.
  fixed-cost-bound the series' fitted fixed cost t0 is at least
                   FIXED_SHARE of the time, and t0 + the bytes the
                   timed window moved (above.late_writes) at the
                   ceiling of the level that serves them (L2 when the data
                   came from L2, else DRAM) >= FIXED_COST_SHARE x time: a
                   fixed start-up and tail cost sets it, not the memory
                   level's bandwidth; more bytes per launch lift it.
  L2-bound         footprint < L2 capacity, and either bandwidth > DRAM
                   ceiling or (counters) DRAM bytes < L2_DRAM_FRACTION x
                   bytes moved: the data came from L2, not DRAM; and
                   bandwidth >= L2_SHARE x the measured L2 ceiling (far
                   below it, L2 bandwidth is not what sets the time;
                   without a measured L2 ceiling, never).
  DRAM-bound       bandwidth >= DRAM_FRACTION x DRAM ceiling and no
                   sibling faster beyond the noise and by more than
                   MATERIAL_PCT (facts.faster_sibling): the experiments'
                   own refutation of DRAM-bound.  The bandwidth is of the bytes the timed
                   window moved (above.late_writes), and never more than
                   CEILING_BEATEN_PCT above the ceiling.  Never for a warm point whose footprint
                   is below L2_DRAM_FRACTION of the L2 unless counters
                   show DRAM moving half its bytes, nor one whose data
                   came from L2 (the L2 rule's test): L2 serves it.
  uncoalesced access, misaligned access, grid-limited  (a user's kernel
                   only, faults.py) its counters show the fault (sectors
                   per request against those its bytes need; its grid
                   against the GPU's block slots) and it costs: a kernel
                   of the run moving the same bytes with whole sectors is
                   faster beyond the noise and MATERIAL_PCT, or the waste
                   reaches L2; the verdict gives the bandwidth its fix
                   predicts.
  occupancy-bound  achieved occupancy (theoretical when achieved is not
                   measured) < OCCUPANCY_PCT, and not DRAM-bound; never
                   when the grid is smaller than the GPU's block slots for
                   its block size (low occupancy is then the grid's), nor
                   when the concurrency curve says its loads in flight
                   already suffice (>= CURVE_ENOUGH of the curve's top).
  latency-bound    too few bytes in flight: placed on the measured
                   concurrency curve (curve.py) by its loads in flight per
                   SM and its request size, the curve gives less than
                   CURVE_ENOUGH of its top there, and the point is not
                   above that prediction by more than CURVE_TOLERANCE
                   (then its estimate of loads in flight is too low to
                   trust), nor CURVE_TOLERANCE below it (below, the
                   loads in flight allow more than it moves, so they are
                   not its cause: never latency-bound then); or, without
                   a curve or an estimate, or when the
                   point outruns the prediction, long-scoreboard stalls
                   >= STALL_DOMINANT of all (metrics/stalls.txt) and above
                   the issue stalls, while the memory system has room:
                   below DRAM_FRACTION of the ceiling, or below
                   SIBLING_FRACTION - SIBLING_BAND of the best sibling.
  issue-bound      issue stalls >= STALL_DOMINANT of all stalls, or bytes
                   moved per issued warp instruction <
                   ISSUE_BYTES_PER_INST and < (1 - ISSUE_BAND) x
                   ISSUE_MARGIN x the fewest
                   of any sibling that is DRAM-bound at the same size (a
                   sibling that reaches the ceiling with about as few bytes
                   per instruction shows that the issue rate is not the
                   limit; with no such sibling nothing shows that it is).
  writes deferred into L2  a cold point larger than the L2 whose timed
                   window wrote only part of its output to DRAM (the rest
                   written back after the end stamp), when no rule above
                   fired: the regime, named, not a limit.
  undetermined     none of the above: the text lists what was measured
                   (DRAM share, best sibling, occupancy, bytes per
                   instruction, loads in flight per SM).

Every verdict carries the rule that fired, with the numbers.
"""

from ...core.units import bytes_label, gbps, us
# READ_FRACTION for curve.py, which imports it from here.
from .thresholds import (BLOCK_LAUNCH_BOUND, BLOCK_LAUNCH_SHARE,
                         BLOCK_OCCUPANCY_FRACTION, CEILING_BEATEN_PCT,
                         CURVE_ENOUGH, CURVE_TOLERANCE, DRAM_BAND, DRAM_BOUND,
                         DRAM_FRACTION, FIXED_BAND, FIXED_COST_BOUND,
                         FIXED_COST_SHARE, FIXED_SHARE, ISSUE_BAND,
                         ISSUE_BOUND, ISSUE_BYTES_PER_INST, ISSUE_MARGIN,
                         ISSUE_STALLS, L2_BOUND, L2_DRAM_FRACTION, L2_SHARE,
                         LATENCY_BOUND, LATENCY_STALLS, LAUNCH_ABS_NS,
                         LAUNCH_BAND, LAUNCH_BOUND, LAUNCH_FACTOR,
                         MATERIAL_PCT, OCCUPANCY_BOUND, OCCUPANCY_PCT,
                         READ_FRACTION, SIBLING_BAND, SIBLING_FRACTION,
                         STALL_DOMINANT, UNKNOWN, Verdict, WRITES_DEFERRED)


def _dram_text(f):
    if f.dram_ceiling is None:
        return "no DRAM ceiling known"
    if f.window is not None:
        return "bandwidth %s, but %s = %.0f%% of DRAM ceiling %s (%s)" % (
            gbps(f.bandwidth), f.window.text(), f.dram_pct,
            gbps(f.dram_ceiling.value), f.dram_ceiling.source)
    return "bandwidth %s = %.0f%% of DRAM ceiling %s (%s)" % (
        gbps(f.bandwidth), f.dram_pct, gbps(f.dram_ceiling.value),
        f.dram_ceiling.source)


def _above_text(f):
    """'' at or below the ceiling; else why a DRAM-bound point may stand
    above it (within CEILING_BEATEN_PCT)."""
    if f.dram_pct <= 100:
        return ""
    return "; %.1f%% of the ceiling, above it by less than %.0f%%: a " \
        "measured ceiling is one kernel's median, and this one streams " \
        "DRAM faster" % (f.dram_pct, CEILING_BEATEN_PCT)


def _dram_share_ok(f):
    """The DRAM rules' test of the share of the ceiling, on the bytes the
    window moved: at least DRAM_FRACTION, and never more above 100 % than
    a faster kernel than the ceiling's explains (CEILING_BEATEN_PCT)."""
    return DRAM_FRACTION * 100 <= f.dram_pct <= 100 + CEILING_BEATEN_PCT


def _sibling_text(f):
    if f.sibling_share is None or f.best_sibling is None:
        return None
    return "%.0f%% of the best sibling %s (%s)" % (
        100 * f.sibling_share, f.best_sibling,
        gbps(f.best_sibling_bandwidth))


def _occupancy_text(f):
    if f.occupancy_pct is None:
        return None
    return "%s occupancy %.0f%%" % (f.occupancy_kind, f.occupancy_pct)


def _in_flight_text(f):
    """Loads in flight per SM, with a sibling's at the ceiling when known;
    None without an estimate."""
    if f.kib_in_flight_per_sm is None:
        return None
    text = "about %.0f KiB of loads in flight per SM" % f.kib_in_flight_per_sm
    if f.full_speed_kib_in_flight is not None:
        text += " (%s at the ceiling: %.0f KiB)" % (
            f.full_speed_sibling, f.full_speed_kib_in_flight)
    return text


def rule_launch(f):
    if f.cold_time_ns:
        return Verdict(LAUNCH_BOUND, "warm %s µs > cold %s µs beyond the "
                       "noise: the timer saw the GPU wait for the host's "
                       "launch (a host-timing artefact, not a kernel "
                       "limit)" % (us(f.time_ns), us(f.cold_time_ns)))
    if f.launch_floor_ns is not None and f.launch_floor_ns > 0:
        if f.time_ns <= (1 - LAUNCH_BAND) * LAUNCH_FACTOR * f.launch_floor_ns:
            return Verdict(LAUNCH_BOUND, "time %s µs <= %.0f%% of %.1f x "
                           "launch floor %s µs (%s)" % (
                               us(f.time_ns), 100 * (1 - LAUNCH_BAND),
                               LAUNCH_FACTOR, us(f.launch_floor_ns),
                               f.launch_floor_source))
        return None
    if f.time_ns < LAUNCH_ABS_NS:
        return Verdict(LAUNCH_BOUND, "time %s µs < %s µs and no launch "
                       "floor known" % (us(f.time_ns), us(LAUNCH_ABS_NS)))
    return None


def _from_l2(f):
    """Why the point's data came from L2 (footprint inside it, and its
    bandwidth above DRAM's or its counters' DRAM bytes under half of what
    it moved), or None."""
    if f.l2_bytes is None or f.footprint_bytes >= f.l2_bytes:
        return None
    fits = "footprint %s < L2 %s" % (bytes_label(f.footprint_bytes),
                                     bytes_label(f.l2_bytes))
    if f.dram_ceiling is not None and f.bandwidth > f.dram_ceiling.value:
        return "%s and bandwidth %s > DRAM ceiling %s (%s)" % (
            fits, gbps(f.bandwidth), gbps(f.dram_ceiling.value),
            f.dram_ceiling.source)
    if f.dram_bytes is not None and \
            f.dram_bytes < L2_DRAM_FRACTION * f.bytes_moved:
        return "%s and DRAM bytes %s = %.0f%% of bytes moved (< %.0f%%)" % (
            fits, bytes_label(f.dram_bytes),
            100.0 * f.dram_bytes / f.bytes_moved, 100.0 * L2_DRAM_FRACTION)
    return None


def _fixed_explains(f):
    """(level, ns streaming its bytes at that level's ceiling, share of
    the time the fixed cost and that stream explain), or None without a
    fixed cost or a ceiling."""
    if not f.fixed_ns:
        return None
    level = f.l2_ceiling if _from_l2(f) is not None else f.dram_ceiling
    if level is None:
        return None
    stream = f.window_bytes / level.value * 1e9
    return level, stream, (f.fixed_ns + stream) / f.time_ns


def _near_fixed_limit(f):
    """Text for a point just short of fixed-cost-bound, within FIXED_BAND
    below either limit (and past the other), else None."""
    explained = _fixed_explains(f)
    if explained is None:
        return None
    share, fixed = explained[2], f.fixed_ns / f.time_ns
    short_share = (1 - FIXED_BAND) * FIXED_COST_SHARE <= share < \
        FIXED_COST_SHARE
    short_fixed = (1 - FIXED_BAND) * FIXED_SHARE <= fixed < FIXED_SHARE
    if not (short_share and fixed >= FIXED_SHARE or
            short_fixed and share >= FIXED_COST_SHARE):
        return None
    return ("borderline fixed-cost-bound: the fixed cost %s µs (%s) is "
            "%.0f%% of its time and with the bytes at the serving level "
            "explains %.0f%%, just short of the rule's %.0f%% and %.0f%%: "
            "the fitted intercept moves by a few percent with the sizes "
            "fitted" % (us(f.fixed_ns), f.fixed_source, 100 * fixed,
                        100 * share, 100 * FIXED_SHARE,
                        100 * FIXED_COST_SHARE))


def rule_l2(f):
    """Served by L2, and at half the measured L2 ceiling or more: far
    below it, something else sets the time (a fixed cost, the launch).
    Without a measured L2 ceiling the rule cannot test that half, and
    names nothing (a footprint inside the L2 says where the data came
    from, not what set the time: a user's 1Mi add at a tenth of the
    H200's L2 ceiling was once called L2-bound so)."""
    why = _from_l2(f)
    if why is None or f.l2_ceiling is None:
        return None     # no measured L2 ceiling: nothing says L2 sets it
    share = f.bandwidth / f.l2_ceiling.value
    if share < L2_SHARE:
        return None
    why += "; %.0f%% of the L2 ceiling %s (%s)" % (
        100 * share, gbps(f.l2_ceiling.value), f.l2_ceiling.source)
    return Verdict(L2_BOUND, why)


def rule_fixed_cost(f):
    """A fixed cost per launch (the series' fitted intercept t0) is a
    quarter of the time or more, and with the bytes streamed at the ceiling
    of the level that serves them explains FIXED_COST_SHARE of it: the
    launch's start-up and tail, not the memory level, set the time."""
    explained = _fixed_explains(f)
    if explained is None:
        return None
    level, stream, share = explained
    if f.fixed_ns < FIXED_SHARE * f.time_ns or share < FIXED_COST_SHARE:
        return None
    return Verdict(FIXED_COST_BOUND, "fixed cost %s µs (%s) + %s at %s "
                   "(%s) in %s µs = %.0f%% of its %s µs: a fixed cost per "
                   "launch, not the memory level's bandwidth, sets it; "
                   "more bytes per launch lift it" % (
                       us(f.fixed_ns), f.fixed_source,
                       bytes_label(f.window_bytes), gbps(level.value),
                       level.source, us(stream),
                       100 * (f.fixed_ns + stream) / f.time_ns,
                       us(f.time_ns)))


def _served_by_l2(f):
    """A warm point whose data sits well inside the L2 (footprint <
    L2_DRAM_FRACTION x L2, below any effective L2 finding 2 has seen) and
    no counter says DRAM moved half its bytes: DRAM cannot be what bounds
    it, whatever its bandwidth."""
    return f.cache == "warm" and f.l2_bytes is not None and \
        f.footprint_bytes < L2_DRAM_FRACTION * f.l2_bytes and \
        (f.dram_bytes is None or
         f.dram_bytes < L2_DRAM_FRACTION * f.bytes_moved)


def _near_dram_fraction(f):
    """The point is within DRAM_BAND of DRAM_FRACTION of the ceiling."""
    return f.dram_ceiling is not None and \
        _near(f.dram_pct / 100.0, DRAM_FRACTION, DRAM_BAND)


def rule_dram(f):
    if f.dram_ceiling is None or _served_by_l2(f) or \
            _from_l2(f) is not None or not _dram_share_ok(f) or \
            _near_dram_fraction(f):
        return None
    if f.faster_sibling is not None:
        return None
    share = f.sibling_share
    sibling = _sibling_text(f)
    return Verdict(DRAM_BOUND, "%s >= %.0f%%%s%s; no sibling moving the "
                   "same bytes is faster beyond the noise and %.0f%%" % (
                       _dram_text(f), 100 * DRAM_FRACTION, _above_text(f),
                       "; " + sibling if sibling and share < 1 else "",
                       MATERIAL_PCT))


def _curve_short(f):
    """Its place on the curve when its loads in flight are short of the
    knee (where its series first reaches CURVE_ENOUGH of its top), else
    None: past the knee the curve may fall, which is no shortfall."""
    oc = f.on_curve
    knee = oc.series.kib_for(CURVE_ENOUGH) if oc is not None else None
    short = oc is not None and (oc.kib < knee if knee is not None else
                                oc.share < CURVE_ENOUGH)
    return oc if short else None


def _curve_enough(f):     # the curve says its loads in flight suffice
    return f.on_curve is not None and _curve_short(f) is None


def rule_latency(f):
    """Too few bytes in flight to cover DRAM latency, measured: on the
    concurrency curve its loads in flight allow less than CURVE_ENOUGH of
    the curve's top, and the point is not faster than that allows (by more
    than CURVE_TOLERANCE: then the estimate of its loads in flight is too
    low to trust).  Where the curve or the estimate is missing, or the
    point outruns the prediction, the stall counters decide: warps
    waiting mostly on global loads' results (long scoreboard, not issue
    limits) while the memory system has room for more (below
    DRAM_FRACTION of the ceiling, or clearly below a sibling that moves
    the same bytes).  Waiting on loads alone decides nothing: a DRAM-bound
    kernel waits on them too."""
    if f.on_curve is not None and \
            f.bandwidth < (1 - CURVE_TOLERANCE) * f.on_curve.bandwidth:
        return None     # short of what the curve allows: not its cause
    oc = _curve_short(f)
    if oc is not None and f.bandwidth <= (1 + CURVE_TOLERANCE) * \
            oc.bandwidth:
        parts = ["about %.0f KiB of loads in flight per SM: %s" % (
            oc.kib, oc.text), "it moves %s, %.0f%% of that" % (
                gbps(f.bandwidth), 100 * f.bandwidth / oc.bandwidth)]
        enough = oc.series.kib_for(CURVE_ENOUGH)
        if enough is not None:
            parts.append("the curve reaches %.0f%% of its top at %.0f KiB "
                         "in flight per SM" % (100 * CURVE_ENOUGH, enough))
        if _occupancy_text(f):
            parts.append(_occupancy_text(f))
        if f.stall_text:
            parts.append(f.stall_text)
        parts.append("more bytes in flight per thread lift it")
        return Verdict(LATENCY_BOUND, "; ".join(parts))
    if _curve_enough(f):
        return None
    waits = f.stall_share(LATENCY_STALLS)
    if waits is None or waits < STALL_DOMINANT or \
            f.stall_share(ISSUE_STALLS) >= waits:
        return None
    room = []
    if f.dram_ceiling is not None and \
            f.bandwidth < DRAM_FRACTION * f.dram_ceiling.value:
        room.append(_dram_text(f) + " (< %.0f%%)" % (100 * DRAM_FRACTION))
    share = f.sibling_share
    if share is not None and share < SIBLING_FRACTION - SIBLING_BAND:
        room.append(_sibling_text(f))
    if not room:
        return None
    parts = ["%.0f%% of warp stalls wait on a global load's result (long "
             "scoreboard) while the memory system has room for more (%s): "
             "too few loads in flight to cover its latency" % (
                 100 * waits, "; ".join(room))]
    parts += [x for x in (_in_flight_text(f), _occupancy_text(f)) if x]
    if oc is not None:
        parts.append("it outruns the concurrency curve's %s for its "
                     "estimated %.0f KiB in flight, so the curve does not "
                     "decide it" % (gbps(oc.bandwidth), oc.kib))
    parts.append(f.stall_text)
    return Verdict(LATENCY_BOUND, "; ".join(parts))


def rule_fault(f):
    """A fault of a user's kernel that its counters show and that costs
    (faults.py): its access pattern (uncoalesced, misaligned) or a grid
    smaller than the GPU, with the bandwidth its fix predicts."""
    if not f.faults:
        return None
    fault = f.faults[0]
    return Verdict(fault.name, fault.text(f.bandwidth) + "; " +
                   _dram_text(f))


def rule_block_launch(f):
    """Launching the kernel and its blocks takes about all of its time:
    one launch's cost, the grid at the block-launch ceiling of its block
    size (the fixed cost its series' fit gives, else the launch floor),
    and one load's round trip (the last block's loads return before
    its stores; measured dram_latency, at least an L2 hit's) come to
    BLOCK_LAUNCH_SHARE of the time or more, with block slots empty where
    both occupancies were measured.  Whatever the memory level, the time
    cannot go below it; more work per block (fewer blocks) lifts it."""
    c = f.block_rate_ceiling
    if c is None or not f.grid or not f.time_ns:
        return None
    blocks_ns = f.grid / c.value * 1e9
    # The fixed cost inside the kernel's own time: its series' fitted
    # intercept (launch_graph is the interval between two kernels, not
    # inside a CUPTI duration); the launch floor where none was fitted.
    if f.fixed_ns:
        fixed, fixed_source = f.fixed_ns, f.fixed_source
    else:
        fixed, fixed_source = f.launch_floor_ns or 0.0, \
            f.launch_floor_source
    load = f.load_latency_ns or 0.0
    cost = fixed + blocks_ns + load
    if cost < BLOCK_LAUNCH_SHARE * f.time_ns:
        return None
    gap = None
    if f.occupancy_kind == "achieved" and f.occupancy_pct is not None and \
            f.theoretical_occupancy_pct:
        if f.occupancy_pct >= BLOCK_OCCUPANCY_FRACTION * \
                f.theoretical_occupancy_pct:
            return None
        gap = "achieved occupancy %.0f%% of a theoretical %.0f%%: block " \
            "slots stand empty" % (f.occupancy_pct,
                                   f.theoretical_occupancy_pct)
    extra = ["one launch's fixed cost %s µs (%s)" % (us(fixed), fixed_source)
             if fixed else "",
             "one load's %s µs (measured dram_latency)" % us(load)
             if load else ""]
    extra = [x for x in extra if x]
    parts = ["%d blocks at the block-launch ceiling %.2f blocks/ns (%s) "
             "take %s µs%s: %.0f%% of its %s µs" % (
                 f.grid, c.value * 1e-9, c.source, us(blocks_ns),
                 ", with " + " and ".join(extra) if extra else "",
                 100 * cost / f.time_ns, us(f.time_ns))]
    if gap:
        parts.append(gap)
    parts.append(_dram_text(f))
    parts.append("more work per block (fewer blocks) lifts it")
    return Verdict(BLOCK_LAUNCH_BOUND, "; ".join(p for p in parts if p))


def rule_occupancy(f):
    """Too few resident warps, where the grid could fill the GPU and the
    concurrency curve says its loads in flight fall short."""
    if f.occupancy_pct is None or f.occupancy_pct >= OCCUPANCY_PCT:
        return None
    if f.grid and f.block_slots and f.grid < f.block_slots:
        return None     # fewer blocks than slots: the grid leaves them empty
    if _curve_enough(f):
        return None
    parts = ["%s occupancy %.0f%% < %.0f%%" % (
        f.occupancy_kind, f.occupancy_pct, OCCUPANCY_PCT), _dram_text(f)]
    if _sibling_text(f):
        parts.append(_sibling_text(f))
    if f.on_curve is not None:
        parts.append("about %.0f KiB of loads in flight per SM: %s" % (
            f.on_curve.kib, f.on_curve.text))
    elif f.kib_in_flight_per_sm is not None:
        parts.append("about %.0f KiB of loads in flight per SM" %
                     f.kib_in_flight_per_sm)
    parts.append("more resident warps lift it")
    return Verdict(OCCUPANCY_BOUND, "; ".join(parts))


def rule_issue(f):
    issue = f.stall_share(ISSUE_STALLS)
    if issue is not None and issue >= STALL_DOMINANT and \
            f.stall_share(LATENCY_STALLS) < issue:
        return Verdict(ISSUE_BOUND, "%.0f%% of warp stalls are issue "
                       "limits (not selected, pipe or queue throttles, "
                       "dispatch); %s; %s" % (100 * issue, _dram_text(f),
                                               f.stall_text))
    if f.bytes_per_inst is None or f.bytes_per_inst >= ISSUE_BYTES_PER_INST:
        return None
    full = f.full_speed_bytes_per_inst
    if full is None or \
            f.bytes_per_inst >= (1 - ISSUE_BAND) * ISSUE_MARGIN * full:
        return None
    return Verdict(ISSUE_BOUND, "%.1f bytes moved per issued warp "
                   "instruction < %.0f and < %.0f%% of the %.1f of the "
                   "leanest sibling that reached the DRAM ceiling; %s" % (
                       f.bytes_per_inst, ISSUE_BYTES_PER_INST,
                       100 * ISSUE_MARGIN, full, _dram_text(f)))


def _near(value, limit, band):
    """value within `band` (a fraction) of limit, either side: too close
    to call (the launch and issue rules abstain there)."""
    return abs(value / limit - 1) < band


def _near_launch_limit(f):
    """Text for a time within LAUNCH_BAND of the launch rule's limit."""
    if not f.launch_floor_ns or f.cold_time_ns:
        return None
    if not _near(f.time_ns, LAUNCH_FACTOR * f.launch_floor_ns, LAUNCH_BAND):
        return None
    return ("borderline launch-bound: time %s µs within %.0f%% of %.1f x "
            "the launch floor %s µs (%s), which moves with the host" % (
                us(f.time_ns), 100 * LAUNCH_BAND, LAUNCH_FACTOR,
                us(f.launch_floor_ns), f.launch_floor_source))


def rule_writes_deferred(f):
    """A cold point larger than the L2 whose timed window wrote only part
    of its output to DRAM (above.late_writes), when no rule above named it:
    the rest sat in L2 and was written back after the end stamp, so the
    timer saw its reads and part of its writes.  A regime, named for what
    it is, not a limit: the DRAM rules judge such a point on the window's
    bytes, and where they do not fire, nothing above explains its time."""
    w = f.window
    if w is None or f.cache != "cold" or f.l2_bytes is None or \
            f.footprint_bytes < f.l2_bytes:
        return None
    return Verdict(WRITES_DEFERRED, "footprint %s > L2 %s, cold, and %s; "
                   "the rest of its output left in L2 and written back "
                   "after the end stamp: the timer saw its reads and part "
                   "of its writes, and no rule above accounts for that "
                   "time; %s" % (
                       bytes_label(f.footprint_bytes),
                       bytes_label(f.l2_bytes), w.text(
                           f.dram_ceiling.value if f.dram_ceiling
                           else None), _dram_text(f)))


def rule_fallback(f):
    near = [x for x in (_near_launch_limit(f), _near_fixed_limit(f)) if x]
    if _near_dram_fraction(f):
        near.append("borderline DRAM-bound: within %.1f%% of the rule's "
                    "%.0f%% of the ceiling" % (100 * DRAM_BAND,
                                              100 * DRAM_FRACTION))
    parts = near + [_dram_text(f)]
    from_l2 = _from_l2(f)
    if from_l2 is not None and f.l2_ceiling is not None:
        parts.append("served by L2 (%s) at %.0f%% of the L2 ceiling %s "
                     "(%s): below %.0f%%, L2 bandwidth does not set its "
                     "time" % (from_l2, 100 * f.bandwidth /
                               f.l2_ceiling.value, gbps(f.l2_ceiling.value),
                               f.l2_ceiling.source, 100 * L2_SHARE))
    elif from_l2 is not None:
        parts.append("served by L2 (%s), and no measured L2 ceiling to "
                     "say whether L2 bandwidth sets its time" % from_l2)
    if _sibling_text(f):
        parts.append(_sibling_text(f))
    if _occupancy_text(f):
        parts.append(_occupancy_text(f))
    if f.bytes_per_inst is not None:
        text = "%.1f B per issued instruction" % f.bytes_per_inst
        full = f.full_speed_bytes_per_inst
        if full is not None and f.bytes_per_inst >= full:
            text += " (a sibling reaches the ceiling with %.1f)" % full
        elif full is not None and f.bytes_per_inst < ISSUE_BYTES_PER_INST \
                and _near(f.bytes_per_inst, ISSUE_MARGIN * full, ISSUE_BAND):
            text += " (borderline issue-bound: within %.0f%% of %.0f%% of " \
                "the %.1f of the leanest sibling at the ceiling, the " \
                "issue rule's limit; which siblings reach the ceiling " \
                "moves it from run to run)" % (
                    100 * ISSUE_BAND, 100 * ISSUE_MARGIN, full)
        parts.append(text)
    if f.on_curve is not None:
        parts.append("about %.0f KiB of loads in flight per SM: %s" % (
            f.on_curve.kib, f.on_curve.text))
    elif _in_flight_text(f):
        parts.append(_in_flight_text(f))
    if f.stall_text:
        parts.append(f.stall_text)
    return Verdict(UNKNOWN, "no rule separates the causes; measured: " +
                   "; ".join(parts) + ". " + (
                       "" if f.stalls else TO_DECIDE))


# What would decide an undetermined point (metrics/stalls.txt).
TO_DECIDE = ("To decide: its warp stall reasons (`--metrics stalls`): "
             "long-scoreboard stalls dominating mean memory latency not "
             "covered, math-pipe or not-selected stalls mean issue limits, "
             "and `ewbench ceilings` (the concurrency curve) for what its "
             "loads in flight allow")


# Occupancy before latency: too few resident warps is the cause of too few
# bytes in flight, and the one to fix; its text gives Little's law too.
RULES = (rule_launch, rule_block_launch, rule_fixed_cost, rule_l2,
         rule_dram, rule_fault, rule_occupancy, rule_latency, rule_issue,
         rule_writes_deferred)


def classify(facts):
    """The first rule of RULES that fires, else undetermined."""
    for rule in RULES:
        verdict = rule(facts)
        if verdict is not None:
            return verdict
    return rule_fallback(facts)

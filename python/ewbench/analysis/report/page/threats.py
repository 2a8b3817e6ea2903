"""Threats to validity: fixtures, boards, incomplete or failed parts,
noisy points, warm slower than cold, rows above the DRAM ceiling, missing
or replayed counters, old-protocol rows and the clocks."""

from collections import Counter

from ...core import crosscheck
from ...core import document as doc
from .. import environment as env
from .. import model
from ...core import noise
from ...core import placement
from ...core import select as sel
from ...core import sinks
from ...core import study as stu
from ...core.units import bytes_label, gbps, size_label


def _points(count):
    return "%d point%s" % (count, "" if count == 1 else "s")


def _above_ceiling_text(part, above):
    """The threat of rows above the measured DRAM ceiling, by explanation,
    the unexplained and the farthest above shown first."""
    kinds = {k: [a for a in above if a.kind == k] for k in (
        model.WRITES_IN_L2, model.BEATS_CEILING, model.UNEXPLAINED)}
    shown = sorted(above, key=lambda a: (a.explained, -a.share))[:6]
    parts = []
    if kinds[model.WRITES_IN_L2]:
        parts.append("part of the output written to DRAM inside the timed "
                     "window, the rest left in L2 and written back after "
                     "the timer stopped (%s; docs/metrics.md, \"Where the "
                     "writes land\")" % _points(
                         len(kinds[model.WRITES_IN_L2])))
    if kinds[model.BEATS_CEILING]:
        parts.append("all of the output written inside the window, at most "
                     "%.1f %% above: faster than the ceiling's own kernel, "
                     "a measured ceiling being one kernel's median, not the "
                     "memory's limit (%s)" % (
                         100 * (max(a.share for a in
                                    kinds[model.BEATS_CEILING]) - 1),
                         _points(len(kinds[model.BEATS_CEILING]))))
    if kinds[model.UNEXPLAINED]:
        parts.append("**not explained**: no DRAM write counter in this "
                     "part, or more than %.0f %% above (%s)" % (
                         model.CEILING_BEATEN_PCT,
                         _points(len(kinds[model.UNEXPLAINED]))))
    return ("`%s/`: **%s above the measured DRAM ceiling** while not "
            "served by L2 (cold, or a footprint over the L2). %s. %s." % (
                part, _points(len(above)), ". ".join(
                    x[0].upper() + x[1:] for x in parts), "; ".join(
                    "%s@%s %s: %.1f%% of the ceiling, %s" % (
                        sinks.markdown(a.point.variant),
                        size_label(a.point.n),
                        a.point.cache, 100 * a.share, a.reason)
                    for a in shown)))


def _clock_threat(study):
    """The clocks threat, backed by NVML's readings of every part: at its
    start and end and, where recorded, the lowest through it."""
    readings = []
    for part, run in study.runs.items():
        place = placement.read(run.manifest)
        readings += [(part, place.start), (part, place.end)]
        s = place.sampled
        if s is not None and s.sm_clock is not None:
            readings.append((part, placement.Reading(
                sm_clock_mhz=s.sm_clock.min,
                max_sm_clock_mhz=place.start.max_sm_clock_mhz,
                throttle_reasons=s.reasons)))
    through = all(placement.read(run.manifest).sampled is not None
                  for run in study.runs.values())
    read = [(part, r) for part, r in readings if r.sm_clock_mhz is not None]
    if not read:
        return ("Clocks were not locked and NVML was not read: boost and "
                "thermal state may move bandwidths by a few percent between "
                "runs, and nothing here shows whether they did.")
    slowed = sorted({"`%s/` %s" % (part, ", ".join(
        placement.slowdowns(r.throttle_reasons)))
        for part, r in read if placement.slowdowns(r.throttle_reasons)})
    below = sorted({"`%s/`" % part for part, r in read
                    if r.max_sm_clock_mhz and
                    r.sm_clock_mhz < 0.97 * r.max_sm_clock_mhz})
    if slowed or below:
        return ("**Clocks moved**: %s. Bandwidths of these parts may be a "
                "few percent low." % "; ".join(
                    (["clock-event reasons " + ", ".join(slowed)]
                     if slowed else []) +
                    (["SM clock below 97 %% of its maximum in %s" %
                      ", ".join(below)] if below else [])))
    if through:
        return ("Clocks were not locked, but NVML read the SM clock within "
                "3 %% of its maximum with no slowing clock-event reason at "
                "the start and end of every part and once a round of timed "
                "launches through it (Environment); drift from run to run "
                "is covered only by the run-to-run floor of the noise rule "
                "(%s)." % noise.run_floor(study.main).describe())
    return ("Clocks were not locked, but NVML read the SM clock at its "
            "maximum with no slowing clock-event reason at the start and "
            "end of every part (Environment); drift between the reads, and "
            "from run to run, is covered only by the run-to-run floor of "
            "the noise rule (%s)." % noise.run_floor(
                study.main).describe())


def _warm_slower_text(part, run, slower):
    """Kernel durations slower warm than cold, with the DRAM writes inside
    each launch where counters measured them: the why."""
    shown = []
    for warm, cold in sorted(slower, key=lambda wc: wc[0].footprint_bytes):
        w = sel.metric(run, warm, sel.M_DRAM_WRITE)
        c = sel.metric(run, cold, sel.M_DRAM_WRITE)
        writes = "DRAM writes %s warm, %s cold" % (
            bytes_label(w), bytes_label(c)) \
            if w is not None and c is not None else "no DRAM counters"
        shown.append("%s at %s working set (%.1f %% slower; %s)" % (
            warm.variant, bytes_label(warm.footprint_bytes),
            100 * (warm.time_median_ns / cold.time_median_ns - 1), writes))
    return ("`%s/`: **warm slower than cold** (kernel durations, beyond "
            "the noise) at %d points: %s. No timer is in a kernel's "
            "duration: a warm launch finds the previous launch's output "
            "dirty in L2 and writes it back to DRAM while it runs, where "
            "a cold one starts after a read-only flush and leaves its own "
            "writes in L2 past the timer (docs/metrics.md, \"Where the "
            "writes land\"); the DRAM writes inside each launch show it "
            "where counters were taken." % (
                part, len(slower), "; ".join(shown[:6]) +
                ("; ..." if len(shown) > 6 else "")))


def threats_section(study, sctx):
    items = []
    if study.is_fixture:
        items.append("**This study is a fixture: its numbers are synthetic, "
                     "not measurements.**")
    uuids = study.gpus()
    if len(set(uuids.values())) > 1:
        items.append("The parts were measured on %d different boards of "
                     "the same model (%s): board-to-board differences of a "
                     "few percent go into comparisons between parts." % (
                         len(set(uuids.values())), "; ".join(
                             "`%s/` %s" % (p, sinks.markdown(u[:12]))
                             for p, u in
                             sorted(uuids.items()))))
    for part, ctx in sctx.parts.items():
        run = ctx.run
        m = run.manifest
        if m.get("status") not in (None, "complete"):
            items.append("**`%s/` is `%s`**: some points may be missing." %
                         (part, m.get("status")))
        failed = [p for p in run.points if p.check == "fail"]
        if failed:
            items.append("`%s/`: %d points failed the correctness check and "
                         "are left out." % (part, len(failed)))
        noisy = [p for p in run.points if noise.flag(p)]
        if noisy:
            items.append("`%s/`: %d of %d points are noisy (spread > %.0f "
                         "%%) or had a launch over %.1fx the median, mostly "
                         "small sizes where one launch takes microseconds." %
                         (part, len(noisy), len(run.points), noise.NOISY_PCT,
                          noise.OUTLIER_FACTOR))
        inverted = model.warm_slower_than_cold(run, ctx.fits)
        if inverted:
            items.append("`%s/`: **warm slower than cold** at %s: the timer "
                         "saw the GPU wait for the host, so these points are "
                         "called launch-bound (a host-timing artefact)." % (
                             part, ", ".join("%s@%s" % (sinks.markdown(
                                 p.variant),
                                                        size_label(p.n))
                                             for p in inverted[:8])))
        slower = model.warm_slower_kernels(run)
        if slower:
            items.append(_warm_slower_text(part, run, slower))
        disagree = [c for c in crosscheck.checks(run.points) if c.flagged]
        # A variant at one size shows its block where it has several.
        count = Counter((c.point.variant, c.point.n) for c in disagree)
        twice = {key for key, n in count.items() if n > 1}
        if disagree:
            first, second = disagree[0].timers
            items.append("`%s/`: **the two timers disagree** at %s: %s "
                         "and %s differ by more than %.0f %% and a "
                         "launch gap beyond the row's interval, so its "
                         "time is in doubt "
                         "(Method, \"Timer cross-check\")." % (
                             part, ", ".join(
                                 "%s@%s%s %+.1f %%" % (
                                     sinks.markdown(c.point.variant),
                                     size_label(c.point.n),
                                     " block %s" % c.point.block if
                                     (c.point.variant, c.point.n) in twice
                                     else "", 100 * c.disagreement)
                                 for c in disagree[:8]) +
                             (" and %d more" % (len(disagree) - 8)
                              if len(disagree) > 8 else ""),
                             first, second, crosscheck.TOLERANCE_PCT))
        counters = m.get("counters") or {}
        above = model.above_dram_ceiling(run, noise.run_floor(run))
        if above:
            items.append(_above_ceiling_text(part, above))
        if run.metrics is None and part == stu.ARTICLE:
            items.append("`%s/` has no counters (%s): occupancy and "
                         "instruction evidence is missing." % (
                             part, sinks.markdown(counters["reason"])
                             if counters.get("reason") else
                             "metrics.csv absent"))
        elif run.metrics is not None and (counters.get("passes") or 1) > 1:
            items.append("`%s/`: counters come from a replayed pass (%s "
                         "passes): DRAM write bytes can be off by tens of "
                         "percent; read bytes are reliable." % (
                             part, counters.get("passes")))
    old = sum(p.time_source is None for ctx in sctx.parts.values()
              for p in ctx.run.points)
    if old:
        items.append("%d rows were timed by the old protocol (schema 1: an "
                     "event pair around each launch, host launch path "
                     "included; their confidence intervals are estimated "
                     "from the spread). Finding 1 reads the profiler's "
                     "kernel durations (`gpu__time_duration.sum`) where "
                     "counters were taken." % old)
    impossible = model.impossible_levels(study.ceilings)
    if impossible:
        items.append("**Concurrency-curve rows refused as evidence**, "
                     "faster than DRAM could serve them (the spec peak by "
                     "more than %.0f %% after the writes a window may "
                     "miss): %s; the curve is drawn and used without "
                     "them." % (model.SPEC_EXCESS_PCT, ", ".join(
                         "`%s` at %s" % (sinks.markdown(r.name),
                                         gbps(r.value))
                         for r in impossible)))
    experiments = getattr(study, "experiments", None)
    refused = [p for p in (experiments.points if experiments else ())
               if model.impossible(experiments, p)]
    if refused:
        items.append("**`%s/` rows refused as evidence**, faster than DRAM "
                     "could serve them: %s; no experiment reads them." % (
                         stu.EXPERIMENTS, ", ".join(
                             "%s@%s %s at %s" % (
                                 sinks.markdown(p.variant), size_label(p.n),
                                 p.cache, gbps(p.bandwidth))
                             for p in refused[:8])))
    if not study.ceilings:
        items.append("No measured ceilings: percentages are of the spec "
                     "peak, which no kernel reaches.")
    items.append(_clock_threat(study))
    items += env.threat_items(study)
    items += [
        "Nsight Compute defaults (cache control all, clock control base) "
        "differ from these conditions; to compare, run ncu with "
        "`--cache-control none --clock-control none`.",
    ]
    return [doc.Heading(2, "Threats to validity", "threats"),
            doc.Bullets(tuple(items))]

"""The GPU's environment as evidence: its settings and the clocks, power
and temperature NVML read through each part, and the timing rows measured
outside their part's clock range (docs/analysis.md, "The environment as
evidence").

NVML is read once a round of timed launches, while the round runs
(src/run/measure.c): run.json's placement.nvml.sampled summarises the part's
readings (min, median, max, count of each quantity), and each timing row
carries the lowest SM and memory clock read during its own rounds
(sm_clock_min_mhz, memory_clock_min_mhz) and the throttling reasons seen
(throttle).  A row is outside its part's clock range when

  - its lowest SM clock is more than CLOCK_MARGIN_PCT below the part's
    median SM clock, or its lowest memory clock more than that below the
    part's median memory clock; or
  - a throttling clock-event reason (power cap, thermal or hardware
    slowdown, power brake) was set during it.

Runs written before these were recorded lack them: "not recorded", and a
rule that cannot be applied flags nothing (the report says which parts it
could not check).  Texts here are for the report's Environment and
threats; numbers come from placement.py.
"""

from dataclasses import dataclass

from ..core import placement as plc
from ..core import sinks
from ..core.units import size_label

# The margin below the part's median clock.  A kernel whose time the SM
# clock sets runs longer by the clock's shortfall: 2 % is above every
# run-to-run floor of the noise model (noise.MEASURED_FLOOR_PCT), so the
# clock alone can move a flagged row beyond the noise; a smaller shortfall,
# read at one instant of the row's rounds, is within what the floors cover.
CLOCK_MARGIN_PCT = 2.0

NOT_RECORDED = ("not recorded (absent from run.json: written before "
                "ewbench recorded it)")


@dataclass(frozen=True)
class Outside:
    """A timing row measured outside its part's clock range, and why."""
    point: object           # load.Point
    reasons: tuple          # texts


def _below(value, median):
    return value is not None and median is not None and \
        value < median * (1 - CLOCK_MARGIN_PCT / 100)


def row_outside(point, sampled):
    """Why point was measured outside the clock range of its part
    (sampled: placement.Sampled or None); () when it was not, or when
    nothing recorded can tell."""
    reasons = []
    for label, value, rng in (
            ("SM", point.sm_clock_min_mhz,
             sampled.sm_clock if sampled else None),
            ("memory", point.memory_clock_min_mhz,
             sampled.mem_clock if sampled else None)):
        if rng is not None and _below(value, rng.median):
            reasons.append("%s clock %.0f MHz, %.1f %% below the part's "
                           "median %.0f MHz" % (
                               label, value,
                               100 * (1 - value / rng.median), rng.median))
    if point.throttle:
        reasons.append("throttled (%s)" % sinks.markdown(point.throttle))
    return tuple(reasons)


def outside_rows(run):
    """Every timing row of run (timing.csv and peers) measured outside its
    clock range, in file order."""
    sampled = plc.read(run.manifest).sampled
    out = []
    for p in run.points:
        reasons = row_outside(p, sampled)
        if reasons:
            out.append(Outside(p, reasons))
    return tuple(out)


def clocks_checkable(run):
    """Whether the clock test could be applied to some row of run: the
    part's median and the row's own clock were both recorded."""
    sampled = plc.read(run.manifest).sampled
    if sampled is None or sampled.sm_clock is None:
        return False
    return any(p.sm_clock_min_mhz is not None for p in run.points)


# texts

def _on(value, on="on", off="off"):
    return "not given by NVML" if value is None else on if value else off


def _watts(value):
    return "not given" if value is None else "%.0f W" % value


def _mhz(value):
    return "not given" if value is None else "%.0f" % value


def driver_text(place):
    """The driver's release, or why it is not shown."""
    s = place.settings
    if not s.recorded:
        return "its release not recorded"
    if s.driver is None:
        return "its release not given by NVML%s" % _why(place)
    return "release " + sinks.markdown(s.driver)


def _why(place):
    if place.nvml_status == "unavailable":
        return " (NVML unavailable: %s)" % (
            sinks.markdown(place.nvml_reason) if place.nvml_reason else
            "no reason given")
    return ""


def settings_text(place):
    """ECC, persistence, power limit, application clocks of one run."""
    s = place.settings
    if not s.recorded:
        return NOT_RECORDED
    if place.nvml_status == "unavailable":
        return "not read%s" % _why(place)
    ecc = "ECC %s" % _on(s.ecc)
    if s.ecc_pending is not None and s.ecc is not None and \
            s.ecc_pending != s.ecc:
        ecc += " (%s after the next reboot)" % _on(s.ecc_pending)
    return ("%s; persistence mode %s; power limit %s in force (default "
            "%s, max %s); application clocks SM %s / memory %s MHz "
            "(default %s / %s)" % (
                ecc, _on(s.persistence), _watts(s.power_limit_w),
                _watts(s.power_limit_default_w),
                _watts(s.power_limit_max_w), _mhz(s.app_sm_clock_mhz),
                _mhz(s.app_mem_clock_mhz), _mhz(s.default_app_sm_clock_mhz),
                _mhz(s.default_app_mem_clock_mhz)))


def _range_text(label, rng, unit, fmt="%.0f"):
    if rng is None:
        return "%s not given" % label
    if rng.min == rng.max:
        return ("%s " + fmt + " %s") % (label, rng.min, unit)
    return ("%s " + fmt + "–" + fmt + " %s (median " + fmt + ")") % (
        label, rng.min, rng.max, unit, rng.median)


def sampled_text(place, run):
    """The ranges NVML read through one run, and its rows outside them."""
    if not place.sampled_recorded:
        return NOT_RECORDED
    s = place.sampled
    if s is None:
        return "not sampled%s" % (_why(place) or " (nothing was timed)")
    text = "%s; %s; %s; %s; %d readings" % (
        _range_text("SM", s.sm_clock, "MHz"),
        _range_text("memory", s.mem_clock, "MHz"),
        _range_text("power", s.power, "W"),
        _range_text("temperature", s.temperature, "°C"), s.samples)
    slowing = plc.slowdowns(s.reasons)
    text += "; %s" % ("throttling reasons %s in %d of %d readings" % (
        ", ".join(slowing), s.throttled_samples, s.samples) if slowing
        else "no throttling reason")
    outside = outside_rows(run)
    if run.points:
        text += "; %d of %d rows outside the clock range" % (
            len(outside), len(run.points))
    return text


def _row_label(p):
    return "%s %s %s %s%s" % (sinks.markdown(p.variant), size_label(p.n),
                              p.cache, p.launch,
                              "" if p.block is None else " block %d" %
                              p.block)


def threat_items(study):
    """The threats-to-validity bullets: per part, the rows measured outside
    its clock range (with the first few named), and the parts whose rows'
    clocks were not recorded."""
    items = []
    unchecked = []
    for part, run in study.runs.items():
        if not run.points:
            continue
        if not clocks_checkable(run):
            unchecked.append("`%s/`" % part)
        outside = outside_rows(run)
        if not outside:
            continue
        shown = "; ".join("%s (%s)" % (_row_label(o.point),
                                       ", ".join(o.reasons))
                          for o in outside[:6])
        items.append(
            "`%s/`: **%d of %d rows were measured outside the part's clock "
            "range** (an SM or memory clock more than %.0f %% below the "
            "part's median during the row's rounds, or a throttling "
            "reason): %s%s. Their times may be long by as much as their "
            "clock is low." % (part, len(outside), len(run.points),
                               CLOCK_MARGIN_PCT, shown,
                               "; ..." if len(outside) > 6 else ""))
    if unchecked:
        items.append("The clocks during each row were not recorded in %s "
                     "(runs written before ewbench sampled NVML through a "
                     "run, or without NVML): a row measured at a lower "
                     "clock than its part cannot be told there, only a "
                     "throttling reason named in its row." %
                     ", ".join(unchecked))
    return items

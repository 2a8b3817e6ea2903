"""The noise of a measurement, and the rules that say whether a
difference is larger than it (docs/analysis.md, "The noise rule").

Two rows of one run (compare, the report, the verdicts, finding 5): their
medians differ beyond the noise when their 95 % confidence intervals
(timing.py: measured by ewbench in schema 2, estimated from the spread in
schema 1) do not overlap once each is widened by the run-to-run floor, the
drift between runs and machines (clocks, DRAM refresh, the GPU itself)
that the samples of one run cannot show.  The floor is a noise model, not
one number (docs/analysis.md, "The noise model"):

    floor(t) = max(F % of t, one step of the GPU's timer)

F measured per GPU from studies of it on different machines (the 99th
percentile of the floor their kernels of 20 µs and more needed to agree),
the largest measured F for a GPU not measured; the timer step (run.json)
because a short kernel's median moves by whole steps:

    separated(a, b)  <=>  a.high + f(a) < b.low - f(b)  or  b.high + f(b) <
                          a.low - f(a)

Repeats (contest) and the fleet, whose numbers are one per run, keep the
spread rule below.

Scatter of a point: its per-launch standard deviation, or (max - min) / 4
without one (for tens of samples the range spans about four standard
deviations).  A warm graph row's samples are replay means of K =
launches_per_sample launches each, so its scatter is that of a mean of K;
the per-launch scatter is taken as sqrt(K) times it (launches assumed
independent), which puts graph and stream rows on one scale.  Scatter of
repeats (contest): the standard deviation of the per-run values.

The rule, every spread in % of the value it belongs to:

    a difference is beyond the noise when
    |difference| > max(SIGMAS x sqrt(spread_a^2 + spread_b^2), floor)

A missing spread counts as 0; when both are missing, UNKNOWN_PCT stands
in for the first term (callers whose numbers never carry a spread, fleet
ceilings, pass unknown_pct=None: the floor alone decides).  The floor
(DRIFT_PCT unless a caller names its own) keeps a shift that the scatter
of one run cannot show, clock drift from run to run, from counting.

The report also flags a point noisy when its spread exceeds NOISY_PCT %
of its median, and as having an outlier when its slowest launch took more
than OUTLIER_FACTOR x the median.
"""

import math
import statistics
from dataclasses import dataclass

from . import sinks

# F of the noise model per GPU (run.json device.name), measured
# (docs/analysis.md, "The noise model"; tests/gpu/repeat.py): the 99th
# percentile, rounded up to a tenth, of the floor rows of 20 µs and more
# needed to agree between studies made by `make report` on different
# machines of that GPU (H100: 4 machines, H200: 3; kernels unchanged).
MEASURED_FLOOR_PCT = {
    "NVIDIA H100 80GB HBM3": 0.2,
    "NVIDIA H200": 1.1,
}
# A GPU with no such studies takes the largest measured F.
UNMEASURED_FLOOR_PCT = max(MEASURED_FLOOR_PCT.values())

SIGMAS = 3.0
DRIFT_PCT = 2.0
UNKNOWN_PCT = 5.0

NOISY_PCT = 5.0
OUTLIER_FACTOR = 1.5


@dataclass(frozen=True)
class Floor:
    """The run-to-run floor of a run: max(pct % of a median, step_ns)."""
    pct: float
    step_ns: float = 0.0
    gpu: str = ""
    measured: bool = True   # pct measured on this GPU (else stood in)

    def ns(self, median_ns):
        return max(median_ns * self.pct / 100.0, self.step_ns)

    def pct_at(self, median_ns):
        """The floor at a median, in % of it."""
        return 100.0 * self.ns(median_ns) / median_ns if median_ns else \
            self.pct

    def describe(self):
        """The floor in words, for a report's Markdown."""
        text = "max(%g %% of the median, %g ns timer step)" % (
            self.pct, self.step_ns) if self.step_ns else \
            "%g %% of the median" % self.pct
        if not self.measured:
            text += (" (%s: no repeated studies; the largest floor "
                     "measured stands in)" % (
                         sinks.markdown(self.gpu) if self.gpu else
                         "this GPU"))
        return text


def gpu_floor(gpu, step_ns=0.0):
    """The Floor of a GPU by its name, with the run's timer step."""
    pct = MEASURED_FLOOR_PCT.get(gpu)
    return Floor(UNMEASURED_FLOOR_PCT if pct is None else pct,
                 step_ns or 0.0, gpu or "", pct is not None)


def manifest_floor(manifest):
    """The Floor of a run from its run.json: its GPU's F, its timer
    step."""
    timing_settings = (manifest.get("settings") or {}).get("timing") or {}
    return gpu_floor((manifest.get("device") or {}).get("name"),
                     timing_settings.get("timer_step_ns") or 0.0)


def run_floor(run):
    return manifest_floor(run.manifest)


def point_floor(point):
    """A point's Floor: its run's, or, for a point not loaded from a run,
    the floor of a GPU not measured."""
    return point.floor if point.floor is not None else gpu_floor(None)


def wider(a, b):
    """The wider of two floors (two runs compared: each row's floor)."""
    return a if (a.pct, a.step_ns) >= (b.pct, b.step_ns) else b


def sample_sd_ns(point):
    """Standard deviation of a row's timing samples in ns: its stddev, or
    (max - min) / 4 without one; None when the row records neither."""
    if point.time_stddev_ns is not None:
        return point.time_stddev_ns
    if point.time_min_ns is not None and point.time_max_ns is not None:
        return (point.time_max_ns - point.time_min_ns) / 4.0
    return None


def noise_ns(point):
    """Per-launch scatter of a point in ns, or None when not recorded."""
    spread = sample_sd_ns(point)
    if spread is None:
        return None
    return spread * math.sqrt(point.launches_per_sample)


def spread_pct(point):
    """100 x scatter / median, or None when the run recorded no spread."""
    scatter = noise_ns(point)
    if scatter is None or not point.time_median_ns:
        return None
    return 100.0 * scatter / point.time_median_ns


def repeat_spread_pct(values):
    """100 x standard deviation / median of repeated measurements of one
    number (one per run), or None with fewer than two."""
    middle = statistics.median(values) if values else None
    if len(values) < 2 or not middle:
        return None
    return 100.0 * statistics.stdev(values) / middle


def noise_limit_pct(spread_a, spread_b, floor_pct=DRIFT_PCT, sigmas=SIGMAS,
                    unknown_pct=UNKNOWN_PCT):
    """The % a difference between a and b must exceed to be beyond the
    noise: max(sigmas x sqrt(spread_a² + spread_b²), floor_pct)."""
    if spread_a is None and spread_b is None:
        scatter = unknown_pct or 0.0
    else:
        scatter = sigmas * math.hypot(spread_a or 0.0, spread_b or 0.0)
    return max(scatter, floor_pct)


def beyond_noise(difference_pct, limit_pct):
    """The rule's verdict on a difference in %, given its limit."""
    return abs(difference_pct) > limit_pct


def is_noisy(point):
    spread = spread_pct(point)
    return spread is not None and spread > NOISY_PCT


def has_outlier(point):
    return point.time_max_ns is not None and point.time_median_ns > 0 and \
        point.time_max_ns > OUTLIER_FACTOR * point.time_median_ns


def flag(point):
    """'' or a short mark for a table cell: 'noisy', 'outlier' or both."""
    marks = [m for m, on in (("noisy", is_noisy(point)),
                             ("outlier", has_outlier(point))) if on]
    return " ".join(marks)


# The confidence-interval rule (rows of one run)

def separated(a, b, floor):
    """Whether two timing.KernelTime differ beyond the noise: their CIs,
    each widened by the Floor, do not overlap."""
    a_low, a_high = a.widened(floor)
    b_low, b_high = b.widened(floor)
    return a_high < b_low or b_high < a_low


def separation_pct(a, b, floor):
    """The change of b against a (in % of a's median) that the rule needs
    before it calls b different: the facing halves of the two widened
    intervals.  |100 x (b - a) / a| > separation_pct <=> separated."""
    a_low, a_high = a.widened(floor)
    b_low, b_high = b.widened(floor)
    if b.median_ns >= a.median_ns:
        gap = (a_high - a.median_ns) + (b.median_ns - b_low)
    else:
        gap = (a.median_ns - a_low) + (b_high - b.median_ns)
    return 100.0 * gap / a.median_ns


@dataclass(frozen=True)
class Margin:
    """How far b is from a (a number from its threshold): the difference
    in % of a, the noise rule's limit for it (within it: borderline), and
    the cross-host spread, the floor F of the noise model at a's value
    (measured between studies on different hosts of the GPU): the unit a
    distance is told in, since it does not move from run to run as one
    run's confidence intervals do."""
    difference_pct: float   # 100 x (b - a) / a
    limit_pct: float        # separation_pct(a, b): beyond it, decided
    spread_pct: float = 0.0  # the cross-host spread at a, % of a

    @property
    def beyond(self):
        return abs(self.difference_pct) > self.limit_pct

    @property
    def units(self):
        """|difference| in units of the noise limit (> 1: beyond); it
        orders margins, never shown: it moves with one run's intervals."""
        return abs(self.difference_pct) / self.limit_pct \
            if self.limit_pct > 0 else math.inf

    @property
    def spreads(self):
        """|difference| in units of the cross-host spread."""
        return abs(self.difference_pct) / self.spread_pct \
            if self.spread_pct > 0 else math.inf

    def text(self):
        """'+2.3 %, 11x the cross-host spread 0.2 %', or '+0.3 %:
        borderline, within the noise limit 0.8 %'."""
        if not self.beyond:
            return "%+.1f %%: borderline, within the noise limit %.1f %%" \
                % (self.difference_pct, self.limit_pct)
        if not self.spread_pct:
            return "%+.1f %%, beyond the noise limit %.1f %%" % (
                self.difference_pct, self.limit_pct)
        return "%+.1f %%, %.0fx the cross-host spread %.2g %%" % (
            self.difference_pct, self.spreads, self.spread_pct)


def margin(a, b, floor):
    """The Margin of KernelTime b against KernelTime a."""
    return Margin(100.0 * (b.median_ns - a.median_ns) / a.median_ns,
                  separation_pct(a, b, floor), floor.pct_at(a.median_ns))


def distance(value, threshold, limit_pct, spread_pct):
    """The Margin of a number from its threshold (both in one unit), with
    the limit the noise rule gives the number and the cross-host spread,
    each in % of the threshold."""
    return Margin(100.0 * (value / threshold - 1), limit_pct, spread_pct)

"""The noise of a measurement, and the rules that say whether a
difference is larger than it (docs/analysis.md, "The noise rule").

Two rows of one run (compare, the report, the verdicts, finding 5): their
medians differ beyond the noise when their 95 % confidence intervals
(timing.py: measured by ewbench in schema 2, estimated from the spread in
schema 1) do not overlap once each is widened by RUN_FLOOR_PCT % of its
median on both sides, the run-to-run drift (clocks, DRAM refresh) that the
samples of one run cannot show:

    separated(a, b)  <=>  a.high + f.a < b.low - f.b  or  b.high + f.b <
                          a.low - f.a,        f.x = RUN_FLOOR_PCT % of x

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

# The run-to-run floor of the CI rule, measured (docs/analysis.md, "The
# noise rule"): the 99th percentile of the floor two back-to-back studies'
# rows needed to agree, on an H100.
RUN_FLOOR_PCT = 0.6

SIGMAS = 3.0
DRIFT_PCT = 2.0
UNKNOWN_PCT = 5.0

NOISY_PCT = 5.0
OUTLIER_FACTOR = 1.5


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

def separated(a, b, floor_pct=RUN_FLOOR_PCT):
    """Whether two timing.KernelTime differ beyond the noise: their CIs,
    each widened by floor_pct % of its median, do not overlap."""
    a_low, a_high = a.widened(floor_pct)
    b_low, b_high = b.widened(floor_pct)
    return a_high < b_low or b_high < a_low


def separation_pct(a, b, floor_pct=RUN_FLOOR_PCT):
    """The change of b against a (in % of a's median) that the rule needs
    before it calls b different: the facing halves of the two widened
    intervals.  |100 x (b - a) / a| > separation_pct <=> separated."""
    a_low, a_high = a.widened(floor_pct)
    b_low, b_high = b.widened(floor_pct)
    if b.median_ns >= a.median_ns:
        gap = (a_high - a.median_ns) + (b.median_ns - b_low)
    else:
        gap = (a.median_ns - a_low) + (b_high - b.median_ns)
    return 100.0 * gap / a.median_ns

"""The noise of a measurement, and the one rule that says whether a
difference is larger than it (docs/analysis.md, "The noise rule").

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

SIGMAS = 3.0
DRIFT_PCT = 2.0
UNKNOWN_PCT = 5.0

NOISY_PCT = 5.0
OUTLIER_FACTOR = 1.5


def noise_ns(point):
    """Per-launch scatter of a point in ns, or None when not recorded."""
    if point.time_stddev_ns is not None:
        spread = point.time_stddev_ns
    elif point.time_min_ns is not None and point.time_max_ns is not None:
        spread = (point.time_max_ns - point.time_min_ns) / 4.0
    else:
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

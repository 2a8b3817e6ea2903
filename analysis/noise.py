"""The noise of one point: its per-launch spread, and stray launches.

The scatter is compare.noise_ns (the per-launch standard deviation, or
(max - min) / 4 without one), so the report and `compare` measure noise
the same way.  A point is flagged noisy when that spread exceeds
NOISY_PCT % of the median, and as having an outlier when its slowest
launch took more than OUTLIER_FACTOR x the median.
"""

from .compare import noise_ns

NOISY_PCT = 5.0
OUTLIER_FACTOR = 1.5


def spread_pct(point):
    """100 x scatter / median, or None when the run recorded no spread."""
    scatter = noise_ns(point)
    if scatter is None or not point.time_median_ns:
        return None
    return 100.0 * scatter / point.time_median_ns


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

"""Two runs side by side: per matching point, the change in median time
and bandwidth, flagged only when it is larger than the noise.

Points match on (variant, n, block, cache, launch).  The noise of one
point is its per-launch standard deviation, or (max - min) / 4 when the
standard deviation is missing (for tens of samples the range spans about
four standard deviations).  A warm graph row's samples are replay means
of K = launches_per_sample launches each, so its spread is that of a mean
of K; the per-launch spread is taken as sqrt(K) times it (launches
assumed independent), which puts graph and stream rows on one scale.  A
change is flagged when

    |median_b - median_a| > max(SIGMAS x sqrt(noise_a^2 + noise_b^2),
                                MIN_CHANGE_PCT % of median_a)

The first term says the medians differ by more than the launches of
either run scatter; the second keeps sub-percent shifts (clock drift from
run to run, which per-launch scatter does not show) from being flagged
when the scatter is tiny.  When neither run has a spread for the point,
UNKNOWN_NOISE_PCT % of median_a stands in for the first term.
"""

import math
from dataclasses import dataclass
from typing import Optional

from .units import size_label, us

SIGMAS = 3.0
MIN_CHANGE_PCT = 2.0
UNKNOWN_NOISE_PCT = 5.0

SLOWER = "slower"
FASTER = "faster"
SAME = ""


@dataclass(frozen=True)
class Change:
    a: object               # load.Point of run A
    b: object               # load.Point of run B
    time_pct: float         # +: B slower
    bandwidth_pct: Optional[float]
    threshold_pct: float
    flag: str


def noise_ns(point):
    """Per-launch scatter of a point in ns, or None when not recorded."""
    if point.time_stddev_ns is not None:
        spread = point.time_stddev_ns
    elif point.time_min_ns is not None and point.time_max_ns is not None:
        spread = (point.time_max_ns - point.time_min_ns) / 4.0
    else:
        return None
    return spread * math.sqrt(point.launches_per_sample)


def threshold_ns(a, b, sigmas=SIGMAS, min_change_pct=MIN_CHANGE_PCT):
    na, nb = noise_ns(a), noise_ns(b)
    if na is None and nb is None:
        noise = UNKNOWN_NOISE_PCT / 100.0 * a.time_median_ns
    else:
        noise = sigmas * math.hypot(na or 0.0, nb or 0.0)
    return max(noise, min_change_pct / 100.0 * a.time_median_ns)


def compare_points(a, b, sigmas=SIGMAS, min_change_pct=MIN_CHANGE_PCT):
    delta = b.time_median_ns - a.time_median_ns
    limit = threshold_ns(a, b, sigmas, min_change_pct)
    flag = SLOWER if delta > limit else FASTER if delta < -limit else SAME
    bw_a, bw_b = a.bandwidth, b.bandwidth
    bw_pct = 100.0 * (bw_b - bw_a) / bw_a if bw_a and bw_b else None
    return Change(a, b, 100.0 * delta / a.time_median_ns, bw_pct,
                  100.0 * limit / a.time_median_ns, flag)


@dataclass(frozen=True)
class Comparison:
    changes: tuple
    only_a: tuple
    only_b: tuple
    notes: tuple


def compare_runs(run_a, run_b, sigmas=SIGMAS, min_change_pct=MIN_CHANGE_PCT):
    by_key_b = {p.key: p for p in run_b.points}
    keys_a = {p.key for p in run_a.points}
    changes = tuple(compare_points(p, by_key_b[p.key], sigmas,
                                   min_change_pct)
                    for p in run_a.points if p.key in by_key_b)
    notes = []
    gpu_a = run_a.device.get("name")
    gpu_b = run_b.device.get("name")
    if gpu_a != gpu_b:
        notes.append("different GPUs: A is %s, B is %s" % (gpu_a, gpu_b))
    for run, name in ((run_a, "A"), (run_b, "B")):
        if run.is_fixture:
            notes.append("run %s is a fixture (synthetic numbers)" % name)
        if run.manifest.get("status") not in (None, "complete"):
            notes.append("run %s is %s" % (name, run.manifest["status"]))
    return Comparison(changes,
                      tuple(p for p in run_a.points if p.key not in by_key_b),
                      tuple(p for p in run_b.points if p.key not in keys_a),
                      tuple(notes))


def render_markdown(result, run_a, run_b):
    """The comparison as GitHub Markdown text."""
    lines = ["# ewbench compare", "",
             "- A: `%s` (%s)" % (run_a.run_id, run_a.path),
             "- B: `%s` (%s)" % (run_b.run_id, run_b.path),
             "- rule: flag when |Δ median| > max(%g x sqrt(sd_A² + sd_B²), "
             "%g %% of A); sd = per-launch standard deviation, or "
             "(max - min)/4; for warm graph rows, whose samples are replay "
             "means of K launches, sqrt(K) x that" % (SIGMAS,
                                                      MIN_CHANGE_PCT)]
    lines += ["- note: %s" % n for n in result.notes]
    flagged = [c for c in result.changes if c.flag]
    lines += ["", "%d matching points; %d slower, %d faster beyond the noise."
              % (len(result.changes),
                 sum(c.flag == SLOWER for c in flagged),
                 sum(c.flag == FASTER for c in flagged)), "",
              "| variant | n | block | cache | A median (µs) | B median (µs) "
              "| Δ time | Δ GB/s | noise limit | flag |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    ordered = sorted(result.changes, key=lambda c: (
        c.flag == SAME, -abs(c.time_pct)))
    for c in ordered:
        lines.append("| %s | %s | %s | %s | %s | %s | %+.1f %% | %s | "
                     "±%.1f %% | %s |" % (
                         c.a.variant, size_label(c.a.n),
                         "" if c.a.block is None else c.a.block, c.a.cache,
                         us(c.a.time_median_ns), us(c.b.time_median_ns),
                         c.time_pct,
                         "n/a" if c.bandwidth_pct is None else
                         "%+.1f %%" % c.bandwidth_pct,
                         c.threshold_pct, c.flag.upper() or "same"))
    for label, points in (("only in A", result.only_a),
                          ("only in B", result.only_b)):
        if points:
            lines += ["", "%s: %s" % (label, ", ".join(
                "%s@%s/%s" % (p.variant, size_label(p.n), p.cache)
                for p in points))]
    return "\n".join(lines) + "\n"

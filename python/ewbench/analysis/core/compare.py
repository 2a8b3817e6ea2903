"""Two runs side by side: per matching point, the change in median time
and bandwidth, flagged only when it is beyond the noise.

Points match on (variant, n, block, cache, launch).  The flag is the
noise rule of noise.py (docs/analysis.md, "The noise rule"): the two
medians' 95 % confidence intervals (timing.row_time), each widened by the
run-to-run floor (the noise model: the wider of the two runs' floors), do
not overlap.  The limit shown is the change that takes, in % of median_a.
"""

from dataclasses import dataclass
from typing import Optional

from . import document as doc
from . import sinks
from . import timing
from .noise import point_floor, run_floor, separated, separation_pct, wider
from .units import size_label, us

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


def compare_points(a, b, floor=None):
    """The Change from point a to point b, flagged by the CI rule with
    the noise.Floor floor (default: the wider of the points' runs')."""
    if floor is None:
        floor = wider(point_floor(a), point_floor(b))
    ta, tb = timing.row_time(a), timing.row_time(b)
    delta = b.time_median_ns - a.time_median_ns
    flag = SAME
    if separated(ta, tb, floor):
        flag = SLOWER if delta > 0 else FASTER
    bw_a, bw_b = a.bandwidth, b.bandwidth
    bw_pct = 100.0 * (bw_b - bw_a) / bw_a if bw_a and bw_b else None
    return Change(a, b, 100.0 * delta / a.time_median_ns, bw_pct,
                  separation_pct(ta, tb, floor), flag)


@dataclass(frozen=True)
class Comparison:
    floor: object           # noise.Floor the changes were judged with
    changes: tuple
    only_a: tuple
    only_b: tuple
    notes: tuple


def compare_runs(run_a, run_b):
    by_key_b = {p.key: p for p in run_b.points}
    keys_a = {p.key for p in run_a.points}
    floor = wider(run_floor(run_a), run_floor(run_b))
    changes = tuple(compare_points(p, by_key_b[p.key], floor)
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
    return Comparison(floor, changes,
                      tuple(p for p in run_a.points if p.key not in by_key_b),
                      tuple(p for p in run_b.points if p.key not in keys_a),
                      tuple(notes))


def render_markdown(result, run_a, run_b):
    """The comparison as GitHub Markdown text (document.py: nothing from
    the runs is read as markup)."""
    items = ["A: %s (%s)" % (sinks.code(run_a.run_id), sinks.markdown(
        run_a.path)),
             "B: %s (%s)" % (sinks.code(run_b.run_id), sinks.markdown(
                 run_b.path)),
             "rule: flag when the 95 %% confidence intervals of the two "
             "medians, each widened by the run-to-run floor, %s, do not "
             "overlap; the CI is the row's own (schema 2) "
             "or, for schema-1 rows (old protocol), median ± 1.96 x "
             "sqrt(pi/2) x sd / sqrt(samples)" % result.floor.describe()]
    items += ["note: %s" % sinks.markdown(n) for n in result.notes]
    flagged = [c for c in result.changes if c.flag]
    blocks = [doc.Heading(1, "ewbench compare"), doc.Bullets(tuple(items)),
              doc.Paragraph("%d matching points; %d slower, %d faster "
                            "beyond the noise." % (
                                len(result.changes),
                                sum(c.flag == SLOWER for c in flagged),
                                sum(c.flag == FASTER for c in flagged)))]
    ordered = sorted(result.changes, key=lambda c: (
        c.flag == SAME, -abs(c.time_pct)))
    blocks.append(doc.Table(
        ("variant", "n", "block", "cache", "A median (µs)", "B median (µs)",
         "Δ time", "Δ GB/s", "noise limit", "flag"),
        tuple((sinks.markdown(c.a.variant), size_label(c.a.n),
               "" if c.a.block is None else str(c.a.block), c.a.cache,
               us(c.a.time_median_ns), us(c.b.time_median_ns),
               "%+.1f %%" % c.time_pct,
               "n/a" if c.bandwidth_pct is None else
               "%+.1f %%" % c.bandwidth_pct,
               "±%.1f %%" % c.threshold_pct, c.flag.upper() or "same")
              for c in ordered)))
    for label, points in (("only in A", result.only_a),
                          ("only in B", result.only_b)):
        if points:
            blocks.append(doc.Paragraph("%s: %s" % (label, ", ".join(
                "%s@%s/%s" % (sinks.markdown(p.variant), size_label(p.n),
                              p.cache) for p in points))))
    return doc.render_markdown(blocks)

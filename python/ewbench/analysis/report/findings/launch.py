"""Finding 1: at ~1M elements the launch, not the data, sets the time.

Judged on the article run (else the sweep, else the block sweep) at its
smallest size: do the kernels' durations differ beyond the noise, and does
the launch interval of each launch path exceed every kernel's duration?
"""

from dataclasses import dataclass

from ...core import noise
from ...core import select as sel
from ...core import study as stu
from ...core import timing
from ...core.units import size_label, us
from ..uses import FINDING, VERDICT_PARTS, WEAKER, Use
from .common import (BORDERLINE, FAILS, HOLDS, TORCH_PREFIX, UNTESTABLE,
                     Spec, and_list, at_size)


CLAIM = ("At ~1M elements every variant takes the same time: the launch, not "
         "the data, sets it.")
SHORT_CLAIM = "~1M elements: the launch sets the time"

F1_MAX_N = 1 << 22          # "~1M elements": the smallest size must be <= 4Mi


F1_MODES = ("python", "stream", "queued", "graph")
F1_MODE_LABELS = {"python": "PyTorch from Python (the article's launch "
                            "path)",
                  "stream": "ewbench's C launches, host-paced",
                  "queued": "stream queued behind a spin kernel",
                  "graph": "graph replay"}
F1_SETS, F1_NOT_SET, F1_BORDERLINE = "sets", "does not set", "borderline"
F1_STATUS_TEXT = {F1_SETS: "the launch sets the time",
                  F1_NOT_SET: "the launch does not set the time",
                  F1_BORDERLINE: "borderline"}


def f1_kernels(ctx, n):
    """{variant: (point, KernelTime)} of the kernels at size n in the
    preferred cache state, one per variant (stream rows first: the counter
    rows are stream rows), and the rows left out because their time is not
    a kernel's (a peer's host launch path)."""
    pts, cache = at_size(ctx, n)
    kernels, left_out = {}, []
    for p in sorted(pts, key=lambda p: p.launch != "stream"):
        if not timing.is_kernel(p, ctx.run):
            left_out.append(p)
        elif p.variant not in kernels:
            kernels[p.variant] = (p, timing.kernel_time(p, ctx.run))
    return kernels, [p for p in left_out if p.variant not in kernels], cache


# Host-paced paths: the host issues each launch, and the GPU waits for it
# when the kernel is shorter than the host's pace: the interval belongs to
# the host, and the launch sets the time when it exceeds every kernel.
# GPU-paced paths (queued behind a spin kernel, graph replay): each row's
# interval is its own kernel plus the GPU's launch gap, so each row is
# judged on its own: the launch sets its time when the gap is at least
# F1_GAP_SHARE of the interval (as the launch-bound rule has it: the fixed
# cost of a launch at least half the time).
F1_HOST_PACED = ("python", "stream")
F1_GAP_SHARE = 0.5


@dataclass(frozen=True)
class RowInterval:
    """One row's launch interval in a mode against its own kernel."""
    variant: str
    kernel: object          # timing.KernelTime
    interval: object        # timing.Interval

    @property
    def gap_ns(self):
        """interval - kernel: the launch's gap (< 0: the interval is
        shorter than the kernel's own duration)."""
        return self.interval.median_ns - self.kernel.median_ns


def f1_rows(ctx, kernels, mode):
    """[RowInterval] of a mode: "python", the PyTorch rows' stream
    interval (Python's launch path); the others, ewbench's rows' own
    (schema 2), else one row per kernel with the run's launch ceiling;
    [] when not measured."""
    python = mode == "python"
    rows = [(v, p, kt) for v, (p, kt) in kernels.items()
            if p.variant.startswith(TORCH_PREFIX) == python]
    own = [RowInterval(v, kt, timing.launch_interval(
        p, None, "stream" if python else mode)) for v, p, kt in rows]
    own = [r for r in own if r.interval is not None]
    if own or python or not rows:
        return own
    ceiling = timing.launch_interval(rows[0][1], ctx.run.ceilings, mode)
    return [] if ceiling is None else [
        RowInterval(v, kt, ceiling) for v, _, kt in rows]


def _pooled(rows):
    """The interval of a host-paced path over its rows: their median, its
    uncertainty the rows' spread (lowest to highest, each widened by its
    own interval), not one row's interval."""
    ordered = sorted(r.interval.median_ns for r in rows)
    return timing.KernelTime(
        ordered[len(ordered) // 2],
        min(r.interval.median_ns - r.interval.ci_ns for r in rows),
        max(r.interval.median_ns + r.interval.ci_ns for r in rows),
        timing.KERNEL)


def f1_status(interval_time, kernels, floor):
    """Whether a host-paced path's interval sets the time: F1_SETS when it
    exceeds every kernel's duration beyond the noise, F1_NOT_SET when some
    kernel is longer beyond it, F1_BORDERLINE otherwise; and the Margin of
    the interval against the kernel that comes closest."""
    margins = [noise.margin(kt, interval_time, floor)
               for _, kt in kernels.values()]
    longer = [m for m in margins if m.beyond and m.difference_pct < 0]
    if longer:
        return F1_NOT_SET, max(longer, key=lambda m: m.units)
    closest = min(margins, key=lambda m: m.units if m.difference_pct > 0
                  else -m.units)
    return (F1_SETS if closest.beyond else F1_BORDERLINE), closest


def _row_status(row, floor):
    """A GPU-paced row: its interval against the kernel / (1 -
    F1_GAP_SHARE) (the interval at which the gap is that share of it),
    by the noise rule: (status, Margin)."""
    scale = 1.0 / (1.0 - F1_GAP_SHARE)
    k = row.kernel
    line = timing.KernelTime(scale * k.median_ns, scale * k.low_ns,
                             scale * k.high_ns, k.source)
    m = noise.margin(line, _as_time(row.interval), floor)
    if not m.beyond:
        return F1_BORDERLINE, m
    return (F1_SETS if m.difference_pct > 0 else F1_NOT_SET), m


def f1_row_status(rows, floor):
    """A GPU-paced path, row by row: F1_SETS or F1_NOT_SET when every row
    says so beyond the noise, else F1_BORDERLINE; the Margin of the row
    that comes closest to the line; and {status: count}."""
    judged = [_row_status(r, floor) for r in rows]
    counts = {}
    for status, _ in judged:
        counts[status] = counts.get(status, 0) + 1
    closest = min((m for _, m in judged), key=lambda m: m.units)
    status = judged[0][0] if len(counts) == 1 else F1_BORDERLINE
    return status, closest, counts


def _overlaps(rows, floor):
    """The rows whose interval is shorter than their kernel's own
    duration (the next kernel starts before this one's recorded end),
    and how many of them beyond the noise."""
    short = [r for r in rows if r.gap_ns < 0]
    beyond = [r for r in short if noise.separated(
        r.kernel, _as_time(r.interval), floor)]
    return short, beyond


def _gap_range(rows):
    """'0.88-1.18 µs (median 0.95 µs)' over the rows whose interval is
    not shorter than their kernel (no negative gap is printed)."""
    gaps = sorted(r.gap_ns for r in rows if r.gap_ns >= 0)
    if not gaps:
        return "none"
    return "%s-%s µs (median %s µs)" % (us(gaps[0]), us(gaps[-1]),
                                        us(gaps[len(gaps) // 2]))


def _shorter_text(short, beyond):
    """'11 of 36 rows, by up to 205 ns (5.7 %), 9 of them beyond the
    noise: add_f32x4 205 ns, ...'."""
    worst = max(short, key=lambda r: -r.gap_ns / r.kernel.median_ns)
    return "%d row%s, by up to %.0f ns (%.1f %%), %d of them beyond the " \
        "noise: %s" % (len(short), "" if len(short) == 1 else "s",
                       -worst.gap_ns, -100 * worst.gap_ns /
                       worst.kernel.median_ns, len(beyond), ", ".join(
                           "%s %.0f ns" % (r.variant, -r.gap_ns) for r in
                           sorted(short, key=lambda r: r.gap_ns)))


def _as_time(interval):
    return timing.KernelTime(interval.median_ns,
                             interval.median_ns - interval.ci_ns,
                             interval.median_ns + interval.ci_ns,
                             timing.KERNEL)


@dataclass(frozen=True)
class Path:
    """One launch path judged: its status, the numbers-table value, the
    clause of the deciding number and the sentence of the explanation."""
    mode: str
    status: str
    value: str
    deciding: str
    sentence: str


POOLED_SENTENCE = {
    F1_SETS: "sets the time (even its shortest interval exceeds every "
             "kernel's duration beyond the noise)",
    F1_NOT_SET: "does not set the time (a kernel outlasts the interval "
                "beyond the noise)",
    F1_BORDERLINE: "is borderline (its intervals come within the noise "
                   "of the longest kernel: another host, or a busier one, "
                   "can tip it either way)"}


def _pooled_path(mode, rows, kernels, floor):
    """A host-paced path, or one measured only by the run's launch
    ceiling (one interval for every kernel): the rows' interval against
    every kernel."""
    pooled = _pooled(rows)
    status, closest = f1_status(pooled, kernels, floor)
    slow = max(kt.median_ns for _, kt in kernels.values())
    source = rows[0].interval.source
    if source.startswith("ceiling"):
        where = "%s ± %s µs (%s, one interval for every kernel)" % (
            us(pooled.median_ns), us(rows[0].interval.ci_ns), source)
    else:
        where = "%s µs (%s; %d row%s: %s-%s µs, each with its own " \
            "interval)" % (us(pooled.median_ns), source, len(rows),
                           "" if len(rows) == 1 else "s", us(pooled.low_ns),
                           us(pooled.high_ns))
    short = [r for r in rows if r.gap_ns < 0]
    value = ("interval %s; per row, interval − kernel %s%s; %s: interval "
             "against the closest kernel %s" % (
                 where, _gap_range(rows), "; the kernel outlasts its own "
                 "interval on %d of %d rows" % (len(short), len(rows))
                 if short else "", F1_STATUS_TEXT[status], closest.text()))
    deciding = "%s: interval %s µs %s longest kernel %s µs (%s)" % (
        mode, us(pooled.median_ns),
        {F1_SETS: ">", F1_NOT_SET: "<"}.get(status, "≈"), us(slow),
        closest.text())
    return Path(mode, status, value, deciding, "with %s the launch %s" % (
        F1_MODE_LABELS[mode], POOLED_SENTENCE[status]))


def _row_path(mode, rows, floor):
    """A GPU-paced path measured row by row: each row's interval against
    its own kernel."""
    status, closest, counts = f1_row_status(rows, floor)
    short, beyond = _overlaps(rows, floor)
    tally = "the gap is %s of %d rows" % (and_list([
        "%s on %d" % (words, counts[key]) for key, words in (
            (F1_SETS, "at least half of the interval"),
            (F1_NOT_SET, "under half of the interval"),
            (F1_BORDERLINE, "within the noise of half of it"))
        if counts.get(key)]), len(rows))
    value = "per row, interval − kernel %s; %s (the row closest to half: " \
        "%s)" % (_gap_range(rows), tally, closest.text())
    deciding = "%s: interval − kernel %s per row, %s" % (
        mode, _gap_range(rows), tally)
    sentence = "with %s the launch %s" % (F1_MODE_LABELS[mode], {
        F1_SETS: "sets the time (its gap after each kernel is at least "
                 "half of every row's interval)",
        F1_NOT_SET: "does not set the time: each row's interval is its "
                    "own kernel plus a gap of %s, under half of it on "
                    "every row" % _gap_range(rows),
        F1_BORDERLINE: "is borderline, row by row: %s" % tally}[status])
    if short:
        flagged = _shorter_text(short, beyond)
        value += "; interval shorter than the kernel's own duration on " \
            + flagged
        deciding += "; shorter than the kernel on %d of %d rows" % (
            len(short), len(rows))
        sentence += " (on %d of its %d rows the interval is shorter than " \
            "the kernel's own duration, by up to %.0f ns: the next kernel " \
            "starts before this one's recorded end)" % (
                len(short), len(rows),
                max(-r.gap_ns for r in short))
    return Path(mode, status, value, deciding, sentence)


def finding_1(sctx):
    """Two questions per launch path at the smallest size: do the kernels'
    durations differ beyond the noise, and does the launch set the time?
    On a host-paced path (PyTorch from Python, ewbench's C launches) the
    interval belongs to the host: the launch sets the time when even its
    shortest interval exceeds every kernel's duration.  On a GPU-paced
    path (queued, graph) each row's interval is its own kernel plus the
    GPU's gap, judged row by row.  The verdict is that of the article's
    own launch path, PyTorch from Python, when the study has its rows,
    else of ewbench's host-paced C launches; every path measured is
    shown."""
    part, ctx = sctx.part(stu.ARTICLE, stu.SWEEP, stu.BLOCKS)
    if ctx is None:
        return SPEC.finding(UNTESTABLE, [], "No run.")
    all_sizes = sorted({p.n for p in ctx.points})
    if not all_sizes or all_sizes[0] > F1_MAX_N:
        return SPEC.finding(UNTESTABLE, [], "The smallest size of the run is "
                            "%s elements; the claim is about ~1M (needs a size "
                            "<= %s)." % (size_label(all_sizes[0]) if all_sizes
                                         else "none", size_label(F1_MAX_N)),
                            part=part)
    n = all_sizes[0]
    kernels, left_out, cache = f1_kernels(ctx, n)
    if len(kernels) < 2:
        return SPEC.finding(UNTESTABLE, [], "Fewer than two kernels with a "
                            "kernel time at %s." % size_label(n), part=part)
    floor = noise.run_floor(ctx.run)
    times = sorted(kernels.items(), key=lambda kv: kv[1][1].median_ns)
    (fast_v, (_, fast)), (slow_v, (_, slow)) = times[0], times[-1]
    sources = sorted({kt.source for _, kt in kernels.values()})
    spread = noise.margin(fast, slow, floor)
    numbers = [
        ("size, cache", "%s elements, %s" % (size_label(n), cache)),
        ("kernel time", "; ".join(timing.SOURCE_LABELS[s] for s in sources)),
        ("shortest kernel", "%s %s µs" % (fast_v, _ci_us(fast))),
        ("longest kernel", "%s %s µs" % (slow_v, _ci_us(slow))),
        ("kernels differ", "%.2fx, %s: %s (noise rule: 95 %% CIs widened "
         "by %s)" % (slow.median_ns / fast.median_ns,
                     "beyond the noise" if spread.beyond else
                     "within the noise", spread.text(), floor.describe())),
    ]
    paths = []
    for mode in F1_MODES:
        rows = f1_rows(ctx, kernels, mode)
        if not rows:
            continue
        own = not any(r.interval.source.startswith("ceiling")
                      for r in rows)
        paths.append(_row_path(mode, rows, floor)
                     if own and mode not in F1_HOST_PACED else
                     _pooled_path(mode, rows, kernels, floor))
    for path in paths:
        numbers.append((F1_MODE_LABELS[path.mode], path.value))
    if left_out:
        numbers.append(("left out (no kernel time: a peer's launch path)",
                        ", ".join("%s %s µs" % (p.variant,
                                                us(p.time_median_ns))
                                  for p in left_out)))
    note = (" Left out: %s: a peer's event time is its host launch path, "
            "not its kernel, and never decides a claim about kernels." %
            and_list([p.variant for p in left_out])) if left_out else ""
    if timing.EVENTS in sources:
        note += (" Kernel times of the old protocol (schema 1: an event "
                 "pair around each launch) include the host launch path.")
    if not paths:
        return SPEC.finding(UNTESTABLE, numbers, "No launch interval "
                            "measured (neither the rows' intervals nor the "
                            "launch_stream / launch_graph ceilings)." + note,
                            "kernels %.2fx apart" % (slow.median_ns /
                                                     fast.median_ns), part)
    judged = {path.mode: path for path in paths}
    decisive = next(m for m in F1_HOST_PACED + F1_MODES if m in judged)
    # The first screen's line: the verdict's own path; every path is in
    # the finding.
    others = len(paths) - 1
    deciding = judged[decisive].deciding + (
        "; %d more launch path%s below" % (
            others, "" if others == 1 else "s") if others else "")
    text = ("At %s elements the kernels take %s (%s) to %s µs (%s): %s. " % (
        size_label(n), us(fast.median_ns), fast_v, us(slow.median_ns),
        slow_v, "they differ beyond the noise" if spread.beyond else
        "within the noise of each other"))
    text += ("Whether the launch sets the time depends on the launch path, "
             "which belongs to the host (CPU, driver, language), not to the "
             "GPU; the verdict is that of %s. " % F1_MODE_LABELS[decisive])
    joined = "; ".join(path.sentence for path in paths)
    text += joined[:1].upper() + joined[1:] + "." + note
    verdict = {F1_SETS: HOLDS, F1_NOT_SET: FAILS,
               F1_BORDERLINE: BORDERLINE}[judged[decisive].status]
    return SPEC.finding(verdict, numbers, text, deciding, part)


def _ci_us(kt):
    """'3.55 (3.53-3.57)', or the median alone without an interval."""
    if kt.high_ns - kt.low_ns <= 0:
        return us(kt.median_ns)
    return "%s (%s-%s)" % (us(kt.median_ns), us(kt.low_ns), us(kt.high_ns))


def _schema1_rows(run):
    return any(p.time_source is None for p in run.points)


SPEC = Spec(1, CLAIM, SHORT_CLAIM, (
    Use("Finding 1", FINDING, VERDICT_PARTS, ((sel.M_KERNEL_TIME,),),
        "its rows timed by the old protocol (schema 1) are judged by their "
        "event times, the host's launch path included, not the profiler's "
        "kernel duration (`%s`), and PyTorch rows among them are left out"
        % sel.M_KERNEL_TIME, WEAKER, applies=_schema1_rows),
), finding_1)

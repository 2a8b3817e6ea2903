"""Finding 1: at ~1M elements the launch, not the data, sets the time.

Judged on the article run (else the sweep, else the block sweep) at its
smallest size: do the kernels' durations differ beyond the noise, and does
the launch interval of each launch path exceed every kernel's duration?
"""

from ...core import noise
from ...core import study as stu
from ...core import timing
from ...core.units import size_label, us
from .common import (BORDERLINE, FAILS, HOLDS, TORCH_PREFIX, UNTESTABLE, _and,
                     _finding, at_size)


NUMBER = 1
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


def f1_interval(ctx, kernels, mode):
    """The launch interval of a mode: the median of the rows' own (schema
    2; "python": the PyTorch rows' stream interval, Python's launch path;
    the others: ewbench's rows), else the run's launch ceiling; None when
    not measured."""
    python = mode == "python"
    rows = [p for p, _ in kernels.values()
            if p.variant.startswith(TORCH_PREFIX) == python]
    own = [timing.launch_interval(p, None, "stream" if python else mode)
           for p in rows]
    own = [i for i in own if i is not None]
    if own:
        own.sort(key=lambda i: i.median_ns)
        return own[len(own) // 2]
    if python or not rows:
        return None
    return timing.launch_interval(rows[0], ctx.run.ceilings, mode)


def _as_time(interval):
    return timing.KernelTime(interval.median_ns,
                             interval.median_ns - interval.ci_ns,
                             interval.median_ns + interval.ci_ns,
                             timing.KERNEL)


def f1_status(interval_time, kernels, floor):
    """Whether a mode's interval sets the time: F1_SETS when it exceeds
    every kernel's duration beyond the noise, F1_NOT_SET when some kernel
    is longer beyond it, F1_BORDERLINE otherwise; and the Margin of the
    interval against the kernel that comes closest (in noise units)."""
    margins = [noise.margin(kt, interval_time, floor)
               for _, kt in kernels.values()]
    longer = [m for m in margins if m.beyond and m.difference_pct < 0]
    if longer:
        return F1_NOT_SET, max(longer, key=lambda m: m.units)
    closest = min(margins, key=lambda m: m.units if m.difference_pct > 0
                  else -m.units)
    return (F1_SETS if closest.beyond else F1_BORDERLINE), closest


def finding_1(sctx):
    """Two questions per launch path at the smallest size: do the kernels'
    durations differ beyond the noise, and does the launch interval exceed
    every kernel's duration (the launch sets the time)?  The interval
    belongs to the host (CPU, driver, language), not the GPU: the verdict
    is that of the article's own launch path, PyTorch from Python, when
    the study has its rows, else of ewbench's host-paced C launches; every
    path measured is shown with its margin."""
    part, ctx = sctx.part(stu.ARTICLE, stu.SWEEP, stu.BLOCKS)
    if ctx is None:
        return _finding(1, UNTESTABLE, [], "No run.")
    all_sizes = sorted({p.n for p in ctx.points})
    if not all_sizes or all_sizes[0] > F1_MAX_N:
        return _finding(1, UNTESTABLE, [], "The smallest size of the run is "
                        "%s elements; the claim is about ~1M (needs a size "
                        "<= %s)." % (size_label(all_sizes[0]) if all_sizes
                                     else "none", size_label(F1_MAX_N)),
                        part=part)
    n = all_sizes[0]
    kernels, left_out, cache = f1_kernels(ctx, n)
    if len(kernels) < 2:
        return _finding(1, UNTESTABLE, [], "Fewer than two kernels with a "
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
    modes, judged = [], {}
    for mode in F1_MODES:
        interval = f1_interval(ctx, kernels, mode)
        if interval is None:
            continue
        # Every kernel against the mode's interval: one launch rate for
        # all.  (A row's own queued interval always exceeds its kernel by
        # the GPU's launch gap, whatever the kernel's length.)
        status, closest = f1_status(_as_time(interval), kernels, floor)
        low, low_u = timing.overhead(interval, slow)
        high, high_u = timing.overhead(interval, fast)
        judged[mode] = status
        numbers.append(("%s" % F1_MODE_LABELS[mode],
                        "interval %s ± %s µs (%s); launch overhead "
                        "(interval − kernel) %s ± %s to %s ± %s µs; %s: "
                        "interval against the closest kernel %s" % (
                            us(interval.median_ns), us(interval.ci_ns),
                            interval.source, us(low), us(low_u), us(high),
                            us(high_u), F1_STATUS_TEXT[status],
                            closest.text())))
        modes.append("%s: interval %s µs %s longest kernel %s µs (%.1fx "
                      "the noise limit)" % (
                          mode, us(interval.median_ns),
                          {F1_SETS: ">", F1_NOT_SET: "<"}.get(status, "≈"),
                          us(slow.median_ns), closest.units))
    if left_out:
        numbers.append(("left out (no kernel time: a peer's launch path)",
                        ", ".join("%s %s µs" % (p.variant,
                                                us(p.time_median_ns))
                                  for p in left_out)))
    note = (" Left out: %s: a peer's event time is its host launch path, "
            "not its kernel, and never decides a claim about kernels." % _and(
                [p.variant for p in left_out])) if left_out else ""
    if timing.EVENTS in sources:
        note += (" Kernel times of the old protocol (schema 1: an event "
                 "pair around each launch) include the host launch path.")
    if not judged:
        return _finding(1, UNTESTABLE, numbers, "No launch interval "
                        "measured (neither the rows' intervals nor the "
                        "launch_stream / launch_graph ceilings)." + note,
                        "kernels %.2fx apart" % (slow.median_ns /
                                                 fast.median_ns), part)
    decisive = next(m for m in ("python", "stream") + F1_MODES
                    if m in judged)
    deciding = "%s; kernels %.2fx apart (%s)" % (
        "; ".join(modes), slow.median_ns / fast.median_ns,
        "beyond noise" if spread.beyond else "within noise")
    text = ("At %s elements the kernels take %s (%s) to %s µs (%s): %s. " % (
        size_label(n), us(fast.median_ns), fast_v, us(slow.median_ns),
        slow_v, "they differ beyond the noise" if spread.beyond else
        "within the noise of each other"))
    text += ("Whether the launch sets the time depends on the launch path, "
             "which belongs to the host (CPU, driver, language), not to the "
             "GPU; the verdict is that of %s. " % F1_MODE_LABELS[decisive])
    parts = []
    for mode, status in judged.items():
        parts.append("with %s the launch %s" % (
            F1_MODE_LABELS[mode], {
                F1_SETS: "sets the time (its interval exceeds every "
                         "kernel's duration beyond the noise)",
                F1_NOT_SET: "does not set the time (a kernel outlasts the "
                            "interval beyond the noise)",
                F1_BORDERLINE: "is borderline (its interval is within the "
                               "noise of the longest kernel: another host, "
                               "or a busier one, can tip it either way)"}[
                    status]))
    joined = "; ".join(parts)
    text += joined[:1].upper() + joined[1:] + "." + note
    verdict = {F1_SETS: HOLDS, F1_NOT_SET: FAILS,
               F1_BORDERLINE: BORDERLINE}[judged[decisive]]
    return _finding(1, verdict, numbers, text, deciding, part)


def _ci_us(kt):
    """'3.55 (3.53-3.57)', or the median alone without an interval."""
    if kt.high_ns - kt.low_ns <= 0:
        return us(kt.median_ns)
    return "%s (%s-%s)" % (us(kt.median_ns), us(kt.low_ns), us(kt.high_ns))


JUDGE = finding_1

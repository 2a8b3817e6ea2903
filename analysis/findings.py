"""The six findings of the study brief, judged on one run.

Each judge returns a Finding: a verdict ("holds", "does not hold", "not
testable with this data"), the numbers that decide it, and a short
explanation.  The thresholds are constants below and docs/analysis.md
repeats them.  Findings compare variants at their primary block size (see
select.py) and use warm points when the run has them (the write-ups timed
back-to-back launches), cold points otherwise; points whose correctness
check failed are left out.
"""

from dataclasses import dataclass
from statistics import median

from . import model
from . import select as sel
from .units import bytes_label, gbps, ratio, size_label, us

HOLDS = "holds"
FAILS = "does not hold"
UNTESTABLE = "not testable with this data"

F1_MAX_N = 1 << 22          # "~1M elements": the smallest size must be <= 4Mi
F1_MAX_SPREAD = 1.25        # slowest / fastest variant time
F2_DRAM_CAP = 1.10          # not-in-L2 points stay below 1.1 x DRAM ceiling
F3_MIN_PCT = 85.0           # every variant >= 85 % of its DRAM ceiling
F3_MIN_OF_MAX = 0.90        # slowest variant >= 90 % of the fastest
F3_RATIO = (0.40, 0.60)     # fp16 / fp32 add time
F4_TOLERANCE = 0.10         # measured ratio within 10 % of 4x / 8x
F4_PAIRS = (("add_f32x4", "add_f32", 4.0), ("add_f16x8_pack", "add_f16", 8.0))
F5_TOLERANCE = 1.05         # best of 128/256 within 5 % of the best block
F5_SAFE_BLOCKS = (128, 256)
F6_TOLERANCE = 0.05         # "~2 % faster" read as: within 5 % either way
F6_NAIVE, F6_VECTOR = "relu_f32", "relu_f32x4"
TORCH_PREFIX = "torch_"

CLAIMS = {
    1: "At ~1M elements every variant takes the same time: the launch, not "
       "the data, sets it.",
    2: "Mid sizes: when A+B+C fits in L2 the achieved bandwidth exceeds DRAM "
       "bandwidth; when it does not, it falls to DRAM speed.",
    3: "At the largest size every variant reaches the same DRAM ceiling, so "
       "fp16 halves the time.",
    4: "float4 moves 4x the bytes per load instruction of scalar fp32 (512 vs "
       "128 bytes per warp instruction); the 8-half pack moves 8x scalar "
       "fp16.",
    5: "128 or 256 threads per block is the safe choice.",
    6: "Vectorised ReLU is only ~2 % faster than naive; PyTorch is as fast as "
       "either.",
}


@dataclass(frozen=True)
class Finding:
    number: int
    claim: str
    verdict: str
    numbers: tuple          # ((label, value text), ...)
    explanation: str


@dataclass(frozen=True)
class Context:
    """What every judge needs, computed once per run."""
    run: object
    points: tuple           # primary-block points with a passing check
    fits: dict
    verdicts: dict          # point key -> model.Verdict


def make_context(run):
    fits = model.fit_series(run.points, run.l2_bytes)
    verdicts = {p.key: v for p, v in model.classify_run(run, fits)}
    points = tuple(p for p in sel.primary_points(run) if p.check != "fail")
    return Context(run, points, fits, verdicts)


def _finding(number, verdict, numbers, explanation):
    return Finding(number, CLAIMS[number], verdict, tuple(numbers),
                   explanation)


def _and(items):
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    return items[0] if len(items) == 1 else \
        ", ".join(items[:-1]) + " and " + items[-1]


def _at(ctx, n, **where):
    """Points at size n in the preferred cache state, and that state."""
    at_n = sel.select(ctx.points, n=n, **where)
    cache = sel.preferred_cache(at_n)
    return sel.select(at_n, cache=cache), cache


def _counter_story(ctx, p):
    """One clause of counter evidence for a point, or ''."""
    run = ctx.run
    parts = []
    occ, kind = model.occupancy(run, p)
    if occ is not None:
        parts.append("%s occupancy %.0f%%" % (kind, occ))
    kib = model.kib_in_flight_per_sm(p, occ,
                                     run.device.get("max_threads_per_sm"))
    if kib is not None:
        parts.append("~%.0f KiB of loads in flight per SM" % kib)
    bpi = sel.metric(run, p, sel.M_BYTES_PER_INST)
    if bpi is not None:
        parts.append("%.1f B per issued instruction" % bpi)
    regs = sel.metric(run, p, sel.M_REGISTERS)
    if regs is not None:
        parts.append("%d registers/thread" % regs)
    return ", ".join(parts)


# finding 1

def finding_1(ctx):
    all_sizes = sorted({p.n for p in ctx.points})
    if not all_sizes or all_sizes[0] > F1_MAX_N:
        return _finding(1, UNTESTABLE, [], "The smallest size of the run is "
                        "%s elements; the claim is about ~1M (needs a size "
                        "<= %s)." % (size_label(all_sizes[0]) if all_sizes
                                     else "none", size_label(F1_MAX_N)))
    n = all_sizes[0]
    pts, cache = _at(ctx, n)
    if len(pts) < 2:
        return _finding(1, UNTESTABLE, [], "Fewer than two variants at %s."
                        % size_label(n))
    fast = min(pts, key=lambda p: p.time_median_ns)
    slow = max(pts, key=lambda p: p.time_median_ns)
    spread = slow.time_median_ns / fast.time_median_ns
    launch = [p for p in pts
              if ctx.verdicts[p.key].name == model.LAUNCH_BOUND]
    measured = model.measured_launch_floor(ctx.run.ceilings)
    fitted, fitted_source = model.fitted_launch_floor(ctx.fits, cache)
    numbers = [
        ("size, cache", "%s elements, %s" % (size_label(n), cache)),
        ("fastest", "%s %s µs" % (fast.variant, us(fast.time_median_ns))),
        ("slowest", "%s %s µs" % (slow.variant, us(slow.time_median_ns))),
        ("spread (slowest/fastest)", "%.2fx (limit %.2fx)" % (
            spread, F1_MAX_SPREAD)),
        ("launch-bound verdicts", "%d of %d" % (len(launch), len(pts))),
    ]
    if measured is not None:
        numbers.append(("launch floor", "%s µs (%s)" % (
            us(measured.value), measured.source)))
    if fitted is not None:
        numbers.append(("fitted launch floor", "%s µs (%s)" % (
            us(fitted), fitted_source)))
    holds = spread <= F1_MAX_SPREAD and len(launch) == len(pts)
    if holds:
        text = ("All %d variants take %s-%s µs at %s elements: the fixed "
                "cost of a launch is at least half of every time, so vector "
                "width and dtype barely matter here." % (
                    len(pts), us(fast.time_median_ns),
                    us(slow.time_median_ns), size_label(n)))
    else:
        reasons = []
        if spread > F1_MAX_SPREAD:
            reasons.append("Times differ by %.2fx (> %.2fx), so the data "
                           "term still shows at this size" % (
                               spread, F1_MAX_SPREAD))
        others = [p for p in pts if p not in launch]
        if others:
            reasons.append("Not launch-bound: %s" % ", ".join(
                "%s (%s)" % (p.variant, ctx.verdicts[p.key].name)
                for p in others[:6]))
        text = ". ".join(reasons) + "."
    return _finding(1, HOLDS if holds else FAILS, numbers, text)


# finding 2

def finding_2(ctx):
    run = ctx.run
    mid = sel.mid_size(sorted({p.n for p in ctx.points}))
    if mid is None:
        return _finding(2, UNTESTABLE, [], "Needs at least three sizes, so "
                        "that one lies between the smallest and the largest.")
    if not run.l2_bytes:
        return _finding(2, UNTESTABLE, [], "run.json gives no L2 size.")
    at_mid = sel.select(ctx.points, n=mid, cache="warm")
    if not at_mid:
        return _finding(2, UNTESTABLE, [], "No warm (back-to-back) points at "
                        "%s; the claim is about data left in L2 by the "
                        "previous launch." % size_label(mid))
    adds = [p for p in at_mid if p.op == "add"] or at_mid
    ceiling = model.run_dram_ceiling(run, adds[0].op)
    if ceiling is None:
        return _finding(2, UNTESTABLE, [], "No DRAM ceiling (neither "
                        "measured nor in run.json).")
    numbers = [("size", "%s elements, warm" % size_label(mid)),
               ("L2", bytes_label(run.l2_bytes)),
               ("DRAM ceiling", "%s (%s)" % (gbps(ceiling.value),
                                             ceiling.source))]
    failures, fitted, spilled = [], [], []
    for dtype in sorted({p.dtype for p in adds}):
        rows = [p for p in adds if p.dtype == dtype]
        footprint = max(p.footprint_bytes for p in rows)
        best = max(rows, key=lambda p: p.bandwidth)
        fits = footprint < run.l2_bytes
        hits = [h for h in (sel.l2_read_served(run, p)
                            for p in rows if p.cache == "warm")
                if h is not None]
        drams = [d / p.bytes_moved for p, d in
                 ((p, sel.dram_bytes(run, p)) for p in rows) if d is not None]
        detail = "footprint %s (%s L2); best %s %s = %.0f%% of DRAM" % (
            bytes_label(footprint), "fits" if fits else "exceeds",
            best.variant, gbps(best.bandwidth),
            100 * best.bandwidth / ceiling.value)
        if hits:
            detail += "; reads served by L2 %.0f%% (warm, one-pass counters)" % median(hits)
        if drams:
            detail += "; DRAM bytes %.0f%% of bytes moved" % (
                100 * median(drams))
        numbers.append((dtype, detail))
        if fits:
            fitted.append(dtype)
            if best.bandwidth <= ceiling.value:
                failures.append("At %s, %s fits in L2 but its best "
                                "bandwidth %s does not exceed the DRAM "
                                "ceiling" % (size_label(mid), dtype,
                                             gbps(best.bandwidth)))
        else:
            spilled.append(dtype)
            if best.bandwidth > F2_DRAM_CAP * ceiling.value:
                failures.append("At %s, %s exceeds L2 yet reaches %s, above "
                                "%.1fx the DRAM ceiling" % (
                                    size_label(mid), dtype,
                                    gbps(best.bandwidth), F2_DRAM_CAP))
    if failures:
        return _finding(2, FAILS, numbers, "; ".join(failures) + ".")
    text = ["At %s" % size_label(mid)]
    if fitted:
        text.append("%s %s in L2 and %s above DRAM speed" % (
            _and(fitted), "fits" if len(fitted) == 1 else "fit",
            "runs" if len(fitted) == 1 else "run"))
    if spilled:
        text.append("%s %s L2 and %s at or below DRAM speed" % (
            _and(spilled), "exceeds" if len(spilled) == 1 else "exceed",
            "stays" if len(spilled) == 1 else "stay"))
    if not fitted:
        text.append("no dtype fits in this device's L2 at this size, so "
                    "only the DRAM half of the claim is tested here (the "
                    "write-ups' GPU had a larger L2)")
    return _finding(2, HOLDS, numbers, text[0] + ", " + "; ".join(text[1:])
                    + ".")


# finding 3

def finding_3(ctx):
    run = ctx.run
    all_sizes = sorted({p.n for p in ctx.points})
    if not all_sizes:
        return _finding(3, UNTESTABLE, [], "No points.")
    n = all_sizes[-1]
    pts, cache = _at(ctx, n)
    if run.l2_bytes and min(p.footprint_bytes for p in pts) < run.l2_bytes:
        return _finding(3, UNTESTABLE, [], "At the largest size (%s) some "
                        "footprint still fits in L2 (%s); the claim needs "
                        "DRAM-resident data." % (size_label(n),
                                                 bytes_label(run.l2_bytes)))
    shares = []
    for p in pts:
        ceiling = model.run_dram_ceiling(run, p.op)
        if ceiling is None:
            return _finding(3, UNTESTABLE, [], "No DRAM ceiling (neither "
                            "measured nor in run.json).")
        shares.append((p, 100.0 * p.bandwidth / ceiling.value, ceiling))
    lowest = min(shares, key=lambda s: s[1])
    highest = max(shares, key=lambda s: s[1])
    f16 = [p.time_median_ns for p in pts if p.op == "add" and p.dtype == "f16"]
    f32 = [p.time_median_ns for p in pts if p.op == "add" and p.dtype == "f32"]
    time_ratio = median(f16) / median(f32) if f16 and f32 else None
    numbers = [("size, cache", "%s elements, %s" % (size_label(n), cache)),
               ("DRAM ceilings", ", ".join(sorted({"%s %s" % (
                   gbps(c.value), c.source) for _, _, c in shares})))]
    for p, share, _ in sorted(shares, key=lambda s: -s[1]):
        numbers.append((p.variant, "%s, %.0f%% of DRAM ceiling" % (
            gbps(p.bandwidth), share)))
    numbers.append(("fp16/fp32 add time (medians)", ratio(time_ratio)))
    same = lowest[1] >= F3_MIN_OF_MAX * highest[1]
    high = lowest[1] >= F3_MIN_PCT
    halves = time_ratio is not None and \
        F3_RATIO[0] <= time_ratio <= F3_RATIO[1]
    if same and high and halves:
        return _finding(3, HOLDS, numbers, "Every variant reaches %.0f-%.0f%% "
                        "of its DRAM ceiling and fp16 add takes %s the time "
                        "of fp32." % (lowest[1], highest[1],
                                      ratio(time_ratio)))
    short = [(p, s) for p, s, _ in shares
             if s < F3_MIN_PCT or s < F3_MIN_OF_MAX * highest[1]]
    lines = []
    for p, s in sorted(short, key=lambda x: x[1]):
        story = _counter_story(ctx, p)
        lines.append("%s reaches %.0f%% (%s%s)" % (
            p.variant, s, ctx.verdicts[p.key].name,
            ": " + story if story else ""))
    text = "Not every variant reaches the ceiling: " + "; ".join(lines) + "."
    if time_ratio is None:
        text += " No fp16/fp32 add pair to compare times."
    elif not halves:
        text += " fp16 add takes %s the time of fp32, not about half." % \
            ratio(time_ratio)
    text += _in_flight_contrast(ctx, [p for p, _ in short],
                                [p for p, s, _ in shares if s >= F3_MIN_PCT])
    return _finding(3, FAILS, numbers, text)


def _in_flight_contrast(ctx, short, full):
    """A sentence contrasting loads in flight of slow and fast variants."""
    def kib(points):
        values = []
        for p in points:
            occ, _ = model.occupancy(ctx.run, p)
            k = model.kib_in_flight_per_sm(
                p, occ, ctx.run.device.get("max_threads_per_sm"))
            if k is not None:
                values.append(k)
        return values
    slow, fast = kib(short), kib(full)
    if not slow or not fast:
        return ""
    ranges = (min(slow), max(slow), min(fast), max(fast))
    if max(slow) < min(fast):
        return (" The variants that fall short keep %.0f-%.0f KiB of loads "
                "in flight per SM against %.0f-%.0f KiB for those at the "
                "ceiling: too few bytes in flight to cover DRAM latency "
                "(Little's law)." % ranges)
    return (" Loads in flight per SM: %.0f-%.0f KiB for the variants that "
            "fall short, %.0f-%.0f KiB for those at the ceiling; the ranges "
            "overlap, so bytes in flight alone do not explain the gap (see "
            "the verdict of each)." % ranges)


# finding 4

def _ld_bytes(ctx, variant):
    """Median global-load bytes per warp load instruction of a variant,
    over its points in the preferred cache state; None if not measured."""
    rows = [p for p in ctx.points if p.variant == variant]
    cache = sel.preferred_cache(rows)
    values = [v for v in (sel.metric(ctx.run, p, sel.M_LD_BYTES_PER_INST)
                          for p in rows if p.cache == cache) if v is not None]
    return median(values) if values else None


def finding_4(ctx):
    if not sel.has_metric(ctx.run, sel.M_LD_BYTES_PER_INST):
        return _finding(4, UNTESTABLE, [], "Needs the counter row %s "
                        "(run with counters on)." % sel.M_LD_BYTES_PER_INST)
    numbers, failures, tested, missing = [], [], [], []
    for wide, narrow, target in F4_PAIRS:
        a, b = _ld_bytes(ctx, wide), _ld_bytes(ctx, narrow)
        if a is None or b is None or b == 0:
            missing.append("%s/%s" % (wide, narrow))
            continue
        measured = a / b
        tested.append(wide)
        numbers.append(("%s vs %s" % (wide, narrow),
                        "%.0f vs %.0f B per warp load = %.2fx (expected "
                        "%.0fx)" % (a, b, measured, target)))
        if abs(measured / target - 1) > F4_TOLERANCE:
            failures.append("Measured ratio off: %s moves %.2fx the bytes "
                            "per load of %s, not %.0fx" % (
                                wide, measured, narrow, target))
    if not tested:
        return _finding(4, UNTESTABLE, numbers, "None of the pairs %s has "
                        "the counter on both sides." % ", ".join(missing))
    note = (" Not tested (variant or counter missing): %s." %
            ", ".join(missing)) if missing else ""
    if failures:
        return _finding(4, FAILS, numbers, "; ".join(failures) + "." + note)
    return _finding(4, HOLDS, numbers, "The wide loads move the expected "
                    "multiple of bytes per warp load instruction." + note)


# finding 5

def finding_5(ctx):
    groups = {}
    for p in ctx.run.points:
        if p.block is not None and p.check != "fail":
            groups.setdefault((p.variant, p.n, p.cache), []).append(p)
    groups = {k: v for k, v in groups.items() if len({p.block for p in v}) > 1}
    if not groups:
        return _finding(5, UNTESTABLE, [], "Every variant was timed at one "
                        "block size; a block sweep (tune rows: several blocks "
                        "for one variant) is needed.")
    numbers, failures, judged = [], [], 0
    for (variant, n, cache), rows in sorted(groups.items()):
        best = min(rows, key=lambda p: p.time_median_ns)
        safe = [p for p in rows if p.block in F5_SAFE_BLOCKS]
        blocks = ",".join(str(b) for b in sorted(p.block for p in rows))
        if not safe:
            numbers.append(("%s %s %s" % (variant, size_label(n), cache),
                            "blocks %s: none of 128/256 tested" % blocks))
            continue
        judged += 1
        good = min(safe, key=lambda p: p.time_median_ns)
        slack = good.time_median_ns / best.time_median_ns
        occ = [(p.block, sel.metric(ctx.run, p, sel.M_THEORETICAL_OCCUPANCY))
               for p in sorted(rows, key=lambda p: p.block)]
        occ_text = ", ".join("%d: %.0f%%" % (b, o) for b, o in occ
                             if o is not None)
        numbers.append(("%s %s %s" % (variant, size_label(n), cache),
                        "blocks %s; best %d (%s µs); best of 128/256: %d, "
                        "%.3fx the best%s" % (
                            blocks, best.block, us(best.time_median_ns),
                            good.block, slack,
                            "; theoretical occupancy " + occ_text
                            if occ_text else "")))
        if slack > F5_TOLERANCE:
            failures.append("In the sweep of %s at %s (%s), block %d is "
                            "%.0f%% faster than the best of 128/256" % (
                                variant, size_label(n), cache, best.block,
                                100 * (slack - 1)))
    if not judged:
        return _finding(5, UNTESTABLE, numbers, "The block sweeps here do "
                        "not include 128 or 256.")
    if failures:
        return _finding(5, FAILS, numbers, "; ".join(failures) + ".")
    return _finding(5, HOLDS, numbers, "In every sweep the better of 128 and "
                    "256 threads is within %.0f%% of the best block size." %
                    (100 * (F5_TOLERANCE - 1)))


# finding 6

def finding_6(ctx):
    all_sizes = sorted({p.n for p in ctx.points if p.op == "relu"})
    if not all_sizes:
        return _finding(6, UNTESTABLE, [], "No ReLU points.")
    n = all_sizes[-1]
    pts, cache = _at(ctx, n, op="relu")
    by_variant = {p.variant: p for p in pts}
    naive, vector = by_variant.get(F6_NAIVE), by_variant.get(F6_VECTOR)
    if naive is None or vector is None:
        return _finding(6, UNTESTABLE, [], "Needs both %s and %s at the "
                        "largest ReLU size." % (F6_NAIVE, F6_VECTOR))
    speedup = naive.time_median_ns / vector.time_median_ns
    numbers = [("size, cache", "%s elements, %s" % (size_label(n), cache)),
               (F6_NAIVE, "%s µs, %s" % (us(naive.time_median_ns),
                                         gbps(naive.bandwidth))),
               (F6_VECTOR, "%s µs, %s" % (us(vector.time_median_ns),
                                          gbps(vector.bandwidth))),
               ("speed-up of %s" % F6_VECTOR, ratio(speedup))]
    failures = []
    if abs(speedup - 1) > F6_TOLERANCE:
        failures.append("The vectorised kernel is %s as fast as the naive "
                        "one (more than %.0f%% apart)" % (
                            ratio(speedup), 100 * F6_TOLERANCE))
    torch = [p for p in pts if p.variant.startswith(TORCH_PREFIX)]
    best = min(naive.time_median_ns, vector.time_median_ns)
    for p in torch:
        versus = p.time_median_ns / best
        numbers.append((p.variant, "%s µs, %s the faster of the two" % (
            us(p.time_median_ns), ratio(versus))))
        if versus > 1 + F6_TOLERANCE:
            failures.append("PyTorch (%s) is %.0f%% slower than the faster "
                            "kernel" % (p.variant, 100 * (versus - 1)))
    note = "" if torch else " No PyTorch rows (python3 -m analysis torch " \
        "RUN_DIR adds them), so the PyTorch half is not tested."
    if failures:
        explanation = "; ".join(failures) + "."
        if speedup > 1 + F6_TOLERANCE:
            story = _counter_story(ctx, naive)
            explanation += (" On this GPU the scalar kernel falls short of "
                            "the bandwidth the float4 one reaches%s." % (
                                " (" + story + ")" if story else ""))
        return _finding(6, FAILS, numbers, explanation + note)
    return _finding(6, HOLDS, numbers, "Naive and vectorised ReLU are within "
                    "%.0f%% of each other%s." % (
                        100 * F6_TOLERANCE,
                        " and PyTorch matches them" if torch else "") + note)


JUDGES = (finding_1, finding_2, finding_3, finding_4, finding_5, finding_6)


def evaluate(run, ctx=None):
    """All six findings, in order."""
    ctx = ctx or make_context(run)
    return [judge(ctx) for judge in JUDGES]

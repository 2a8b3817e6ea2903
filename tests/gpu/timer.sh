#!/bin/sh
# tests/gpu/timer.sh - the timer does not slow what it times (issue 50;
# docs/analysis.md, "The timer's own cost" and "The timer cross-check"):
# four kernels that keep few bytes in flight (those CUPTI's
# CONCURRENT_KERNEL records slow) and two that saturate DRAM, at 2^24 and
# 2^28, warm, with the counters:
#  - every row is timed by the uninstrumented graph replay and carries its
#    cross-check (stream launches queued behind a spin kernel, the records
#    paused) and the records' own median;
#  - at 2^28 the replay, the cross-check and the Range Profiler's
#    gpu__time_duration.sum agree within 1 %; at 2^24 the cross-check
#    stays within its allowance (2 % and a 2 us launch gap: stream
#    launches follow each other with a longer gap than a graph's);
#  - at both sizes the replay agrees within 1 % with a third timer in a
#    process without CUPTI (`--no-cupti --launch graph`: events around
#    each replay of a 16-launch graph, `time_source = batch`): the
#    counters session and the paused records do not slow the replay, and
#    two graph timers share the graph's inter-kernel gap, which at 2^24 is
#    what sets the stream cross-check apart;
#  - the records still run slow on add_f16 at 2^28 (by more than 5 %):
#    what the replay leaves out is the instrumentation, not a kernel's
#    work;
#  - the report's Method states the cross-check, and its Threats name
#    every row whose timers disagree beyond the tolerance, and no other.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu
ids=add_f16,relu_f32,abs_f32,add_f32,add_f32x4,add_f16x8
"$EWBENCH" run -q -v "$ids" -s 16Mi,256Mi --cache warm \
    --metrics gpu__time_duration.sum -o "$tmpdir/run" ||
    fail "the timed run failed"
"$EWBENCH" run -q -v "$ids" -s 16Mi,256Mi --cache warm --no-cupti \
    --launch graph -o "$tmpdir/batch" || fail "the run without CUPTI failed"
"${PYTHON:-python3}" - "$tmpdir/run" "$tmpdir/batch" <<'PY' ||
import csv, json, sys
d = sys.argv[1]
batch = {(r["variant"], r["n"]): r
         for r in csv.DictReader(open(sys.argv[2] + "/timing.csv"))}
m = json.load(open(d + "/run.json"))
assert m["settings"]["timer"] == "graph_replay+cupti_kernel_activity", \
    m["settings"]
rows = list(csv.DictReader(open(d + "/timing.csv")))
assert len(rows) == 6 * 2, len(rows)
rp = {(r["variant"], r["n"]): float(r["value"])
      for r in csv.DictReader(open(d + "/metrics.csv"))
      if r["metric"] == "gpu__time_duration.sum" and r["value"]}
bad = []
for r in rows:
    key = (r["variant"], r["n"])
    t = float(r["time_median_ns"])
    x, rec = float(r["crosscheck_ns"]), float(r["activity_median_ns"])
    b = batch[key]
    nb = float(b["time_median_ns"])
    print("%-10s n=%-9s replay %9.1f  no CUPTI %9.1f (%+.2f %%)  queued "
          "%9.1f (%+.2f %%)  records %9.1f (%+.2f %%)  profiler %s" % (
              r["variant"], r["n"], t, nb, 100 * (nb / t - 1), x,
              100 * (x / t - 1), rec, 100 * (rec / t - 1),
              "%.0f (%+.2f %%)" % (rp[key], 100 * (rp[key] / t - 1))
              if key in rp else "-"))
    if r["time_source"] != "replay":
        bad.append((key, "time_source", r["time_source"]))
    if b["time_source"] != "batch":
        bad.append((key, "no-CUPTI time_source", b["time_source"]))
    if abs(nb / t - 1) > 0.01:
        bad.append((key, "no CUPTI", nb / t))
    big = r["n"] == str(1 << 28)
    if abs(x / t - 1) > (0.01 if big else 0.02 + 2000 / t):
        bad.append((key, "queued", x / t))
    if big and key in rp and abs(rp[key] / t - 1) > 0.01:
        bad.append((key, "profiler", rp[key] / t))
    if key == ("add_f16", str(1 << 28)) and rec / t < 1.05:
        bad.append((key, "records not slow", rec / t))
assert not bad, bad
PY
    fail "the timers disagree"
EWBENCH_PYTHON=${PYTHON:-python3} MPLBACKEND=Agg "$EWBENCH" report \
    "$tmpdir/run" -o "$tmpdir/report" >/dev/null || fail "report"
PYTHONPATH=$top_srcdir/python "${PYTHON:-python3}" - "$tmpdir" <<'PY' ||
import sys
from ewbench.analysis.core import crosscheck, load
run = load.load_run(sys.argv[1] + "/run")
flagged = {(c.point.variant, c.point.n) for c in crosscheck.checks(run.points)
           if c.flagged}
text = " ".join(open(sys.argv[1] + "/report/report.md").read().split())
assert "**Timer cross-check**: warm points are timed by replays of a graph" \
    in text, "Method line"
assert "12 warm points (at up to three sizes of each run) timed by the " \
    "uninstrumented graph replay and again by stream launches queued " \
    "behind a spin kernel" in text, "Method line: the two timers"
assert "of the 12 whose kernels take 20 µs or more" in text, "judged"
for variant, n in flagged:
    assert variant in text or variant.replace("_", "\\_") in text, variant
assert ("the two timers disagree" in text) == bool(flagged), flagged
print("flagged:", sorted(flagged))
PY
    fail "the report's cross-check"
# A process's first point: its replay must be as fast as its cross-check
# (the first graph captured after instrumented launches once ran at the
# records' speed: docs/analysis.md, "The timer's own cost").
"$EWBENCH" run -q -v add_f32 -s 256Mi --cache warm --no-counters \
    -o "$tmpdir/first" || fail "the one-point run failed"
"${PYTHON:-python3}" - "$tmpdir/first/timing.csv" <<'PY' ||
import csv, sys
r, = csv.DictReader(open(sys.argv[1]))
t, x = float(r["time_median_ns"]), float(r["crosscheck_ns"])
print("first point: replay %.1f, queued %.1f (%+.2f %%)" % (t, x, 100 * (x / t - 1)))
assert abs(x / t - 1) < 0.01, (t, x)
PY
    fail "a process's first replay is slowed"

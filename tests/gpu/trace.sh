#!/bin/sh
# tests/gpu/trace.sh [KEEP_DIR] - the timeline of a run.  A traced run
# (--trace) must hold every timed kernel exactly once, each inside its
# point's NVTX range, with no dropped or broken records, and timing.csv's
# time_median_ns must be the median of exactly those kernels' durations
# (the row's time is the kernels' own).  Then Nsight Compute's NVTX filter
# on ewbench's domain and one point's range must profile exactly that
# point's kernels.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu
keep=${1:-$tmpdir}
mkdir -p "$keep"

"$EWBENCH" run -q -v add_f32,add_f16x8_pack,abs_f32 -s 1Mi,16Mi --cache both \
    --iters 20 --warmup 3 --trace "$keep/trace.json" -o "$keep/traced" ||
    fail "traced run failed"
"${PYTHON:-python3}" - "$keep" <<'PY' || fail "trace check failed"
import csv, json, sys
d = sys.argv[1]
t = json.load(open(d + "/trace.json"))
problems = t["otherData"]["problems"]
assert not any(problems.values()), problems
ev = [e for e in t["traceEvents"] if e["ph"] == "X"]
assert all(e["dur"] >= 0 for e in ev)
assert [e["ts"] for e in ev] == sorted(e["ts"] for e in ev), "not sorted"
ranges = [e for e in ev if e["pid"] == 0 and e.get("cat") == "ewbench"]
size = {1 << 20: "1Mi", 1 << 24: "16Mi"}
rows = list(csv.DictReader(open(d + "/traced/timing.csv")))
m = json.load(open(d + "/traced/run.json"))
step = m["settings"]["timing"]["timer_step_ns"] or 0
for r in rows:
    v, n, cache = r["variant"], int(r["n"]), r["cache"]
    ks = [e for e in ev if e.get("cat") == "kernel" and e["args"].get("variant") == v
          and e["args"].get("n") == n and e["args"].get("cache") == cache
          and e["args"].get("phase") == "timing" and "l2_flush" not in e["name"]]
    assert len(ks) == int(r["iters"]), (v, n, cache, len(ks))
    name = "%s n=%s block=%s %s" % (v, size[n], r["block"], cache)
    rs = [x for x in ranges if x["name"] == name]
    assert len(rs) == 1, (name, len(rs))
    lo, hi = rs[0]["ts"], rs[0]["ts"] + rs[0]["dur"]
    assert all(lo <= k["ts"] and k["ts"] + k["dur"] <= hi for k in ks), name
    assert r["time_source"] == "kernel", (name, r["time_source"])
    durs = sorted(k["dur"] * 1e3 for k in ks)         # us -> ns
    mid = len(durs) // 2
    med = durs[mid] if len(durs) % 2 else (durs[mid - 1] + durs[mid]) / 2
    got = float(r["time_median_ns"])
    # The row's median is that of the samples grouped by the timer's step
    # (docs/data-format.md): within a step of the middle sample, or of
    # the two middle ones for an even count (whose plain median, their
    # mean, can lie steps from either when they are far apart: 81 ns, at
    # a 32 ns step, for a cold 16Mi abs on an H100).
    low, high = durs[(len(durs) - 1) // 2], durs[mid]
    assert low - step - 1.0 <= got <= high + step + 1.0, \
        (name, med, got, step, low, high)
    print("%-30s %3d kernels in range; median %9.0f ns (trace) %9.0f ns (row)"
          % (name, len(ks), med, got))
PY

command -v ncu >/dev/null 2>&1 || { echo "trace: ok (ncu not on PATH: NVTX filter not tested)"; exit 0; }
ncu --nvtx --nvtx-include 'ewbench@add_f32 n=1Mi block=256 warm/' \
    --clock-control none --cache-control none --metrics gpu__time_duration.sum \
    --csv --page details --print-units base \
    "$EWBENCH" run -q -v add_f32,add_f32x4 -s 1Mi --iters 5 --warmup 2 \
    --no-cupti -o "$keep/ncu-nvtx" >"$keep/ncu-nvtx.csv" 2>"$keep/ncu-nvtx.err" ||
    fail "ncu --nvtx-include failed: $(tail -3 "$keep/ncu-nvtx.err")"
"${PYTHON:-python3}" - "$keep/ncu-nvtx.csv" <<'PY' || fail "NVTX filter check failed"
import csv, sys
lines = [l for l in open(sys.argv[1]) if l.startswith('"')]
ids = {}
for r in csv.DictReader(lines):
    ids[r["ID"]] = r["Kernel Name"].split("(")[0]
names = sorted(set(ids.values()))
# warm-up 2 + timed 5 launches of add_f32, nothing else
assert len(ids) == 7 and names == ["ewb_add_f32"], (len(ids), names)
print("ncu --nvtx-include 'ewbench@add_f32 n=1Mi block=256 warm/': %d kernels, all %s" % (len(ids), names[0]))
PY
echo "trace: ok"

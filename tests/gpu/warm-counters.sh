#!/bin/sh
# tests/gpu/warm-counters.sh - warm counter points are warm in every pass.
# At 1Mi elements an fp32 add touches 12 MiB, well inside any L2 this
# harness targets: with the default (multi-pass) metric set, a warm point's
# kernel reads almost nothing from DRAM and a cold one reads all its
# operands.  Both issue orders are covered: --cache both (the warm point
# follows its cold twin) and --cache warm (it launches its own warm-up).
# The "many" runs hold more points than one profiler session's ranges
# (src/run/profile.c splits them; a cold point that keeps its warm twin in
# the next session): every point still reads as it should, in as few
# sessions as the ranges need (not one a point, profile.c's fallback).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu

for cache in both warm; do
	"$EWBENCH" run -q -v add_f32,add_f32x4,cub_add_f32 -s 1Mi --cache $cache \
	    --iters 3 --warmup 1 -o "$tmpdir/$cache" || fail "run --cache $cache failed"
done
# 48 sizes from 256Ki to 1008Ki elements (all inside L2 warm, odd ones
# among them), three variants: 432 ranges with --cache both, 288 warm.
sizes=$(awk 'BEGIN { for (k = 0; k < 48; k++) printf "%s%d", k ? "," : "", 262144 + k * 16411 }')
for cache in both warm; do
	"$EWBENCH" run -q -v add_f32,add_f32x4,cub_add_f32 -s "$sizes" \
	    --cache $cache --iters 3 --warmup 1 -o "$tmpdir/many-$cache" ||
	    fail "run of 48 sizes --cache $cache failed"
done
grep -q '"status": *"ok"' "$tmpdir/both/run.json" || {
	echo "SKIP: counters unavailable: $(grep -o '"reason": *"[^"]*"' "$tmpdir/both/run.json")"
	exit 77; }
"${PYTHON:-python3}" - "$tmpdir" <<'PY'
import csv, json, sys
bad = 0
for run in ("both", "warm", "many-both", "many-warm"):
    d = sys.argv[1] + "/" + run
    cache = run.split("-")[-1]
    counters = json.load(open(d + "/run.json"))["counters"]
    passes = counters["passes"]
    rows = [r for r in csv.DictReader(open(d + "/metrics.csv"))
            if r["metric"] == "dram__bytes_read.sum"]
    points = {(r["variant"], r["n"], r["cache"]) for r in rows}
    want = 3 * (48 if run.startswith("many") else 1) * (2 if cache == "both" else 1)
    if len(points) != want or len(rows) != want:
        bad += 1
        print("FAIL  %s: %d counter rows of %d points, %d expected"
              % (run, len(rows), len(points), want))
    wall = counters["wall_s"]
    # A session holds up to 256 ranges; the split keeps a cold point
    # with its warm twin, so each session but the last holds >= 254.
    most = -(-wall["ranges"] // 254)
    ok = wall["sessions"] <= most
    bad += not ok
    print("%s  %s: %d ranges in %d profiler sessions (at most %d)"
          % ("ok  " if ok else "FAIL", run, wall["ranges"], wall["sessions"], most))
    for r in rows:
        frac = float(r["value"]) / (2 * int(r["n"]) * 4)
        ok = frac < 0.05 if r["cache"] == "warm" else 0.98 < frac < 1.02
        bad += not ok
        if not ok or not run.startswith("many"):
            print("%s  --cache %-4s %-12s n=%-8s %s: DRAM read %.3f of the operands (%d passes)"
                  % ("ok  " if ok else "FAIL", cache, r["variant"], r["n"], r["cache"], frac, passes))
sys.exit(1 if bad else 0)
PY

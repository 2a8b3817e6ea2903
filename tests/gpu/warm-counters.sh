#!/bin/sh
# tests/gpu/warm-counters.sh - warm counter points are warm in every pass.
# At 1Mi elements an fp32 add touches 12 MiB, well inside any L2 this
# harness targets: with the default (multi-pass) metric set, a warm point's
# kernel reads almost nothing from DRAM and a cold one reads all its
# operands.  Both issue orders are covered: --cache both (the warm point
# follows its cold twin) and --cache warm (it launches its own warm-up).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu

for cache in both warm; do
	"$EWBENCH" run -q -v add_f32,add_f32x4,cub_add_f32 -s 1Mi --cache $cache \
	    --iters 3 --warmup 1 -o "$tmpdir/$cache" || fail "run --cache $cache failed"
done
grep -q '"status": *"ok"' "$tmpdir/both/run.json" || {
	echo "SKIP: counters unavailable: $(grep -o '"reason": *"[^"]*"' "$tmpdir/both/run.json")"
	exit 77; }
"${PYTHON:-python3}" - "$tmpdir" <<'PY'
import csv, json, sys
ideal = 2 * (1 << 20) * 4
bad = 0
for cache in ("both", "warm"):
    d = sys.argv[1] + "/" + cache
    passes = json.load(open(d + "/run.json"))["counters"]["passes"]
    for r in csv.DictReader(open(d + "/metrics.csv")):
        if r["metric"] != "dram__bytes_read.sum":
            continue
        frac = float(r["value"]) / ideal
        ok = frac < 0.05 if r["cache"] == "warm" else 0.98 < frac < 1.02
        bad += not ok
        print("%s  --cache %-4s %-12s %s: DRAM read %.3f of the operands (%d passes)"
              % ("ok  " if ok else "FAIL", cache, r["variant"], r["cache"], frac, passes))
sys.exit(1 if bad else 0)
PY

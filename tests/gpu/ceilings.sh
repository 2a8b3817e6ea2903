#!/bin/sh
# tests/gpu/ceilings.sh [CEILINGS_DIR] - the block launch rate and the DRAM
# latency under load obey their physics: every row the contract names is
# there and loads; a loaded latency is no lower than the idle one, and the
# heaviest load (every free block slot streaming) raises it and comes near
# dram_copy, never above the spec; no study kernel at 2^28 launches its
# blocks faster than the block-rate ceiling at its block size (each
# kernel's share of that ceiling is printed: the issue's add_f16x2,
# add_f16x8 and add_f16x8_pack are expected near 100 %).  Uses
# CEILINGS_DIR if given (a complete `ewbench ceilings` run), else measures
# one (and then `ewbench ceilings` must take under 10 s).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu

if [ $# -ge 1 ]; then
	ceil=$1
	wall=
else
	ceil=$tmpdir/ceilings
	start=$(date +%s.%N)
	"$EWBENCH" ceilings -q -o "$ceil" || fail "ewbench ceilings failed"
	wall=$(awk "BEGIN { print $(date +%s.%N) - $start }")
fi
blocks=$tmpdir/blocks
"$EWBENCH" run -q --no-counters -v add_f16x2,add_f16x8,add_f16x8_pack,add_f32x4 \
    -s 256Mi -o "$blocks" || fail "study run at 2^28 failed"
"${PYTHON:-python3}" - "$ceil" "$blocks" "$wall" <<'PY' || fail "ceilings"
import csv, json, sys
from ewbench.analysis.core import load
from ewbench.analysis.report import model
from ewbench.analysis.core import validate

ceil, blocks, wall = sys.argv[1:]
run = load.load_run(ceil)           # names, units, loaded pairs validated
c = run.ceilings
manifest = json.load(open(ceil + "/run.json"))
assert manifest["status"] == "complete", manifest["status"]
assert set(c) == set(validate.CEILING_NAMES) == set(manifest["ceilings"]), \
    set(validate.CEILING_NAMES) ^ set(c)
bad = []
def check(ok, text):
    print(("ok    " if ok else "FAIL  ") + text)
    if not ok:
        bad.append(text)

if wall:
    check(float(wall) < 10, "ewbench ceilings took %.2f s (< 10 s)" %
          float(wall))
for block in validate.BLOCK_RATE_BLOCKS:
    r = c[validate.block_rate_name(block)]
    check(r.value > 0 and r.spread_pct < 10, "block_rate_b%d: %.3f blocks/ns,"
          " spread %.2f %%" % (block, r.value / 1e9, r.spread_pct))

idle = c["dram_latency"].value
copy = c["dram_copy"].value
for x in model.loaded_latencies(c)[1:]:
    row = c[x.source]
    spec = c[x.source + "_bandwidth"].spec_value
    check(x.latency >= 0.97 * idle, "%s: %.0f ns >= 0.97 x idle %.0f ns, "
          "beside %.0f GB/s (%.0f %% of dram_copy)" % (
              x.source, x.latency, idle, x.bandwidth / 1e9,
              100 * x.bandwidth / copy))
    check(spec is None or x.bandwidth <= 1.02 * spec,
          "%s: stream %.0f GB/s <= spec %s" % (
              x.source, x.bandwidth / 1e9,
              "-" if spec is None else "%.0f GB/s" % (spec / 1e9)))
    check(" N blocks" not in row.method, "%s: method names its blocks: %s"
          % (x.source, row.method))
full = c["dram_latency_loadfull"].value
full_bw = c["dram_latency_loadfull_bandwidth"].value
check(full >= 1.1 * idle, "dram_latency_loadfull %.0f ns >= 1.1 x idle %.0f "
      "ns: the stream ran beside the chase" % (full, idle))
check(full_bw >= 0.8 * copy, "dram_latency_loadfull_bandwidth %.0f GB/s >= "
      "0.8 x dram_copy %.0f GB/s" % (full_bw / 1e9, copy / 1e9))
check(c["dram_latency_load25_bandwidth"].value < full_bw,
      "the stream offered 25 % moves less than every block slot's")

for r in csv.DictReader(open(blocks + "/timing.csv")):
    grid, block = int(r["grid"]), int(r["block"])
    rate = grid / (float(r["time_median_ns"]) * 1e-9)
    ceiling = model.measured_block_rate(c, block)
    share = "no block_rate_b%d" % block if ceiling is None else \
        "%.1f %% of block_rate_b%d" % (100 * rate / ceiling.value, block)
    check(ceiling is not None and rate <= 1.05 * ceiling.value,
          "%s at 2^28: %d blocks of %d in %.1f us = %.3f blocks/ns, %s" % (
              r["variant"], grid, block, float(r["time_median_ns"]) / 1e3,
              rate / 1e9, share))
sys.exit(1 if bad else 0)
PY
echo "ceilings: ok"

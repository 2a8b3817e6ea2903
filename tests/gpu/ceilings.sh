#!/bin/sh
# tests/gpu/ceilings.sh [CEILINGS_DIR] - the block launch rate, the DRAM
# latency under load and the concurrency curve obey their physics: every
# row the contract names is there and loads (a curve level the GPU cannot
# run may be absent, said so); a loaded latency is no lower than the idle
# one, and the heaviest load (every free block slot streaming) raises it
# and comes near dram_copy, never above the spec; each curve series rises
# up to its top (each level no lower than the one before, within its
# spread) by at least 2x from 2 KiB, its top within 10 % of the op's DRAM
# ceiling (a persistent grid streams a few percent below the one-tile
# kernels of dram_copy and dram_add: docs/ceilings.md), and the 512-byte
# series stay within 3 % of their top past it; no study kernel at 2^28
# launches its blocks faster than the block-rate ceiling at its block
# size, and the block-launch roof (grid at that rate + launch_graph + one
# dram_latency) predicts add_f16x2, add_f16x8 and add_f16x8_pack within
# 2 %.  Uses
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
curve = {name(shape, kib, request)
         for shape, request in validate.INFLIGHT_SERIES
         for kib in validate.INFLIGHT_KIB
         for name in (validate.inflight_name, validate.inflight_fixed_name)}
assert set(c) == set(manifest["ceilings"])
assert set(c) - curve == set(validate.CEILING_NAMES) - curve, \
    (set(validate.CEILING_NAMES) - curve) ^ (set(c) - curve)
for name in sorted(curve - set(c)):
    print("note  %s: not measured on this GPU" % name)
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
for level in validate.LOAD_LEVELS:
    row = c[validate.loaded_latency_name(level)]
    stream = c[validate.loaded_bandwidth_name(level)]
    spec = stream.spec_value
    check(row.value >= 0.97 * idle, "%s: %.0f ns >= 0.97 x idle %.0f ns, "
          "beside %.0f GB/s (%.0f %% of dram_copy)" % (
              row.name, row.value, idle, stream.value / 1e9,
              100 * stream.value / copy))
    check(spec is None or stream.value <= 1.02 * spec,
          "%s: stream %.0f GB/s <= spec %s" % (
              row.name, stream.value / 1e9,
              "-" if spec is None else "%.0f GB/s" % (spec / 1e9)))
    check(" N blocks" not in row.method, "%s: method names its blocks: %s"
          % (row.name, row.method))
full = c["dram_latency_loadfull"].value
full_bw = c["dram_latency_loadfull_bandwidth"].value
check(full >= 1.1 * idle, "dram_latency_loadfull %.0f ns >= 1.1 x idle %.0f "
      "ns: the stream ran beside the chase" % (full, idle))
check(full_bw >= 0.8 * copy, "dram_latency_loadfull_bandwidth %.0f GB/s >= "
      "0.8 x dram_copy %.0f GB/s" % (full_bw / 1e9, copy / 1e9))
check(c["dram_latency_load25_bandwidth"].value < full_bw,
      "the stream offered 25 % moves less than every block slot's")

for (shape, request), series in sorted(model.curves(c).items()):
    ceiling = model.dram_ceiling(c, None, "add" if shape == "add" else
                                 "relu").value
    levels = series.levels
    top = series.top
    label = "dram_%s_inflight*_r%d" % (shape, request)
    before_top = [x for x in levels if x.kib <= top.kib]
    rising = all(b.bandwidth >= a.bandwidth * (1 - 2 * c[b.name].spread_pct
                                               / 100)
                 for a, b in zip(before_top, before_top[1:]))
    check(rising, "%s rises up to its top: %s GB/s" % (label, ", ".join(
        "%g KiB %.0f" % (x.kib, x.bandwidth / 1e9) for x in levels)))
    check(top.bandwidth >= 2 * levels[0].bandwidth, "%s: top %.0f GB/s at "
          "%g KiB >= 2 x %.0f at %g KiB" % (label, top.bandwidth / 1e9,
                                           top.kib, levels[0].bandwidth / 1e9,
                                           levels[0].kib))
    check(request != 512 or 0.90 * ceiling <= top.bandwidth <= 1.02 * ceiling,
          "%s: top %.1f %% of the DRAM ceiling %.0f GB/s" % (
              label, 100 * top.bandwidth / ceiling, ceiling / 1e9))
    if request == 512:
        past = [x for x in levels if x.kib > top.kib]
        check(all(x.bandwidth >= 0.97 * top.bandwidth for x in past),
              "%s stays within 3 %% of its top past it" % label)

floor = c["launch_graph"].value
for r in csv.DictReader(open(blocks + "/timing.csv")):
    grid, block = int(r["grid"]), int(r["block"])
    t = float(r["time_median_ns"])
    rate = grid / (t * 1e-9)
    ceiling = model.measured_block_rate(c, block)
    share = "no block_rate_b%d" % block if ceiling is None else \
        "%.1f %% of block_rate_b%d" % (100 * rate / ceiling.value, block)
    check(ceiling is not None and rate <= 1.05 * ceiling.value,
          "%s at 2^28: %d blocks of %d in %.1f us = %.3f blocks/ns, %s" % (
              r["variant"], grid, block, t / 1e3, rate / 1e9, share))
    if r["variant"].startswith("add_f16") and ceiling is not None:
        roof = grid / ceiling.value * 1e9 + floor + idle
        check(abs(roof / t - 1) <= 0.02, "%s: the block-launch roof %.1f us "
              "against %.1f us measured (%+.1f %%)" % (
                  r["variant"], roof / 1e3, t / 1e3, 100 * (roof / t - 1)))
sys.exit(1 if bad else 0)
PY
echo "ceilings: ok"

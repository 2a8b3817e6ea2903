#!/bin/sh
# tests/gpu/physics.sh [RUN_DIR] - counters obey the physics of the kernels.
# At 2^28 elements with a cold L2: DRAM bytes read by add = 2 n size within
# 2%; global load instructions of add_f32x4 = 1/4 of add_f32's, of
# add_f16x8_pack = 1/8 of add_f16's.  Uses RUN_DIR's metrics.csv if given
# (a run with those points), else makes a small run.  Skips without a GPU
# or counter permission.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
if [ $# -ge 1 ]; then
	run=$1
else
	require_gpu
	run=$tmpdir/physics
	"$EWBENCH" run -q -v add_f32,add_f32x4,add_f16,add_f16x8_pack,cub_add_f32 \
	    -s 256Mi --cache cold --iters 3 --warmup 1 -o "$run" ||
	    fail "run failed"
fi
grep -q '"status": *"ok"' "$run/run.json" || {
	echo "SKIP: counters unavailable in $run"; exit 77; }
"${PYTHON:-python3}" - "$run/metrics.csv" <<'PY'
import csv, sys
N = 1 << 28
m = {}
for r in csv.DictReader(open(sys.argv[1])):
    if int(r["n"]) == N and r["cache"] == "cold":
        m[(r["variant"], r["metric"])] = float(r["value"])
bad = 0
def check(ok, text):
    global bad
    print(("ok    " if ok else "FAIL  ") + text)
    bad += not ok
for v, size in (("add_f32", 4), ("add_f32x4", 4), ("add_f16", 2),
                ("add_f16x8_pack", 2), ("cub_add_f32", 4)):
    got = m.get((v, "dram__bytes_read.sum"))
    if got is None:
        continue
    ideal = 2 * N * size
    check(abs(got - ideal) <= 0.02 * ideal,
          "%s: dram__bytes_read.sum %.0f vs 2*n*%d = %d (%+.2f%%)"
          % (v, got, size, ideal, 100 * (got - ideal) / ideal))
ld = "smsp__sass_inst_executed_op_global_ld.sum"
for wide, scalar, ratio in (("add_f32x4", "add_f32", 4), ("add_f16x8_pack", "add_f16", 8)):
    a, b = m.get((wide, ld)), m.get((scalar, ld))
    if a is None or b is None:
        check(False, "%s or %s lacks %s" % (wide, scalar, ld))
        continue
    check(abs(b / a - ratio) <= 0.01 * ratio,
          "%s: %s %.0f = 1/%.3f of %s's %.0f (expected 1/%d)" % (wide, ld, a, b / a, scalar, b, ratio))
sys.exit(1 if bad else 0)
PY

#!/bin/sh
# tests/gpu/ncu-compare.sh [KEEP_DIR] - ewbench's own counters against
# Nsight Compute for the same launches.  ewbench (CUPTI Range Profiler)
# profiles a few variants at 64Mi and 256Mi with a cold L2; then ncu, with
# its clock and cache control off (the range profiler touches neither),
# profiles `ewbench run --no-cupti` doing the same launches.  Instruction
# and load/store counts and DRAM read bytes must agree within 1%, kernel
# duration within 5% (tests/gpu/ncu-compare.py).  Skips without a GPU, ncu
# or counter permission.  KEEP_DIR, if given, receives both CSVs and timings.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu
command -v ncu >/dev/null 2>&1 || { echo "SKIP: ncu not on PATH"; exit 77; }
keep=${1:-$tmpdir}
mkdir -p "$keep"

variants=add_f32,add_f32x4,add_f16,add_f16x8_pack,relu_f32x4,abs_f32
# Durations from the range profiler ran a constant 3-6 us longer than
# ncu's on an H200 (its range start/stop is inside the measured span): 9%
# of a 16Mi add, 2% at 64Mi, under 1% at 256Mi.  The sizes keep that
# offset inside the 5% the duration is held to.
sizes=64Mi,256Mi
metrics=gpu__time_duration.sum,dram__bytes_read.sum,smsp__inst_executed.sum,smsp__inst_issued.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum

start=$(date +%s.%N)
"$EWBENCH" run -q -v "$variants" -s "$sizes" --cache cold --iters 1 \
    --warmup 0 --metrics "$metrics" -o "$keep/cupti" >"$keep/cupti.log" 2>&1 ||
    fail "ewbench counter run failed: $(cat "$keep/cupti.log")"
mid=$(date +%s.%N)
grep -q '"status": *"ok"' "$keep/cupti/run.json" || {
	echo "SKIP: ewbench counters unavailable: $(cat "$keep/cupti.log")"; exit 77; }

# --iters 1 --warmup 0 --cache cold: per point ncu sees the check launch,
# then (after an L2 flush, which the kernel filter leaves out) the timed
# launch; the comparison uses the second, like ewbench's cold counters.
ncu --clock-control none --cache-control none --replay-mode kernel \
    --metrics "$metrics" --csv --page details --print-units base \
    -k 'regex:^ewb_(add|relu|abs)' \
    "$EWBENCH" run -q -v "$variants" -s "$sizes" --cache cold --iters 1 \
    --warmup 0 --no-cupti -o "$keep/ncu-run" >"$keep/ncu.csv" 2>"$keep/ncu.err" ||
    fail "ncu failed: $(tail -5 "$keep/ncu.err")"
end=$(date +%s.%N)
awk "BEGIN { printf \"wall: ewbench counters %.1f s, ncu %.1f s\\n\", \
    $mid - $start, $end - $mid }" | tee "$keep/wall.txt"
set +e
"${PYTHON:-python3}" "$top_srcdir/tests/gpu/ncu-compare.py" \
    "$keep/cupti/metrics.csv" "$keep/ncu.csv" >"$keep/compare.txt"
rc=$?
set -e
cat "$keep/compare.txt"
exit $rc

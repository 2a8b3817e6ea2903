#!/bin/bash
# tests/gpu/run-all.sh OUT [ARCH] - one whole GPU cycle in one call, for a
# lent GPU machine: build, make check (GPU tests run, not skip), the study
# run with counters (timed), the physics and ncu checks, the torch baseline,
# the report.  OUT receives a few logs and results.tar.gz (the run
# directories), so that it stays within what a lent machine sends back.
set -uo pipefail
out=${1:?usage: run-all.sh OUT [ARCH]}
arch=${2:-90}
work=${TMPDIR:-/tmp}/ewbench-gpu
rm -rf "$work"
mkdir -p "$out" "$work"
log() { echo "=== $* ($(date -u +%T))"; }
export PATH=$PATH:/usr/local/cuda/bin
export EWBENCH=$PWD/ewbench top_srcdir=$PWD
jobs=$(nproc)

log build
{ ./bootstrap && ./configure --with-cuda-arch="$arch" --enable-werror &&
  make -j"$jobs"; } >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
./ewbench --version
./ewbench info | tee "$out/info.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv

log make check
make -j4 check >"$out/check.log" 2>&1
grep -E '^(PASS|FAIL|SKIP|XFAIL|ERROR):|^# ' "$out/check.log"
mkdir -p "$work/test-logs"
cp tests/*.log tests/gpu/*.log tests/unit/*.log "$work/test-logs"/ 2>/dev/null
for t in tests/gpu/*.log tests/*.log; do
	grep -q -E '^(FAIL|SKIP)' "${t%.log}.trs" 2>/dev/null && { echo "--- $t"; tail -30 "$t"; }
done

study=$work/study
log study run
start=$(date +%s.%N)
./ewbench run --preset article --cache both -o "$study" >"$out/study.log" 2>&1
rc=$?
end=$(date +%s.%N)
awk "BEGIN { printf \"study run: exit $rc, %.1f s wall\\n\", $end - $start }" | tee "$out/study-time.txt"
grep -E ' 256Mi ' "$out/study.log"
tail -3 "$out/study.log"

log physics
bash tests/gpu/physics.sh "$study" 2>&1 | tee "$out/physics.txt"

log ncu comparison
bash tests/gpu/ncu-compare.sh "$work/ncu" 2>&1 | tail -60

log torch baseline
PYTHONPATH=$PWD python3 -m analysis torch "$study" 2>&1 | tail -5

log report
PYTHONPATH=$PWD MPLBACKEND=Agg python3 -m analysis report "$study" -o "$study/report" 2>&1 | tail -5

cp "$out"/*.log "$out"/*.txt "$work"/ 2>/dev/null
tar czf "$out/results.tar.gz" -C "$work" . 2>/dev/null
ls -la "$out"

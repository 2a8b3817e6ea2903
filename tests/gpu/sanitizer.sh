#!/bin/sh
# tests/gpu/sanitizer.sh - every variant under compute-sanitizer's memcheck,
# racecheck and initcheck, at sizes that exercise every tail (1, 3, 33,
# 1000003) and with misaligned operands; fails on any error the tools
# report, and on a run that checked no kernel (so it cannot pass
# vacuously).  check loads no CUPTI (one client per process: the tools'),
# and takes no --no-cupti, which it would ignore.  Skips without a GPU or
# without compute-sanitizer.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu
cs=$(command -v compute-sanitizer ||
    ls /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1)
[ -n "$cs" ] || { echo "SKIP: compute-sanitizer not found"; exit 77; }

total=0
for tool in memcheck racecheck initcheck; do
	for align in "" --misalign; do
		log=$tmpdir/$tool$align.log
		set +e
		"$cs" --tool "$tool" --error-exitcode 99 --print-limit 20 \
		    "$EWBENCH" check $align -s 1,3,33,1000003 \
		    >"$log" 2>&1
		rc=$?
		set -e
		# The tools' summaries: "ERROR SUMMARY: N errors" (memcheck,
		# initcheck), "RACECHECK SUMMARY: H hazards displayed (N errors,
		# W warnings)".
		errors=$(sed -n -e 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' \
		    -e 's/.*RACECHECK SUMMARY: .*(\([0-9]*\) error.*/\1/p' "$log" | tail -1)
		[ "$rc" = 0 ] && [ "${errors:-x}" = 0 ] ||
		    fail "$tool $align: exit $rc, ${errors:-no summary of} errors: $(grep -m5 -E 'Invalid|Race|Uninitialized|ERROR|SUMMARY' "$log"; tail -3 "$log")"
		# What it watched: one "<variant> <n> ok" line per checked
		# launch of a variant's kernel (beside the fill and compare
		# kernels of the check).
		passed=$(grep -c ' ok$' "$log" || true)
		echo "$tool ${align:-aligned}: 0 errors, $passed variant kernel launches checked"
		total=$((total + passed))
	done
done
[ "$total" -gt 0 ] || fail "no variant was checked"
echo "sanitizer: $total variant kernel launches under memcheck, racecheck and initcheck, no error"

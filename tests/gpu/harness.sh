#!/bin/bash
# tests/gpu/harness.sh OUT [BEFORE_BINARY] - how long the harness takes
# around its measurements: the benchmark of the measurement-core issue,
# printed as a table (Markdown) in OUT/harness.md.  A benchmark, not a
# test: it asserts nothing.  With BEFORE_BINARY (an ewbench built from an
# earlier commit) each command runs with both binaries on this GPU, in one
# call.  Rows:
#   run             `ewbench run` (defaults: every variant, article sizes,
#                   warm, default counters)
#   run --no-cupti  the same without counters
#   check -s 256Mi  every variant checked at 2^28
#   counters/point  (run - run --no-cupti) / counter points
#   kernel time     sum of median x iters over timing.csv: the floor
set -uo pipefail
out=${1:?usage: harness.sh OUT [BEFORE_BINARY]}
before=${2:-}
new=${EWBENCH:-$PWD/ewbench}
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/ewbench-harness.XXXXXX")

wall() {	# wall NAME BINARY ARGS...: seconds, or "failed (exit N)"
	local name=$1 bin=$2 start end rc
	shift 2
	start=$(date +%s.%N)
	"$bin" "$@" >"$work/$name.log" 2>&1
	rc=$?
	end=$(date +%s.%N)
	cp "$work/$name.log" "$out/" 2>/dev/null
	if [ $rc -ne 0 ]; then
		echo "failed (exit $rc)"
		return
	fi
	awk "BEGIN { printf \"%.1f\", $end - $start }"
}

kernel_seconds() {	# sum of median x iters of a run directory
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    { s += $c["time_median_ns"] * $c["iters"] }
	    END { printf "%.1f", s / 1e9 }' "$1/timing.csv"
}

counter_points() {	# distinct (variant, n, block, cache) in metrics.csv
	cut -d, -f2,5,6,7 "$1/metrics.csv" | sort -u | grep -vc '^variant'
}

measure() {	# measure LABEL BINARY: one column of the table
	local label=$1 bin=$2 run nocupti check points per
	run=$(wall "$label-run" "$bin" run -o "$work/$label-run")
	nocupti=$(wall "$label-nocupti" "$bin" run --no-cupti -o "$work/$label-nocupti")
	check=$(wall "$label-check" "$bin" check -q -s 256Mi)
	points=$(counter_points "$work/$label-run" 2>/dev/null || echo 0)
	per=$(awk "BEGIN { if ($points > 0 && \"$run\" + 0 > 0) printf \"%.1f\", \
	    1000 * ($run - $nocupti) / $points; else print \"-\" }")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$run" "$nocupti" \
	    "$check" "$per" "$points" "$(kernel_seconds "$work/$label-nocupti")" \
	    >>"$work/columns"
	echo "$label: run $run s, --no-cupti $nocupti s, check 256Mi $check s, $per ms per counter point ($points points)"
}

"$new" info | head -1 | tee "$out/device.txt"
[ -n "$before" ] && measure before "$before"
measure after "$new"
# Where the counter time goes: the same run with CUPTI's kernel replay.
EWBENCH_CUPTI_REPLAY=kernel wall after-kernel-replay "$new" run -o "$work/kr" \
    >"$work/kr.wall"
echo "after, kernel replay: run $(cat "$work/kr.wall") s"

{
	echo "| | ${before:+before | }after |"
	echo "| --- | ${before:+--- | }--- |"
	awk -F'\t' -v before="$before" '
	    { for (i = 2; i <= 7; i++) v[$1, i] = $i }
	    END {
		split("run (defaults, counters on) s|run --no-cupti s|check -s 256Mi s|counter cost per point ms|counter points|kernel time in run --no-cupti s", name, "|")
		for (i = 2; i <= 7; i++) {
			row = "| " name[i - 1] " |"
			if (before != "") row = row " " v["before", i] " |"
			print row " " v["after", i] " |"
		}
	    }' "$work/columns"
	echo "| run with kernel replay (counters) s | ${before:+- | }$(cat "$work/kr.wall") |"
} | tee "$out/harness.md"
rm -rf "$work"

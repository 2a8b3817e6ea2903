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
#   counters/point  (run - run --no-cupti) / counter points (the timing
#                   protocol's own difference with and without CUPTI in it)
#   counter phase   run.json's wall_s.counters / counter points: the
#                   counters alone; and its ranges (kernels profiled)
#   kernel time     sum of median x iters over timing.csv: the floor
# then the same run with user ranges (EWBENCH_CUPTI_RANGE=user: one range
# a point, docs/metrics.md), its counter phase per point and how its counts
# compare with the auto ranges' (user-ranges.txt),
# and, from `run -s 1Mi --cache both` twice with each binary, how far its
# numbers can be trusted (the timing protocol's benchmark):
#   1Mi warm spread median of the rows' 100 x stddev / median
#   1Mi warm CI     median of the rows' 95 % interval half-width, % (the
#                   event protocol recorded none: estimated there as
#                   1.96 x 1.25 x stddev / sqrt(samples))
#   warm > cold     1Mi rows whose warm median exceeds the cold one
#   repeat 1 %      rows of the two runs whose medians agree within 1 %
#   repeat floor    the floor (%) the noise rule needs for 95 % of the
#                   rows of the two runs to agree (tests/gpu/repeat.py)
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

counter_phase() {	# "MS RANGES": run.json's counter time per point, ranges
	"${PYTHON:-python3}" - "$1" "$2" <<'PY' 2>/dev/null || echo "- -"
import json, sys
run = json.load(open(sys.argv[1] + "/run.json"))
points = int(sys.argv[2])
ranges = ((run.get("counters") or {}).get("wall_s") or {}).get("ranges")
print("%.1f %s" % (1000 * run["wall_s"]["counters"] / points, ranges))
PY
}

measure() {	# measure LABEL BINARY: one column of the table
	local label=$1 bin=$2 run nocupti check points per
	run=$(wall "$label-run" "$bin" run -o "$work/$label-run")
	nocupti=$(wall "$label-nocupti" "$bin" run --no-cupti -o "$work/$label-nocupti")
	check=$(wall "$label-check" "$bin" check -q -s 256Mi)
	points=$(counter_points "$work/$label-run" 2>/dev/null || echo 0)
	per=$(awk "BEGIN { if ($points > 0 && \"$run\" + 0 > 0) printf \"%.1f\", \
	    1000 * ($run - $nocupti) / $points; else print \"-\" }")
	set -- $(counter_phase "$work/$label-run" "$points")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$run" "$nocupti" \
	    "$check" "$per" "$points" "$(kernel_seconds "$work/$label-nocupti")" \
	    "$1" "$2" >>"$work/columns"
	echo "$label: run $run s, --no-cupti $nocupti s, check 256Mi $check s, $per ms per counter point ($points points); counter phase $1 ms a point, $2 ranges"
}

# user_ranges BINARY: the run with EWBENCH_CUPTI_RANGE=user, beside the
# auto ranges' run of the same binary: its counter phase per point, its
# ranges, and how its counts compare (the same kernels, counted from a
# pushed range instead of each kernel's own).
user_ranges() {
	local bin=$1 run points
	run=$(EWBENCH_CUPTI_RANGE=user wall after-user "$bin" run -o "$work/after-user")
	points=$(counter_points "$work/after-user" 2>/dev/null || echo 0)
	set -- $(counter_phase "$work/after-user" "$points")
	echo "$run" >"$work/user.wall"
	echo "$1" >"$work/user.phase"
	echo "$2" >"$work/user.ranges"
	"${PYTHON:-python3}" - "$work/after-run" "$work/after-user" <<'PY' |
import csv, json, statistics, sys
auto, user = sys.argv[1:3]
print("range:", json.load(open(user + "/run.json"))["counters"].get("range"))
def load(d):
    return {(r["variant"], r["n"], r["cache"], r["metric"]): float(r["value"])
            for r in csv.DictReader(open(d + "/metrics.csv"))
            if r["source"] == "cupti" and r["value"] not in ("", "nan")}
a, b = load(auto), load(user)
for metric in sorted({k[3] for k in a}):
    keys = [k for k in a if k[3] == metric and k in b]
    if not keys:
        continue
    rel = [abs(b[k] - a[k]) / abs(a[k]) for k in keys if a[k]]
    diff = [b[k] - a[k] for k in keys]
    print("%-60s %4d points: median user - auto %+.4g, worst relative "
          "%.4f" % (metric, len(keys), statistics.median(diff),
                    max(rel) if rel else 0))
PY
	tee "$out/user-ranges.txt"
	echo "after, user ranges: run $run s, counter phase $1 ms a point, $2 ranges (user-ranges.txt)"
}

quality() {	# quality LABEL BINARY: the timing rows of the table
	local label=$1 bin=$2 i
	for i in 1 2; do
		"$bin" run -q -s 1Mi --cache both -o "$work/$label-q$i" \
		    >"$work/$label-q$i.log" 2>&1 ||
		    { echo "$label: quality run $i failed"; return; }
	done
	"${PYTHON:-python3}" - "$work/$label-q1" "$work/$label-q2" \
	    "$(dirname "$0")/repeat.py" <<'PY' >>"$work/quality-$label"
import csv, math, statistics, subprocess, sys
a, b, repeat = sys.argv[1:4]
rows = list(csv.DictReader(open(a + "/timing.csv")))
warm = [r for r in rows if r["cache"] == "warm"]
spread = statistics.median(100 * float(r["time_stddev_ns"]) /
                           float(r["time_median_ns"]) for r in warm)
def half(r):
    m = float(r["time_median_ns"])
    if r.get("time_ci_low_ns"):
        return 100 * max(m - float(r["time_ci_low_ns"]),
                         float(r["time_ci_high_ns"]) - m) / m
    return 100 * 1.96 * 1.2533 * float(r["time_stddev_ns"]) / m / \
        math.sqrt(int(r["iters"]))
ci = statistics.median(half(r) for r in warm)
cold = {r["variant"]: float(r["time_median_ns"]) for r in rows
        if r["cache"] == "cold"}
slower = sum(float(r["time_median_ns"]) > cold[r["variant"]] for r in warm)
out = subprocess.run([sys.executable, repeat, a, b], capture_output=True,
                     text=True).stdout
def grab(prefix, word):
    for line in out.splitlines():
        if line.startswith(prefix):
            return line.split(word)[-1].split("%")[0].strip()
    return "-"
print("%.1f\t%.2f\t%d of %d\t%s\t%s" % (
    spread, ci, slower, len(warm),
    grab("repeat: medians within 1 %", ":"),
    grab("repeat: floor needed", "p95")))
PY
	echo "$label: 1Mi quality: $(cat "$work/quality-$label")"
}

"$new" info | head -1 | tee "$out/device.txt"
[ -n "$before" ] && measure before "$before"
measure after "$new"
user_ranges "$new"
[ -n "$before" ] && quality before "$before"
quality after "$new"
# Where the counter time goes: the same run with CUPTI's kernel replay
# (minutes: only with HARNESS_KERNEL_REPLAY=1).
echo - >"$work/kr.wall"
if [ "${HARNESS_KERNEL_REPLAY:-0}" = 1 ]; then
	EWBENCH_CUPTI_REPLAY=kernel wall after-kernel-replay "$new" run \
	    -o "$work/kr" >"$work/kr.wall"
	echo "after, kernel replay: run $(cat "$work/kr.wall") s"
fi

{
	echo "| | ${before:+before | }after |"
	echo "| --- | ${before:+--- | }--- |"
	awk -F'\t' -v before="$before" '
	    { for (i = 2; i <= 9; i++) v[$1, i] = $i }
	    END {
		split("run (defaults, counters on) s|run --no-cupti s|check -s 256Mi s|counter cost per point ms|counter points|kernel time in run --no-cupti s|counter phase per point ms (run.json)|kernels profiled (ranges)", name, "|")
		for (i = 2; i <= 9; i++) {
			row = "| " name[i - 1] " |"
			if (before != "") row = row " " v["before", i] " |"
			print row " " v["after", i] " |"
		}
	    }' "$work/columns"
	echo "| run with kernel replay (counters) s | ${before:+- | }$(cat "$work/kr.wall") |"
	echo "| run with user ranges (counters) s | ${before:+- | }$(cat "$work/user.wall") |"
	echo "| user ranges: counter phase per point ms | ${before:+- | }$(cat "$work/user.phase") |"
	echo "| user ranges: kernels profiled | ${before:+- | }$(cat "$work/user.ranges") |"
	names="1Mi warm: median spread of samples %|1Mi warm: median 95 % CI half-width %|1Mi: rows warm slower than cold|two runs: medians within 1 % (% of rows)|two runs: floor for 95 % to agree by the rule %"
	for i in 1 2 3 4 5; do
		name=$(echo "$names" | cut -d'|' -f$i)
		b=$([ -n "$before" ] && cut -f$i "$work/quality-before" 2>/dev/null)
		a=$(cut -f$i "$work/quality-after" 2>/dev/null)
		echo "| $name | ${before:+${b:--} | }${a:--} |"
	done
} | tee "$out/harness.md"
rm -rf "$work"

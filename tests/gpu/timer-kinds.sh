#!/bin/bash
# tests/gpu/timer-kinds.sh OUT [ROUNDS] - what recording the kernels costs
# them (docs/analysis.md, "The timer's own cost"): every study variant,
# probe and cub add at 2^20, 2^24 and 2^28, warm, stream launches, timed
# ROUNDS times (default 2) in four ways, interleaved:
#   concurrent  CUPTI's CONCURRENT_KERNEL records (the default), no
#               counters
#   counters    the same with the counters' profiler session (the default
#               run)
#   kernel      EWBENCH_CUPTI_KERNEL_KIND=kernel: the KERNEL kind's
#               records (serialised; no timestamps for graph launches, so
#               stream launches only), no counters
#   events      --no-cupti: an event pair per launch
# Each kernel-timed row also carries its cross-check (crosscheck_ns, a
# graph replay with the kernel records off).  OUT/timer-kinds.csv: one
# row per point and way; the table printed last compares them.
set -uo pipefail
out=${1:?usage: timer-kinds.sh OUT [ROUNDS]}
rounds=${2:-2}
ewbench=${EWBENCH:-./ewbench}
mkdir -p "$out"
ids=$("$ewbench" list | awk '$4 == "study" || $4 == "probe" { printf "%s%s", sep, $1; sep = "," }')
ids=$ids,cub_add_f32,cub_add_f16
common=(run -q -v "$ids" -s 2^20,2^24,2^28 --cache warm --launch stream)
for r in $(seq 1 "$rounds"); do
	for way in concurrent counters kernel events; do
		dir=$out/$way-$r
		rm -rf "$dir"
		case $way in
		concurrent) "$ewbench" "${common[@]}" --no-counters -o "$dir" ;;
		counters) "$ewbench" "${common[@]}" -o "$dir" ;;
		kernel) EWBENCH_CUPTI_KERNEL_KIND=kernel \
		    "$ewbench" "${common[@]}" --no-counters -o "$dir" ;;
		events) "$ewbench" "${common[@]}" --no-cupti -o "$dir" ;;
		esac >"$out/$way-$r.log" 2>&1 || echo "timer-kinds: $way round $r exit $?"
	done
done
python3 - "$out" "$rounds" <<'PY'
import csv, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
ways = ("concurrent", "counters", "kernel", "events")
rows = {}
for way in ways:
    for r in range(1, rounds + 1):
        path = os.path.join(out, "%s-%d" % (way, r), "timing.csv")
        if not os.path.exists(path):
            continue
        for row in csv.DictReader(open(path)):
            key = (row["variant"], int(row["n"]), row["launch"])
            d = rows.setdefault(key, {})
            d.setdefault(way, []).append(float(row["time_median_ns"]))
            if row.get("crosscheck_ns"):
                d.setdefault(way + "_x", []).append(float(row["crosscheck_ns"]))
with open(os.path.join(out, "timer-kinds.csv"), "w", newline="") as f:
    w = csv.writer(f)
    cols = [c for way in ways for c in (way, way + "_x")]
    w.writerow(["variant", "n", "launch"] + [c + "_ns" for c in cols])
    for key in sorted(rows):
        d = rows[key]
        w.writerow(list(key) + ["%.1f" % statistics.median(d[c]) if c in d
                                else "" for c in cols])
print("%-22s %10s %-6s %9s %8s %8s %8s %8s %8s" % (
    "variant", "n", "launch", "replay us", "concur/", "counter/", "kernel/",
    "events/", "x(k)/"))
worst = {}
for key in sorted(rows):
    d = {k: statistics.median(v) for k, v in rows[key].items()}
    x = d.get("concurrent_x")      # the uninstrumented graph replay
    if not x:
        continue
    def ratio(c):
        return "%8.3f" % (d[c] / x) if c in d else "%8s" % "-"
    print("%-22s %10d %-6s %9.2f %s %s %s %s %s" % (
        key[0], key[1], key[2], x / 1e3, ratio("concurrent"),
        ratio("counters"), ratio("kernel"), ratio("events"),
        ratio("kernel_x")))
    for c in ("concurrent", "counters", "kernel", "events", "kernel_x",
              "counters_x"):
        if c in d:
            e = d[c] / x - 1
            w = worst.setdefault((c, key[1]), (0.0, ""))
            if abs(e) > abs(w[0]):
                worst[(c, key[1])] = (e, key[0])
print("\nlargest disagreement with the uninstrumented replay, per timer and size:")
for (c, n), (e, v) in sorted(worst.items()):
    print("  %-11s n=%-10d %+6.2f %%  %s" % (c, n, 100 * e, v))
PY

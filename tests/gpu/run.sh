#!/bin/sh
# tests/gpu/run.sh - a small run end to end: the run directory's files and
# rows, the refusals that need a device (memory, an occupied --out), and
# counter rows when the counters are available.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu

out=$tmpdir/run
"$EWBENCH" run -q -v add_f32,add_f16x8_pack,abs_f32 -s 1Ki,1Mi --cache both \
    --iters 20 --warmup 2 -o "$out" || fail "small run failed"
for f in run.json timing.csv; do
	[ -s "$out/$f" ] || fail "$f missing"
done
rows=$(($(wc -l <"$out/timing.csv") - 1))
[ "$rows" = 12 ] || fail "timing.csv has $rows rows, expected 3 x 2 x 2 = 12"
grep -q '"status": *"complete"' "$out/run.json" || fail "run.json not complete"
"${PYTHON:-python3}" - "$out" <<'PY' || fail "run directory does not parse"
import csv, json, math, sys
d = sys.argv[1]
m = json.load(open(d + "/run.json"))
assert m["schema_version"] == 2 and m["checks"]["failed"] == 0, m["checks"]
rows = list(csv.DictReader(open(d + "/timing.csv")))
for r in rows:
    t = float(r["time_median_ns"])
    assert 0 < float(r["time_min_ns"]) <= t <= float(r["time_max_ns"]), r
    bw = float(r["bytes_moved"]) / (t * 1e-9)
    assert math.isclose(bw, float(r["bandwidth_median_bytes_per_s"]), rel_tol=1e-9)
    assert r["check"] == "pass"
assert {r["cache"] for r in rows} == {"warm", "cold"}
c = m["counters"]
if c["status"] == "ok":
    mrows = list(csv.DictReader(open(d + "/metrics.csv")))
    keys = {(r["variant"], r["n"], r["cache"]) for r in mrows
            if r["metric"] == "dram__bytes_read.sum"}
    assert len(keys) == 12, keys
    assert all(r["value"] != "" for r in mrows)
    print("counters: %d metric rows, %s passes" % (len(mrows), c["passes"]))
else:
    print("counters %s: %s" % (c["status"], c["reason"]))
PY

# Graph launches take the host's launch path out of the time: at 1Mi a
# warm graph sample (a replay of back-to-back launches) is faster than a
# stream launch timed on its own.
"$EWBENCH" run -q -v add_f32x4 -s 1Mi --launch both --iters 20 --no-cupti \
    -o "$tmpdir/graph" || fail "graph run failed"
"${PYTHON:-python3}" - "$tmpdir/graph/timing.csv" <<'PY' || fail "graph timing"
import csv, sys
t = {r["launch"]: float(r["time_median_ns"]) for r in csv.DictReader(open(sys.argv[1]))}
assert set(t) == {"stream", "graph"} and t["graph"] < t["stream"], t
print("1Mi add_f32x4 warm: stream %.2f us, graph %.2f us" % (t["stream"] / 1e3, t["graph"] / 1e3))
PY

# --preset tiers measures the tier sizes run.json names, plus any --size.
"$EWBENCH" run -q --preset tiers -s 3Ki -v add_f32x4 --iters 5 --warmup 1 \
    --no-cupti -o "$tmpdir/tiers" || fail "tiers run failed"
"${PYTHON:-python3}" - "$tmpdir/tiers" <<'PY' || fail "tiers + --size"
import csv, json, sys
d = sys.argv[1]
m = json.load(open(d + "/run.json"))
tiers = {c["n"] for c in m["settings"]["size_choices"]}
got = {int(r["n"]) for r in csv.DictReader(open(d + "/timing.csv"))}
assert len(tiers) == 3 and got == tiers | {3072}, (tiers, got)
print("tiers + --size 3Ki: n =", sorted(got))
PY

# ewbench ceilings: every ceiling with the spread of its samples, in
# ceilings.csv and run.json, loaded by the analysis as a fleet would.
"$EWBENCH" ceilings -q --iters 5 -o "$tmpdir/ceilings" || fail "ceilings failed"
"${PYTHON:-python3}" - \
    "$tmpdir/ceilings" <<'PY' || fail "ceilings spread"
import json, sys
from ewbench.analysis.core import load
d = sys.argv[1]
run = load.load_run(d)
manifest = json.load(open(d + "/run.json"))["ceilings"]
assert set(run.ceilings) == set(manifest) and len(run.ceilings) >= 7
for name, c in run.ceilings.items():
    assert c.spread_pct is not None and 0 <= c.spread_pct < 50, (name, c)
    assert abs(manifest[name]["spread_pct"] - c.spread_pct) <= 1e-9 * (1 + c.spread_pct)
print("ceilings: spread " + ", ".join("%s %.2f %%" % (n, c.spread_pct)
                                      for n, c in sorted(run.ceilings.items())))
PY

# An occupied run directory is refused (a command-line error) and left
# exactly as it was: not one byte of the earlier run changes.
# refused WHAT STATUS PATTERN ARGS...: ewbench ARGS exits STATUS, saying
# PATTERN.
refused() {
	what=$1 want=$2 pattern=$3
	shift 3
	set +e
	"$EWBENCH" "$@" >"$tmpdir/msg" 2>&1
	rc=$?
	set -e
	[ "$rc" = "$want" ] && grep -q "$pattern" "$tmpdir/msg" ||
	    fail "$what: exit $rc: $(cat "$tmpdir/msg")"
}
(cd "$out" && cksum run.json timing.csv) >"$tmpdir/before"
refused "occupied --out" 2 'already holds a run' \
    run -q -v add_f32 -s 1Ki -o "$out"
(cd "$out" && cksum run.json timing.csv) | cmp -s - "$tmpdir/before" ||
    fail "occupied --out: the earlier run was changed"

# A size that cannot fit is refused before anything is allocated.
refused "oversized run" 4 'of GPU memory' \
    run -q -v add_f32 -s 1Ti -o "$tmpdir/big"
echo "run: ok"

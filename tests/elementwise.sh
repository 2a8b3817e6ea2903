#!/bin/sh
# tests/elementwise.sh - a user's per-element op (--elementwise) through a
# whole run without a GPU: ewbench on the stand-in CUDA runtime
# (tests/faults/stand-in-gpu.so, which models the generated kernels as an
# f32 add), NVRTC compiling the family for real.  Every member at two
# blocks checked, timed and written to timing.csv and run.json, and ranked
# by python3 -m ewbench.analysis.whatif; then every member made to write
# one element past its output (EWB_STANDIN_OVERRUN=1): each is caught by
# its guard, none is timed or ranked, the built-in beside them is, exit 3.
# Nothing the stand-in returns is a measurement: only the files' shape.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
use_standins
# A compile cache of its own, empty: the first run compiles the family,
# the others take it from there (run.json's elementwise.cached).
export XDG_CACHE_HOME=$tmpdir/cache
args="--elementwise $top_srcdir/examples/op_add.cu -s 1000003 --no-counters --no-cupti --iters 3 --warmup 1"

# shellcheck disable=SC2086
env LD_PRELOAD="$shims/stand-in-gpu.so" "$EWBENCH" run $args --block 64,256 \
    -o "$tmpdir/ok" >"$tmpdir/out" 2>&1 ||
    fail "run: exit $?: $(tail -5 "$tmpdir/out")"
rows=$(grep -c '^[^,]*,gen:add:' "$tmpdir/ok/timing.csv") || true
[ "$rows" -eq 88 ] || fail "run: $rows generated rows, want 44 x 2 blocks"
PYTHONPATH=$top_srcdir/python "$py" - "$tmpdir/ok" <<'PY' || fail "run.json"
import json, sys
v = json.load(open(sys.argv[1] + "/run.json"))["settings"]["variants"]
gen = [x for x in v if x.startswith("gen:add:")]
assert len(gen) == 44 and len(set(gen)) == 44, v
assert gen[0] == "gen:add:tile_v32_k1" and gen[-1] == "gen:add:bulkone_v128_k2", gen
e = json.load(open(sys.argv[1] + "/run.json"))["elementwise"]
assert e["variants"] == gen and e["inputs"] == 2 and e["dtype"] == "f32", e
assert e["function"] == "add" and e["checked_against"] == "generated", e
assert e["compile_s"] > 0 and e["arch"].startswith("sm_"), e
assert e["cached"] is False and len(e["cache_key"]) == 64, e
PY
PYTHONPATH=$top_srcdir/python "$py" -m ewbench.analysis.whatif "$tmpdir/ok" \
    >"$tmpdir/rank" || fail "whatif: exit $?"
grep -q '^n=1000003 f32 warm stream: 88 checked generated kernels ranked' \
    "$tmpdir/rank" || fail "whatif: $(head -3 "$tmpdir/rank")"
[ "$(grep -c ' generated  gen:add:' "$tmpdir/rank")" -eq 5 ] ||
    fail "whatif: not the top 5: $(cat "$tmpdir/rank")"

# -v naming members: those alone checked, timed and listed, beside the
# built-in it names; the compiled family is still all 44 (run.json's
# elementwise.variants), from the cache the first run filled.
# shellcheck disable=SC2086
env LD_PRELOAD="$shims/stand-in-gpu.so" "$EWBENCH" run $args --block 64 \
    -v 'gen:add:*_v128_k1,add_f32' -o "$tmpdir/some" >"$tmpdir/out" 2>&1 ||
    fail "-v members: exit $?: $(tail -5 "$tmpdir/out")"
PYTHONPATH=$top_srcdir/python "$py" - "$tmpdir/some" "$tmpdir/ok" <<'PY' || fail "-v"
import csv, json, sys
run = json.load(open(sys.argv[1] + "/run.json"))
first = json.load(open(sys.argv[2] + "/run.json"))["elementwise"]
assert run["elementwise"]["cached"] is True, run["elementwise"]
assert run["elementwise"]["cache_key"] == first["cache_key"], first
want = ["add_f32", "gen:add:tile_v128_k1", "gen:add:stride_v128_k1",
        "gen:add:runs_v128_k1", "gen:add:bulk_v128_k1",
        "gen:add:bulkone_v128_k1"]
assert run["settings"]["variants"] == want, run["settings"]["variants"]
assert len(run["elementwise"]["variants"]) == 44, run["elementwise"]
rows = list(csv.DictReader(open(sys.argv[1] + "/timing.csv")))
assert sorted({r["variant"] for r in rows}) == sorted(want), rows
PY

set +e
# shellcheck disable=SC2086
env LD_PRELOAD="$shims/stand-in-gpu.so" EWB_STANDIN_OVERRUN=1 \
    "$EWBENCH" run $args --block 64 -v add_f32 -o "$tmpdir/over" \
    >"$tmpdir/out" 2>&1
rc=$?
set -e
[ "$rc" -eq 3 ] || fail "overrun: exit $rc, want 3: $(tail -3 "$tmpdir/out")"
caught=$(grep -c '^ewbench: CHECK FAILED: gen:add:.* wrote past the end of its output' \
    "$tmpdir/out") || true
[ "$caught" -eq 44 ] || fail "overrun: $caught of 44 caught"
! grep -q '^[^,]*,gen:' "$tmpdir/over/timing.csv" ||
    fail "overrun: a failing member was timed"
grep -q '^[^,]*,add_f32,' "$tmpdir/over/timing.csv" ||
    fail "overrun: the built-in beside them not timed"
if PYTHONPATH=$top_srcdir/python "$py" -m ewbench.analysis.whatif \
    "$tmpdir/over" >/dev/null 2>&1; then
	fail "overrun: a failing member ranked"
fi
echo "elementwise: 44 members x 2 blocks run, written and ranked; -v's 5 members alone; 44 overruns caught, none timed or ranked"

#!/bin/sh
# tests/gpu/fleet.sh - every GPU at once: `run --device all` makes one
# member per GPU, each a run directory the analysis loads, and fleet.json
# says so; Ctrl-C reaches every member through the parent; a scheduler's
# task (fake Slurm variables) measures into PARENT/<node>-rank<R>.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu

# The GPUs this process sees: info --device N answers 2 past the last.
gpus=0
while "$EWBENCH" info --device "$gpus" >/dev/null 2>&1; do
	gpus=$((gpus + 1))
done
echo "fleet: $gpus GPU(s)"

check_fleet() {	# check_fleet DIR GPUS STATUS: fleet.json and its members
	"${PYTHON:-python3}" - "$@" <<'PY'
import json, os, sys
from ewbench.analysis.core.load import load_run
parent, gpus, status = sys.argv[1], int(sys.argv[2]), sys.argv[3]
f = json.load(open(os.path.join(parent, "fleet.json")))
assert f["schema"] == "ewbench-fleet/1" and f["launcher"] == "ewbench", f
assert f["status"] == status, f["status"]
assert f["started_utc"] and f["finished_utc"], f
assert len(f["members"]) == gpus, f["members"]
for k, m in enumerate(f["members"]):
    assert m["device"] == k and m["name"] == "%s-gpu%d" % (m["host"], k), m
    want = {"complete": "ok", "interrupted": "interrupted"}[status]
    assert m["status"] == want, m
    assert m["exit_code"] == {"ok": 0, "interrupted": 130}[want], m
    assert m["reason"], m
    run = load_run(os.path.join(parent, m["dir"]))     # the validator
    p = run.manifest["placement"]
    assert run.manifest["device"]["index"] == k
    assert p["launcher"] == "ewbench" and p["member"] == m["name"], p
    assert p["pci_bus_id"] == run.manifest["device"]["pci_bus_id"], p
    nv = p["nvml"]
    assert nv["status"] in ("ok", "unavailable"), nv
    if nv["status"] == "ok":
        assert nv["start"]["sm_clock_mhz"] and nv["end"]["power_w"], nv
    else:
        assert nv["reason"] and nv["start"] is None, nv
    print("%s: %s, %d rows, NUMA node %s, NVML %s" % (
        m["name"], run.manifest["status"], len(run.points), p["numa_node"],
        nv["status"] if nv["status"] != "ok" else "%s MHz %s W" % (
            nv["start"]["sm_clock_mhz"], nv["start"]["power_w"])))
PY
}

out=$tmpdir/fleet
"$EWBENCH" run -q --device all -v add_f32x4,add_f16x8_pack -s 1Ki,1Mi \
    --iters 10 --warmup 2 --no-cupti -o "$out" || fail "run --device all failed"
check_fleet "$out" "$gpus" complete || fail "fleet.json or a member is wrong"
for log in "$out"/*-gpu0.log; do
	[ -f "$log" ] || fail "member 0's log missing: $(ls "$out")"
done
# A second fleet into the same directory is refused, untouched.
set +e
"$EWBENCH" run -q --device all -s 1Ki -o "$out" 2>"$tmpdir/err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "a second fleet in $out: exit $rc, expected 2"

# Ctrl-C: the parent passes it on; members keep complete rows and say
# interrupted; fleet.json too; the exit status is 130.
"$EWBENCH" run -q --device all -v 'add_*' -s 64Mi --iters 2000 --no-cupti \
    -o "$tmpdir/stop" &
pid=$!
i=0
until grep -q '"status": "running"' "$tmpdir/stop/fleet.json" 2>/dev/null &&
    [ -n "$(find "$tmpdir/stop" -name timing.csv -size +300c 2>/dev/null)" ]; do
	i=$((i + 1))
	[ "$i" -lt 600 ] || fail "the fleet to stop never started measuring"
	sleep 0.1
done
kill -INT "$pid"
set +e
wait "$pid"
rc=$?
set -e
[ "$rc" = 130 ] || fail "interrupted fleet: exit $rc, expected 130"
check_fleet "$tmpdir/stop" "$gpus" interrupted || fail "interrupted fleet"

# A scheduler's task: its member directory and rank facts in run.json.
SLURM_PROCID=5 SLURM_LOCALID=0 SLURMD_NODENAME=nodeZ \
    "$EWBENCH" run -q -v add_f32 -s 1Ki --iters 5 --no-cupti \
    -o "$tmpdir/tasks" || fail "a Slurm task failed"
"${PYTHON:-python3}" - "$tmpdir/tasks/nodeZ-rank5/run.json" <<'PY' ||
import json, sys
p = json.load(open(sys.argv[1]))["placement"]
assert (p["launcher"], p["rank"], p["local_rank"], p["node"], p["member"]) == (
    "slurm", 5, 0, "nodeZ", "nodeZ-rank5"), p
PY
    fail "the Slurm task's run.json placement is wrong"
echo "fleet: ok"

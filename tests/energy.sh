#!/bin/sh
# tests/energy.sh - run --energy without a GPU: ewbench on the stand-in
# CUDA runtime (tests/faults/stand-in-gpu.so), whose graph replays keep a
# GPU timeline of their own busy for EWB_STANDIN_GRAPH_US each, and the
# stand-in NVML (tests/faults/nvml/libnvidia-ml.so.1), whose energy
# counter counts the board drawing 60 W idle and 360 W while a replay
# runs, in 20 ms steps.  The rows must
# recover those draws and the energy per byte they make, and pass the
# analysis's contract; the report must name the most and least frugal
# variant.  And the refusals: no counter, no NVML, MIG, a vGPU guest,
# another process on the GPU, MPS: exit 5, the reason said, --out
# released.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
use_standins
d=$tmpdir
args='-q -s 1Ki --no-cupti --iters 3 --warmup 1 --energy'

# Two variants of one op: one point each, three windows.
# shellcheck disable=SC2086
on_standins "$d/energy" EWB_STANDIN_GRAPH_US=2000 -- $args -v add_f32,add_f32x4
[ "$rc" = 0 ] || fail "run --energy: exit $rc: $(head -c 600 "$d/out")"

"$py" - "$d/energy" <<'PY' || fail "energy.csv does not hold the stand-in's draws"
import sys
from ewbench.analysis.core import load
run = load.load_run(sys.argv[1])          # the contract, energy.csv's too
rows = run.energy
assert len(rows) == 6, rows
assert sorted((r.variant, r.window) for r in rows) == [
    (v, k) for v in ("add_f32", "add_f32x4") for k in (1, 2, 3)], rows
e = run.manifest["energy"]
assert (e["window_s"], e["windows"], e["other_processes"], e["points"]) == \
    (1, 3, 0, 2), e
for r in rows:
    assert (r.cache, r.launch) == ("warm", "graph"), r
    # Step to step: at least the window, a step or a busy host later.
    assert 1.0 <= r.seconds < 1.25 and 1.0 <= r.idle_seconds < 1.25, r
    # The counter steps every 20 ms: never more steps than it made.
    assert r.seconds / 0.04 <= r.updates <= r.seconds / 0.02 + 2, r
    assert r.idle_seconds / 0.04 <= r.idle_updates <= \
        r.idle_seconds / 0.02 + 2, r
    # The stand-in board draws 60 W idle ...
    assert abs(r.idle_w - 60) < 0.6, r
    # ... and 300 W more while its GPU runs a replay: all the window
    # long, unless the host left the queue empty meanwhile (this machine
    # busy with other work), which the row then says.
    assert 0 < r.net_w <= 300 * 1.01, r
    assert r.net_w > 0.97 * 300 or r.queue_drained > 0, r
    # So the launches cost 300 W over a replay's 2 ms, per byte its
    # launches moved: the arithmetic end to end, to the window's edges (a
    # replay and the host's gap before it, at most a few % of a window;
    # the idle draw left in would be 20 % more).
    truth = 300 * 2e-3 / (r.launches_per_replay * r.bytes_per_launch) * 1e12
    assert abs(r.pj_per_byte / truth - 1) < 0.06, (r.pj_per_byte, truth)
    assert r.power_limit_w == 650, r
    assert r.sm_clock_min_mhz == 1980 and r.temperature_max_c == 50, r
    assert r.idle_sm_clock_min_mhz == 1980, r
print("energy: 6 windows; idle %.1f W, net %.0f-%.0f W, %.3g pJ/B"
      % (rows[0].idle_w, min(r.net_w for r in rows),
         max(r.net_w for r in rows), rows[0].pj_per_byte))
PY
grep -q '"energy": {' "$d/energy/run.json" || fail "run.json lacks energy"

# The report: its Energy per byte section, the most and least frugal.
EWBENCH_PYTHON=$py MPLBACKEND=Agg "$EWBENCH" report "$d/energy" \
    -o "$d/energy-report" >"$d/out" 2>&1 ||
    fail "report: $(head -c 600 "$d/out")"
# report.md wraps its prose at 78 columns: read it unwrapped.
tr -s '\n ' '  ' <"$d/energy-report/report.md" >"$d/report.txt"
for text in '## Energy per byte' 'most frugal `add_f32' 'least frugal' \
    'W subtracted' 'covers the whole board'; do
	grep -qF -e "$text" "$d/report.txt" ||
	    fail "the report lacks '$text': $(sed -n '/Energy per byte/,/^## /p' "$d/energy-report/report.md" | head -30)"
done
[ -f "$d/energy-report/figures/energy.svg" ] || fail "no energy figure"

# Refusals: exit 5, why, and --out released (nothing measured).
refused() {	# refused NAME PATTERN [VAR=VALUE...]
	local name=$1 pattern=$2
	shift 2
	# shellcheck disable=SC2086
	on_standins "$d/$name" EWB_STANDIN_GRAPH_US=2000 "$@" -- $args -v add_f32
	[ "$rc" = 5 ] || fail "$name: exit $rc, expected 5: $(head -c 600 "$d/out")"
	grep -q -e "--energy refused: .*$pattern" "$d/out" ||
	    fail "$name: no reason '$pattern': $(head -c 600 "$d/out")"
	[ ! -e "$d/$name" ] || fail "$name: --out kept: $(ls "$d/$name")"
}
refused no-counter 'no energy counter' EWB_STANDIN_NVML_NO_ENERGY=1
refused bare 'no energy counter' EWB_STANDIN_NVML_BARE=1
refused mig 'MIG mode' EWB_STANDIN_NVML_MIG=1
refused vgpu 'shared among virtual machines' EWB_STANDIN_NVML_VGPU=1
refused shared '1 other process uses the GPU' EWB_STANDIN_NVML_PROCESSES=2
refused mps 'shared through MPS (2 client processes)' EWB_STANDIN_NVML_MPS=2
# No NVML: a directory without the library on the path (on a GPU
# machine the system's loads and knows no stand-in GPU).
refused no-nvml 'NVML is unavailable' LD_LIBRARY_PATH="$d/none"
echo "energy: the stand-in's draws recovered; seven refusals, each with its reason"

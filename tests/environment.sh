#!/bin/sh
# tests/environment.sh - the GPU's environment as evidence, without a GPU:
# ewbench runs on the stand-in CUDA runtime (tests/faults/stand-in-gpu.so)
# with a stand-in NVML found by its dlopen (tests/faults/nvml/
# libnvidia-ml.so.1, fixed values), and run.json must carry the driver
# release, ECC, persistence, power limits, application clocks and the
# readings sampled through the run; timing.csv each row's lowest clocks;
# the analysis must load it all and flag the rows read outside the run's
# clock range.  Without NVML every one of them is null (never 0).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
use_standins
d=$tmpdir
# Four points, one NVML reading each (--no-cupti: a fixed count of event
# samples, read once).
args='-q -v add_f32,add_f16 -s 1Ki,4Ki --no-cupti --iters 3 --warmup 1'

# run_into DIR [VAR=VALUE...]: a run into DIR on both stand-ins.
run_into() {
	# shellcheck disable=SC2086
	on_standins "$@" -- $args
	[ "$rc" = 0 ] || fail "run into $1: $(head -c 600 "$d/out")"
}

# The SM clock reads 1500 MHz with the power cap after its 4th reading:
# the start reading and the first three points' are at 1980 MHz, the last
# point's (and the end reading) at 1500.
run_into "$d/slowed" EWB_STANDIN_NVML_SLOW_AFTER=4
run_into "$d/bare" EWB_STANDIN_NVML_BARE=1
# No NVML at all: a directory without the library on the path.
run_into "$d/none-run" LD_LIBRARY_PATH="$d/none"

"$py" - "$d" <<'PY' || fail "run.json or timing.csv lacks the environment"
import json, sys
from ewbench.analysis.core import load
d = sys.argv[1]

def nvml_of(run):
    return run.manifest["placement"]["nvml"]

run = load.load_run(d + "/slowed")
nvml = nvml_of(run)
assert run.manifest["versions"]["nvidia_driver"] == "999.1.2"
assert nvml["ecc_enabled"] is True and nvml["ecc_pending_enabled"] is False
assert nvml["persistence_mode"] is True
assert (nvml["power_limit_w"], nvml["power_limit_default_w"],
        nvml["power_limit_max_w"]) == (650, 700, 700), nvml
assert (nvml["applications_sm_clock_mhz"],
        nvml["applications_memory_clock_mhz"]) == (1755, 2619)
s = nvml["sampled"]
assert s["samples"] == len(run.points) == 4, s
assert s["sm_clock_mhz"] == {"min": 1500, "median": 1980, "max": 1980,
                             "count": 4}, s["sm_clock_mhz"]
assert s["power_w"]["min"] == s["power_w"]["max"] == 400.5
assert s["clock_event_reasons"] == 4 and s["throttled_samples"] == 1, s
clocks = sorted(p.sm_clock_min_mhz for p in run.points)
assert clocks == [1500, 1980, 1980, 1980], clocks
assert all(p.memory_clock_min_mhz == 2619 for p in run.points)
assert sorted(p.throttle or "" for p in run.points) == \
    ["", "", "", "sw_power_cap"]

bare = load.load_run(d + "/bare")
nvml = nvml_of(bare)
assert bare.manifest["versions"]["nvidia_driver"] is None
for key in ("ecc_enabled", "ecc_pending_enabled", "persistence_mode",
            "power_limit_w", "power_limit_default_w", "power_limit_max_w",
            "applications_sm_clock_mhz", "applications_memory_clock_mhz"):
    assert nvml[key] is None, (key, nvml[key])
assert nvml["sampled"]["samples"] == 4

none = load.load_run(d + "/none-run")
nvml = nvml_of(none)
assert nvml["status"] == "unavailable" and nvml["sampled"] is None, nvml
assert none.manifest["versions"]["nvidia_driver"] is None
assert all(p.sm_clock_min_mhz is None and p.memory_clock_min_mhz is None
           for p in none.points)
print("environment: stand-in NVML's settings, 4 samples, 1 slowed row; "
      "nulls without it")
PY

# The report of each, as a reader sees its Environment and threats.
for run in slowed bare none-run; do
	EWBENCH_PYTHON=$py MPLBACKEND=Agg "$EWBENCH" report "$d/$run" \
	    -o "$d/$run-report" >"$d/out" 2>&1 ||
	    fail "report of $run: $(head -c 600 "$d/out")"
done
has() {	# has RUN TEXT: RUN's report.md holds TEXT
	grep -qF -e "$2" "$d/$1-report/report.md" ||
	    fail "$1's report lacks '$2': $(grep -A14 '^## Environment' "$d/$1-report/report.md")"
}
# The stand-in driver speaks the CUDA version ewbench was built with.
built=$("$EWBENCH" --version | sed -n 's/^built with CUDA \([0-9.]*\),.*/\1/p')
has slowed "CUDA $built (driver; release 999.1.2)"
has slowed '| GPU settings, `article/` | ECC on (off after the next reboot); persistence mode on; power limit 650 W in force (default 700 W, max 700 W); application clocks SM 1755 / memory 2619 MHz (default 1980 / 2619) |'
has slowed '| `article/` NVML through the run | SM 1500–1980 MHz (median 1980); memory 2619 MHz; power 400 W; temperature 50 °C; 4 readings; throttling reasons sw_power_cap in 1 of 4 readings; 1 of 4 rows outside the clock range |'
has slowed '`article/`: **1 of 4 rows were measured outside the part'"'"'s clock range**'
has bare '(driver; its release not given by NVML)'
has bare 'ECC not given by NVML; persistence mode not given by NVML; power limit not given in force'
has bare '0 of 4 rows outside the clock range'
# Unavailable, with why: without a real NVML the library cannot be
# loaded; on a GPU machine the system's loads and knows no stand-in GPU.
has none-run '| `article/` NVML through the run | not sampled (NVML unavailable: '
grep -qF -e 'cannot load libnvidia-ml.so.1' -e 'NVML has no GPU at PCI bus id' \
    "$d/none-run-report/report.md" || fail "none-run's report gives no reason"
echo "environment: the reports say what NVML gave, what it did not, and the row outside"

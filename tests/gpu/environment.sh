#!/bin/sh
# tests/gpu/environment.sh [OUT] - the GPU's environment as evidence, on a
# GPU: run.json's driver release, ECC, persistence, power limits and
# application clocks are non-null and agree with nvidia-smi (where it is
# installed); the readings sampled through a run and through `ewbench
# ceilings` are plausible (min <= median <= max within NVML's maximum
# clocks and the power limit, the memory clock near its maximum, one
# reading per row at least, each row's lowest clocks among them); NVML's
# cost per reading is printed; the report's Environment shows them all.
# OUT (default: a temporary directory) keeps the run directories.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu
py=${PYTHON:-python3}
out=${1:-$tmpdir}
mkdir -p "$out"
rm -rf "$out/env-run" "$out/env-ceilings" "$out/env-report"
"$EWBENCH" run -q -v add_f32,add_f16x8_pack -s 1Mi,256Mi --cache both \
    --no-counters -o "$out/env-run" || fail "run failed"
"$EWBENCH" ceilings -q --iters 5 -o "$out/env-ceilings" ||
    fail "ceilings failed"

# nvidia-smi's view of the same GPU, to compare (empty when it has none).
uuid=$(sed -n 's/^ *"uuid": "\(GPU-[^"]*\)",*$/\1/p' "$out/env-run/run.json" | head -1)
smi=
if command -v nvidia-smi >/dev/null 2>&1; then
	smi=$(nvidia-smi -i "$uuid" --format=csv,noheader,nounits \
	    --query-gpu=driver_version,ecc.mode.current,persistence_mode,enforced.power.limit,power.default_limit,power.max_limit,clocks.applications.graphics,clocks.applications.memory \
	    2>&1) || { echo "nvidia-smi's query failed, not compared: $smi"; smi=; }
fi

SMI="$smi" "$py" - "$out" <<'PY' || fail "the environment is not as NVML reads it"
import json, os, re, sys
from ewbench.analysis.core import load

d = sys.argv[1]
run = load.load_run(d + "/env-run")
ceil = load.load_run(d + "/env-ceilings")
m = run.manifest
nvml = m["placement"]["nvml"]
assert nvml["status"] == "ok", nvml.get("reason")
driver = m["versions"]["nvidia_driver"]
assert re.fullmatch(r"\d+\.\d+(\.\d+)*", driver or ""), driver
for key in ("ecc_enabled", "persistence_mode"):
    assert isinstance(nvml[key], bool), (key, nvml[key])
lim, dflt, top = (nvml["power_limit_w"], nvml["power_limit_default_w"],
                  nvml["power_limit_max_w"])
assert 0 < lim <= top and 0 < dflt <= top, (lim, dflt, top)
max_sm, max_mem = nvml["max_sm_clock_mhz"], nvml["max_memory_clock_mhz"]
assert 0 < nvml["applications_sm_clock_mhz"] <= max_sm
assert 0 < nvml["applications_memory_clock_mhz"] <= max_mem
print("settings: driver %s, ECC %s, persistence %s, power limit %s W "
      "(default %s, max %s), application clocks %s / %s MHz (max %s / %s)" % (
          driver, nvml["ecc_enabled"], nvml["persistence_mode"], lim, dflt,
          top, nvml["applications_sm_clock_mhz"],
          nvml["applications_memory_clock_mhz"], max_sm, max_mem))

def plausible(name, r, rows):
    s = r.manifest["placement"]["nvml"]["sampled"]
    assert s is not None and s["samples"] >= max(rows, 1), (name, s)
    sm, mem, pw, t = (s["sm_clock_mhz"], s["memory_clock_mhz"],
                      s["power_w"], s["temperature_c"])
    for q in (sm, mem, pw, t):
        assert q["min"] <= q["median"] <= q["max"], (name, q)
    assert 0.5 * max_sm <= sm["median"] and sm["max"] <= max_sm * 1.001, \
        (name, sm, max_sm)
    assert abs(mem["median"] / max_mem - 1) < 0.05, (name, mem, max_mem)
    assert 20 < pw["min"] and pw["max"] <= top * 1.2, (name, pw, top)
    assert 5 < t["min"] and t["max"] < 110, (name, t)
    per = 1e3 * s["wall_s"] / s["samples"]
    assert per < 20, (name, per)
    print("%s: %d readings, SM %g-%g MHz (median %g), memory %g-%g MHz, "
          "power %.0f-%.0f W (median %.0f), %g-%g C; reasons 0x%x in %d; "
          "NVML %.3f ms a reading" % (
              name, s["samples"], sm["min"], sm["max"], sm["median"],
              mem["min"], mem["max"], pw["min"], pw["max"], pw["median"],
              t["min"], t["max"], s["clock_event_reasons"],
              s["throttled_samples"], per))
    return s

s = plausible("run", run, len(run.points))
for p in run.points:
    assert p.sm_clock_min_mhz is not None and p.memory_clock_min_mhz is not None, p
    assert s["sm_clock_mhz"]["min"] <= p.sm_clock_min_mhz <= s["sm_clock_mhz"]["max"], p
plausible("ceilings", ceil, 1)

smi = os.environ.get("SMI", "").strip()
if not smi:
    print("nvidia-smi: not available, not compared")
else:
    f = [x.strip() for x in smi.split(",")]
    assert f[0] == driver, (f[0], driver)
    state = {"Enabled": True, "Disabled": False}
    assert state.get(f[1]) == nvml["ecc_enabled"], (f[1], nvml["ecc_enabled"])
    assert state.get(f[2]) == nvml["persistence_mode"], f[2]
    for text, ours in zip(f[3:6], (lim, dflt, top)):
        assert abs(float(text) - ours) <= 0.5, (text, ours)
    assert float(f[6]) == nvml["applications_sm_clock_mhz"], f[6]
    assert float(f[7]) == nvml["applications_memory_clock_mhz"], f[7]
    print("nvidia-smi agrees: %s" % smi)
PY

EWBENCH_PYTHON=$py MPLBACKEND=Agg "$EWBENCH" report "$out/env-run" \
    -o "$out/env-report" >/dev/null || fail "report failed"
env=$(sed -n '/^## Environment/,/^## /p' "$out/env-report/report.md")
echo "$env" | grep -F '| `article/` NVML through the run | SM ' ||
    fail "no sampled ranges in the Environment: $env"
echo "$env" | grep -F '| GPU settings, `article/` | ECC ' ||
    fail "no settings in the Environment: $env"
if echo "$env" | grep -E 'not recorded|not given|not sampled'; then
	fail "the Environment misses what NVML gave"
fi
echo "environment: settings, sampled ranges and rows' clocks recorded and shown"

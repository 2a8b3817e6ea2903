#!/bin/sh
# tests/gpu/residency.sh - run --residency N (issue 51's calibration): the
# study's scalar add and its 4x probe at 2^24, warm, capped at 1, 3 and 8
# blocks per SM, with the achieved occupancy counter.  At every N the
# theoretical occupancy in metrics.csv (the occupancy calculator's, with
# the padding) is N blocks of 256 threads of the SM's threads, and the
# achieved one no more than that; run.json says N; every element checks;
# the bandwidth rises with N (more bytes in flight: the study's scalar
# kernels are latency-bound there); a probe whose registers hold fewer
# than N blocks is left out, saying so in run.json, never run uncapped.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu

for n in 1 3 8; do
	"$EWBENCH" run -q -v add_f32,add_f32_ilp4 -s 2^24 --cache warm \
	    --residency "$n" \
	    --metrics sm__warps_active.avg.pct_of_peak_sustained_active \
	    -o "$tmpdir/residency-$n" || fail "--residency $n failed"
done
"${PYTHON:-python3}" - "$tmpdir" <<'PY' || fail "residency"
import json, os, sys
from ewbench.analysis.core import load
from ewbench.analysis.core import select as sel

top = sys.argv[1]
bandwidth = {}
for n in (1, 3, 8):
    run = load.load_run(os.path.join(top, "residency-%d" % n))
    assert run.manifest["settings"]["residency"] == n, run.manifest["settings"]
    most = run.device["max_threads_per_sm"]
    ran = {p.variant for p in run.points}
    skipped = {s["variant"] for s in run.manifest["settings"]["skipped"]}
    assert "add_f32" in ran, (n, ran)
    assert ran | skipped >= {"add_f32", "add_f32_ilp4"}, (n, ran, skipped)
    for p in run.points:
        assert p.check == "pass", (n, p.variant, p.check)
        theoretical = sel.metric(run, p, sel.M_THEORETICAL_OCCUPANCY)
        achieved = sel.metric(run, p, sel.M_OCCUPANCY)
        want = 100.0 * n * p.block / most
        assert abs(theoretical - want) < 1e-6, (n, p.variant, theoretical)
        assert achieved <= want + 1.0, (n, p.variant, achieved, want)
        print("residency %d %s: theoretical %.1f %%, achieved %.1f %%, "
              "%.0f GB/s" % (n, p.variant, theoretical, achieved,
                             p.bandwidth / 1e9))
        bandwidth[(n, p.variant)] = p.bandwidth
for v in ("add_f32", "add_f32_ilp4"):
    got = [bandwidth[(n, v)] for n in (1, 3, 8) if (n, v) in bandwidth]
    assert got == sorted(got), (v, got)
PY

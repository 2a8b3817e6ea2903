#!/bin/sh
# tests/gpu/timer.sh - the timer does not slow what it times (issue 50;
# docs/analysis.md, "The timer's own cost"): four kernels that keep few
# bytes in flight (the ones CUPTI's CONCURRENT_KERNEL records slowed by
# 6-13 % on an H200) and two that saturate DRAM, at 2^24 and 2^28, warm:
#  - every row carries its cross-check, and the kernel records and the
#    uninstrumented graph replay agree within 1 %;
#  - the same run timed with the old kind (EWBENCH_CUPTI_KERNEL_KIND=
#    concurrent) is told apart: the cross-check sees the slow-down, so
#    this test could fail if the timer perturbed again.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu
ids=add_f16,relu_f32,abs_f32,add_f32,add_f32x4,add_f16x8
for kind in kernel concurrent; do
	EWBENCH_CUPTI_KERNEL_KIND=$kind "$EWBENCH" run -q -v "$ids" \
	    -s 16Mi,256Mi --cache warm --no-counters -o "$tmpdir/$kind" ||
	    fail "the $kind-timed run failed"
done
"${PYTHON:-python3}" - "$tmpdir" <<'PY' || fail "timer cross-check"
import csv, json, sys
d = sys.argv[1]
def rows(kind):
    m = json.load(open("%s/%s/run.json" % (d, kind)))
    return m["settings"]["timer"], list(csv.DictReader(
        open("%s/%s/timing.csv" % (d, kind))))
timer, new = rows("kernel")
assert timer == "cupti_kernel_records", timer
assert len(new) == 6 * 2, len(new)
for r in new:
    ratio = float(r["crosscheck_ns"]) / float(r["time_median_ns"])
    print("%-10s n=%-9s records %9.1f ns, replay %9.1f ns: %+.2f %%" % (
        r["variant"], r["n"], float(r["time_median_ns"]),
        float(r["crosscheck_ns"]), 100 * (ratio - 1)))
    assert abs(ratio - 1) < 0.01, (r["variant"], r["n"], ratio)
timer, old = rows("concurrent")
assert timer == "cupti_kernel_activity", timer
worst = max(float(r["time_median_ns"]) / float(r["crosscheck_ns"])
            for r in old)
print("old kind: slowest row %.1f %% above its uninstrumented replay"
      % (100 * (worst - 1)))
assert worst > 1.03, worst
PY

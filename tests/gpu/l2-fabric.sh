#!/bin/sh
# tests/gpu/l2-fabric.sh - the L2 byte counter's 1.5x against the sectors
# that crossed the fabric between the L2's partitions (issue 40;
# report/l2_counts.py).  On the H100 and H200 lts__t_bytes.sum reads 1.5x
# the bytes every kernel moves; the hypothesis is that sectors homed in
# the far partition are counted at both.  On a chip with that fabric
# (GA100, GH100, GB100) the default metric set collects
# lts__t_sectors_srcunit_ltcfabric.sum on every point, and the analysis
# says whether the L2 bytes less those sectors are the bytes moved; the
# test prints its paragraph and the per-row numbers.  Elsewhere the entry
# is left out, and the test skips saying so.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu

"$EWBENCH" run -q -v add_f32,add_f32x4,add_f32_tma_st,add_f16x8_pack,relu_f32x4,cub_add_f32 \
    -s '2^21,2^26' --cache warm --iters 5 --warmup 2 -o "$tmpdir/run" ||
	fail "run failed"
grep -q '"status": *"ok"' "$tmpdir/run/run.json" || {
	echo "SKIP: counters unavailable: $(grep -o '"reason": *"[^"]*"' "$tmpdir/run/run.json")"
	exit 77; }
PYTHONPATH="$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}" \
"${PYTHON:-python3}" - "$tmpdir/run" <<'PY'
import sys
from ewbench.analysis.core.load import load_run
from ewbench.analysis.core import select as sel
from ewbench.analysis.report import l2_counts as l2c
run = load_run(sys.argv[1])
left = {e.get("metric"): e.get("reason")
        for e in (run.manifest.get("counters") or {}).get("left_out") or ()}
if sel.M_L2_FABRIC_SECTORS in left:
    print("SKIP: %s left out on this chip: %s" % (
        sel.M_L2_FABRIC_SECTORS, left[sel.M_L2_FABRIC_SECTORS]))
    sys.exit(77)
for p in run.points:
    total = sel.metric(run, p, sel.M_L2_BYTES)
    crossed = l2c.fabric_bytes(run, p)
    print("%-16s n=%-9d L2 %.3fx  fabric %s  L2 less fabric %s" % (
        p.variant, p.n, total / p.bytes_moved,
        "n/a" if crossed is None else "%.3fx" % (crossed / p.bytes_moved),
        "n/a" if crossed is None else "%.3fx" % ((total - crossed) /
                                                 p.bytes_moved)))
count = l2c.l2_count(run, run.points)
print(l2c.note(count))
if count is None or count.fabric_rows != count.rows:
    print("FAIL: %s not measured on every point with L2 bytes" %
          sel.M_L2_FABRIC_SECTORS)
    sys.exit(1)
print("partition hypothesis: %s" % ("holds" if count.holds else
                                    "does not hold"))
PY

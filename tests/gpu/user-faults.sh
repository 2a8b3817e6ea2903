#!/bin/sh
# tests/gpu/user-faults.sh - the classic faults of an elementwise kernel,
# each named by the counter that shows it (issue 52; docs/user-kernels.md,
# "How the verdict is reached"): the fault examples of examples/ run as
# their header comments say, on this GPU, and the verdict each gets:
#  0. `ewbench ceilings` first: its complete run is stored in the ceilings
#     cache (a private XDG_CACHE_HOME), and every report below must say
#     it was judged against those measured ceilings, found there (the
#     run itself is kept as ceilings/ beside the others);
#  1. add_chunked.cu (each thread walks 32 consecutive elements): 32
#     sectors per global load request where 4 would do, "uncoalesced
#     access" at 256Mi, predicting the bandwidth of a coalesced add;
#  2. add_few_blocks.cu (a grid-stride loop launched as 64 blocks at
#     16Mi): "grid-limited";
#  3. add_low_occupancy.cu (a 48 KiB shared tile: 4 resident blocks),
#     at block 128 with --block 128,256,512: "occupancy-bound", and its block
#     xK experiment, whose 4 blocks stay resident at 256 and 512 threads
#     (a per-block resource, model/blocks.py), confirmed (its 512-thread
#     trial x0.875-0.92 of its prediction in an 11-13 % band on six
#     H200s, 0.5-2 % inside; its 256-thread one size off);
#  4. add_offset.cu (warps shifted by one element): 5 sectors per global
#     load request where 4 would do; its verdict is printed (named
#     "misaligned access" only where the extra sector costs);
#  5. add_chunked.cu again, with `--elementwise examples/op_add.cu` at
#     256Mi, block 256 only, cub beside (the fault's cost): its
#     cause's fix is tested by the generated member that makes it,
#     gen:add:stride_v32_k1 (coalesced 32-bit loads, grid-stride),
#     predicted at its own words (the curve at 16 KiB in flight an SM,
#     after that point's fixed cost), which must be confirmed (on the
#     H200's committed rows: 3568 GB/s against 3607 predicted, x0.99;
#     tests/python/test_fix_member.py); the fix is a row of the report's
#     predictions.csv;
#  6. add_few_blocks and add_offset the same way, each with the one
#     member that fixes it picked by -v (and cub), and only that member
#     timed, each fix confirmed: gen:add:stride_v32_k1 (a grid of one
#     wave, at 16Mi: the curve's fixed cost at its 16 KiB in flight an SM
#     is 5 % of its time; x0.98 on the committed rows) and
#     gen:add:tile_v32_k1 (aligned warps, at add_offset's own words and
#     occupancy: x1.01; only where add_offset is named misaligned).
# Every verdict and its rule go to stdout (and, with USER_FAULTS_OUT, the
# run directories, the ceilings run and verdicts.txt there).  Skips without a GPU.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
use_user_kernels
require_python numpy
keep=${USER_FAULTS_OUT:-$tmpdir/keep}
mkdir -p "$keep"

"$EWBENCH" ceilings -o "$keep/ceilings" >"$tmpdir/ceilings.log" 2>&1 ||
    fail "ewbench ceilings: exit $?: $(tail -5 "$tmpdir/ceilings.log")"
grep -q "ceilings cached for this GPU and build in $XDG_CACHE_HOME/ewbench/ceilings/" \
    "$tmpdir/ceilings.log" ||
    fail "ceilings not cached: $(tail -5 "$tmpdir/ceilings.log")"

run() {		# run NAME ARGS...: ewbench run into $keep/NAME
	name=$1
	shift
	"$EWBENCH" run "$@" --cache warm -o "$keep/$name" \
	    >"$tmpdir/$name.log" 2>&1 ||
	    fail "$name: exit $?: $(tail -5 "$tmpdir/$name.log")"
}

# verdicts NAME: "n block verdict | rule" per point of the user's kernel,
# with the experiment's text where one ran; the ceilings line first.
verdicts() {
	"$py" - "$keep/$1" <<'PY' | tee -a "$keep/verdicts.txt"
import sys
from ewbench.analysis.core import study as stu
from ewbench.analysis.report import user_kernels as uk
from ewbench.analysis.report.findings import common
study = stu.open_study(sys.argv[1])
sctx = common.make_context(study)
print("== %s" % sys.argv[1])
for p, v, e in uk.judged(sctx):
    print("ceilings: %s" % uk.ceilings_used(study.main, p.op))
    print("%d %s %s %.0f GB/s: %s | %s%s" % (
        p.n, p.block, p.cache, p.bandwidth / 1e9, v.name, v.rule,
        " | experiment: %s, %s" % (e.outcome, e.text) if e else ""))
PY
}

expect() {	# expect NAME SIZE BLOCK PATTERN
	grep -q "^$2 $3 warm [0-9]* GB/s: $4" "$keep/verdicts.txt" ||
	    fail "$1 at $2, block $3: not '$4': $(grep "^$2 $3 " "$keep/verdicts.txt")"
	echo "$1 at $2, block $3: $4"
}

run chunked --kernel "$ex/add_chunked.cu" --elems-per-thread 32 -s 256Mi
run few --kernel "$ex/add_few_blocks.cu" --elems-per-thread 1024 -s 16Mi
run low --kernel "$ex/add_low_occupancy.cu" --kernel-block 128 \
    --block 128,256,512 -s 256Mi
run offset --kernel "$ex/add_offset.cu" -s 256Mi
run chunkedfix --kernel "$ex/add_chunked.cu" --elems-per-thread 32 \
    --elementwise "$ex/op_add.cu" --block 256 -v cub_add_f32 -s 256Mi
run fewfix --kernel "$ex/add_few_blocks.cu" --elems-per-thread 1024 \
    --elementwise "$ex/op_add.cu" --block 256 \
    -v gen:add:stride_v32_k1,cub_add_f32 -s 16Mi
run offsetfix --kernel "$ex/add_offset.cu" \
    --elementwise "$ex/op_add.cu" --block 256 \
    -v gen:add:tile_v32_k1,cub_add_f32 -s 256Mi
for name in chunked few low offset chunkedfix fewfix offsetfix; do
	verdicts "$name" >/dev/null
done
cat "$keep/verdicts.txt"

# 0. Judged against this GPU's ceilings, from the cache.
n=$(grep -c '^ceilings: .*found in the ceilings cache' "$keep/verdicts.txt") || true
[ "$n" -ge 4 ] || fail "$n points judged against the cached ceilings"

# 1-3. The named causes.
expect add_chunked 268435456 256 'uncoalesced access'
grep -q '^268435456 256 warm .*32\.0 sectors per global load request where its 128 requested bytes need 4\.0' \
    "$keep/verdicts.txt" || fail "add_chunked: not 32 sectors a request"
grep -q '^268435456 256 warm .*should reach about' "$keep/verdicts.txt" ||
    fail "add_chunked: no predicted gain"
expect add_few_blocks 16777216 256 'grid-limited'
grep -q '^16777216 256 warm .*grid of 64 blocks' "$keep/verdicts.txt" ||
    fail "add_few_blocks: not a grid of 64 blocks"
expect add_low_occupancy 268435456 128 'occupancy-bound'
grep -q '^268435456 128 warm .*experiment: ' "$keep/verdicts.txt" ||
    fail "add_low_occupancy: its block xK experiment did not run"
grep -Eq '^268435456 128 warm .*experiment: confirmed,' \
    "$keep/verdicts.txt" ||
    fail "add_low_occupancy: its experiment not confirmed: $(grep '^268435456 128 ' "$keep/verdicts.txt")"

# 5. The fix, tested by the generated member that makes it, and scored.
grep -Eq "^== $keep/chunkedfix\$" "$keep/verdicts.txt" ||
    fail "chunkedfix: no verdicts"
fix=$(sed -n "\|^== $keep/chunkedfix\$|,\$p" "$keep/verdicts.txt" |
    grep '^268435456 256 warm ') || fail "chunkedfix: no point at 256Mi"
echo "$fix" | grep -q ': uncoalesced access |' ||
    fail "add_chunked with its family: not uncoalesced: $fix"
echo "$fix" | grep -Eq '\(gen:add:stride_v32_k1, generated\): [0-9]+ GB/s \([+-][0-9.]+ %\), predicted [0-9]+ GB/s \(x[0-9.]+, confirmed' ||
    fail "add_chunked: its fix not tested and confirmed by gen:add:stride_v32_k1: $fix"
echo "$fix" | grep -Eq '\| experiment: confirmed,' ||
    fail "add_chunked: the fix's experiment not confirmed: $fix"
EWBENCH_PYTHON=$py MPLBACKEND=Agg "$EWBENCH" report "$keep/chunkedfix" \
    -o "$tmpdir/chunkedfix-report" >"$tmpdir/report.log" 2>&1 ||
    fail "ewbench report chunkedfix: exit $?: $(tail -3 "$tmpdir/report.log")"
grep -q '^[^,]*,user:add_chunked,uncoalesced access,generated fix,.*gen:add:stride_v32_k1' \
    "$tmpdir/chunkedfix-report/predictions.csv" ||
    fail "add_chunked: its fix is no row of predictions.csv"
echo "add_chunked: its fix tested by gen:add:stride_v32_k1"

# 4. The misaligned geometry, in the counters.
"$py" - "$keep/offset" <<'PY' || fail "add_offset: not 5 sectors a request"
import sys
from ewbench.analysis.core import study as stu
from ewbench.analysis.core import variants as var
from ewbench.analysis.report.model import faults
run = stu.open_study(sys.argv[1]).main
p = next(p for p in run.points if var.role(p.variant) == var.USER)
a = faults.access(run, p, "loads")
print("add_offset: %.2f sectors per load request where %.1f do" % (
    a.per_request, a.ideal))
sys.exit(0 if abs(a.per_request - a.ideal - 1.0) < 0.1 else 1)
PY

# 6. The other two faults' fixes, tested the same way: a grid of one wave
#    (gen:add:stride_v32_k1) for add_few_blocks, aligned warps
#    (gen:add:tile_v32_k1) for add_offset where its extra sector costs.
fixed() {	# fixed NAME SIZE MEMBER
	members=$(cut -d, -f2 "$keep/$1/timing.csv" | grep '^gen:' | sort -u)
	[ "$members" = "$3" ] || fail "$1: -v $3 ran: $members"
	line=$(sed -n "\|^== $keep/$1\$|,/^== /p" "$keep/verdicts.txt" |
	    grep "^$2 256 warm ") || fail "$1: no point at $2"
	echo "$line" | grep -Eq "\($3, generated\): [0-9]+ GB/s \(\+[0-9.]+ %\), predicted [0-9]+ GB/s \(x[0-9.]+, confirmed" ||
	    fail "$1: its fix not tested and confirmed by $3: $line"
	echo "$1: its fix tested by $3: $(echo "$line" | grep -Eo "\($3, generated\)[^|]*" | head -1)"
}
fixed fewfix 16777216 gen:add:stride_v32_k1
if grep -q '^268435456 256 warm [0-9]* GB/s: misaligned access' \
    "$keep/verdicts.txt"; then
	fixed offsetfix 268435456 gen:add:tile_v32_k1
fi
echo "PASS: the examples' faults named"

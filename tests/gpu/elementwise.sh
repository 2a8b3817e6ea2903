#!/bin/sh
# tests/gpu/elementwise.sh - a user's per-element op (--elementwise) on the
# GPU (issue 52): add, ReLU and abs given as __device__ functions
# (examples/op_*.cu).
#  1. every generated kernel checked at every tail (1, 3, 7, 8, 33,
#     1000003) at blocks 64 and 1024, aligned and (add) --misalign, that
#     second check of add from the compile cache the first filled;
#  2. `ewbench ceilings` (kept as ceilings/), then the what-if at 2^28,
#     warm: the 44 kernels (36, and the 8 bulk-copy
#     ones of sm_90 and later, 2 in two stages and 6 in one) at blocks 64
#     to 1024 (220 candidates) beside the op's built-in variants and cub (add: and the
#     user's own kernel examples/add_f32x4.cu), no counters; its ranking
#     (python3 -m ewbench.analysis.whatif, every member predicted from
#     those ceilings), the candidates ranked and the seconds the run took;
#  3. a deliberately wrong op: a + b checked against silu_mul's reference
#     (examples/silu_mul_f32_ref.cu): every generated kernel fails, none is
#     timed or ranked, the user's silu_mul kernel is; exit 3.
#  4. three ops of examples/ as per-element functions, each a what-if at
#     2^28 (220 candidates, no counters): the tanh GELU in f16 (checked
#     against itself), SiLU*mul in f32 and the bf16 FMA (each beside the
#     user's kernel of examples/, both checked against its reference with
#     its tolerance).  The winner must reach 90 % of the DRAM ceiling
#     of step 2's ceilings for its byte mix (one input:
#     dram_copy; two or three: dram_add, the nearest measured mix); where
#     no ceiling could be measured, its share of the data sheet's peak is
#     printed and said to be that, nothing asserted.
# Run directories and rankings go under $OUT when it is set.  Skips
# without a GPU.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
use_user_kernels
dest=${OUT:-$tmpdir}/elementwise
mkdir -p "$dest"

# 1. Every member passes at every tail.
for op in add relu abs; do
	for mis in "" --misalign; do
		[ "$op" = add ] || [ -z "$mis" ] || continue
		"$EWBENCH" check --elementwise "$ex/op_$op.cu" -s 1,3,7,8,33,1000003 \
		    --block 64,1024 $mis >"$tmpdir/check.log" 2>&1 ||
		    fail "check $op $mis: exit $?: $(tail -5 "$tmpdir/check.log")"
		ok=$(grep -c '^gen:.* ok$' "$tmpdir/check.log") || true
		[ "$ok" -eq $((44 * 6 * 2)) ] ||
		    fail "check $op $mis: $ok of 528 passed: $(tail -20 "$tmpdir/check.log")"
		# The second check of add loads the cubin the first compiled,
		# from the (private, fresh) compile cache.
		[ "$op$mis" != add--misalign ] ||
		    grep -q '^ewbench: --elementwise .*: 44 kernels .* for sm_[0-9]* from the cache' \
		    "$tmpdir/check.log" ||
		    fail "check add --misalign: not from the cache: $(grep '^ewbench: --elementwise' "$tmpdir/check.log")"
		echo "check $op $mis: all 44 kernels pass at 6 sizes x 2 blocks${mis:+ (from the compile cache)}"
	done
done

# 2. The ceilings, then the what-if at 2^28.
ceilings=$dest/ceilings
rc=0
"$EWBENCH" ceilings -q -o "$ceilings" >"$tmpdir/ceilings.log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
	echo "ewbench ceilings: exit $rc: no measured ceiling, the data sheet's peak instead, nothing predicted: $(tail -1 "$tmpdir/ceilings.log")"
	ceilings=
fi
whatif() {	# whatif OP VARIANTS [MORE OPTIONS...]
	op=$1 ids=$2
	shift 2
	start=$(date +%s.%N)
	[ -z "$ids" ] || set -- -v "$ids" "$@"	# no built-in moves its bytes
	"$EWBENCH" run -q --elementwise "$ex/op_$op.cu" -s 2^28 --cache warm \
	    --no-counters "$@" \
	    -o "$dest/$op" >"$tmpdir/run.log" 2>&1 ||
	    fail "what-if $op: exit $?: $(tail -5 "$tmpdir/run.log")"
	end=$(date +%s.%N)
	PYTHONPATH=$top_srcdir/python "$py" -m ewbench.analysis.whatif \
	    "$dest/$op" ${ceilings:+--ceilings "$ceilings"} >"$dest/$op.txt" ||
	    fail "whatif $op: exit $?"
	ranked=$(sed -n 's/^n=.* \([0-9]*\) checked generated kernels ranked.*/\1/p' \
	    "$dest/$op.txt" | head -1)
	awk -v op="$op" -v r="$ranked" "BEGIN { printf \"what-if %s: %s candidates ranked, %.1f s\\n\", op, r, $end - $start }" |
	    tee -a "$dest/summary.txt"
	cat "$dest/$op.txt"
	[ "$ranked" -ge 40 ] || fail "what-if $op: $ranked candidates ranked"
}
whatif add 'add_f32x4,add_f32x4_ilp2,add_f32x4_ilp4,add_f32x4_occ,add_f32_tma,cub_add_f32' \
    --kernel "$ex/add_f32x4.cu" --elems-per-thread 4 --kernel-block 64
whatif relu 'relu_f32*'
whatif abs 'abs_f32*'

# 3. A wrong op: every member fails, none ranked.
set +e
"$EWBENCH" run -q --elementwise "$ex/op_add.cu" -s 1000003 --no-counters \
    --kernel "$ex/silu_mul_f32.cu" --reference "$ex/silu_mul_f32_ref.cu" \
    --rel 1e-5 --elems-per-thread 4 -v add_f32 -o "$dest/wrong" \
    >"$tmpdir/wrong.log" 2>&1
rc=$?
set -e
[ "$rc" -eq 3 ] || fail "wrong op: exit $rc, want 3: $(tail -5 "$tmpdir/wrong.log")"
failed=$(grep -c 'CHECK FAILED: gen:add:' "$tmpdir/wrong.log") || true
timed=$(grep -c '^[^,]*,gen:' "$dest/wrong/timing.csv") || true
user=$(grep -c '^[^,]*,user:' "$dest/wrong/timing.csv") || true
[ "$timed" -eq 0 ] || fail "wrong op: $timed generated rows timed"
[ "$user" -ge 1 ] || fail "wrong op: the user's kernel not timed"
if PYTHONPATH=$top_srcdir/python "$py" -m ewbench.analysis.whatif \
    "$dest/wrong" >/dev/null 2>&1; then
	fail "wrong op: a generated kernel ranked"
fi
echo "wrong op: exit 3, no generated kernel timed or ranked ($failed failure lines), the user's kernel timed"

# 4. GELU f16, SiLU*mul f32, the bf16 FMA: the winner against this GPU's
# measured DRAM ceiling for its byte mix.
ceiling() {	# ceiling OP INPUTS DTYPE: the winner's share, asserted >= 90 %
	rc=0
	PYTHONPATH=$top_srcdir/python "$py" - "$dest/$1" "$2" "$3" "$ceilings" \
	    >"$tmpdir/share.txt" <<'PY' || rc=$?
import sys
from ewbench.analysis import whatif
from ewbench.analysis.core import load, noise
from ewbench.analysis.report.model import ceilings

run_dir, inputs, dtype, measured = sys.argv[1], int(sys.argv[2]), \
    sys.argv[3], sys.argv[4]
run = load.load_run(run_dir, ceilings_from=measured or None)
group = whatif.groups(run.points).get((1 << 28, dtype, "warm", "stream"))
if not group:
    print("%s: no generated kernel ranked at 2^28 %s" % (run_dir, dtype))
    sys.exit(2)
rows, _, count = whatif.ranking(group, noise.run_floor(run))
winner = rows[0]
# The byte mix: one input reads what it writes (dram_copy's 1:1); two
# read twice what they write (dram_add's 2:1), the nearest measured mix
# for three too.
bound = ceilings.dram_ceiling(run.ceilings, run.spec_dram_bandwidth,
                              "add" if inputs >= 2 else "copy")
share = winner[5] * 1e9 / bound.value
print("%s: winner %s@%s %.0f GB/s = %.1f %% of %s (%.0f GB/s), %d ranked"
      % (run_dir.rsplit("/", 1)[-1], winner[2], winner[3], winner[5],
         100 * share, bound.source, bound.value / 1e9, count))
if not bound.measured:
    print("  not asserted: no measured ceiling, a share of the data sheet")
    sys.exit(0)
sys.exit(0 if share >= 0.90 else 1)
PY
	tee -a "$dest/summary.txt" <"$tmpdir/share.txt"
	return "$rc"
}
whatif gelu_f16 ''
ceiling gelu_f16 1 f16 || fail "GELU f16: $(cat "$tmpdir/share.txt")"
whatif silu_mul_f32 '' --kernel "$ex/silu_mul_f32.cu" \
    --reference "$ex/silu_mul_f32_ref.cu" --rel 1e-5 --elems-per-thread 4
ceiling silu_mul_f32 2 f32 || fail "SiLU*mul f32: $(cat "$tmpdir/share.txt")"
whatif fma_bf16 '' --kernel "$ex/fma_bf16.cu" \
    --reference "$ex/fma_bf16_ref.cu" --ulps 1 --elems-per-thread 2
ceiling fma_bf16 3 bf16 || fail "FMA bf16: $(cat "$tmpdir/share.txt")"

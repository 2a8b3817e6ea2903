#!/bin/sh
# tests/gpu/elementwise.sh - a user's per-element op (--elementwise) on the
# GPU (issue 52): add, ReLU and abs given as __device__ functions
# (examples/op_*.cu).
#  1. every generated kernel checked at every tail (1, 3, 7, 8, 33,
#     1000003) at blocks 64 and 1024, aligned and (add) --misalign;
#  2. the what-if at 2^28, warm: the 36 kernels at blocks 64 to 1024 (180
#     candidates) beside the op's built-in variants and cub (add: and the
#     user's own kernel examples/add_f32x4.cu), no counters; its ranking
#     (python3 -m ewbench.analysis.whatif), the candidates ranked and the
#     seconds the run took;
#  3. a deliberately wrong op: a + b checked against silu_mul's reference
#     (examples/silu_mul_f32_ref.cu): every generated kernel fails, none is
#     timed or ranked, the user's silu_mul kernel is; exit 3.
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
		[ "$ok" -eq $((36 * 6 * 2)) ] ||
		    fail "check $op $mis: $ok of 432 passed: $(tail -20 "$tmpdir/check.log")"
		echo "check $op $mis: all 36 kernels pass at 6 sizes x 2 blocks"
	done
done

# 2. The what-if at 2^28.
whatif() {	# whatif OP VARIANTS [MORE OPTIONS...]
	op=$1 ids=$2
	shift 2
	start=$(date +%s.%N)
	"$EWBENCH" run -q --elementwise "$ex/op_$op.cu" -s 2^28 --cache warm \
	    --no-counters -v "$ids" "$@" \
	    -o "$dest/$op" >"$tmpdir/run.log" 2>&1 ||
	    fail "what-if $op: exit $?: $(tail -5 "$tmpdir/run.log")"
	end=$(date +%s.%N)
	PYTHONPATH=$top_srcdir/python "$py" -m ewbench.analysis.whatif \
	    "$dest/$op" >"$dest/$op.txt" || fail "whatif $op: exit $?"
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

#!/bin/sh
# tests/gpu/check.sh - every variant against the CPU reference at sizes that
# exercise every tail (1, 3, 7, 8, 33), odd and large sizes, past 2^24, and
# past 2^31 for a few variants; and proof that a wrong element is caught.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu

"$EWBENCH" check -s 1,3,7,8,33,1000003,1Mi -s 16777221 ||
    fail "a variant failed its check"

# Misaligned operands: the vector variants fall back to scalar paths.
"$EWBENCH" check -q --misalign -s 1,3,7,8,33,1000003 ||
    fail "a variant failed its check with misaligned operands"

# Odd block sizes, for the variants whose tile depends on the block.
"$EWBENCH" check -q --block 32,96,1024 -s 3,1000003 ||
    fail "a variant failed its check at block sizes 32, 96, 1024"

# Past 2^31 elements: 64-bit indexing and grid limits.
"$EWBENCH" check -q -v add_f16,add_f16x8_pack,add_f32x4_grid,abs_f32_grid,add_f16x8_ilp4,add_f16_tma2,add_f16x8_occ \
    -s 2147483651 || fail "a variant failed its check past 2^31 elements"

# The checker itself: a planted wrong element must fail the run (exit 3)
# and name the variant and the index.
set +e
EWBENCH_TEST_CORRUPT=add_f32x4 "$EWBENCH" check -v add_f32x4,add_f32 -s 1000 \
    >"$tmpdir/out" 2>&1
rc=$?
set -e
[ "$rc" = 3 ] || fail "planted corruption: exit $rc, expected 3"
grep -q 'CHECK FAILED: add_f32x4 n=1000: element 500' "$tmpdir/out" ||
    fail "planted corruption not reported: $(cat "$tmpdir/out")"
grep -q '1 checks passed, 1 failed' "$tmpdir/out" ||
    fail "the other variant did not still run: $(cat "$tmpdir/out")"
# An off-by-one tail: the last element of an odd size, caught on the GPU
# path with its index.
set +e
EWBENCH_TEST_CORRUPT=add_f16x8_pack:last "$EWBENCH" check -v add_f16x8_pack \
    -s 1000003 >"$tmpdir/out" 2>&1
rc=$?
set -e
[ "$rc" = 3 ] || fail "planted tail corruption: exit $rc, expected 3"
grep -q 'CHECK FAILED: add_f16x8_pack n=1000003: element 1000002 ' \
    "$tmpdir/out" || fail "tail corruption not reported: $(cat "$tmpdir/out")"

# Misaligned, too: the scalar fallback's output is checked the same way.
set +e
EWBENCH_TEST_CORRUPT=add_f32x4:last "$EWBENCH" check --misalign \
    -v add_f32x4 -s 33 >"$tmpdir/out" 2>&1
rc=$?
set -e
[ "$rc" = 3 ] && grep -q 'CHECK FAILED: add_f32x4 n=33: element 32 ' \
    "$tmpdir/out" || fail "misaligned tail corruption: exit $rc: $(cat "$tmpdir/out")"
echo "check: all variants correct"

#!/bin/sh
# tests/sass.sh - scripts/sass.sh without a GPU or cuobjdump: a checked-in
# piece of `cuobjdump -sass` output (tests/sass/cuobjdump-sass.txt: an
# sm_75 and an sm_90 section, predicated and unpredicated accesses, bulk
# copies, a cub kernel and a template instance that are not variants)
# reduces to tests/sass/expected.csv; the table it makes compiles; and a
# build without cuobjdump, or with one that fails, still makes a table
# that says why.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
sass="$top_srcdir/scripts/sass.sh"
data="$top_srcdir/tests/sass"

sh "$sass" reduce <"$data/cuobjdump-sass.txt" >"$tmpdir/got.csv" ||
    fail "reduce failed"
diff -u "$data/expected.csv" "$tmpdir/got.csv" >&2 ||
    fail "reduce: not the expected rows"
# Properties, beside the exact rows: the 8-half kernel of four 32-bit
# loads per operand has no 128-bit load; the scalar fallback's 16-bit
# ones are there; TMA's bulk copies into shared memory are loads of no
# named width; neither cub's kernel nor a template instance is a row.
grep -q '^add_f16x8,sm_90,load,LDG.E,32,8$' "$tmpdir/got.csv" ||
    fail "add_f16x8: eight 32-bit LDG.E"
! grep -q '^add_f16x8,.*,128,' "$tmpdir/got.csv" ||
    fail "add_f16x8 has a 128-bit access"
grep -q '^add_f32_tma,sm_90,load,UBLKCP.S.G,,4$' "$tmpdir/got.csv" ||
    fail "add_f32_tma: bulk copies"
grep -q '^relu_f32,sm_75,' "$tmpdir/got.csv" || fail "the sm_75 section"
! grep -Eq '^(fill_kernel|cub|transform)' "$tmpdir/got.csv" ||
    fail "a kernel that is not a variant"

# The table compiles, and says how many rows it has.
cc=${CC:-cc}
sh "$sass" table recorded <"$tmpdir/got.csv" >"$tmpdir/table.c"
rows=$(($(wc -l <"$tmpdir/got.csv") - 1))
grep -q "ewb_sass_count = $rows;" "$tmpdir/table.c" || fail "table count"
"$cc" -std=c11 -Wall -Wextra -Werror -I"$top_srcdir/src" -c \
    -o "$tmpdir/table.o" "$tmpdir/table.c" || fail "table does not compile"

# No cuobjdump: an empty table that says why, and the build goes on.
: >"$tmpdir/kernel.o"
sh "$sass" build "" "$tmpdir/none.csv" "$tmpdir/none.c" "$tmpdir/kernel.o" \
    2>"$tmpdir/none.err" || fail "build without cuobjdump failed"
grep -q 'ewb_sass_status\[\] = "not recorded: this build found no cuobjdump' \
    "$tmpdir/none.c" || fail "no reason without cuobjdump"
grep -q 'ewb_sass_count = 0;' "$tmpdir/none.c" || fail "rows without cuobjdump"
[ "$(cat "$tmpdir/none.csv")" = "variant,arch,kind,instruction,bits,count" ] ||
    fail "csv without cuobjdump"
"$cc" -std=c11 -Wall -Wextra -Werror -I"$top_srcdir/src" -c \
    -o "$tmpdir/none.o" "$tmpdir/none.c" || fail "empty table does not compile"
# A cuobjdump that fails (no nvdisasm beside it, say).
printf '#!/bin/sh\necho "cuobjdump fatal : Could not find nvdisasm" >&2\nexit 1\n' \
    >"$tmpdir/cuobjdump"
chmod +x "$tmpdir/cuobjdump"
sh "$sass" build "$tmpdir/cuobjdump" "$tmpdir/bad.csv" "$tmpdir/bad.c" \
    "$tmpdir/kernel.o" 2>/dev/null || fail "build with a failing cuobjdump failed"
grep -q "not recorded: cuobjdump -sass $tmpdir/kernel.o failed: cuobjdump fatal : Could not find nvdisasm" \
    "$tmpdir/bad.c" || fail "no reason for a failing cuobjdump"
[ ! -e "$tmpdir/bad.csv.tmp" ] && [ ! -e "$tmpdir/bad.c.tmp" ] ||
    fail "temporary files left"
# One that exits 0 and shows no kernel (given two files, cuobjdump prints
# its usage and exits 0): not recorded either.  A good one, file by file.
printf '#!/bin/sh
echo "Usage  : cuobjdump [options] <file>"
' >"$tmpdir/cuobjdump"
sh "$sass" build "$tmpdir/cuobjdump" "$tmpdir/usage.csv" "$tmpdir/usage.c" \
    "$tmpdir/kernel.o" 2>/dev/null || fail "build with a silent cuobjdump failed"
grep -q 'not recorded: cuobjdump -sass found no kernel code' "$tmpdir/usage.c" ||
    fail "no reason for a cuobjdump that shows no kernel"
printf '#!/bin/sh
cat "%s"
' "$data/cuobjdump-sass.txt" >"$tmpdir/cuobjdump"
sh "$sass" build "$tmpdir/cuobjdump" "$tmpdir/good.csv" "$tmpdir/good.c" \
    "$tmpdir/kernel.o" >/dev/null || fail "build with cuobjdump failed"
cmp -s "$tmpdir/good.csv" "$data/expected.csv" || fail "build: not the reduced rows"
grep -q 'ewb_sass_status\[\] = "recorded";' "$tmpdir/good.c" || fail "build: status"
echo "sass: $rows rows reduced, tables with and without cuobjdump compile"

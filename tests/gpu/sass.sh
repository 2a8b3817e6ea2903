#!/bin/sh
# tests/gpu/sass.sh - the SASS of the kernels a run ran (sass.csv,
# docs/data-format.md), on the GPU: the rows are those of the code the
# driver loaded, and say what the kernels' source says: add_f32x4 and
# add_f16x8_pack load 128 bits a thread, add_f16x8 (four 32-bit half2
# loads per operand) and add_f32 never more than 32.  Skips, with the
# reason, where the build recorded no SASS (no cuobjdump at configure
# time) or the loaded code was JIT-compiled from PTX.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
require_gpu

out=$tmpdir/run
"$EWBENCH" run -q -v add_f32,add_f32x4,add_f16x8,add_f16x8_pack -s 1Mi \
    --cache warm --iters 20 --warmup 2 --no-counters -o "$out" ||
    fail "run failed"
note=$(sed -n 's/^ *"sass": "\([^"]*\)".*/\1/p' "$out/run.json")
case $note in
"recorded for sm_"*) ;;
"not recorded"*) echo "SKIP: $note"; exit 77 ;;
*) fail "run.json has no sass member (got '$note')" ;;
esac
arch=${note#recorded for }
[ -s "$out/sass.csv" ] || fail "run.json says recorded, sass.csv missing"
head -n 1 "$out/sass.csv" | grep -qx 'run_id,variant,arch,kind,instruction,bits,count' ||
    fail "sass.csv header: $(head -n 1 "$out/sass.csv")"
# Every row is of the architecture run.json names.
awk -F, -v a="$arch" 'NR > 1 && $3 != a { bad = 1 } END { exit bad }' \
    "$out/sass.csv" || fail "a row of another architecture than $arch"
widest() {	# the widest global load of a variant, in bits
	awk -F, -v v="$1" 'NR > 1 && $2 == v && $4 == "load" && $6 > w { w = $6 }
	    END { print w + 0 }' "$out/sass.csv"
}
for v in add_f32x4 add_f16x8_pack; do
	[ "$(widest $v)" = 128 ] || fail "$v: widest load $(widest $v) bits, expected 128"
done
for v in add_f32 add_f16x8; do
	[ "$(widest $v)" = 32 ] || fail "$v: widest load $(widest $v) bits, expected 32"
done
# add_f16x8: four 32-bit loads per operand, eight in all, on its main path.
grep -q ",add_f16x8,$arch,load,LDG.E,32,8\$" "$out/sass.csv" ||
    fail "add_f16x8: not 8 x LDG.E: $(grep ',add_f16x8,' "$out/sass.csv")"
# The analysis reads it back and cites it.
"${PYTHON:-python3}" - "$out" <<'PY' || fail "the analysis does not read sass.csv"
import sys
from ewbench.analysis.core import load
from ewbench.analysis.core import sass
run = load.load_run(sys.argv[1])
text = sass.summary(run, "add_f16x8")
assert "8 × LDG.E (32-bit)" in text, text
print("sass:", text)
PY
echo "sass: $(($(wc -l <"$out/sass.csv") - 1)) rows for $arch"

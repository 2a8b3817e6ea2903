#!/bin/sh
# tests/chips.sh - every GPU its readers own, without one: each metric set
# resolves on every chip CUPTI's host API knows (`metrics --check --chip
# all`), the study is planned for the study's own GPUs by name, and a set
# entry a chip has no name for is refused by --check, said by the plan.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"

# CUPTI's host library is what answers; a build that cannot load it
# (AddressSanitizer: RTLD_DEEPBIND) has nothing to test here.
if ! "$EWBENCH" metrics --check --chip GH100 --metrics gpu__time_duration.sum \
    >"$tmpdir/probe" 2>&1; then
	echo "SKIP: CUPTI's host API cannot be used by this build:" \
	    "$(cat "$tmpdir/probe")"
	exit 77
fi

# Every chip CUPTI lists, from its own refusal of a made-up one.
"$EWBENCH" metrics --check --chip XY999 >"$tmpdir/out" 2>&1 && fail "XY999 accepted"
chips=$(sed -n 's/.*CUPTI knows: \([^)]*\)).*/\1/p' "$tmpdir/out")
[ -n "$chips" ] || fail "no chip list in: $(cat "$tmpdir/out")"
"$EWBENCH" metrics --check --chip all >"$tmpdir/all" 2>"$tmpdir/all.err" ||
    fail "metrics --check --chip all: $(cat "$tmpdir/all.err")"
[ ! -s "$tmpdir/all.err" ] || fail "--chip all said: $(cat "$tmpdir/all.err")"
groups=$(ls "$top_srcdir"/metrics/*.txt | sed 's|.*/||; s|\.txt$||')
checked=0
for chip in $chips; do
	if grep -q "^$chip: skipped: " "$tmpdir/all"; then
		echo "chips: $(grep "^$chip: skipped" "$tmpdir/all")"
		continue
	fi
	for g in $groups; do
		grep -q "^$g: [0-9]* metrics* valid for $chip\\b" "$tmpdir/all" ||
		    fail "--chip all has no line for $g on $chip"
		checked=$((checked + 1))
	done
done
echo "chips: $checked chip x set pairs resolved"
[ "$checked" -ge 100 ] || fail "only $checked chip x set pairs"
# ... and its last line sums it up: every pair counted above, valid.
nskipped=$(grep -c '^[^ ]*: skipped: ' "$tmpdir/all" || true)
nchecked=$(( $(echo $chips | wc -w) - nskipped ))
ngroups=$(echo $groups | wc -w)
want="checked $ngroups sets on $nchecked chips"
[ "$nskipped" = 0 ] || want="$want ($nskipped skipped: CUPTI's host API cannot profile it)"
want="$want: $checked valid, 0 invalid"
[ "$(tail -n 1 "$tmpdir/all")" = "$want" ] ||
    fail "--chip all's last line: '$(tail -n 1 "$tmpdir/all")', expected '$want'"

# Consumer Blackwell calls DRAM bytes by other names: collected under them.
grep -q '^default: 28 metrics valid for GB202 (2 under GB202.s names)' \
    "$tmpdir/all" || fail "GB202's default set: $(grep "GB202" "$tmpdir/all")"
grep -q '^stalls: 18 metrics valid for GB100.*left out: smsp__warp_issue_stalled_imc_miss' \
    "$tmpdir/all" || fail "GB100's stalls: $(grep "^stalls.*GB100" "$tmpdir/all")"

# The study's GPUs and those its readers own, by any name, planned.
for name in "RTX 5090" GB202 "RTX 5060" T4 A100 "A100 40GB" L4 L40S "RTX 4090" \
    "H100 PCIe" H200 B200 "NVIDIA GeForce RTX 5090" rtx-3090; do
	"$EWBENCH" run --dry-run --chip "$name" >"$tmpdir/plan" 2>&1 ||
	    fail "run --dry-run --chip $name: $(cat "$tmpdir/plan")"
	grep -q '^plan: ewbench run on ' "$tmpdir/plan" ||
	    fail "--chip $name: no plan: $(head -3 "$tmpdir/plan")"
	grep -q 'counter points (default set, [0-9]* passes each)' "$tmpdir/plan" ||
	    fail "--chip $name: counters not planned: $(cat "$tmpdir/plan")"
	"$EWBENCH" metrics --check --chip "$name" >"$tmpdir/check" 2>&1 ||
	    fail "metrics --check --chip $name: $(cat "$tmpdir/check")"
done
# Below compute capability 9.0 the bulk-copy variants are skipped, saying why.
"$EWBENCH" run --dry-run --chip T4 >"$tmpdir/plan"
[ "$(grep -c '^skipped: .*_tma.*needs compute capability 9.0, this GPU has 7.5' \
    "$tmpdir/plan")" = 8 ] || fail "T4's skipped variants: $(grep skipped "$tmpdir/plan")"
"$EWBENCH" run --dry-run --chip "RTX 5090" --metrics stalls >"$tmpdir/plan"
grep -q '^counters: smsp__warp_issue_stalled_imc_miss_per_warp_active.pct left out: GB202 has no such metric' \
    "$tmpdir/plan" || fail "the plan does not say what GB202 lacks: $(head -3 "$tmpdir/plan")"

# A set whose entry lacks a chip's name is refused, naming the fix.
mkdir "$tmpdir/m"
printf 'SHORT t\nMETRICS\ngpu__time_duration.sum\ndram__bytes_read.sum\n' >"$tmpdir/m/t.txt"
set +e
"$EWBENCH" metrics --check --chip GB202 --metrics "$tmpdir/m/t.txt" >"$tmpdir/out" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || fail "an entry GB202 lacks: exit $rc: $(cat "$tmpdir/out")"
grep -q "dram__bytes_read.sum (did you mean dram__bytes_op_read.sum?): GB202 has no such metric; add GB202's name" \
    "$tmpdir/out" || fail "no fix named: $(cat "$tmpdir/out")"
printf 'SHORT t\nMETRICS\ngpu__time_duration.sum\ndram__bytes_read.sum | dram__bytes_op_raed.sum\n' >"$tmpdir/m/t.txt"
set +e
"$EWBENCH" metrics --check --chip all --metrics "$tmpdir/m/t.txt" >"$tmpdir/out" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] && grep -q 'dram__bytes_op_raed.sum unknown on every chip' "$tmpdir/out" ||
    fail "a misspelt alternative: exit $rc: $(cat "$tmpdir/out")"
grep -q '^checked 1 set on [0-9]* chips.*: [0-9]* valid, [0-9]* invalid; 1 set names a metric no chip knows (said above)$' \
    "$tmpdir/out" || fail "the misspelt alternative not summed up: $(tail -n 2 "$tmpdir/out")"
echo "chips: ok"

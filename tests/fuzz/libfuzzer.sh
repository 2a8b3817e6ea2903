#!/bin/sh
# tests/fuzz/libfuzzer.sh - the parser fuzz target under libFuzzer (with
# ASan and UBSan) for a few seconds from the seed corpus; new inputs it
# finds go to a temporary copy, never into the source tree.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup.sh"
fuzzer=${FUZZER:-tests/fuzz/libfuzz-parsers}
[ -x "$fuzzer" ] || { echo "SKIP: $fuzzer not built (no libFuzzer)"; exit 77; }
cp -r "$top_srcdir/tests/fuzz/corpus" "$tmpdir/corpus"
set +e
ASAN_OPTIONS=detect_leaks=1 "$fuzzer" -max_total_time="${FUZZ_SECONDS:-5}" \
    -seed=1 -max_len=512 -print_final_stats=1 "$tmpdir/corpus" 2>"$tmpdir/log"
rc=$?
set -e
grep -E '^(stat::number_of_executed_units|#[0-9]+ +DONE)' "$tmpdir/log" || true
[ $rc = 0 ] || { tail -40 "$tmpdir/log"; fail "libFuzzer found a failing input (exit $rc)"; }
echo "libfuzzer: no failure"

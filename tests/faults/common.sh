# tests/faults/common.sh - sourced by the fault tests (tests/faults.sh,
# tests/faults-ctrl-c.sh, tests/faults-signals.sh; bash): tests/setup.sh,
# FAULTS_ALL, $shims (the folder of the built stand-ins), $d (the
# private temporary folder), $py (the analysis's Python) and want.  Each
# test names the symptom of the issue it covers.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"

# FAULTS_ALL=1 goes on past a failure, to list every symptom an older
# ewbench shows.
if [ -n "${FAULTS_ALL:-}" ]; then
	failures=0
	fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
fi

shims=$(pwd)/tests/faults
# An ASan build wants its runtime first; the shims are not instrumented.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
d=$tmpdir
py=${PYTHON:-python3}
[ "$py" != : ] || py=python3

want() {	# want STATUS PATTERN WHAT: $rc and the output in $d/out
	[ "$rc" = "$1" ] || fail "$3: exit $rc, expected $1: $(head -c 600 "$d/out")"
	[ -z "$2" ] || grep -q -e "$2" "$d/out" ||
	    fail "$3: output lacks '$2': $(head -c 600 "$d/out")"
}

# faults_passed NAME: exit 1 when FAULTS_ALL counted a failure, else say
# that every test of NAME passed.
faults_passed() {
	[ "${failures:-0}" = 0 ] || exit 1
	echo "$1: every symptom's test passed"
}

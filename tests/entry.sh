#!/bin/sh
# tests/entry.sh - the one entry point and its manual: run --help lists
# every metric group there is; ewbench(1) holds every line of every help
# page; `ewbench
# report` runs the Python analysis from any directory, and a user's own
# analysis/ or ewbench/ folder there does not shadow it, on every Python
# configure accepts.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"

run_help=$("$EWBENCH" run --help)
for f in "$top_srcdir"/metrics/*.txt; do
	g=$(basename "$f" .txt)
	echo "$run_help" | grep -q "[( ]$g[,)]" ||
	    fail "run --help does not list the metric group $g (metrics/$g.txt)"
done
# Every page: the overview and each command's, the analysis commands'
# (the Python package's) too: the commands ewbench dispatches (its word on
# an unknown one lists them), each listed by the overview, in its order.
commands=$("$EWBENCH" --help | awk '/^Commands/ { on = 1; next }
    /^Options of/ { on = 0 }
    on && /^  [a-z]/ { print $1 }')
dispatched=$("$EWBENCH" no-such-command 2>&1 |
    sed -n 's/.*(commands: \([^;]*\);.*/\1/p' | tr -d ',' | tr ' ' '\n')
[ -n "$dispatched" ] && [ "$commands" = "$dispatched" ] ||
    fail "ewbench --help lists $(echo $commands), ewbench runs $(echo $dispatched)"
# (An analysis command's page needs the analysis's Python: without numpy
# the manual says it could not run it, and the check below skips it.)
py=${PYTHON:-python3}
analysis=yes
[ "$py" != ":" ] && "$py" -c 'import numpy, matplotlib' 2>/dev/null || analysis=
help=$("$EWBENCH" --help
	for command in $commands; do
		"$EWBENCH" "$command" --help 2>/dev/null || [ -z "$analysis" ]
	done)

# One version: configure.ac's, as pyproject.toml gives it to pip.
version=$("$EWBENCH" --version | sed -n '1s/^ewbench \([^ ]*\).*/\1/p')
grep -q "^version = \"$version\"" "$top_srcdir/pyproject.toml" ||
    fail "pyproject.toml's version is not ewbench's ($version)"

# The manual is --help: a section for every command the overview lists,
# in its order, and no other (issue 41: the six analysis commands were
# missing); every line of every page is in it (leading blanks aside: a
# synopsis' second line is not indented there).
"$SHELL" "$top_srcdir/scripts/manpage.sh" page "$EWBENCH" test \
    "$top_srcdir" >"$tmpdir/ewbench.1"
sections=$(sed -n 's/^\.SH "ewbench \(.*\)"$/\1/p' "$tmpdir/ewbench.1" | sed 's/\\-/-/g')
[ "$sections" = "$commands" ] ||
    fail "ewbench(1)'s command sections ($(echo $sections)) are not the commands of --help ($(echo $commands))"
[ -z "$analysis" ] || ! grep -q 'its own --help.*could not run it' "$tmpdir/ewbench.1" ||
    fail "ewbench(1) lacks a page: $(grep 'could not run it' "$tmpdir/ewbench.1")"
sed -e 's/\\-/-/g; s/\\e/\\/g; s/^\\&//; s/^\.[A-Z]\{1,2\} //; s/^"//; s/"$//; s/^ *//' \
    "$tmpdir/ewbench.1" >"$tmpdir/man.txt"
echo "$help" | sed "s|^  $top_srcdir/|  @pkgdatadir@/|; s/:\$//; s/^ *//" |
    while IFS= read -r line; do
	[ -z "$line" ] && continue
	grep -qxF -e "$line" "$tmpdir/man.txt" ||
	    grep -qF -e "$(echo "$line" | sed 's/^usage: //')" "$tmpdir/man.txt" ||
	    fail "ewbench(1) lacks the help line: $line"
done
# A synopsis' second line starts at the margin, as its first does.
grep -A3 '^\.SH "ewbench metrics"' "$tmpdir/ewbench.1" | grep -q '^\.B ewbench metrics \\-\\-check' ||
    fail "ewbench(1): metrics' second synopsis: $(grep -A3 '^\.SH "ewbench metrics"' "$tmpdir/ewbench.1")"
# The Files of the manual: the folders as installed.
sed -n '/^\.SH "Files/,/^\.SH/p' "$tmpdir/ewbench.1" | grep -q '^  @pkgdatadir@/examples$' ||
    fail "ewbench(1)'s Files: $(sed -n '/^\.SH "Files/,/^\.SH/p' "$tmpdir/ewbench.1")"
if command -v man >/dev/null 2>&1; then
	man -l "$tmpdir/ewbench.1" 2>&1 >/dev/null | grep . &&
	    fail "man warns about ewbench(1)"
fi

# Analysis commands: their own --help, named as ewbench's.
"$EWBENCH" fleet-report --help | grep -q '^usage: ewbench fleet-report' ||
    fail "ewbench fleet-report --help is not the analysis's"
"$EWBENCH" nosuch 2>&1 | grep -q 'fleet-report' ||
    fail "the unknown-command message does not list the analysis commands"

# Issue 35: on a Python before 3.11 (configure accepts 3.8), where
# PYTHONSAFEPATH does nothing, an ewbench/ folder in the working directory
# still cannot replace the package: the hostile one would leave a mark and
# exit 0 with no report.  Needs no numpy: the real package, found, says it
# lacks numpy.  EWB_OLD_PYTHON names one; else python3.10, 3.9 or 3.8 on
# PATH.
old_py=
for p in ${EWB_OLD_PYTHON:-} python3.10 python3.9 python3.8; do
	if "$p" -c 'import sys; sys.exit(not (3, 8) <= sys.version_info < (3, 11))' \
	    >/dev/null 2>&1; then
		old_py=$p
		break
	fi
done
if [ -n "$old_py" ]; then
	mkdir -p "$tmpdir/old/ewbench/analysis"
	printf 'open(%s, "w").close()\nraise SystemExit(0)\n' \
	    "'$tmpdir/old/shadowed'" >"$tmpdir/old/ewbench/__init__.py"
	cp "$tmpdir/old/ewbench/__init__.py" "$tmpdir/old/ewbench/analysis/__main__.py"
	: >"$tmpdir/old/ewbench/analysis/__init__.py"
	set +e
	(cd "$tmpdir/old" && EWBENCH_PYTHON=$old_py "$EWBENCH" report \
	    "$top_srcdir/tests/fixtures/h100-fixture" -o "$tmpdir/old/r" \
	    >"$tmpdir/old.log" 2>&1)
	set -e
	[ ! -e "$tmpdir/old/shadowed" ] ||
	    fail "$old_py: an ewbench/ folder in the working directory replaced the analysis: $(cat "$tmpdir/old.log")"
	grep -q -e 'wrote .*report.html' -e 'has no numpy' "$tmpdir/old.log" ||
	    fail "$old_py: ewbench report neither reported nor said what it lacks: $(cat "$tmpdir/old.log")"
else
	echo "entry: no Python 3.8-3.10 (EWB_OLD_PYTHON) to try a shadowing ewbench/ folder with"
fi

if [ -z "$analysis" ]; then
	echo "SKIP: $py has no numpy and matplotlib (the rest needs the analysis)"
	exit 77
fi
mkdir -p "$tmpdir/cwd/analysis" "$tmpdir/cwd/ewbench"
for d in analysis ewbench; do
	echo 'raise SystemExit("shadowed by the working directory")' \
	    >"$tmpdir/cwd/$d/__init__.py"
done
(cd "$tmpdir/cwd" && EWBENCH_PYTHON=$py "$EWBENCH" report \
    "$top_srcdir/tests/fixtures/h100-fixture" -o "$tmpdir/cwd/r" \
    >"$tmpdir/report.log" 2>&1) || fail "ewbench report: $(cat "$tmpdir/report.log")"
[ -s "$tmpdir/cwd/r/report.html" ] || fail "ewbench report wrote no report.html"

# Issue 41: the analysis commands and torch speak as ewbench does.  A
# missing path is a usage error (exit 2, "no such directory"), every
# message starts "ewbench COMMAND:" (torch said "torch:", exit 3).
missing=$tmpdir/no-such-run
fixture=$top_srcdir/tests/fixtures/h100-fixture
for args in "report $missing" "compare $fixture $missing" \
    "contest $missing" "fleet-report $missing" "torch $missing" \
    "torch --dry-run $fixture $missing"; do
	set +e
	EWBENCH_PYTHON=$py "$EWBENCH" $args >"$tmpdir/out" 2>&1
	rc=$?
	set -e
	command=${args%% *}
	[ "$rc" = 2 ] && [ "$(cat "$tmpdir/out")" = "ewbench $command: $missing: no such directory" ] ||
	    fail "ewbench $args: exit $rc, expected 2 and 'no such directory': $(cat "$tmpdir/out")"
done
# torch --dry-run says what it would do, and that there is nothing to do
# (it printed nothing); its --help has the others' layout.
EWBENCH_PYTHON=$py "$EWBENCH" torch --dry-run "$fixture" >"$tmpdir/out" 2>&1 ||
    fail "torch --dry-run: $(cat "$tmpdir/out")"
grep -q "^$fixture: every PyTorch point is already in timing.csv or peer-torch.csv; nothing to do$" \
    "$tmpdir/out" || fail "torch --dry-run said: '$(cat "$tmpdir/out")'"
page=$(EWBENCH_PYTHON=$py "$EWBENCH" torch --help)
for part in '^usage: ewbench torch ' '^options:' '^exit status:' \
    '^  5    no usable GPU' '^examples:' '^  ewbench torch '; do
	echo "$page" | grep -q "$part" || fail "torch --help lacks '$part': $page"
done
# A closed stdout is a quiet 130 for torch too (it was "torch: [Errno
# 32] Broken pipe", exit 1): more than a buffer of plan lines, from ten
# copies of a run without its torch rows.
mkdir -p "$tmpdir/notorch"
cp -r "$fixture" "$tmpdir/notorch/run"
grep -v ',torch_' "$fixture/timing.csv" >"$tmpdir/notorch/run/timing.csv"
{
	set +e
	EWBENCH_PYTHON=$py "$EWBENCH" torch --dry-run $(for i in 1 2 3 4 5 6 7 8 9 10; do
		echo "$tmpdir/notorch/run"; done) 2>"$tmpdir/out"
	echo $? >"$tmpdir/rc"
} | true
rc=$(cat "$tmpdir/rc")
[ "$rc" = 130 ] && [ ! -s "$tmpdir/out" ] ||
    fail "torch --dry-run | true: exit $rc, expected a quiet 130: $(cat "$tmpdir/out")"

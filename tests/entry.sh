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
# (the Python package's) too: the commands the overview lists.
commands=$("$EWBENCH" --help | awk '/^(Commands|Analysis commands)/ { on = 1; next }
    /^$/ { on = 0 }
    on && /^  [a-z]/ { print $1 }')
for want in info list run check sweep tune ceilings metrics report compare \
    contest fleet-report timeline torch; do
	echo "$commands" | grep -qx "$want" ||
	    fail "ewbench --help does not list the command $want"
done
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

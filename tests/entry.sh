#!/bin/sh
# tests/entry.sh - the one entry point and its manual: --help lists every
# metric group there is; ewbench(1) holds every line of --help; `ewbench
# report` runs the Python analysis from any directory, and a user's own
# analysis/ or ewbench/ folder there does not shadow it.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"

help=$("$EWBENCH" --help)
for f in "$top_srcdir"/metrics/*.txt; do
	g=$(basename "$f" .txt)
	echo "$help" | grep -q "[( ]$g[,)]" ||
	    fail "--help does not list the metric group $g (metrics/$g.txt)"
done

# One version: configure.ac's, as pyproject.toml gives it to pip.
version=$("$EWBENCH" --version | sed -n '1s/^ewbench \([^ ]*\).*/\1/p')
grep -q "^version = \"$version\"" "$top_srcdir/pyproject.toml" ||
    fail "pyproject.toml's version is not ewbench's ($version)"

# The manual is --help: every line of one is in the other.
"$SHELL" "$top_srcdir/scripts/manpage.sh" "$EWBENCH" test >"$tmpdir/ewbench.1"
sed -e 's/\\-/-/g; s/\\e/\\/g; s/^\\&//; s/^\.[A-Z]\{1,2\} //; s/^"//; s/"$//' \
    "$tmpdir/ewbench.1" >"$tmpdir/man.txt"
echo "$help" | sed 's/:$//' | while IFS= read -r line; do
	[ -z "$line" ] && continue
	grep -qxF -e "$line" "$tmpdir/man.txt" ||
	    grep -qF -e "$(echo "$line" | sed 's/^usage: //')" "$tmpdir/man.txt" ||
	    fail "ewbench(1) lacks the --help line: $line"
done
if command -v man >/dev/null 2>&1; then
	man -l "$tmpdir/ewbench.1" 2>&1 >/dev/null | grep . &&
	    fail "man warns about ewbench(1)"
fi

# Analysis commands: their own --help, named as ewbench's.
"$EWBENCH" fleet-report --help | grep -q '^usage: ewbench fleet-report' ||
    fail "ewbench fleet-report --help is not the analysis's"
"$EWBENCH" nosuch 2>&1 | grep -q 'fleet-report' ||
    fail "the unknown-command message does not list the analysis commands"

py=${PYTHON:-python3}
if [ "$py" = ":" ] || ! "$py" -c 'import numpy, matplotlib' 2>/dev/null; then
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

#!/bin/sh
# tests/configure.sh - configure's word on the analysis's Python (issue
# 41: one without numpy and matplotlib was taken silently, and `make
# report` failed later): such a Python is accepted, since the C side
# builds without it, with a warning that names what will fail and how to
# mend it; one that has them is summed up with their versions.  configure
# runs in a scratch copy (the source tree may be configured in place,
# which refuses a second build directory), against a stand-in Python that
# is this build's with numpy and matplotlib hidden; nothing is built.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
real=${PYTHON:-python3}
[ "$real" != ":" ] && command -v "$real" >/dev/null 2>&1 || real=python3
command -v "$real" >/dev/null 2>&1 || { echo "SKIP: no Python to stand in"; exit 77; }
real=$(command -v "$real")

# A configure of the source tree: its generated files, no more.
mkdir -p "$tmpdir/src/src/cmd" "$tmpdir/build" "$tmpdir/hide"
for f in configure config.h.in Makefile.in build-aux; do
	cp -R "$top_srcdir/$f" "$tmpdir/src/" || fail "no $f in $top_srcdir"
done
: >"$tmpdir/src/src/cmd/main.c"	# AC_CONFIG_SRCDIR
for m in numpy matplotlib; do
	echo "raise ImportError('hidden by tests/configure.sh')" >"$tmpdir/hide/$m.py"
done
printf '#!/bin/sh\nPYTHONPATH=%s exec %s "$@"\n' "$tmpdir/hide" "$real" \
    >"$tmpdir/python3"
chmod +x "$tmpdir/python3"
"$tmpdir/python3" -c 'import numpy' 2>/dev/null && fail "the stand-in imports numpy"

(cd "$tmpdir/build" && ../src/configure PYTHON="$tmpdir/python3" CLANG=false \
    --disable-dependency-tracking) >"$tmpdir/out" 2>&1 ||
    fail "configure refused a Python without numpy: $(tail -5 "$tmpdir/out")"
grep -q "^checking whether $tmpdir/python3 imports numpy and matplotlib... no$" \
    "$tmpdir/out" || fail "configure did not check: $(grep -i python "$tmpdir/out")"
grep -q "^configure: WARNING: $tmpdir/python3 cannot import numpy and matplotlib: ewbench builds, but make report, ewbench report (and the other analysis commands) and the Python tests will fail or skip.*PYTHON=" \
    "$tmpdir/out" || fail "no warning: $(grep -i -e python -e warning "$tmpdir/out")"
grep -q "Python: *$tmpdir/python3, without numpy and matplotlib" "$tmpdir/out" ||
    fail "the summary: $(grep 'Python:' "$tmpdir/out")"

# This build's configure, if its Python has them: said with versions.
if [ "${PYTHON:-:}" != ":" ] && [ -f config.log ] &&
    "$PYTHON" -c 'import numpy, matplotlib' 2>/dev/null; then
	grep -q "result: yes (numpy [0-9][^,]*, matplotlib [0-9]" config.log ||
	    fail "this build's config.log does not name numpy's and matplotlib's versions"
fi
echo "configure: a Python without numpy and matplotlib taken, with a warning"

#!/bin/sh
# tests/python.sh - the analysis package's pytest suite (fixtures only, no
# GPU).  Skips, saying why, where Python or its packages are missing;
# with EWB_PYTHON_TESTS=collect (make distcheck) it only collects it.
# With pytest-xdist (python3-pytest-xdist, README's install line) the
# suite runs in one worker a core, at most 4 (each worker draws the shared
# fixture report once: conftest.fixture_report); without it, in one.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
require_python numpy matplotlib pytest hypothesis
# The full-disk shim the fault tests preload (built by make check).
EWB_DISK_FULL_SO=$(pwd)/tests/faults/disk-full.so
export EWB_DISK_FULL_SO
cd "$top_srcdir"
if [ "${EWB_PYTHON_TESTS:-run}" = collect ]; then
	# make distcheck (configure.ac, EWB_PYTHON_TESTS): the README's test
	# command ran the suite on this tree just before; the tarball's copy
	# is collected, every test module and what it imports found in it.
	found=$(MPLBACKEND=Agg "$py" -m pytest -q -p no:cacheprovider \
	    --collect-only tests/python 2>&1) || {
		printf '%s\n' "$found"; exit 1; }
	printf '%s\n' "$found" | tail -n 1
	exit 0
fi
workers=
if "$py" -c 'import xdist' 2>/dev/null; then
	n=$(nproc 2>/dev/null || echo 1)
	[ "$n" -le 4 ] || n=4
	[ "$n" -le 1 ] || workers="-n $n"
else
	echo "pytest-xdist is not installed for $py: the suite runs in one process"
fi
# shellcheck disable=SC2086
MPLBACKEND=Agg "$py" -m pytest -q -p no:cacheprovider $workers tests/python

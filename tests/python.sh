#!/bin/sh
# tests/python.sh - the analysis package's pytest suite (fixtures only, no
# GPU).  Skips, saying why, where Python or its packages are missing.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
py=${PYTHON:-python3}
[ "$py" != ":" ] && command -v "$py" >/dev/null 2>&1 || {
	echo "SKIP: no python3 (configure found none)"; exit 77; }
if ! missing=$("$py" -c 'import numpy, matplotlib, pytest, hypothesis' 2>&1); then
	echo "SKIP: python packages missing (README, Install): $missing"
	exit 77
fi
# The full-disk shim the fault tests preload (built by make check).
EWB_DISK_FULL_SO=$(pwd)/tests/faults/disk-full.so
export EWB_DISK_FULL_SO
cd "$top_srcdir"
MPLBACKEND=Agg "$py" -m pytest -q -p no:cacheprovider tests/python

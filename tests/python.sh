#!/bin/sh
# tests/python.sh - the analysis package's pytest suite (fixtures only, no
# GPU).  Skips, saying why, where Python or its packages are missing.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
require_python numpy matplotlib pytest hypothesis
# The full-disk shim the fault tests preload (built by make check).
EWB_DISK_FULL_SO=$(pwd)/tests/faults/disk-full.so
export EWB_DISK_FULL_SO
cd "$top_srcdir"
MPLBACKEND=Agg "$py" -m pytest -q -p no:cacheprovider tests/python

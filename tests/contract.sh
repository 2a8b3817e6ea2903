#!/bin/sh
# tests/contract.sh - the run-directory contract between the C writer and
# the Python loader: tests/unit/write-run writes a run directory with
# ewbench's own writers (no GPU needed), and analysis.load must read back
# every value exactly (%.17g both ways).  Skips without Python's packages.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
py=${PYTHON:-python3}
"$py" -c 'import numpy' 2>/dev/null ||
    { echo "SKIP: python packages missing (pip install -r requirements.txt)"; exit 77; }
tests/unit/write-run "$tmpdir/run" >"$tmpdir/written" || fail "write-run failed"
"$py" - "$tmpdir/run" "$tmpdir/written" <<'PY' || fail "loader disagrees with the writer"
import sys
from ewbench.analysis import load
run = load.load_run(sys.argv[1])
points = {(p.variant, p.n, p.cache): p for p in run.points}
checked = 0
for line in open(sys.argv[2]):
    variant, n, cache, column, value = line.split()
    p = points[(variant, int(n), cache)]
    if column == "dram__bytes_read.sum":
        got = run.metrics[p.key][column].value
    else:
        got = getattr(p, column)
    if value == "nan":                  # not measured: an empty field
        assert got is None, (variant, n, cache, column, got)
    else:
        assert got == float(value), (variant, n, cache, column, got, value)
    checked += 1
assert checked == 28 and run.manifest["status"] == "complete", checked
print("contract: %d values read back exactly" % checked)
PY

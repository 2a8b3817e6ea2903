#!/bin/sh
# tests/contract.sh - the run-directory contract between the C writer and
# the Python loader (energy.csv's arithmetic included): tests/unit/write-run writes a run directory with
# ewbench's own writers (no GPU needed), and analysis.load must read back
# every value exactly (%.17g both ways).  Skips without Python's packages.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup.sh"
py=${PYTHON:-python3}
"$py" -c 'import numpy' 2>/dev/null ||
    { echo "SKIP: python packages missing (pip install -r requirements.txt)"; exit 77; }
tests/unit/write-run "$tmpdir/run" >"$tmpdir/written" || fail "write-run failed"
"$py" - "$tmpdir/run" "$tmpdir/written" <<'PY' || fail "loader disagrees with the writer"
import sys
from ewbench.analysis.core import load
run = load.load_run(sys.argv[1])
points = {(p.variant, p.n, p.cache): p for p in run.points}
checked = 0
from ewbench.analysis.core import select
for line in open(sys.argv[2]):
    if line.startswith("primary_blocks "):      # VARIANT BLOCK|null ...
        f = line.split()[1:]
        want = {f[i]: None if f[i + 1] == "null" else int(f[i + 1])
                for i in range(0, len(f), 2)}
        assert select.recorded_primary_blocks(run) == want, \
            (run.manifest["settings"].get("primary_blocks"), want)
        continue
    variant, n, cache, column, value = line.split(" ", 4)
    value = value.strip()
    p = points[(variant, int(n), cache)]
    if column == "sass":
        got = " ".join("%s,%s,%s,%s,%d" % (r.arch, r.kind, r.instruction,
                                           "-" if r.bits is None else r.bits,
                                           r.count)
                       for r in run.sass[variant])
        assert got == value and run.sass_note == "recorded for sm_90", \
            (got, value, run.sass_note)
        continue
    if column.startswith("energy."):    # energy.WINDOW.COLUMN
        _, window, name = column.split(".")
        row, = [w for w in run.energy if (w.variant, w.n, w.window) ==
                (variant, int(n), int(window))]
        got = getattr(row, name)
        assert (value == "nan" and got is None) or got == float(value), \
            (variant, n, column, got, value)
        checked += 1
        continue
    if column == "dram__bytes_read.sum":
        got = run.metrics[p.key][column].value
    else:
        got = getattr(p, column)
    if value == "nan":                  # not measured: an empty field
        assert got is None, (variant, n, cache, column, got)
    else:
        assert got == float(value), (variant, n, cache, column, got, value)
    checked += 1
# 28 timing values, 24 energy ones, 3 cross-checks (one row has none), the
# records' median of the 2 warm (replay-timed) rows
assert checked == 28 + 24 + 3 + 2 and run.manifest["status"] == "complete", checked
assert run.manifest["energy"]["points"] == 2 and len(run.energy) == 6
# --residency: what the calibration reads each row's cap from
from ewbench.analysis.report.model import calibration
assert calibration.residency(run) == 5, run.manifest["settings"]
print("contract: %d values read back exactly" % checked)
PY

# Every row `ewbench ceilings` writes (its plan lists them with their
# units) is one the analysis knows, with the same unit, and the other way
# round: a new ceiling must reach validate.py, and no name lives in one of
# the two only.
"$EWBENCH" ceilings --dry-run --chip H100 >"$tmpdir/plan" ||
    fail "ceilings --dry-run failed"
"$py" - "$tmpdir/plan" <<'PY' || fail "ceilings.csv rows and validate.py disagree"
import sys
from ewbench.analysis.core import validate
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 2 and f[0] in rows:
        raise SystemExit("%s twice in the plan" % f[0])
    if len(f) >= 2 and f[1] in ("byte/s", "ns", "flop/s", "block/s"):
        rows[f[0]] = f[1]
assert rows == validate.CEILING_UNIT, (
    sorted(set(rows.items()) ^ set(validate.CEILING_UNIT.items())))
print("contract: the %d ceilings of the plan are validate.py's" % len(rows))
PY

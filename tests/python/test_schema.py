"""src/run/columns.def is the one description of the CSV files: ewbench's
writers take their headers from it (tests/contract.sh checks the rows they
write load back), the analysis its columns, and the docs describe each
column it lists."""

import os

import pytest

from ewbench.analysis.core import validate
from conftest import FIXTURE, ROOT


def test_columns_come_in_file_order():
    names = [c.name for c in validate.TIMING_COLUMNS]
    assert names[:8] == ["run_id", "variant", "op", "dtype", "n", "block",
                         "cache", "launch"]
    # schema 1 ended at check; schema 2's columns follow it
    first_added = next(c.name for c in validate.TIMING_COLUMNS if c.added)
    assert names[names.index("check") + 1] == first_added == "time_source"
    assert all(c.added for c in
               validate.TIMING_COLUMNS[names.index("check") + 1:])
    assert [c.name for c in validate.CEILINGS_COLUMNS] == [
        "run_id", "ceiling", "value", "unit", "spec_value", "method",
        "spread_pct"]


def test_an_added_column_may_be_absent_from_older_files(tmp_path):
    """ceilings.csv gained spread_pct (ADDED in columns.def): files from
    before load with it empty; a file that has it is checked; other columns
    stay required."""
    assert [c.name for c in validate.CEILINGS_COLUMNS if c.added] == [
        "spread_pct"]
    rows = ["run_id,ceiling,value,unit,spec_value,method",
            "r,dram_add,3.0e12,byte/s,3.35e12,add"]
    path = tmp_path / "ceilings.csv"
    path.write_text("\n".join(rows) + "\n")
    (_, row), = validate.read_csv(str(path), validate.CEILINGS_COLUMNS)
    assert row["spread_pct"] is None and row["value"] == 3.0e12
    path.write_text("\n".join([rows[0] + ",spread_pct",
                               rows[1] + ",0.25"]) + "\n")
    (_, row), = validate.read_csv(str(path), validate.CEILINGS_COLUMNS)
    assert row["spread_pct"] == 0.25
    path.write_text("\n".join([rows[0] + ",spread_pct",
                               rows[1] + ",-1"]) + "\n")
    with pytest.raises(validate.DataError, match=r"ceilings\.csv:2: column "
                       r"spread_pct: expected a non-negative number"):
        validate.read_csv(str(path), validate.CEILINGS_COLUMNS)
    path.write_text("run_id,ceiling,value,unit,spec_value,spread_pct\n")
    with pytest.raises(validate.DataError, match="missing: method"):
        validate.read_csv(str(path), validate.CEILINGS_COLUMNS)


def test_fixture_headers_are_the_described_columns():
    for name, columns in (("timing.csv", validate.TIMING_COLUMNS),
                          ("metrics.csv", validate.METRICS_COLUMNS)):
        with open(os.path.join(FIXTURE, name), encoding="utf-8") as f:
            header = f.readline().strip().split(",")
        # the fixture was written by schema 1: the columns added since
        # are absent, the others all there, in order
        assert header == [c.name for c in columns if not c.added]


def test_docs_describe_every_column():
    with open(os.path.join(ROOT, "docs", "data-format.md"),
              encoding="utf-8") as f:
        text = f.read()
    for columns in (validate.TIMING_COLUMNS, validate.METRICS_COLUMNS,
                    validate.CEILINGS_COLUMNS, validate.ENERGY_COLUMNS):
        for c in columns:
            assert ("| `%s` |" % c.name in text or
                    "`%s`," % c.name in text or
                    ", `%s` |" % c.name in text), c.name

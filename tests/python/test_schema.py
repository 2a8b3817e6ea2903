"""src/columns.def is the one description of the CSV files: ewbench's
writers take their headers from it (tests/contract.sh checks the rows they
write load back), the analysis its columns, and the docs describe each
column it lists."""

import os

from analysis import validate
from conftest import FIXTURE, ROOT


def test_columns_come_in_file_order():
    names = [c.name for c in validate.TIMING_COLUMNS]
    assert names[:8] == ["run_id", "variant", "op", "dtype", "n", "block",
                         "cache", "launch"]
    assert names[-1] == "check"
    assert [c.name for c in validate.CEILINGS_COLUMNS] == [
        "run_id", "ceiling", "value", "unit", "spec_value", "method"]


def test_fixture_headers_are_the_described_columns():
    for name, columns in (("timing.csv", validate.TIMING_COLUMNS),
                          ("metrics.csv", validate.METRICS_COLUMNS)):
        with open(os.path.join(FIXTURE, name), encoding="utf-8") as f:
            header = f.readline().strip().split(",")
        assert header == [c.name for c in columns]


def test_docs_describe_every_column():
    with open(os.path.join(ROOT, "docs", "data-format.md"),
              encoding="utf-8") as f:
        text = f.read()
    for columns in (validate.TIMING_COLUMNS, validate.METRICS_COLUMNS,
                    validate.CEILINGS_COLUMNS):
        for c in columns:
            assert ("| `%s` |" % c.name in text or
                    "`%s`," % c.name in text or
                    ", `%s` |" % c.name in text), c.name

"""metrics/derived.def is the one statement of the derived metrics: the
analysis reads it, and evaluating its formulas over a measured run's base
metrics gives back the derived rows ewbench wrote (so C and Python agree on
every formula), and the docs list exactly its rows."""

import math
import os

import pytest

from ewbench.analysis.core import derived
from ewbench.analysis.core import load
from ewbench.analysis.core import select
from conftest import ROOT

REFERENCE_RUNS = [os.path.join(ROOT, "reports", "reference", gpu, part)
                  for gpu in ("nvidia-h100", "nvidia-h200")
                  for part in ("article", "sweep")]
ELEMENT_BYTES = {"f32": 4, "f16": 2}
INPUTS = {"add": 2, "relu": 1, "abs": 1}


def test_table_holds_the_names_the_analysis_uses():
    for name in (select.M_BYTES_PER_INST, select.M_LD_BYTES_PER_INST,
                 select.M_DRAM_BANDWIDTH, select.M_DRAM_READ_FRACTION):
        assert name in derived.NAMES
    assert len(set(derived.NAMES)) == len(derived.NAMES)


@pytest.mark.parametrize("formula,values,expected", [
    ("1 + 2 * 3", {}, 7.0),
    ("a__b.sum / c__d.sum", {"a__b.sum": 6, "c__d.sum": 3}, 2.0),
    ("a__b.sum / c__d.sum", {"a__b.sum": 6, "c__d.sum": 0}, math.nan),
    ("first(a__b.sum, read_bytes)", {"read_bytes": 5}, 5.0),
    ("first(a__b.sum, read_bytes)", {"a__b.sum": 1, "read_bytes": 5}, 1.0),
    ("-x * 2", {"x": 3}, -6.0),
    ("100 - 100 * a / b", {"a": 1, "b": 4}, 75.0),
])
def test_evaluate(formula, values, expected):
    got = derived.evaluate(formula, values)
    assert (math.isnan(got) and math.isnan(expected)) or got == expected


@pytest.mark.parametrize("directory", [d for d in REFERENCE_RUNS
                                       if os.path.isdir(d)])
def test_python_evaluation_matches_what_ewbench_wrote(directory):
    run = load.load_run(directory)
    # A sweep counts stream launches of points it times as graphs: the
    # variant gives op and dtype, the key n.
    kinds = {p.variant: (p.op, p.dtype) for p in run.points}
    written_names = {name for metrics in run.metrics.values()
                     for name, m in metrics.items() if m.source == "derived"}
    checked = 0
    for key, metrics in run.metrics.items():
        op, dtype = kinds[key[0]]
        n = key[1]
        values = {name: m.value for name, m in metrics.items()
                  if m.source == "cupti"}
        values["read_bytes"] = n * INPUTS[op] * ELEMENT_BYTES[dtype]
        values["bytes_moved"] = n * (INPUTS[op] + 1) * ELEMENT_BYTES[dtype]
        for d in derived.TABLE:
            written = metrics.get(d.name)
            got = derived.evaluate(d.formula, values)
            if written is None:
                assert math.isnan(got), (key, d.name)
                continue
            if written.source == load.COMPLETED:
                # The run predates the row: ewbench wrote it nowhere.
                assert d.name not in written_names, (key, d.name)
                assert got == written.value
                continue
            assert written.unit == d.unit
            assert got == pytest.approx(written.value, rel=1e-5), \
                (key, d.name)
            checked += 1
    assert checked > 0


def test_docs_list_every_derived_row():
    with open(os.path.join(ROOT, "docs", "data-format.md"),
              encoding="utf-8") as f:
        text = f.read()
    for d in derived.TABLE:
        assert "| `%s` | %s |" % (d.name, d.unit) in text

"""The block launch rate and loaded-latency rows of ceilings.csv: what the
loader accepts and refuses, and what model.py makes of them."""

import os

import pytest

from ewbench.analysis.report import model
from ewbench.analysis.core import validate
from ewbench.analysis.core.load import DataError, load_run
from conftest import FIXTURE, rewrite

RUN_ID = "20261121T204512Z-fixture-h100"

# Plausible H100 numbers, made up for the test (not measurements).
BLOCK_RATES = {32: 1.70e9, 64: 1.69e9, 128: 1.68e9, 256: 1.66e9,
               512: 1.10e9, 1024: 0.55e9}
IDLE_NS = 345.0
# offered level -> (latency ns, stream bandwidth byte/s); the 100 % level
# reached less than the 50 % one, so the order by bandwidth is not the
# order of the levels.
LOADED = {"25": (380.0, 0.70e12), "50": (440.0, 1.60e12),
          "100": (520.0, 1.40e12), "200": (610.0, 2.10e12),
          "400": (700.0, 2.50e12), "full": (900.0, 2.85e12)}


def _row(name, value, unit, spread="0.5"):
    return "%s,%s,%r,%s,,method of %s,%s\n" % (RUN_ID, name, value, unit,
                                               name, spread)


def new_rows(skip=()):
    rows = [_row("dram_latency", IDLE_NS, "ns")]
    for level, (ns, bw) in LOADED.items():
        rows.append(_row(validate.loaded_latency_name(level), ns, "ns",
                         "1.5"))
        rows.append(_row(validate.loaded_bandwidth_name(level), bw,
                         "byte/s", "0.8"))
    for block, rate in BLOCK_RATES.items():
        rows.append(_row(validate.block_rate_name(block), rate, "block/s"))
    return "".join(r for r in rows if r.split(",")[1] not in skip)


def with_rows(run_copy, rows, edit=None):
    """run_copy's ceilings.csv: the fixture's, given the spread_pct column,
    plus rows (whatever the copy held before)."""
    def add(_):
        with open(os.path.join(FIXTURE, "ceilings.csv")) as f:
            lines = f.read().rstrip("\n").split("\n")
        text = "\n".join([lines[0] + ",spread_pct"] +
                         [line + "," for line in lines[1:]]) + "\n" + rows
        return edit(text) if edit else text
    rewrite(run_copy / "ceilings.csv", add)
    return run_copy


def line_of(run_copy, name):
    lines = open(run_copy / "ceilings.csv").read().split("\n")
    return 1 + next(i for i, line in enumerate(lines)
                    if line.split(",")[1:2] == [name])


def test_every_name_has_its_unit():
    assert {validate.CEILING_UNIT[validate.block_rate_name(b)]
            for b in validate.BLOCK_RATE_BLOCKS} == {"block/s"}
    for level in validate.LOAD_LEVELS:
        assert validate.CEILING_UNIT[
            validate.loaded_latency_name(level)] == "ns"
        assert validate.CEILING_UNIT[
            validate.loaded_bandwidth_name(level)] == "byte/s"
    assert "block/s" in validate.CEILING_UNITS
    assert len(set(validate.CEILING_NAMES)) == len(validate.CEILING_NAMES)


def test_new_rows_load(run_copy):
    run = load_run(str(with_rows(run_copy, new_rows())))
    for block, rate in BLOCK_RATES.items():
        bound = model.measured_block_rate(run.ceilings, block)
        assert bound.value == rate and bound.measured
        assert bound.source == "measured block_rate_b%d" % block
    assert run.ceilings["dram_latency_load50_bandwidth"].spread_pct == 0.8
    # The rows of the fixture before them load as they did.
    assert run.ceilings["dram_add"].value == 3.06e12


def test_block_rate_at_a_size_not_measured_is_none(run_copy):
    run = load_run(str(with_rows(run_copy, new_rows())))
    assert model.measured_block_rate(run.ceilings, 96) is None
    assert model.measured_block_rate(None, 256) is None
    partial = load_run(str(with_rows(
        run_copy, new_rows(skip=("block_rate_b1024",)))))
    assert model.measured_block_rate(partial.ceilings, 1024) is None
    assert model.measured_block_rate(partial.ceilings, 32).value == 1.70e9


@pytest.mark.parametrize("lone, missing", [
    ("dram_latency_load50", "dram_latency_load50_bandwidth"),
    ("dram_latency_loadfull_bandwidth", "dram_latency_loadfull")])
def test_a_loaded_latency_comes_with_its_bandwidth(run_copy, lone, missing):
    d = with_rows(run_copy, new_rows(skip=(missing,)))
    line = line_of(d, lone)
    with pytest.raises(DataError, match=r"ceilings\.csv:%d: expected a %s "
                       r"row beside %s \(ewbench ceilings writes both\), "
                       r"got none" % (line, missing, lone)):
        load_run(str(d))


def test_block_rate_unit_is_its_own(run_copy):
    d = with_rows(run_copy, new_rows(), edit=lambda t: t.replace(
        ",block_rate_b256,1660000000.0,block/s,",
        ",block_rate_b256,1660000000.0,byte/s,"))
    with pytest.raises(DataError, match=r"ceilings\.csv:%d: expected unit "
                       r"block/s for ceiling block_rate_b256, got byte/s" %
                       line_of(d, "block_rate_b256")):
        load_run(str(d))


def test_block_rate_must_be_positive(run_copy):
    d = with_rows(run_copy, new_rows(), edit=lambda t: t.replace(
        ",block_rate_b32,1700000000.0,", ",block_rate_b32,0,"))
    with pytest.raises(DataError, match=r"ceilings\.csv:%d: column value: "
                       r"expected a positive number, got '0'" %
                       line_of(d, "block_rate_b32")):
        load_run(str(d))


def test_a_block_size_not_in_the_contract_is_refused(run_copy):
    d = with_rows(run_copy, new_rows() + _row("block_rate_b96", 1.6e9,
                                              "block/s"))
    with pytest.raises(DataError, match=r"ceilings\.csv:%d: column ceiling: "
                       r"expected one of .*block_rate_b1024.*, got "
                       r"'block_rate_b96'" % line_of(d, "block_rate_b96")):
        load_run(str(d))

"""docs/analysis.md says what the code and the shipped references say
(issue 51): the thresholds table gives each constant the code's value,
and the model-error table's numbers are the references' as rendered."""

import os
import re

import pytest

from ewbench.analysis.core import study as stu
from ewbench.analysis.report import experiments as ex
from ewbench.analysis.report import model
from ewbench.analysis.report.findings import common
from ewbench.analysis.report.model import thresholds

TOP = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
DOC = os.path.join(TOP, "docs", "analysis.md")
REF = os.path.join(TOP, "reports", "reference")


def _doc():
    with open(DOC, encoding="utf-8") as f:
        return f.read()


def _section(text, heading):
    start = text.index(heading)
    end = text.index("\n#", start + len(heading))
    return text[start:end]


# constant -> (its value in the code, as the table writes it)
VALUES = {
    "MATERIAL_PCT": (thresholds.MATERIAL_PCT, "3 %"),
    "DRAM_FRACTION": (100 * thresholds.DRAM_FRACTION, "80 %"),
    "DRAM_BAND": (100 * thresholds.DRAM_BAND, "±2.5 %"),
    "CEILING_BEATEN_PCT": (thresholds.CEILING_BEATEN_PCT, "3 %"),
    "SPEC_EXCESS_PCT": (model.SPEC_EXCESS_PCT, "10 %"),
    "FIT_RESIDUAL": (100 * thresholds.FIT_RESIDUAL, "10 %"),
    "FIXED_BAND": (100 * thresholds.FIXED_BAND, "5 %"),
    "OCCUPANCY_PCT": (thresholds.OCCUPANCY_PCT, "50 %"),
    "BLOCK_LAUNCH_SHARE": (100 * thresholds.BLOCK_LAUNCH_SHARE, "90 %"),
}


def _number(cell):
    return float(re.search(r"[0-9.]+", cell).group(0))


def test_the_thresholds_table_gives_the_codes_values():
    table = _section(_doc(), "#### Thresholds: value, why")
    rows = {}
    for line in table.splitlines():
        m = re.match(r"\| `([A-Z0-9_]+)` \| ([^|]+) \|", line)
        if m:
            rows[m.group(1)] = m.group(2).strip()
    for name, (value, _) in VALUES.items():
        assert name in rows, name
        assert _number(rows[name]) == pytest.approx(value), name
    # the rows of several constants
    text = table.replace("\\|", "")
    assert "| `FIXED_SHARE`, `FIXED_COST_SHARE` | %.0f %%, %.0f %% |" % (
        100 * thresholds.FIXED_SHARE, 100 * thresholds.FIXED_COST_SHARE) in text
    assert "| `CURVE_ENOUGH`, `CURVE_TOLERANCE` | %.0f %%, ±%.0f %% |" % (
        100 * thresholds.CURVE_ENOUGH, 100 * thresholds.CURVE_TOLERANCE) in text
    assert "| `STALL_DOMINANT`, `ISSUE_BYTES_PER_INST`, `ISSUE_MARGIN`, " \
        "`ISSUE_BAND` | %.0f %%, %.0f B, %.0f %%, %.0f %% |" % (
            100 * thresholds.STALL_DOMINANT, thresholds.ISSUE_BYTES_PER_INST,
            100 * thresholds.ISSUE_MARGIN, 100 * thresholds.ISSUE_BAND) in text
    assert "| `BAND_QUANTILE` (experiments) | p%.0f " % (
        100 * ex.BAND_QUANTILE) in text


@pytest.mark.parametrize("name", ("nvidia-h100", "nvidia-h200",
                                  "nvidia-h200-cuda12.8"))
def test_the_model_error_table_is_the_references(name):
    path = os.path.join(REF, name)
    if not os.path.isdir(os.path.join(path, "experiments")):
        pytest.skip("%s is not in this tree" % name)
    sctx = common.make_context(stu.open_study(path))
    rows = {r.lever: r for r in ex.error_table(sctx.experiments)}
    table = _section(_doc(), "### Predictions scored")
    seen = 0
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != 6 or cells[0] != name:
            continue
        r = rows[cells[1]]
        after = [c.split("→")[-1].strip() for c in cells[2:]]
        assert int(after[0]) == r.count, (name, r.lever)
        assert after[1] == "%.1f %%" % r.median_pct, (name, r.lever)
        assert after[2] == "%.1f %%" % r.p90_pct, (name, r.lever)
        assert int(after[3]) == r.misses, (name, r.lever)
        seen += 1
    assert seen == 3

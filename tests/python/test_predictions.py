"""Every prediction scored (report/page/predictions.py, issue 51): on the
shipped H200 reference, every change of the experiments run is in the
CSV with its prediction, measurement and ratio, the outcomes keep their
band, and the error table counts them."""

import csv
import io
import os

import pytest

from ewbench.analysis.core import study as stu
from ewbench.analysis.report import experiments as ex
from ewbench.analysis.report.findings import common
from ewbench.analysis.report.page import predictions as pr

TOP = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
H200 = os.path.join(TOP, "reports", "reference", "nvidia-h200")


@pytest.fixture(scope="module")
def tables():
    if not os.path.isdir(os.path.join(H200, "experiments")):
        pytest.skip("the H200 reference is not in this tree")
    study = stu.open_study(H200)
    sctx = common.make_context(study)
    texts = pr.csv_texts(sctx, "NVIDIA H200")
    rows = {name: list(csv.DictReader(io.StringIO(text)))
            for name, text in texts.items()}
    return study, sctx, rows


def test_every_trial_with_a_prediction_is_a_row(tables):
    study, sctx, rows = tables
    made = [(v, t) for v, e in sctx.experiments.items() for t in e.trials
            if t.predicted is not None]
    assert len(rows[pr.PREDICTIONS_CSV]) == len(made) >= 30
    # both levers, and the block trials of the latency-bound kernels that
    # fell where the model said they would rise
    levers = {r["lever"] for r in rows[pr.PREDICTIONS_CSV]}
    assert levers == {ex.BYTES, ex.BLOCKS}
    assert any(r["verdict"] == "latency-bound" and r["lever"] == ex.BLOCKS
               and r["outcome"] == ex.REFUTED
               for r in rows[pr.PREDICTIONS_CSV])


def test_each_row_keeps_its_ratio_and_its_band(tables):
    _, _, rows = tables
    for r in rows[pr.PREDICTIONS_CSV]:
        measured = float(r["measured_bytes_per_s"])
        predicted = float(r["predicted_bytes_per_s"])
        ratio = float(r["measured_over_predicted"])
        assert ratio == pytest.approx(measured / predicted, abs=1e-3)
        band = float(r["band_pct"]) / 100
        assert r["outcome"] in ex.OUTCOMES
        if r["outcome"] == ex.CONFIRMED:
            assert abs(ratio - 1) <= band + 1e-4
        if r["outcome"] == ex.SIZE_OFF:
            assert abs(ratio - 1) > band - 1e-4
        assert ("did not bind" in r["note"]) == (ratio > 1 + band + 1e-4)


def test_the_error_table_counts_the_rows(tables):
    _, _, rows = tables
    table = {r["lever"]: r for r in rows[pr.ERROR_CSV]}
    preds = rows[pr.PREDICTIONS_CSV]
    for lever in (ex.BYTES, ex.BLOCKS):
        mine = [r for r in preds if r["lever"] == lever]
        assert int(table[lever]["predictions"]) == len(mine)
        assert int(table[lever]["not_confirmed"]) == sum(
            r["outcome"] != ex.CONFIRMED for r in mine)
    assert int(table[ex.ALL_LEVERS]["predictions"]) == len(preds)

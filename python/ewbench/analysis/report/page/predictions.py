"""Predictions scored: every change the experiments ran, predicted beside
measured (report/experiments.py), and the model's error over them."""

import csv
import io

from ...core import document as doc
from ...core import sinks
from ...core.units import gbps
from .. import experiments as exp
from ..model import calibration as cal

ANCHOR = "predictions"
TITLE = "Predictions scored"
# The two tables as CSV, beside report.md where an experiments run was
# measured (build.write_report).
PREDICTIONS_CSV = "predictions.csv"
ERROR_CSV = "model-error.csv"
CSV_FILES = (PREDICTIONS_CSV, ERROR_CSV)
PREDICTION_COLUMNS = (
    "gpu", "variant", "verdict", "lever", "change", "factor",
    "base_bytes_per_s", "predicted_bytes_per_s", "binding_roof",
    "measured_bytes_per_s", "measured_over_predicted", "band_pct",
    "outcome", "note")
ERROR_COLUMNS = ("gpu", "lever", "predictions", "median_abs_error_pct",
                 "p90_abs_error_pct", "not_confirmed", "band_pct")


def _pct(value):
    return "—" if value is None else "%.1f %%" % value


def error_rows(experiments):
    """The error table's rows: lever, predictions, median and p90 of
    |measured / predicted - 1|, and how many missed the band."""
    return tuple((r.lever, str(r.count), _pct(r.median_pct),
                  _pct(r.p90_pct), "%d of %d" % (r.misses, r.count))
                 for r in exp.error_table(experiments))


def section(sctx):
    """The section, or [] without an experiments run (build.sections)."""
    experiments = sctx.experiments
    if getattr(sctx.study, "experiments", None) is None:
        return []
    if not experiments:
        return [doc.Heading(2, TITLE, ANCHOR), doc.Paragraph(
            "The `experiments/` run measured no study variant at the "
            "article's published block and size: nothing was predicted.")]
    band = next(e.band for e in experiments.values())
    blocks = [doc.Heading(2, TITLE, ANCHOR), doc.Paragraph(
        "Every change the `experiments/` part ran, for every study "
        "variant whatever its verdict (more loads per thread: its probes; "
        "more work per block: 2x and 4x its block), with the GB/s the "
        "model predicts for it (the lowest of the DRAM ceiling, the "
        "concurrency curve at its loads in flight, never below the "
        "curve's peak past it, and the block-launch roof of its grid; the "
        "roof named is the one that binds; at a larger block, the "
        "resident threads Little's law on blocks gives: a block holds its "
        "slot until its last warp ends; a grid-stride kernel's larger "
        "block keeps its threads, and its own bandwidth) beside "
        "the GB/s measured. A prediction is confirmed when the "
        "measurement lands within %s, and it moves the predicted way "
        "(beyond the noise and %.0f %%) where the prediction moves from "
        "the base by more; direction right, size off when it moves the "
        "predicted way outside the band; refuted when it does not move "
        "the predicted way. Above the band, the roof the model said binds "
        "did not (docs/analysis.md, \"Predictions scored\")." % (
            band.text(), exp.MATERIAL_PCT)),
        doc.Table(("lever", "predictions", "median |error|", "p90 |error|",
                   "outside the band or the wrong way"),
                  error_rows(experiments))]
    calibrated = cal.calibrated(getattr(sctx.study, "calibration", ()))
    if calibrated:
        blocks.insert(2, doc.Paragraph(_calibration_text(calibrated)))
    rows = []
    for variant, t in exp.scored_trials(experiments):
        e = experiments[variant]
        rows.append((sinks.code(variant), e.verdict.name, t.kind, t.what,
                     gbps(e.base.bandwidth), gbps(t.predicted),
                     t.roof or "—", gbps(t.point.bandwidth),
                     "%.2f" % t.score.ratio, t.score.outcome +
                     ("; " + t.score.note if t.score.note else "")))
    blocks.append(doc.Table(
        ("variant", "verdict", "lever", "change", "base GB/s",
         "predicted", "binding roof", "measured", "measured / predicted",
         "outcome"), tuple(rows)))
    unscored = sorted("%s: %s" % (v, t.what) for v, e in experiments.items()
                      for t in e.trials if t.score is None)
    if unscored:
        blocks.append(doc.Paragraph(
            "Measured with no prediction (the model cannot place a "
            "grid-stride kernel's loads in flight): %s." % "; ".join(
                sinks.markdown(x) for x in unscored)))
    return blocks


def _calibration_text(calibrated):
    """Which kernels' curve is their own calibration, and what it is."""
    parts = []
    for family in sorted(calibrated):
        series = calibrated[family]
        parts.append("%s (%d rows, %.1f-%.1f KiB in flight per SM, %s-%s)"
                     % (sinks.code(family), series.rows,
                        series.levels[0].kib, series.levels[-1].kib,
                        gbps(series.levels[0].bandwidth),
                        gbps(series.levels[-1].bandwidth)))
    return ("The concurrency curve of %s and their probes is their own "
            "calibration (`calibration/`: the kernels at %s, each row at "
            "its loads in flight per SM), read as measured; every other "
            "kernel's is the ceilings' curve, scaled by its top "
            "(docs/analysis.md, \"Calibrating the concurrency curve\")." % (
                "; ".join(parts), next(iter(calibrated.values())).span))


def _csv(columns, rows):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(columns)
    w.writerows(rows)
    return out.getvalue()


def _num(value, digits):
    return "" if value is None else "%.*f" % (digits, value)


def user_scored(sctx):
    """(Experiment, Trial) of every scored prediction of a user's kernel
    (experiments.user_experiments: its block xK, and its cause's fix made
    by a generated member), each with its own band."""
    from .. import user_kernels as uk
    return tuple((e, t) for _, _, e in uk.judged(sctx) if e is not None
                 for t in e.trials if t.score is not None)


def csv_texts(sctx, gpu):
    """{file name: text} of the two CSV tables (header only without
    experiments): every scored prediction, the study's and then a user's
    kernel's, and the model's error per lever over the study's."""
    experiments = sctx.experiments
    band = next((e.band for e in experiments.values()), None)
    band_pct = _num(100 * band.width if band else None, 2)
    scored = [(e, t, band_pct) for v, t in exp.scored_trials(experiments)
              for e in (experiments[v],)]
    scored += [(e, t, _num(100 * e.band.width if e.band else None, 2))
               for e, t in user_scored(sctx)]
    rows = []
    for e, t, pct in scored:
        rows.append((gpu, e.variant, e.verdict.name, t.kind, t.what,
                     t.factor, _num(e.base.bandwidth, 0),
                     _num(t.predicted, 0), t.roof or "",
                     _num(t.point.bandwidth, 0), _num(t.score.ratio, 4),
                     pct, t.score.outcome, t.score.note))
    errors = [(gpu, r.lever, r.count, _num(r.median_pct, 2),
               _num(r.p90_pct, 2), r.misses, band_pct)
              for r in exp.error_table(experiments)] if experiments else []
    return {PREDICTIONS_CSV: _csv(PREDICTION_COLUMNS, rows),
            ERROR_CSV: _csv(ERROR_COLUMNS, errors)}

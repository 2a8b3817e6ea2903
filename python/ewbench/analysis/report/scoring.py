"""Scoring a prediction: each trial's predicted bandwidth against its
measurement, inside a two-sided Band as wide as the model's own measured
error (experiments.py says how the band is taken and what each outcome
means).  Shared by the study's experiments and a user's kernel's
(user_experiments.py)."""

from dataclasses import dataclass

import numpy as np

from ..core import compare
from . import model

MATERIAL_PCT = model.MATERIAL_PCT    # the rules' and the experiments'
# The band's width: this quantile of the model's |error| on the bases.
BAND_QUANTILE = 0.9
BAND_QUANTILE_NAME = "p90"

CONFIRMED = "confirmed"
SIZE_OFF = "direction right, size off"
REFUTED = "refuted"
OUTCOMES = (CONFIRMED, SIZE_OFF, REFUTED)
# A prediction's outcome has the same three names.
HIT, MISS = CONFIRMED, REFUTED


@dataclass(frozen=True)
class Prediction:
    value: float            # byte/s
    roof: str               # ROOFS: the one that binds


@dataclass(frozen=True)
class Band:
    """The two-sided band around a prediction inside which a measurement
    confirms it: +-width, the model's own measured error where it had
    nothing to predict but the kernel as measured (its experiments' bases,
    each predicted from its own counters at its own loads and block), at
    least MATERIAL_PCT."""
    width: float            # a fraction: 0.06 is ±6 %
    errors: tuple           # |measured / predicted - 1| of each base

    def text(self):
        return "±%.1f %%: the %s of the model's |error| on the %d " \
            "experiments' bases (each kernel as measured, predicted from " \
            "its own counters), at least %.0f %%" % (
                100 * self.width, BAND_QUANTILE_NAME, len(self.errors),
                MATERIAL_PCT)


def band_of(errors):
    """The Band of these base errors; with none, MATERIAL_PCT alone."""
    errors = tuple(sorted(errors))
    width = float(np.quantile(errors, BAND_QUANTILE)) if errors else 0.0
    return Band(max(width, MATERIAL_PCT / 100.0), errors)


@dataclass(frozen=True)
class Score:
    outcome: str            # HIT, SIZE_OFF or MISS
    ratio: float            # measured / predicted
    note: str               # "" or why (a roof that did not bind)


def _direction(pct):
    """+1, -1 or 0: a move of pct % is one beyond MATERIAL_PCT."""
    if pct > MATERIAL_PCT:
        return 1
    if pct < -MATERIAL_PCT:
        return -1
    return 0


def _moved(change):
    """+1, -1 or 0: the measured move, beyond the noise and MATERIAL_PCT."""
    if change.flag not in (compare.FASTER, compare.SLOWER):
        return 0
    return _direction(change.bandwidth_pct or 0.0)


def score(trial, base, band):
    """The Score of a trial's prediction against its measurement, or None
    without a prediction.  HIT: inside the band and, where the prediction
    moves from the base by more than MATERIAL_PCT, measured moving that
    way beyond the noise; SIZE_OFF: outside the band but moving the
    predicted way; MISS: it does not move the predicted way (or moves where
    none was predicted, beyond the band).  Above the band, the prediction's
    binding roof is named as one that did not bind."""
    if trial.predicted is None or trial.predicted <= 0:
        return None
    ratio = trial.point.bandwidth / trial.predicted
    inside = abs(ratio - 1.0) <= band.width
    wanted = _direction(100.0 * (trial.predicted / base.bandwidth - 1.0))
    moved = _moved(trial.change)
    if wanted == 0:
        outcome = HIT if inside else MISS
    elif moved == wanted:
        outcome = HIT if inside else SIZE_OFF
    else:
        outcome = MISS
    note = ""
    if ratio > 1.0 + band.width and trial.roof:
        note = "above the %s it said binds: that roof did not bind" % \
            trial.roof
    return Score(outcome, ratio, note)

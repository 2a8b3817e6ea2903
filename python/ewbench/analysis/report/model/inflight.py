"""A point's loads in flight per SM, and the occupancy they are counted
from: what places a point on the concurrency curve (curve.py) and a
calibration run's rows on theirs (calibration.py)."""

from ...core import select as sel
from .rules import MAX_SINGLE_PASS_READ_BYTES, READ_FRACTION


def kib_in_flight_per_sm(point, occupancy_pct, max_threads_per_sm):
    """Loads in flight per SM if every resident thread has all its loads
    outstanding at once: read bytes per thread x resident threads.  None
    when the shape is unknown or the threads loop over the data."""
    if not point.grid or not point.block or occupancy_pct is None \
            or not max_threads_per_sm:
        return None
    read = point.bytes_moved * READ_FRACTION.get(point.op, 0.5)
    per_thread = read / (point.grid * point.block)
    if per_thread > MAX_SINGLE_PASS_READ_BYTES:
        return None
    resident = occupancy_pct / 100.0 * max_threads_per_sm
    return per_thread * resident / 1024.0


def occupancy(run, point):
    """(pct, kind): achieved when measured, else theoretical, else None."""
    achieved = sel.metric(run, point, sel.M_OCCUPANCY)
    if achieved is not None:
        return achieved, "achieved"
    theoretical = sel.metric(run, point, sel.M_THEORETICAL_OCCUPANCY)
    if theoretical is not None:
        return theoretical, "theoretical"
    return None, "achieved"

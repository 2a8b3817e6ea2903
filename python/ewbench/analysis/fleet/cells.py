"""How a fleet report writes a value: the numbers in the units their
column headers name, deviations, clocks, NVML readings from start to end
("—" for anything absent)."""

from ..core import sinks
from ..core.units import gbps_number, size_label, us

DASH = "—"
NBSP = "\u00a0"


def value_text(value):
    """A value from the data for a cell or a sentence ("—" when absent)."""
    if value is None or value == "":
        return DASH
    return sinks.markdown(value)


def number_text(key, value):
    """A key's value in the unit its column header names."""
    if value is None:
        return DASH
    return us(value) if key.unit == "ns" else gbps_number(value)


def unit_text(key):
    return "µs" if key.unit == "ns" else "GB/s"


def deviation_text(dev):
    if dev is None:
        return DASH
    return "%+.1f %%" % dev


def mhz(value):
    return DASH if value is None else "%.0f" % value


def from_to(a, b, fmt, unit=""):
    if a is None and b is None:
        return DASH
    text = "%s → %s" % (DASH if a is None else fmt % a,
                        DASH if b is None else fmt % b)
    return text + unit


def per_cycle(value):
    if value is None:
        return DASH
    return "%.0f" % value if value >= 100 else "%.2f" % value


def hz(value):
    """A measured clock, always in MHz so two of them compare at a glance."""
    return DASH if value is None else "%.0f MHz" % (value / 1e6)


def throttle_text(reading_a, reading_b):
    """Throttle reasons seen at start or end, or '—' when not read."""
    if reading_a.throttle_reasons is None and \
            reading_b.throttle_reasons is None:
        return DASH
    names = []
    for r in (reading_a, reading_b):
        for n in r.throttle_reasons or ():
            if n not in names:
                names.append(n)
    return ", ".join(names) or "none"


def key_header(key, sizes):
    n = sizes.n.get((key.dtype, key.tier)) if key.dtype else None
    label = key.short
    if n is not None:
        label += " (%s)" % size_label(n)
    return "%s, %s" % (label, unit_text(key))

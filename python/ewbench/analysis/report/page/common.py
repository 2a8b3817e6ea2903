"""What the sections of report.md and report.html share: the figures'
folder and the helpers that format a cell (a value, a block, a share of
the spec, a ceiling) and order rows by op family and role."""

from ...core import document as doc
from ...core import variants as var
from ...core.units import gbps, us


FIGURES_DIR = doc.FIGURES_DIR


def lookup(mapping, *keys):
    """Nested lookup that tolerates missing levels; None when absent."""
    for key in keys:
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(key)
    return mapping


def cell_text(value):
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)


def block_cell(p):
    if p.block is not None:
        return str(p.block)
    return var.peer_name(p.variant) or "n/a"


def pct_spec(bandwidth, spec):
    return "%.1f %%" % (100.0 * bandwidth / spec) if spec and bandwidth \
        else "n/a"


def ceiling_value(row):
    if row.unit == "byte/s":
        return gbps(row.value)
    if row.unit == "ns":
        return "%s µs" % us(row.value)
    return "%.1f TFLOP/s" % (row.value / 1e12)


def role_order(p):
    fams = {"add": 0, "relu": 1, "abs": 2}
    return (fams.get(p.op, 9), p.dtype != "f32") + var.sort_key(p.variant)

"""The fleet report's first screen: the headline, the answers table (one
row per GPU, each number with its deviation from the fleet median), the
outlier rule, and the members that failed.  The outliers' evidence is
outliers.py's."""

from ..core import document as doc
from . import answers as fa
from .cells import (DASH, NBSP, deviation_text, key_header, number_text,
                    value_text)

ANSWERS_TABLE = "fleet-table"


def headline(judged):
    fleet = judged.fleet
    members = fleet.members
    count = len(members)
    names = ", ".join(value_text(n) for n in fleet.device_names) or \
        "no GPU loaded"
    text = "%d GPU%s (%s) on %d host%s" % (
        count, "" if count == 1 else "s", names, len(fleet.hosts),
        "" if len(fleet.hosts) == 1 else "s")
    text += ", from a fleet study (`ceilings/`, `run/`)." if fleet.is_study \
        else ", from one fleet directory."
    outliers = judged.outlier_members
    if count == 1:
        text += (" **The fleet has one GPU**: its numbers are shown, "
                 "nothing to compare them with, so no outliers.")
    elif outliers:
        text += " **%d outlier%s**: %s." % (
            len(outliers), "" if len(outliers) == 1 else "s", "; ".join(
                "%s (%s)" % (value_text(m.name), ", ".join(
                    "%s %s" % (k.short, deviation_text(
                        judged.cells[m.name][k.name].deviation_pct))
                    for k in judged.outliers(m))) for m in outliers))
    elif count:
        text += (" **No outliers**: every GPU is within ±%g %% of the fleet "
                 "median, or within the spread of its repeats, on every "
                 "number." % fa.OUTLIER_PCT)
    if fleet.failed:
        text += " **%d member%s failed** (listed below)." % (
            len(fleet.failed), "" if len(fleet.failed) == 1 else "s")
    return doc.Paragraph(text)


def _cell(judged, member, key):
    c = judged.cells[member.name][key.name]
    if c.value is None:
        return DASH
    text = number_text(key, c.value.value)
    if c.deviation_pct is not None and len(judged.fleet.members) > 1:
        text += " (%s)" % deviation_text(c.deviation_pct)
    text = text.replace(" ", NBSP)      # a cell's number stays on one line
    return "**%s**" % text if c.outlier else text


def verdict(judged, member):
    if len(judged.fleet.members) < 2:
        return "one GPU: no comparison"
    keys = judged.outliers(member)
    if not keys:
        return "ok"
    return "**outlier**: %s" % ", ".join(k.short for k in keys)


def answers_table(judged):
    header = ("GPU", "device", "host", "PCI bus", "NUMA") + tuple(
        key_header(k, judged.sizes) for k in fa.KEYS) + ("verdict",)
    rows = []
    for m in judged.fleet.members:
        p = m.place
        rows.append((value_text(m.name), value_text(m.run.device.get("name")),
                     value_text(m.host),
                     value_text(p.pci_bus_id), value_text(p.numa_node)) +
                    tuple(_cell(judged, m, k) for k in fa.KEYS) +
                    (verdict(judged, m),))
    if len(judged.fleet.members) > 1:
        rows.append(("fleet median", "", "", "", "") + tuple(
            number_text(k, judged.medians[k.name]) for k in fa.KEYS) +
            ("",))
    return doc.Table(header, tuple(rows), ANSWERS_TABLE)


def rule_text():
    return doc.Paragraph(
        "Each number is followed by its deviation from the fleet median. "
        "**Outlier**: deviation beyond ±%g %% **and** beyond %g x the "
        "per-launch spread of the point combined with the other GPUs' "
        "median spread (the noise rule, docs/analysis.md); for a ceiling "
        "the spread of its samples, and where none was recorded ±%g %% "
        "alone decides. DRAM ceiling: "
        "measured `%s`; L2: `l2_read`; launch floor: `launch_stream`. "
        "Kernel numbers: ewbench's fastest add kernel (never cub or "
        "PyTorch), warm, graph launches where measured." % (
            fa.OUTLIER_PCT, fa.SIGMAS, fa.OUTLIER_PCT, "dram_add"))


def failed_section(fleet):
    if not fleet.failed:
        return []
    items = tuple("**%s**%s: %s%s — %s" % (
        value_text(f.name), " (`%s/`)" % f.phase if f.phase else "", f.status,
        " (exit %d)" % f.exit_code if f.exit_code is not None else "",
        value_text(f.reason)) for f in fleet.failed)
    return [doc.Heading(3, "Failed members", "failed"), doc.Bullets(items)]

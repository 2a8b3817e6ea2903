"""One paragraph per outlier of a fleet: what is off, by how much, and
the counter and NVML evidence (clocks, DRAM bytes per cycle, power,
temperature, throttle reasons) with the likely causes it shows."""

from ..core import document as doc
from ..core import placement as plc
from ..core import sinks
from ..core.units import size_label
from . import answers as fa
from .cells import (DASH, deviation_text, from_to, hz, number_text,
                    per_cycle, throttle_text, unit_text, value_text)


def _pct_off(value, median):
    if value is None or not median:
        return ""
    return " (%+.1f %%)" % (100.0 * (value / median - 1))


def outlier_sentence(judged, member, clocks):
    """One paragraph: what is off, and the counter and NVML evidence."""
    p = member.place
    where = ", ".join(t for t in (
        "host %s" % value_text(member.host),
        "PCI %s" % value_text(p.pci_bus_id) if p.pci_bus_id else "",
        "NUMA node %s" % p.numa_node if p.numa_node is not None else "",
        "rank %s" % p.rank if p.rank is not None else "") if t)
    offs = []
    for k in judged.outliers(member):
        c = judged.cells[member.name][k.name]
        offs.append("%s %s %s (%s from the median %s, limit ±%.1f %%)" % (
            k.label, number_text(k, c.value.value), unit_text(k),
            deviation_text(c.deviation_pct),
            number_text(k, judged.medians[k.name]), c.threshold_pct))
    text = "**%s** (%s): %s." % (value_text(member.name), where,
                                  "; ".join(offs))
    mine = clocks[member.name]
    others = [c for name, c in clocks.items() if name != member.name]
    med_sm = fa.median_of(c.sm_hz for c in others)
    med_dram = fa.median_of(c.dram_hz for c in others)
    med_bpc = fa.median_of(c.dram_bytes_per_cycle for c in others
                         if c.cycle_source == mine.cycle_source)
    parts = []
    if mine.sm_hz is not None:
        parts.append("SM clock %s%s against a median of %s" % (
            hz(mine.sm_hz), _pct_off(mine.sm_hz, med_sm), hz(med_sm)))
    if mine.dram_hz is not None:
        parts.append("DRAM clock %s%s against %s" % (
            hz(mine.dram_hz), _pct_off(mine.dram_hz, med_dram),
            hz(med_dram)))
    if mine.dram_bytes_per_cycle is not None:
        parts.append("%s DRAM bytes per %scycle%s against %s" % (
            per_cycle(mine.dram_bytes_per_cycle), "memory-clock (NVML) "
            if mine.cycle_source == "NVML" else "DRAM ",
            _pct_off(mine.dram_bytes_per_cycle, med_bpc),
            per_cycle(med_bpc)))
    if parts and mine.point is not None:
        q = mine.point
        text += " Counters at %s@%s, %s, %s: %s." % (
            sinks.code(q.variant), value_text(q.block), size_label(q.n),
            q.cache, "; ".join(parts))
    elif mine.point is not None:
        text += " No clock counters in its metrics.csv."
    s, e = mine.start, mine.end
    nvml = []
    if s.sm_clock_mhz is not None or e.sm_clock_mhz is not None:
        nvml.append("SM clock %s MHz%s" % (
            from_to(s.sm_clock_mhz, e.sm_clock_mhz, "%.0f"),
            " (max %.0f)" % (e.max_sm_clock_mhz or s.max_sm_clock_mhz)
            if (e.max_sm_clock_mhz or s.max_sm_clock_mhz) else ""))
    if s.mem_clock_mhz is not None or e.mem_clock_mhz is not None:
        nvml.append("memory clock %s MHz%s" % (
            from_to(s.mem_clock_mhz, e.mem_clock_mhz, "%.0f"),
            " (max %.0f)" % (e.max_mem_clock_mhz or s.max_mem_clock_mhz)
            if (e.max_mem_clock_mhz or s.max_mem_clock_mhz) else ""))
    if s.power_w is not None or e.power_w is not None:
        nvml.append("power %s" % from_to(s.power_w, e.power_w, "%.0f",
                                         " W"))
    if s.temperature_c is not None or e.temperature_c is not None:
        nvml.append("temperature %s" % from_to(
            s.temperature_c, e.temperature_c, "%.0f", " °C"))
    throttle = throttle_text(s, e)
    if throttle != DASH:
        nvml.append("throttle reasons %s" % throttle)
    text += (" NVML start → end: %s." % ", ".join(nvml)) if nvml else \
        " No NVML readings in its run.json."
    causes = likely_causes(mine, med_sm, med_dram, med_bpc, clocks)
    if causes:
        text += " Likely: %s." % "; ".join(causes)
    return doc.Paragraph(text)


def likely_causes(mine, med_sm, med_dram, med_bpc, clocks):
    """Short readings of the evidence, each only where a number shows it."""
    out = []
    if mine.sm_hz and med_sm and mine.sm_hz < (1 - fa.OUTLIER_PCT / 100) \
            * med_sm:
        out.append("a lower SM clock")
    mem_mine = mine.dram_hz or _end_or_start(mine, "mem_clock_mhz")
    mem_med = med_dram or fa.median_of(
        _end_or_start(c, "mem_clock_mhz") for c in clocks.values()
        if c is not mine)
    if mem_mine and mem_med and mem_mine < (1 - fa.OUTLIER_PCT / 100) * \
            mem_med:
        out.append("a lower memory clock")
    slow = plc.slowdowns(tuple(mine.start.throttle_reasons or ()) +
                         tuple(mine.end.throttle_reasons or ()))
    if slow:
        out.append("throttled (%s)" % ", ".join(dict.fromkeys(slow)))
    if mine.dram_bytes_per_cycle and med_bpc and \
            mine.dram_bytes_per_cycle < (1 - fa.OUTLIER_PCT / 100) * med_bpc:
        out.append("fewer DRAM bytes per cycle at its clock: not the clock "
                   "alone (memory errors, row remapping, or another "
                   "process on the GPU)")
    return out


def _end_or_start(c, field):
    value = getattr(c.end, field)
    return value if value is not None else getattr(c.start, field)


def outliers_section(judged, clocks):
    members = judged.fleet.members
    blocks = [doc.Heading(3, "Outliers", "outliers")]
    if len(members) == 1:
        return blocks + [doc.Paragraph(
            "The fleet has one GPU (%s): there is no median to compare it "
            "with, so no outliers are possible. Its numbers are in the "
            "table." % members[0].name)]
    if not members:
        return blocks + [doc.Paragraph("No member has data.")]
    outliers = judged.outlier_members
    if not outliers:
        return blocks + [doc.Paragraph("None.")]
    blocks += [outlier_sentence(judged, m, clocks) for m in outliers]
    if len(members) == 2:
        blocks.append(doc.Paragraph(
            "With two GPUs the median is their mean, so both deviate by "
            "the same amount and both are flagged: the table cannot say "
            "which one is off; the evidence can."))
    return blocks

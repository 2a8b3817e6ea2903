"""report.md and report.html comparing the GPUs of a fleet.

The first screen answers: one row per GPU (sorted by host, then GPU or
rank) with where it sits, its measured ceilings and the key kernel
numbers, each with its deviation from the fleet median, and whether it is
an outlier; then one sentence per outlier with the counter and NVML
evidence (clocks, DRAM bytes per cycle, power, temperature, throttle
reasons), and the members that failed, with their reason.  The figure,
clocks, the points behind each number, the members' runs, method and
threats follow.  Missing values are "—".
"""

import os
import shlex

from ..core import atomic
from ..core import document as doc
from ..core import sinks
from . import members as flt
from . import answers as fa
from ..core import placement as plc
from ..core import study as stu
from ..core.units import gbps_number, size_label, us

DASH = "—"
NBSP = "\u00a0"
FIGURES_DIR = doc.FIGURES_DIR
FIGURE = "fleet_deviation"
ANSWERS_TABLE = "fleet-table"
SECTIONS = (("figure", "Deviation from the fleet median"),
            ("clocks", "Clocks, power and placement"),
            ("points", "The points behind each number"),
            ("members", "Members' runs"), ("method", "Method"),
            ("threats", "Threats to validity"), ("reproduce", "Reproduce"))


# formatting

def _text(value):
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


def _mhz(value):
    return DASH if value is None else "%.0f" % value


def _from_to(a, b, fmt, unit=""):
    if a is None and b is None:
        return DASH
    text = "%s → %s" % (DASH if a is None else fmt % a,
                        DASH if b is None else fmt % b)
    return text + unit


def _per_cycle(value):
    if value is None:
        return DASH
    return "%.0f" % value if value >= 100 else "%.2f" % value


def _hz(value):
    """A measured clock, always in MHz so two of them compare at a glance."""
    return DASH if value is None else "%.0f MHz" % (value / 1e6)


def _throttle(reading_a, reading_b):
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


# first screen

def headline(judged):
    fleet = judged.fleet
    members = fleet.members
    count = len(members)
    names = ", ".join(_text(n) for n in fleet.device_names) or \
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
                "%s (%s)" % (_text(m.name), ", ".join(
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
        rows.append((_text(m.name), _text(m.run.device.get("name")),
                     _text(m.host),
                     _text(p.pci_bus_id), _text(p.numa_node)) +
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


def _pct_off(value, median):
    if value is None or not median:
        return ""
    return " (%+.1f %%)" % (100.0 * (value / median - 1))


def _median_of(values):
    values = [v for v in values if v is not None]
    return fa.median_of(values) if values else None


def outlier_sentence(judged, member, clocks):
    """One paragraph: what is off, and the counter and NVML evidence."""
    p = member.place
    where = ", ".join(t for t in (
        "host %s" % _text(member.host),
        "PCI %s" % _text(p.pci_bus_id) if p.pci_bus_id else "",
        "NUMA node %s" % p.numa_node if p.numa_node is not None else "",
        "rank %s" % p.rank if p.rank is not None else "") if t)
    offs = []
    for k in judged.outliers(member):
        c = judged.cells[member.name][k.name]
        offs.append("%s %s %s (%s from the median %s, limit ±%.1f %%)" % (
            k.label, number_text(k, c.value.value), unit_text(k),
            deviation_text(c.deviation_pct),
            number_text(k, judged.medians[k.name]), c.threshold_pct))
    text = "**%s** (%s): %s." % (_text(member.name), where, "; ".join(offs))
    mine = clocks[member.name]
    others = [c for name, c in clocks.items() if name != member.name]
    med_sm = _median_of(c.sm_hz for c in others)
    med_dram = _median_of(c.dram_hz for c in others)
    med_bpc = _median_of(c.dram_bytes_per_cycle for c in others
                         if c.cycle_source == mine.cycle_source)
    parts = []
    if mine.sm_hz is not None:
        parts.append("SM clock %s%s against a median of %s" % (
            _hz(mine.sm_hz), _pct_off(mine.sm_hz, med_sm), _hz(med_sm)))
    if mine.dram_hz is not None:
        parts.append("DRAM clock %s%s against %s" % (
            _hz(mine.dram_hz), _pct_off(mine.dram_hz, med_dram),
            _hz(med_dram)))
    if mine.dram_bytes_per_cycle is not None:
        parts.append("%s DRAM bytes per %scycle%s against %s" % (
            _per_cycle(mine.dram_bytes_per_cycle), "memory-clock (NVML) "
            if mine.cycle_source == "NVML" else "DRAM ",
            _pct_off(mine.dram_bytes_per_cycle, med_bpc),
            _per_cycle(med_bpc)))
    if parts and mine.point is not None:
        q = mine.point
        text += " Counters at %s@%s, %s, %s: %s." % (
            sinks.code(q.variant), _text(q.block), size_label(q.n), q.cache,
            "; ".join(parts))
    elif mine.point is not None:
        text += " No clock counters in its metrics.csv."
    s, e = mine.start, mine.end
    nvml = []
    if s.sm_clock_mhz is not None or e.sm_clock_mhz is not None:
        nvml.append("SM clock %s MHz%s" % (
            _from_to(s.sm_clock_mhz, e.sm_clock_mhz, "%.0f"),
            " (max %.0f)" % (e.max_sm_clock_mhz or s.max_sm_clock_mhz)
            if (e.max_sm_clock_mhz or s.max_sm_clock_mhz) else ""))
    if s.mem_clock_mhz is not None or e.mem_clock_mhz is not None:
        nvml.append("memory clock %s MHz%s" % (
            _from_to(s.mem_clock_mhz, e.mem_clock_mhz, "%.0f"),
            " (max %.0f)" % (e.max_mem_clock_mhz or s.max_mem_clock_mhz)
            if (e.max_mem_clock_mhz or s.max_mem_clock_mhz) else ""))
    if s.power_w is not None or e.power_w is not None:
        nvml.append("power %s" % _from_to(s.power_w, e.power_w, "%.0f",
                                          " W"))
    if s.temperature_c is not None or e.temperature_c is not None:
        nvml.append("temperature %s" % _from_to(
            s.temperature_c, e.temperature_c, "%.0f", " °C"))
    throttle = _throttle(s, e)
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
    mem_med = med_dram or _median_of(
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


def failed_section(fleet):
    if not fleet.failed:
        return []
    items = tuple("**%s**%s: %s%s — %s" % (
        _text(f.name), " (`%s/`)" % f.phase if f.phase else "", f.status,
        " (exit %d)" % f.exit_code if f.exit_code is not None else "",
        _text(f.reason)) for f in fleet.failed)
    return [doc.Heading(3, "Failed members", "failed"), doc.Bullets(items)]


# sections

def figure_section(figure):
    blocks = [doc.Heading(2, "Deviation from the fleet median", "figure")]
    if not figure:
        return blocks + [doc.Paragraph("Nothing to draw: fewer than two "
                                       "GPUs with numbers.")]
    png, svg = figure
    return blocks + [doc.Image(
        os.path.join(FIGURES_DIR, os.path.basename(png)),
        "Deviation of each GPU from the fleet median",
        "One panel per number, one row per GPU (sorted by host, then GPU "
        "or rank): the deviation from the fleet median in %%. The grey "
        "band is ±%g %%; red diamonds are outliers (beyond the band and "
        "the spread), blue dots the others; a thin bar is each point's "
        "noise limit where it is wider than the band. Each panel's title "
        "says which way is faster (bandwidths: right; the launch floor: "
        "left)." %
        fa.OUTLIER_PCT, os.path.join(FIGURES_DIR, os.path.basename(svg)),
        "figure-deviation")]


def clocks_section(judged, clocks):
    rows = []
    for m in judged.fleet.members:
        c = clocks[m.name]
        p = m.place
        s, e = c.start, c.end
        rows.append((
            _text(m.name), _text(p.launcher),
            "/".join(_text(v) for v in (p.rank, p.local_rank, p.node)),
            _hz(c.sm_hz), _hz(c.dram_hz),
            DASH if c.dram_bytes_per_cycle is None else "%s%s" % (
                _per_cycle(c.dram_bytes_per_cycle), " (NVML)"
                if c.cycle_source == "NVML" else ""),
            _from_to(s.sm_clock_mhz, e.sm_clock_mhz, "%.0f"),
            _mhz(e.max_sm_clock_mhz or s.max_sm_clock_mhz),
            _from_to(s.mem_clock_mhz, e.mem_clock_mhz, "%.0f"),
            _from_to(s.power_w, e.power_w, "%.0f"),
            _from_to(s.temperature_c, e.temperature_c, "%.0f"),
            _throttle(s, e)))
    return [doc.Heading(2, "Clocks, power and placement", "clocks"),
            doc.Paragraph(
                "Counters: `%s` and `%s` of each GPU's add f32 point at the "
                "DRAM size (f16 where f32 is missing); DRAM bytes per cycle "
                "= (DRAM bytes read + written) / (kernel time x DRAM "
                "clock), with NVML's memory clock where the DRAM clock "
                "counter is missing (marked). NVML: readings at the run's "
                "start and end, from run.json." % (fa.M_SM_HZ,
                                                   fa.M_DRAM_HZ)),
            doc.Table(("GPU", "launcher", "rank/local/node",
                       "SM clock (counters)", "DRAM clock (counters)",
                       "DRAM B/cycle", "NVML SM MHz", "max SM MHz",
                       "NVML memory MHz", "power W", "temperature °C",
                       "throttle reasons"), tuple(rows))]


def points_section(judged):
    rows = []
    for m in judged.fleet.members:
        cells = judged.cells[m.name]
        rows.append((_text(m.name),) + tuple(
            DASH if cells[k.name].value is None else "%s%s" % (
                cells[k.name].value.source,
                " ±%.1f %%" % cells[k.name].value.spread_pct
                if cells[k.name].value.spread_pct is not None else "")
            for k in fa.KEYS))
    sizes = ", ".join("%s %s: %s (%s)" % (
        dtype, tier, size_label(n), judged.sizes.how.get((dtype, tier), ""))
        for (dtype, tier), n in sorted(judged.sizes.n.items()))
    return [doc.Heading(2, "The points behind each number", "points"),
            doc.Paragraph("Sizes, chosen once for the fleet (the size most "
                          "members chose): %s. Each cell names the ceiling "
                          "or the fastest kernel@block, and the point's "
                          "per-launch spread." % (sizes or "none")),
            doc.Details("Per GPU and number (%d rows)" % len(rows), (
                doc.Table(("GPU",) + tuple(k.label for k in fa.KEYS),
                          tuple(rows)),))]


def members_section(fleet):
    rows = []
    for m in fleet.members:
        man = m.run.manifest
        rows.append((_text(m.name), sinks.code(m.run.run_id),
                     ", ".join("`%s/`" % p for p in m.phases if p) or
                     sinks.code(m.name + "/"), _text(man.get("status")),
                     _text(man.get("started_utc")),
                     _text((man.get("tool") or {}).get("git_revision")),
                     _text(m.run.device.get("uuid"))))
    return [doc.Heading(2, "Members' runs", "members"),
            doc.Details("%d members" % len(rows), (doc.Table(
                ("GPU", "run id", "phases", "status", "started (UTC)",
                 "git", "device uuid"), tuple(rows)),))]


def method_section(fleet):
    items = [
        "Members: the subdirectories holding run.json of the fleet "
        "directory, or of `ceilings/` and `run/` in a fleet study, matched "
        "by name; fleet.json (written by `ewbench run --device all`) names "
        "the members that failed. Sorted by host, then GPU or rank.",
        "Fleet median: the median over the GPUs that have the number; "
        "deviation = 100 x (value / median - 1).",
        "Outlier: |deviation| > max(%g %%, %g x sqrt(spread² + median "
        "spread of the others²)), spread = per-launch scatter in %% of the "
        "median (`noise.spread_pct`: standard deviation, or (max - min) / "
        "4; warm graph rows scaled to single launches). Ceilings have no "
        "recorded spread: ±%g %% alone." % (fa.OUTLIER_PCT, fa.SIGMAS,
                                           fa.OUTLIER_PCT),
        "Kernel numbers: the fastest ewbench add kernel (study variants and "
        "additions; cub and PyTorch excluded) at the size, warm where "
        "measured, graph launches where measured. The DRAM size and the "
        "L2 size come from `--preset tiers` size choices when the run has "
        "them, else the largest size at least %gx the L2 and the largest "
        "whose footprint fits in half the L2." % fa.DRAM_FACTOR,
    ]
    return [doc.Heading(2, "Method", "method"), doc.Bullets(tuple(items))]


def threats_section(fleet):
    items = []
    if fleet.is_fixture:
        items.append("**This fleet is a fixture: its numbers are synthetic, "
                     "not measurements.**")
    if len(fleet.device_names) > 1:
        items.append("**Different GPU models** (%s): deviations mix board "
                     "differences with model differences." %
                     ", ".join(_text(n) for n in fleet.device_names))
    revisions = {(m.run.manifest.get("tool") or {}).get("git_revision")
                 for m in fleet.members}
    if len(revisions) > 1:
        items.append("The members ran different ewbench builds (%s)." %
                     ", ".join(sorted(_text(r) for r in revisions)))
    for m in fleet.members:
        if m.status not in (None, "complete"):
            items.append("%s is `%s`: some points may be missing." % (
                sinks.code(m.name), m.status))
    items += [
        "Clocks were not locked: boost and temperature move bandwidth by a "
        "few percent between runs of one GPU, so a GPU near the band may "
        "swap sides on a second run; repeat before replacing hardware.",
        "GPUs of one node measured at the same time share the host's "
        "memory and PCIe; DRAM numbers are device-local and are not.",
    ]
    return [doc.Heading(2, "Threats to validity", "threats"),
            doc.Bullets(tuple(items))]


def reproduce_section(fleet):
    lines = ["# PARENT = the fleet directory; on a machine with the GPUs:",
             "make fleet", ""]
    for phase, man in sorted(fleet.manifests.items(),
                             key=lambda kv: str(kv[0])):
        argv = [str(a) for a in man.get("argv") or []][1:]
        if argv:
            out = "PARENT/%s" % phase if phase else "PARENT"
            argv = [out if i > 0 and argv[i - 1] in ("-o", "--out") else a
                    for i, a in enumerate(argv)]
            lines.append("# %s" % ("%s/" % phase if phase else "fleet"))
            lines.append("ewbench " + " ".join(shlex.quote(a)
                                               for a in argv))
    if not lines and fleet.members:
        argv = fleet.members[0].run.manifest.get("argv") or []
        lines.append("# one member's command")
        lines.append("ewbench " + " ".join(shlex.quote(str(a))
                                           for a in argv))
    lines.append("ewbench fleet-report PARENT")
    return [doc.Heading(2, "Reproduce", "reproduce"),
            doc.Code("\n".join(lines))]


def build_document(judged, figure):
    fleet = judged.fleet
    clocks = fa.fleet_clocks(judged)
    title = "ewbench fleet: %d GPU%s" % (len(fleet.members), "" if len(
        fleet.members) == 1 else "s")
    blocks = [doc.Heading(1, title)]
    if fleet.is_fixture:
        blocks.append(doc.Banner("FIXTURE DATA: synthetic numbers for tests, "
                                 "not a measurement."))
    reference = stu.reference_text(
        fleet.path, [m.run for m in fleet.members], "a fleet of %d %s "
        "GPU%s" % (len(fleet.members), " and ".join(fleet.device_names),
                   "" if len(fleet.members) == 1 else "s"))
    if reference:
        blocks.append(doc.Banner(reference))
    blocks.append(headline(judged))
    blocks.append(doc.Heading(2, "Answers", "answers"))
    if fleet.members:
        blocks.append(answers_table(judged))
    if len(fleet.members) > 1:
        blocks.append(rule_text())
    blocks += outliers_section(judged, clocks)
    blocks += failed_section(fleet)
    blocks.append(doc.Heading(2, "Contents", "contents"))
    blocks.append(doc.Toc(SECTIONS))
    blocks += figure_section(figure)
    blocks += clocks_section(judged, clocks)
    blocks += points_section(judged)
    blocks += members_section(fleet)
    blocks += method_section(fleet)
    blocks += threats_section(fleet)
    blocks += reproduce_section(fleet)
    return title, blocks


FILES = doc.report_files((FIGURE,))


def unclaimed(outdir, fleet_path):
    """Why outdir may not be written (None when it may): never the fleet
    directory itself, and otherwise atomic.unclaimed's rule, the one
    every analysis command keeps: new, empty, or holding only what a
    fleet report writes (a member or a run directory holds run.json)."""
    if os.path.abspath(outdir) == os.path.abspath(fleet_path):
        return "it is the fleet directory itself"
    return atomic.unclaimed(outdir, FILES)


def write_report(judged, outdir, plot_fleet):
    """Draw the figure (plot_fleet(judged, dir) -> [png, svg] or None),
    write report.md and report.html into outdir; the PNG lives only
    inside the HTML.  Rendered whole into a fresh directory and swapped
    in (atomic.rendering), as `ewbench report` is: a render that fails or
    is interrupted part way leaves the previous report exactly as it
    was."""
    with atomic.rendering(outdir, doc.REPORT_OUTPUTS, FILES) as staged:
        figures_dir = os.path.join(staged, FIGURES_DIR)
        atomic.make_dirs(figures_dir)
        figure = plot_fleet(judged, figures_dir)
        title, blocks = build_document(judged, figure)
        doc.write_report(staged, blocks, title, figure[:1] if figure else ())
    return (os.path.join(outdir, "report.md"),
            os.path.join(outdir, "report.html"))

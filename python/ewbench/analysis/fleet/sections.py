"""The fleet report's sections after its contents: the deviation figure,
clocks, power and placement, the points behind each number, the members'
runs, method, threats to validity and how to reproduce it."""

import os
import shlex

from ..core import document as doc
from ..core import sinks
from ..core.units import size_label
from . import answers as fa
from .cells import DASH, from_to, hz, mhz, per_cycle, throttle_text, value_text

FIGURES_DIR = doc.FIGURES_DIR


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
            value_text(m.name), value_text(p.launcher),
            "/".join(value_text(v) for v in (p.rank, p.local_rank, p.node)),
            hz(c.sm_hz), hz(c.dram_hz),
            DASH if c.dram_bytes_per_cycle is None else "%s%s" % (
                per_cycle(c.dram_bytes_per_cycle), " (NVML)"
                if c.cycle_source == "NVML" else ""),
            from_to(s.sm_clock_mhz, e.sm_clock_mhz, "%.0f"),
            mhz(e.max_sm_clock_mhz or s.max_sm_clock_mhz),
            from_to(s.mem_clock_mhz, e.mem_clock_mhz, "%.0f"),
            from_to(s.power_w, e.power_w, "%.0f"),
            from_to(s.temperature_c, e.temperature_c, "%.0f"),
            throttle_text(s, e)))
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
        rows.append((value_text(m.name),) + tuple(
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
        rows.append((value_text(m.name), sinks.code(m.run.run_id),
                     ", ".join("`%s/`" % p for p in m.phases if p) or
                     sinks.code(m.name + "/"), value_text(man.get("status")),
                     value_text(man.get("started_utc")),
                     value_text((man.get("tool") or {}).get("git_revision")),
                     value_text(m.run.device.get("uuid"))))
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
                     ", ".join(value_text(n) for n in fleet.device_names))
    revisions = {(m.run.manifest.get("tool") or {}).get("git_revision")
                 for m in fleet.members}
    if len(revisions) > 1:
        items.append("The members ran different ewbench builds (%s)." %
                     ", ".join(sorted(value_text(r) for r in revisions)))
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

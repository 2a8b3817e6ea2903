"""What a study could not measure on its GPU, and what that leaves
undecided (docs/analysis.md, "Metrics a GPU does not have").

ewbench resolves every entry of a metric set (metrics/<set>.txt) on the
GPU's chip: an entry lists the names a quantity goes by on different
chips, metrics.csv keeps the first (the meaning), and an entry the chip
has no name for is left out of the run, with the reason, in run.json
`counters.left_out` (e.g. every `dram__*` on an integrated Jetson-class
chip, the `imc_miss` stall reason on GB202 and GB100).  A part whose
counters were `off` or `unavailable` measured none.

USES is the one table of what the analysis reads from metrics.csv and
which conclusion reads it: a finding, the bottleneck verdicts, a figure,
a threat.  A finding's uses are its own (the `needs` of its spec in
findings/, listed first, in the findings' order); the others are listed
here.  Each use (uses.Use) names the parts whose counters it reads (the first
present, as the judges pick their part) and what it needs, as
alternatives best first; derived metrics are resolved to the measured
metrics they cannot do without through metrics/derived.def
(derived.INPUTS), so no second copy of a formula lives here.  A gap then
leaves a use *undecided* (no alternative measured: the rule cannot fire,
the finding is not testable, the series is not drawn) or *weaker* (a
later alternative, or the timing, stands in).

Warp stall reasons are one quantity, the shares: select.stall_shares
takes them over the reasons present, so a reason the chip lacks leaves
the others summing to 100 % of the stall cycles and nothing undecided;
the report says over how many reasons they were taken.
"""

from dataclasses import dataclass
from typing import Optional

from ..core import derived
from ..core import document as doc
from . import model
from .model import faults
from ..core import select as sel
from ..core import sinks
from ..core import study as stu
from .findings import registry
from .uses import (DECIDING, EVIDENCE, FIGURE, L2_PARTS, STALL_FAMILY,
                   THREAT, UNDECIDED, VERDICT, VERDICT_PARTS, WEAKER, Use)

STALL_ISSUED = "selected"           # the warp that issued: not a stall

ANCHOR = "not-measured"
TITLE = "Not measured on this GPU"


_DRAM_BYTES = ((sel.M_DRAM_READ, sel.M_DRAM_WRITE), (sel.M_DRAM_BYTES,))
_L2_BYTES = ((sel.M_L2_BYTES,), sel.M_L2_SECTORS)
_L1_BYTES = ((sel.M_L1_BYTES,), sel.M_L1_GLOBAL_BYTES)
_L2_SECTORS = "the L2 read and write sectors x 32 B stand in for `%s`" % \
    sel.M_L2_BYTES

# The findings' own uses (each finding's spec lists them), first, in the
# findings' order; then the verdicts', the figures' and the threats'.
USES = tuple(use for spec in registry.FINDINGS for use in spec.needs) + (
    Use("L2-bound verdicts", VERDICT, VERDICT_PARTS, _DRAM_BYTES,
        "L2-bound only by a bandwidth above the DRAM ceiling: the DRAM "
        "bytes test (< %.0f %% of bytes moved) cannot fire" %
        (100 * model.L2_DRAM_FRACTION), WEAKER),
    Use("occupancy-bound verdicts", VERDICT,
        VERDICT_PARTS, ((sel.M_OCCUPANCY,), (sel.M_THEORETICAL_OCCUPANCY,)),
        "cannot fire, and loads in flight per SM (latency-bound by Little's "
        "law) are not estimated",
        fallback="the theoretical occupancy (occupancy API) stands in for "
                 "the achieved"),
    Use("access faults of a user's kernel (uncoalesced, misaligned)",
        VERDICT, VERDICT_PARTS, (
            (faults.SECTORS["loads"], faults.REQUESTS["loads"]),
            (faults.SECTORS["stores"],
             faults.REQUESTS["stores"])),
        "cannot fire: sectors per request are not measured",
        fallback="the stores' sectors per request alone"),
    Use("issue-bound verdicts by bytes per instruction", VERDICT,
        VERDICT_PARTS, ((sel.M_BYTES_PER_INST,),),
        "the bytes-per-issued-instruction test cannot fire"),
    Use("stall rules of the latency-bound and issue-bound verdicts",
        VERDICT, (stu.STALLS, stu.ARTICLE), ((STALL_FAMILY,),),
        "cannot fire, and the shortfalls table has no top stall reason"),
    Use("cache-tier figure", FIGURE, L2_PARTS,
        ((sel.M_DRAM_READ_FRACTION,),),
        "drawn without the share of reads served by L2", WEAKER),
    Use("DRAM-share figure", FIGURE, VERDICT_PARTS, _DRAM_BYTES,
        "no DRAM bytes beside the share", WEAKER),
    Use("DRAM-share figure", FIGURE, VERDICT_PARTS, _L2_BYTES,
        "no L2 bytes beside the share", WEAKER, fallback=_L2_SECTORS),
    Use("DRAM-share figure's L2 count", EVIDENCE, VERDICT_PARTS,
        ((sel.M_L2_READ_SECTORS, sel.M_L2_WRITE_SECTORS),),
        "the L2 bytes are not split into reads and writes", WEAKER),
    Use("DRAM-share figure's L2 count", EVIDENCE, VERDICT_PARTS,
        ((sel.M_L2_FABRIC_SECTORS,),),
        "the L2 bytes' 1.5x is not tested against the sectors that crossed "
        "the fabric between the L2's partitions (the partition "
        "hypothesis stays untested)", WEAKER),
    Use("DRAM-share figure", FIGURE, VERDICT_PARTS, _L1_BYTES,
        "no L1 bytes beside the share", WEAKER),
    Use("hierarchical roofline", FIGURE, L2_PARTS, _DRAM_BYTES,
        "drawn without its DRAM level", WEAKER),
    Use("hierarchical roofline", FIGURE, L2_PARTS, _L2_BYTES,
        "drawn without its L2 level", WEAKER, fallback=_L2_SECTORS),
    Use("hierarchical roofline", FIGURE, L2_PARTS, _L1_BYTES,
        "drawn without its L1 level", WEAKER),
    Use("concurrency figure", FIGURE, VERDICT_PARTS,
        ((sel.M_OCCUPANCY,), (sel.M_THEORETICAL_OCCUPANCY,)),
        "the study's variants are not placed on the curve (no loads in "
        "flight per SM without an occupancy)", WEAKER,
        fallback="the theoretical occupancy (occupancy API) stands in for "
                 "the achieved"),
    Use("concurrency figure", FIGURE, VERDICT_PARTS,
        ((sel.M_LD_REQUESTED_BYTES_PER_INST,),),
        "the study's variants are placed on the curve of 128-byte requests "
        "(their own request size unknown)", WEAKER),
    Use("instruction figure", FIGURE, VERDICT_PARTS,
        ((sel.M_BYTES_PER_INST,),), "not drawn"),
    Use("instruction figure", FIGURE, VERDICT_PARTS,
        ((sel.M_LD_REQUESTED_BYTES_PER_INST,),),
        "no requested bytes per load instruction", WEAKER),
    Use("evidence of findings 2 and 3 and the shortfalls table", EVIDENCE,
        VERDICT_PARTS, ((sel.M_BYTES_PER_INST,),),
        "no bytes per issued instruction", WEAKER),
    Use("evidence of findings 2 and 3", EVIDENCE,
        VERDICT_PARTS, ((sel.M_REGISTERS,),),
        "no registers per thread", WEAKER),
    Use("rows above the DRAM ceiling (threats)", THREAT, stu.PARTS,
        ((sel.M_DRAM_WRITE,),),
        "cannot be told apart as writes left in L2: called not explained, "
        "and warm-slower-than-cold kernels have no DRAM writes to show why",
        every=True),
)


def reads():
    """Every name the table says the analysis reads."""
    return {n for use in USES for n in use.names}


def is_stall(name):
    return name.startswith(sel.STALL_PREFIX) and \
        name.endswith(sel.STALL_SUFFIX) and name != STALL_FAMILY


def feeds(metric):
    """The names the analysis reads that a measured metric feeds: itself,
    the derived metrics that cannot do without it, the stall shares."""
    out = {metric} | {d for d, inputs in derived.INPUTS.items()
                      if metric in inputs}
    if is_stall(metric):
        out.add(STALL_FAMILY)
    return out


def stall_reasons(run):
    """The warp stall reasons (issued warps aside) in a run's metrics."""
    return {name[len(sel.STALL_PREFIX):-len(sel.STALL_SUFFIX)]
            for values in (run.metrics or {}).values() for name in values
            if is_stall(name)} - {STALL_ISSUED}


def measured(run, name):
    if name == STALL_FAMILY:
        return bool(stall_reasons(run))
    return sel.has_metric(run, name)


def effect(use, run):
    """(severity, text) of what becomes of a use with this run's metrics;
    None where it stands as it is."""
    if use.applies is not None and not use.applies(run):
        return None
    served = [all(measured(run, n) for n in alt) for alt in use.needs]
    if served[0]:
        return None
    if any(served):
        return WEAKER, use.fallback
    return use.severity, use.without


def reading_parts(study, use):
    """The parts of the study whose counters the use reads."""
    present = [p for p in use.parts if p in study.runs]
    return present if use.every else present[:1]


@dataclass(frozen=True)
class Effect:
    use: Use
    severity: str
    text: str


@dataclass(frozen=True)
class Gap:
    metric: Optional[str]   # None: the part measured no counters at all
    reason: str
    parts: tuple
    effects: tuple          # (Effect, ...)
    stall_reasons: int = 0  # a left-out stall reason: how many remain

    def of(self, severity, kinds=None):
        return [e for e in self.effects if e.severity == severity and
                (kinds is None or e.use.kind in kinds)]


def _effects(study, parts, touches):
    out = []
    for use in USES:
        for part in reading_parts(study, use):
            if part not in parts or not touches(use):
                continue
            found = effect(use, study.runs[part])
            if found is not None and Effect(use, *found) not in out:
                out.append(Effect(use, *found))
    return tuple(out)


def survey(study):
    """[Gap]: every metric a part of the study left out (grouped over the
    parts with the same reason), then every part without counters whose
    counters a conclusion reads; [] when nothing is missing."""
    left = {}
    for part in stu.PARTS:
        run = study.run(part)
        if run is None:
            continue
        for metric, reason in run.left_out:
            left.setdefault((metric, reason or "no reason given"),
                            []).append(part)
    gaps = []
    for (metric, reason), parts in left.items():
        names = feeds(metric)
        effects = _effects(study, parts,
                           lambda use: bool(use.names & names))
        remain = 0
        if is_stall(metric):
            remain = max(len(stall_reasons(study.runs[p])) for p in parts)
        gaps.append(Gap(metric, reason, tuple(parts), effects, remain))
    for part in stu.PARTS:
        run = study.run(part)
        if run is None or run.counter_status not in ("off", "unavailable"):
            continue
        effects = _effects(study, (part,), lambda use: not use.every)
        if effects:
            reason = "counters %s%s" % (
                run.counter_status, ": " + run.counters["reason"]
                if run.counters.get("reason") else "")
            gaps.append(Gap(None, reason, (part,), effects))
    return gaps


# report blocks

def _parts(parts):
    return ", ".join("`%s/`" % p for p in parts)


def _what(gap):
    return sinks.code(gap.metric) if gap.metric else "every counter"


def _list(effects):
    """'what: text, text; what: text', one entry per conclusion."""
    said = {}
    for e in effects:
        said.setdefault(e.use.what, []).append(e.text)
    return "; ".join("%s: %s" % (what, ", ".join(texts))
                     for what, texts in said.items())


def _uses(effects):
    return ", ".join(dict.fromkeys(e.use.what for e in effects))


def stall_note(gap):
    return ("nothing: the warp stall shares are taken over the %d reasons "
            "this chip has, which still sum to 100 %% of the stall cycles" %
            gap.stall_reasons)


def first_screen(gaps):
    """One paragraph for the first screen when a gap touches what a
    finding or a bottleneck verdict uses; [] otherwise."""
    items = []
    for gap in gaps:
        undecided = gap.of(UNDECIDED, DECIDING)
        weaker = gap.of(WEAKER, DECIDING)
        if not undecided and not weaker:
            continue
        said = [x for x in ("undecided: " + _uses(undecided)
                            if undecided else "",
                            "weaker: " + _uses(weaker) if weaker else "")
                if x]
        items.append("%s in %s (%s) leaves %s" % (
            _what(gap), _parts(gap.parts), gap.reason, "; ".join(said)))
    if not items:
        return []
    return [doc.Paragraph("**%s**: %s. What each gap leaves: [%s](#%s)." % (
        TITLE, " — ".join(items), TITLE, ANCHOR))]


def section(gaps, runs=()):
    """The Method part's subsection: metric, parts, reason, and what it
    leaves undecided or weaker; [] when nothing is missing.  runs: the
    study's runs, for the names this chip collected entries under."""
    if not gaps:
        return []
    rows = []
    for gap in gaps:
        undecided = gap.of(UNDECIDED)
        gone = {e.use.what for e in undecided}
        weaker = [e for e in gap.of(WEAKER) if e.use.what not in gone]
        if gap.metric and is_stall(gap.metric) and not undecided:
            first = stall_note(gap)
        elif not gap.effects and gap.metric and \
                not feeds(gap.metric) & reads():
            first = "nothing: the analysis does not read it"
        else:
            first = _list(undecided) or "nothing"
        rows.append((_what(gap), _parts(gap.parts), gap.reason, first,
                     _list(weaker) or "-"))
    blocks = [doc.Heading(3, TITLE, ANCHOR), doc.Paragraph(
        "ewbench resolves each entry of a metric set on the GPU's chip; "
        "an entry the chip has no counter for is left out of the run with "
        "its reason (run.json `counters.left_out`), and a part with "
        "counters off or unavailable measured none. What each leaves "
        "undecided (the rule cannot fire, the finding is not testable, "
        "nothing is drawn) or weaker (something else stands in), from the "
        "analysis's one table of what reads each metric "
        "(`python/ewbench/analysis/report/unmeasured.py`):"),
        doc.Table(("metric", "part", "reason", "leaves undecided",
                   "leaves weaker"), tuple(rows))]
    aliases = {}
    for run in runs:
        for meaning, name in sorted(run.collected.items()):
            if name != meaning:
                aliases[meaning] = name
    if aliases:
        blocks.append(doc.Paragraph(
            "Collected under this chip's own names (metrics.csv keeps the "
            "first name of each entry): %s." % ", ".join(
                "%s as %s" % (sinks.code(k), sinks.code(v))
                for k, v in sorted(aliases.items()))))
    return blocks

"""The contest as a document (Markdown, through document.py) and as JSON
for scripts (`ewbench contest --json`): who is fastest per
(dtype, n, cache, launch), by how much, and whether the margin is beyond
the noise (the rounds' spread, at least the GPU's cross-host spread),
with how many configurations the best was chosen from and its margin
scored on rounds it was not chosen on.  Facts only: a project's goals are
judged on the JSON by its own scripts (scripts/contest-goals.py)."""

from . import rank as ct
from ..core import document as doc
from ..core import noise
from ..core import sinks
from ..core.units import gbps_number, pct, size_label

TOP = 3                     # ewbench entries shown per contest
JSON_SCHEMA = "ewbench-contest/1"

VERDICT = {ct.AHEAD: "ewbench ahead", ct.BEHIND: "%s ahead",
           ct.LEVEL: "level: within the noise", ct.NO_PEER: "no peer"}


def spread_text(e):
    if e.spread_pct is None:
        return "unknown"
    return "%.2f %%" % e.spread_pct


def verdict_text(c):
    m = c.margin
    text = VERDICT[m.standing]
    return text % sinks.markdown(c.peer.variant) \
        if m.standing == ct.BEHIND else text


def _row(rank, e, peer, spec):
    return (str(rank), sinks.markdown(e.variant),
            "" if e.origin != ct.EWBENCH or e.block is None else str(e.block),
            gbps_number(e.bandwidth),
            pct(100 * e.bandwidth / spec) if spec else "n/a",
            spread_text(e),
            "n/a" if peer is None else "%.3fx" % (e.bandwidth /
                                                  peer.bandwidth))


def held_out_text(c):
    """'+0.9 % (add_f32_tma_st@768 chosen in 3 of 3 rounds)', or 'n/a'."""
    h = c.held_out
    if h is None:
        return "n/a"
    # The most chosen; a tie goes to the first round's (no set: its order
    # moves with the interpreter's string hashing).
    top = max(h.chosen, key=h.chosen.count)
    return "%+.1f %% (%s chosen in %d of %d rounds)" % (
        h.margin_pct, top, h.chosen.count(top), len(h.chosen))


def summary_line(c):
    best, peer, m = c.best, c.peer, c.margin
    if peer is None:
        return "best %s: no cub or torch entry here; nothing to compare." % (
            sinks.markdown(best.label))
    text = "best %s, of %d configurations, is %+.1f %% vs the faster peer " \
        "(%s); noise limit ±%.2f %%: %s." % (
            sinks.markdown(best.label), c.searched, m.margin_pct,
            sinks.markdown(peer.variant), m.limit_pct, verdict_text(c))
    if c.held_out is not None:
        text += " Scored on the rounds it was not chosen on: %s: %s." % (
            held_out_text(c), VERDICT[c.held_out.standing] %
            sinks.markdown(peer.variant)
            if c.held_out.standing == ct.BEHIND else
            VERDICT[c.held_out.standing])
    return text


def _title(c):
    return "%s add, n = %s (%s), %s, %s" % (
        c.dtype, size_label(c.n), c.tier_label, c.cache, c.launch)


def build_document(runs, notes, found):
    """(title, blocks) of the contest."""
    spec = runs[0].spec_dram_bandwidth
    blocks = [doc.Heading(1, "ewbench contest")]
    if any(run.is_fixture for run in runs):
        blocks.append(doc.Banner("FIXTURE DATA: synthetic numbers for "
                                 "tests, not a measurement."))
    items = ["device: %s; spec DRAM bandwidth %s" % (
        sinks.markdown(runs[0].device.get("name") or "unknown"),
        "%s GB/s (run.json)" % gbps_number(spec) if spec else "unknown"),
        "repeats: R = %d (interleaved runs of one plan)" % len(runs)]
    items += ["round %d: %s (%s)" % (i, sinks.code(run.run_id),
                                     sinks.markdown(run.path))
              for i, run in enumerate(runs, 1)]
    items += ["per point: median over runs of bytes moved / median time; "
              "spread = standard deviation of the per-run bandwidths, in % "
              "of their median",
              "margin = best ewbench / faster peer - 1; beyond the noise "
              "when |margin| > max(%g x sqrt(spread_best² + spread_peer²), "
              "floor) (the noise rule, docs/analysis.md), the floor the "
              "cross-host spread of this GPU, %s at each entry's median "
              "time: interleaved rounds hold one host's drift, not the "
              "spread between hosts" % (
                  noise.SIGMAS, noise.run_floor(runs[0]).describe()),
              "the best ewbench entry is the best of every configuration "
              "measured (each block of each variant: the contest says how "
              "many), chosen on the rounds that score it; held out: for "
              "each round, the best over the other rounds against the "
              "faster peer over them, scored on that round, the median "
              "over the rounds"]
    items += ["note: %s" % n for n in notes]
    blocks.append(doc.Bullets(tuple(items)))
    blocks.append(doc.Heading(2, "Who wins"))
    if not found:
        blocks.append(doc.Paragraph("No add point with an ewbench kernel in "
                                    "every run."))
    else:
        blocks.append(doc.Table(
            ("dtype", "n", "tier", "cache", "launch", "fastest",
             "best ewbench", "searched", "faster peer", "margin",
             "noise limit", "verdict", "held out"),
            tuple(_summary_row(c) for c in found)))
    blocks.append(doc.Heading(2, "Contests"))
    for c in found:
        peer = c.peer
        rows = [_row(i, e, peer, spec)
                for i, e in enumerate(c.ranked[:TOP], 1)]
        rows += [_row(name, e, peer, spec)
                 for name, e in (("cub", c.cub), ("torch", c.torch))
                 if e is not None]
        blocks += [doc.Heading(3, _title(c)),
                   doc.Table(("rank", "variant", "block", "median GB/s",
                              "% spec", "spread %", "ratio to faster peer"),
                             tuple(rows)),
                   doc.Paragraph(summary_line(c))]
    return "ewbench contest", blocks


def _summary_row(c):
    m, peer = c.margin, c.peer
    return (c.dtype, size_label(c.n), c.tier or "-", c.cache, c.launch,
            sinks.markdown(c.winner.label), sinks.markdown(c.best.label),
            str(c.searched),
            sinks.markdown(peer.variant) if peer else "-",
            "%+.1f %%" % m.margin_pct if peer else "-",
            "±%.2f %%" % m.limit_pct if peer else "-",
            verdict_text(c), held_out_text(c) if peer else "-")


def render_markdown(runs, notes, found):
    return doc.render_markdown(build_document(runs, notes, found)[1])


# JSON

def _entry(e):
    return {"variant": e.variant, "label": e.label, "origin": e.origin,
            "block": e.block, "bandwidth_bytes_per_s": e.bandwidth,
            "bandwidths_bytes_per_s": list(e.bandwidths),
            "spread_pct": e.spread_pct}


def to_json(runs, notes, found):
    """The contest as a JSON-ready dict: every number the document shows,
    and the per-run bandwidths behind them."""
    contests = []
    for c in found:
        m, h = c.margin, c.held_out
        contests.append({
            "dtype": c.dtype, "n": c.n, "cache": c.cache,
            "launch": c.launch, "tier": c.tier, "tier_label": c.tier_label,
            "ranked": [_entry(e) for e in c.ranked],
            "searched": c.searched,
            "cub": _entry(c.cub) if c.cub else None,
            "torch": _entry(c.torch) if c.torch else None,
            "peer": c.peer.origin if c.peer else None,
            "ratio": m.ratio, "margin_pct": m.margin_pct,
            "limit_pct": m.limit_pct, "standing": m.standing,
            "floor_pct": ct.floor_pct(c.floor, *[
                e for e in (c.best, c.peer) if e is not None]),
            "held_out": None if h is None else {
                "margin_pct": h.margin_pct,
                "margins_pct": list(h.margins_pct),
                "chosen": list(h.chosen), "standing": h.standing}})
    return {
        "schema": JSON_SCHEMA,
        "device": runs[0].device.get("name"),
        "spec_dram_bandwidth_bytes_per_s": runs[0].spec_dram_bandwidth,
        "l2_bytes": runs[0].l2_bytes,
        "repeats": len(runs),
        "runs": [{"run_id": run.run_id, "path": run.path} for run in runs],
        "notes": list(notes),
        "rule": {"sigmas": noise.SIGMAS,
                 "floor_gpu_pct": noise.run_floor(runs[0]).pct,
                 "floor_step_ns": noise.run_floor(runs[0]).step_ns,
                 "unknown_pct": noise.UNKNOWN_PCT},
        "contests": contests,
    }

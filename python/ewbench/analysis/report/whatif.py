"""A user's op made into ewbench's family (`ewbench run --elementwise`):
the report's short section, one table.

The ranking is the what-if's (core/generated.py: groups, ranking, the
winner's noise margin); this module only lays it out, and says why the
winner wins in the report's own terms: the memory word each thread
loads and how many it loads per input before using the first (from the
member's id, and from sass.csv for the user's kernel and the built-ins
where the run recorded it), and, where the run collected counters, the
global load instructions per warp and sectors per load request of the
winner beside the user's kernel.  A run without counters gets only what
its rows show.  A run without generated members gets no section.
"""

from typing import NamedTuple

import numpy as np

from ..core import generated as wi
from ..core import ceilings_cache
from ..core import document as doc
from ..core import noise, sass, sinks
from ..core import select as sel
from ..core.units import size_label
from ..core.validate.contract import DTYPE_BYTES
from . import model
from . import user_experiments as ux
from .model import faults

ANCHOR = "your-op"
TITLE = "Your op: the generated family ranked"


def _point(points, variant, block):
    return next(p for p in points
                if p.variant == variant and p.block == block)


def _access(run, variant):
    """The access column: a member's word × words per input; another
    kernel's widest SASS load where recorded, else the elements per thread
    run.json gives a user's kernel; '' where nothing is known."""
    m = wi.member(variant)
    if m:
        return "%d-bit × %d" % (m.bits, m.words)
    bits = sass.widest(run, variant)
    if bits:
        return "widest load %d-bit (SASS)" % bits
    each = _user_entry(run, variant).get("elems_per_thread")
    return "%s elements a thread" % each if each else ""


def _user_entry(run, variant):
    for e in run.manifest.get("user_kernels") or ():
        if isinstance(e, dict) and e.get("variant") == variant:
            return e
    return {}


def _counters(run, point):
    """'2.0 load instructions per warp, 4.0 sectors per load request' from
    the point's counters, or None without them."""
    parts = []
    per_warp = sel.metric(run, point, sel.M_LD_INST_PER_WARP)
    if per_warp is not None:
        parts.append("%.1f global load instructions per warp" % per_warp)
    loads = faults.access(run, point, "loads")
    if loads is not None:
        parts.append("%.1f sectors per load request (%.1f ideal)" % (
            loads.per_request, loads.ideal))
    return ", ".join(parts) or None


def _why(run, winner, user):
    """Why the winner wins, against the user's kernel where the run has
    one: what each loads, then their counters where measured."""
    m = wi.member(winner.variant)
    size = DTYPE_BYTES.get(winner.dtype)
    text = "%s loads %d-bit words, %d per thread per input before using " \
        "the first (%s), " % (sinks.code(winner.variant), m.bits, m.words,
                             wi.SHAPES[m.shape])
    if size:
        lanes = m.bits // (8 * size)
        text += "%d element%s of %s per word; " % (
            lanes, "" if lanes == 1 else "s", winner.dtype)
    if user is None:
        text += "the run holds no kernel of yours (`--kernel`)."
    else:
        entry = _user_entry(run, user.variant)
        bits = sass.widest(run, user.variant)
        text += "your %s takes %s elements per thread%s." % (
            sinks.code(user.variant), entry.get("elems_per_thread", "?"),
            ", its widest load %d-bit (SASS)" % bits if bits else
            " (its load width: SASS %s)" % sass.why_not(run))
    mine = _counters(run, user) if user is not None else None
    theirs = _counters(run, winner)
    if theirs and mine:
        text += " Counters: the winner %s; yours %s." % (theirs, mine)
    elif theirs:
        text += " Counters: the winner %s." % theirs
    else:
        text += " The run collected no counters: the table's times are " \
            "all it shows of the cause."
    return text


def predictor(run):
    """(predict, source) for render(): the members read on the run's
    measured ceilings, or (None, why not) without them."""
    if not run.ceilings or not run.ceilings_path:
        return None, "no measured ceilings of this GPU (`ewbench " \
            "ceilings`, or --ceilings DIR)"
    ceilings_run, cached = ceilings_cache.source_of(run.ceilings_path)
    return (lambda p: ux.candidate_prediction(run, p)), \
        "the ceilings run %s%s" % (
            ceilings_run, ", found in the ceilings cache" if cached else "")


class Scored(NamedTuple):
    """A member's prediction beside its measurement."""
    error: float            # |measured / predicted - 1|
    ratio: float            # measured / predicted
    point: object           # load.Point of the member
    predicted: float        # byte/s


def prediction_errors(points, predict):
    """[Scored] of the generated members among points that predict()
    places, largest error last."""
    out = []
    for p in points:
        if wi.role(p.variant) != "generated":
            continue
        got = predict(p)
        if got is not None and got.value > 0:
            ratio = p.bandwidth / got.value
            out.append(Scored(abs(ratio - 1.0), ratio, p, got.value))
    return sorted(out, key=lambda s: s.error)


def by_member(errors):
    """{(variant, block): Scored} of prediction_errors(), for the rows of
    a table."""
    return {(s.point.variant, s.point.block): s for s in errors}


def prediction_line(errors, count, source, code=str):
    """The group's predictions in one sentence: how many, their error's
    median, p90 (as the report's error table takes them:
    experiments.error_table) and largest (which member, through `code`),
    and how many within MATERIAL_PCT."""
    if not errors:
        return "Not predicted: %s" % source
    err = [s.error for s in errors]
    worst = errors[-1]
    return ("Predicted from %s: %d of %d members, measured / predicted off "
            "1 by %.1f %% at the median, %.1f %% at p90, %.1f %% at most "
            "(%s@%s, x%.3f); within ±%.0f %%: %d" % (
                source, len(errors), count, 100 * float(np.median(err)),
                100 * float(np.quantile(err, 0.9)), 100 * worst.error,
                code(worst.point.variant), worst.point.block, worst.ratio,
                model.MATERIAL_PCT,
                sum(1 for e in err if e <= model.MATERIAL_PCT / 100.0)))


def _against(checked_against):
    """run.json's checked_against in words: "generated" is the function
    itself run one thread per element."""
    if checked_against == "generated":
        return "checked against the function run one thread per element"
    return "checked against %s" % sinks.markdown(str(checked_against))


def _groups(study):
    """[(run, key, points)] of every group holding generated members."""
    return [(run, key, pts) for run in study.runs.values()
            for key, pts in sorted(wi.groups(run.points).items())]


def section(study):
    """Report blocks: heading, what was generated, one table of every
    group's ranking, each group's margins and why; [] when no run of the
    study holds a generated member."""
    found = _groups(study)
    if not found:
        return []
    blocks = [doc.Heading(3, TITLE, ANCHOR)]
    records = [run.manifest["elementwise"] for run in study.runs.values()
               if isinstance(run.manifest.get("elementwise"), dict)]
    intro = "; ".join(
        "%s in %s, %s input(s) of %s: %d kernels compiled for %s by NVRTC "
        "%s, %s" % (
            sinks.code(r.get("function", "?")),
            sinks.code(r.get("file", "?")), r.get("inputs", "?"),
            r.get("dtype", "?"), len(r.get("variants") or ()),
            sinks.markdown(str(r.get("arch", "?"))),
            sinks.markdown(str(r.get("nvrtc", "?"))),
            _against(r.get("checked_against")))
        for r in records)
    several = len(found) > 1
    table, notes = [], []
    for run, key, pts in found:
        n, dtype, cache, launch = key
        rows, win, count = wi.ranking(pts, noise.run_floor(run))
        predict, source = predictor(run)
        errors = prediction_errors(pts, predict) if predict else []
        said = by_member(errors)
        point = "%s, %s, %s, %s" % (size_label(n), dtype, cache, launch)
        best = rows[0][4].median_ns
        for place, role, variant, block, t, gbs in rows:
            s = said.get((variant, block))
            table.append(((point,) if several else ()) + (
                str(place), role, sinks.code(variant),
                "" if block is None else str(block),
                _access(run, variant), "%.2f" % (t.median_ns / 1e3),
                "%.0f" % gbs, "%.3f" % (best / t.median_ns),
                "%.0f" % (s.predicted / 1e9) if s else "",
                "%.3f" % s.ratio if s else ""))
        winner = _point(pts, rows[0][2], rows[0][3])
        mine = next((r for r in rows if r[1] == "user"), None)
        user = _point(pts, mine[2], mine[3]) if mine else None
        note = "%s%d candidates checked and ranked; the winner over the " \
            "runner-up: %s." % ("%s: " % point if several else "", count,
                                win.text() if win else "no runner-up")
        # A cause is named only for a lead beyond the noise: over the
        # user's kernel where the run has one, else over the runner-up.
        decisive = win is not None and win.beyond
        if user is not None:
            gain = noise.margin(rows[0][4], mine[4], noise.run_floor(run))
            note += " Over your kernel: %+.1f %% GB/s, %s the noise " \
                "limit %.1f %%." % (100.0 * (rows[0][5] / mine[5] - 1),
                                    "beyond" if gain.beyond else "within",
                                    gain.limit_pct)
            decisive = gain.beyond
        why = "Why: " if decisive else \
            "No cause to name, its lead within the noise: "
        notes.append(note + " " + why + _why(run, winner, user) + " " +
                     prediction_line(errors, count, source, sinks.code) +
                     ".")
    blocks.append(doc.Paragraph(
        intro + ". Each member (its word width × the words a thread "
        "loads per input) is checked like your kernel and timed at each "
        "block; one that fails is never timed, so never ranked. The five "
        "fastest, then your kernel, the fastest built-in, cub and PyTorch "
        "moving the same bytes, where run; place among all of them (`python3 -m "
        "ewbench.analysis.whatif`). Each member is predicted from this "
        "GPU's measured ceilings before its time is set against it, as "
        "a fix is (docs/user-kernels.md)."))
    blocks.append(doc.Table(
        (("point",) if several else ()) +
        ("place", "who", "kernel", "block", "access", "median µs",
         "GB/s", "× winner", "predicted GB/s", "× predicted"),
        tuple(table)))
    blocks += [doc.Paragraph(n) for n in notes]
    return blocks

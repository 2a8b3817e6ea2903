"""The concurrency figure: the measured memory-concurrency curve (DRAM
bandwidth against KiB of loads in flight per SM, one line per request
size, ceilings.csv's dram_<shape>_inflight* rows, model/curve.py), one
panel per shape (copy: relu and abs; add), the op's DRAM ceiling, where
each series reaches the latency rule's share of its top, and the study's
variants at the largest size placed on it by their own estimated loads in
flight per SM and measured bandwidth (article part); where the study has
a calibration (model/calibration.py), each calibrated kernel's own curve
beside it, dashed."""

import textwrap

from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

from .. import model
from ..model import calibration, curve
from ...core import select as sel
from ...core import variants as var
from ...core.sinks import plot_text
from ...core.units import size_label
from .common import (LABEL_BOX, LEVEL_COLOURS, gbps_short, legend_outside,
                     new_figure, place_labels, save, settle)

# One colour and marker per request size (bytes per warp load
# instruction), the same in both panels.
REQUEST_STYLES = {64: ("#e69f00", "v"), 128: ("#0072b2", "o"),
                  512: ("#009e73", "s")}
OTHER_REQUEST = ("#666666", "x")
SHAPE_TITLES = {"copy": "copy (dst = a): relu, abs",
                "add": "add (c = a + b)"}
SHAPE_OP = {"copy": "relu", "add": "add"}   # an op of the shape: its ceiling
OWN_COLOUR = "#222222"      # a curve calibrated with the study's kernels,
OWN_DASHES = ((0, (4, 2)), (0, (7, 2, 1, 2)))   # by its place in its panel


def _request_style(request):
    return REQUEST_STYLES.get(request, OTHER_REQUEST)


def placed_points(run):
    """[(point, OnCurve or None)] of the study's variants at the run's
    largest size (warm and stream launches where measured), passing, at
    their primary block: each placed on the curve of its op's shape by its
    loads in flight per SM (model.kib_in_flight_per_sm at its occupancy)
    and its bytes per warp load instruction, as the latency rule places
    it; None where either is unknown."""
    points = [p for p in sel.primary_points(run) if p.check != "fail" and
              var.role(p.variant) == var.STUDY and p.op in curve.SHAPE]
    if not points:
        return []
    n = max(p.n for p in points)
    points = [p for p in points if p.n == n]
    cache = sel.preferred_cache(points)
    points = [p for p in points if p.cache == cache]
    if any(p.launch == "stream" for p in points):
        points = [p for p in points if p.launch == "stream"]
    out = []
    for p in sorted(points, key=lambda p: var.sort_key(p.variant)):
        occupancy, _ = model.occupancy(run, p)
        kib = model.kib_in_flight_per_sm(
            p, occupancy, run.device.get("max_threads_per_sm"))
        out.append((p, model.place(
            run.ceilings, p.op, sel.metric(run, p,
                                           sel.M_LD_REQUESTED_BYTES_PER_INST),
            kib, model.run_dram_ceiling(run, p.op))))
    return out


def _kib_label(value, _pos=None):
    return "%g KiB" % value


def _groups(placed, ax, near_px=5.0):
    """Placed points that lie within near_px of one another, as one label:
    [(x, y, names)] (a label per point would cover its neighbours')."""
    groups = []
    for p, oc in placed:
        x, y = oc.kib, p.bandwidth / 1e9
        px, py = ax.transData.transform((x, y))
        for g in groups:
            gx, gy = ax.transData.transform((g[0], g[1]))
            if abs(gx - px) <= near_px and abs(gy - py) <= near_px:
                g[2].append(p.variant)
                break
        else:
            groups.append([x, y, [p.variant]])
    return [(x, y, names) for x, y, names in groups]


def _panel(ax, run, shape, series, placed, own=()):
    dram = model.run_dram_ceiling(run, SHAPE_OP[shape])
    kibs = [lv.kib for s in tuple(series) + tuple(own) for lv in s.levels]
    kibs += [oc.kib for _, oc in placed]
    top = max([lv.bandwidth for s in tuple(series) + tuple(own)
               for lv in s.levels] +
              [p.bandwidth for p, _ in placed] +
              [dram.value if dram is not None else 0.0]) / 1e9
    ax.set_xscale("log", base=2)
    ax.set_xlim(min(kibs) / 1.3, max(kibs) * 1.3)
    # Room above the ceiling for the labels of the points at it.
    ax.set_ylim(0, top * 1.2)
    knees = []
    for s in series:
        colour, marker = _request_style(s.request)
        ax.plot([lv.kib for lv in s.levels],
                [lv.bandwidth / 1e9 for lv in s.levels], color=colour,
                marker=marker, ms=4.5, lw=1.6, zorder=4)
        # The knee: where the series reaches the share of its top that the
        # latency rule calls enough (model.CURVE_ENOUGH).
        knee = s.kib_for(model.CURVE_ENOUGH)
        if knee is not None:
            ax.plot([knee, knee], [0, s.bandwidth_at(knee) / 1e9],
                    color=colour, ls=(0, (1, 2)), lw=1.2, zorder=3)
            knees.append((knee, colour))
    # A calibrated kernel's own curve (its probes' levels in it).
    for i, s in enumerate(own):
        ax.plot([lv.kib for lv in s.levels],
                [lv.bandwidth / 1e9 for lv in s.levels], color=OWN_COLOUR,
                ls=OWN_DASHES[i % len(OWN_DASHES)], marker=".", ms=4,
                lw=1.2, zorder=5)
    # One label for knees within 10 % of one another.
    knees.sort()
    while knees:
        near = [k for k in knees if k[0] <= 1.1 * knees[0][0]]
        knees = knees[len(near):]
        low, high = round(near[0][0]), round(near[-1][0])
        ax.annotate("%d KiB" % low if low == high else
                    "%d-%d KiB" % (low, high), (near[-1][0], 0),
                    xytext=(2, 3), textcoords="offset points", rotation=90,
                    fontsize=7, ha="left", va="bottom",
                    color=near[0][1] if len(near) == 1 else "#444444")
    if dram is not None:
        ax.axhline(dram.value / 1e9, color=LEVEL_COLOURS["DRAM"],
                   ls="-" if dram.measured else (0, (1, 2)), lw=2.4,
                   alpha=0.45, zorder=1)
        ax.annotate("%s %s (measured)" % (
            dram.source.replace("measured ", ""), gbps_short(dram.value))
            if dram.measured else "spec DRAM %s" % gbps_short(dram.value),
            (0.01, dram.value / 1e9), xycoords=("axes fraction", "data"),
            xytext=(0, 2), textcoords="offset points", fontsize=7.5,
            va="bottom", ha="left", color=LEVEL_COLOURS["DRAM"], zorder=9,
            bbox=LABEL_BOX)
    for p, oc in placed:
        colour, _ = _request_style(oc.series.request)
        ax.plot(oc.kib, p.bandwidth / 1e9, ls="none", marker="D", ms=7,
                mfc=colour, mec="black", mew=1.0, zorder=8)
    ax.xaxis.set_major_locator(FixedLocator(
        [k for k in (1, 2, 4, 8, 16, 32, 64, 128, 256)
         if ax.get_xlim()[0] <= k <= ax.get_xlim()[1]]))
    ax.xaxis.set_major_formatter(FuncFormatter(_kib_label))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: "%g" % v))
    ax.tick_params(labelsize=8)
    ax.grid(True, alpha=0.3)
    ax.set_xlabel("loads in flight per SM (KiB, log scale)", fontsize=9)
    ax.set_ylabel("DRAM bandwidth, GB/s (bytes read + written / time)",
                  fontsize=9)
    ax.set_title(SHAPE_TITLES.get(shape, shape), fontsize=10)


def plot_concurrency(run, outdir):
    """The measured concurrency curve, one panel per shape, with the
    study's variants at the largest size placed on it; None when the run's
    ceilings have no curve."""
    curves = curve.curves(run.ceilings)
    shapes = [s for s in ("copy", "add") if any(sh == s for sh, _ in curves)]
    if not shapes:
        return None
    placed = placed_points(run)
    own = calibration.calibrated(getattr(run, "calibration", ()))
    own_by_shape = {shape: [s for _, s in sorted(own.items())
                            if s.shape == shape] for shape in shapes}
    fig, body = new_figure([run], 6.2)
    axes = body.subplots(1, len(shapes), squeeze=False)[0]
    missing, labels = [], []
    size = None
    for ax, shape in zip(axes, shapes):
        series = sorted((s for (sh, _), s in curves.items() if sh == shape),
                        key=lambda s: s.request)
        mine = [(p, oc) for p, oc in placed
                if curve.SHAPE[p.op] == shape and oc is not None]
        _panel(ax, run, shape, series, mine, own_by_shape[shape])
        labels.append((ax, mine))
        missing += [p.variant for p, oc in placed
                    if curve.SHAPE[p.op] == shape and oc is None]
        if placed:
            size = size_label(placed[0][0].n)
    requests = sorted({s.request for s in curves.values()})
    handles = [Line2D([], [], color=_request_style(r)[0],
                      marker=_request_style(r)[1], ms=4.5, lw=1.6,
                      label="measured curve, %d B per warp load "
                            "instruction" % r) for r in requests]
    handles.append(Line2D([], [], color="#555555", ls=(0, (1, 2)),
                          label="where a series reaches %.0f %% of its top "
                                "(the latency rule's 'enough')" %
                                (100 * model.CURVE_ENOUGH)))
    for shape in shapes:
        for i, s in enumerate(own_by_shape[shape]):
            handles.append(Line2D(
                [], [], color=OWN_COLOUR, ls=OWN_DASHES[i % len(OWN_DASHES)],
                marker=".", ms=4, lw=1.2, label="%s and its probes, "
                "calibrated (calibration/, %s), read unscaled" % (
                    plot_text(s.family), s.span)))
    handles.append(Line2D([], [], color=LEVEL_COLOURS["DRAM"], lw=2.4,
                          alpha=0.45, label="the op's DRAM ceiling "
                                            "(dram_copy, dram_add)"))
    if placed:
        handles.append(Line2D(
            [], [], ls="none", marker="D", ms=7, mfc="#bbbbbb",
            mec="black", label="a study variant at %s (%s, %s) at its "
            "loads in flight per SM; fill: the curve it is placed on" % (
                size, placed[0][0].cache, placed[0][0].launch)))
    legend_outside(body, "lower center", handles=handles, ncol=2,
                   fontsize=8, frameon=False)
    title = "DRAM bandwidth against loads in flight per SM (the measured " \
        "concurrency curve, ewbench ceilings)"
    if missing:
        title += "\n" + "\n".join(textwrap.wrap(
            "Not placed, their loads in flight per SM unknown (threads that "
            "loop over the data, or no occupancy counter): %s" %
            ", ".join(missing), 160))
    body.suptitle(title, fontsize=10)
    renderer = settle(fig)
    for ax, mine in labels:
        place_labels(ax, [(x, y, "\n".join(map(plot_text, names)), "#222222")
                          for x, y, names in _groups(mine, ax)], renderer)
    return save(fig, outdir, "concurrency")

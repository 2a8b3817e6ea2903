"""The fleet figure: each GPU's deviation from the fleet median, one
small panel per key number, one row per GPU (the report table's order).

A plots module (matplotlib lives only in plots modules): object API, Agg
canvas, drawn at the HTML's width and saved as a palette PNG and an SVG by
plots.save.  One panel holds one number, so a panel has one series; the
±OUTLIER_PCT band is shaded, outliers are red diamonds with their
deviation written beside them, thin bars show a point's noise limit where
it is wider than the band.  Rows of one host are grouped between lines.
"""

import os

from matplotlib.lines import Line2D

from . import answers as fa
from . import page
from ..core.sinks import plot_text
from ..report import plots

OK_COLOUR = "#1f77b4"
OUTLIER_COLOUR = "#d62728"
BAND_COLOUR = "#dddddd"
LIMIT_COLOUR = "#9ecae1"
ROW_INCHES = 0.3
MIN_SPAN_PCT = 5.0


def _footer(fig, body_height, judged):
    fleet = judged.fleet
    # The folder's name, not its path: a figure is the same wherever the
    # fleet is rendered.
    hosts = len(fleet.hosts)
    text = "%s | %d GPUs on %d host%s | %s" % (
        ", ".join(plot_text(d) for d in fleet.device_names),
        len(fleet.members), hosts, "" if hosts == 1 else "s",
        plot_text(os.path.basename(os.path.normpath(fleet.path))))
    fixture = fleet.is_fixture
    if fixture:
        text = "FIXTURE DATA (synthetic, not a measurement) | " + text
    return text, fixture


def plot_fleet(judged, outdir):
    """[png, svg] of the deviation figure, or None with fewer than two
    GPUs (nothing to deviate from)."""
    members = judged.fleet.members
    if len(members) < 2:
        return None
    keys = [k for k in fa.KEYS
            if any(judged.cells[m.name][k.name].deviation_pct is not None
                   for m in members)]
    if not keys:
        return None
    height = max(2.8, 1.5 + ROW_INCHES * len(members))
    fig, body, foot = plots.framed_figure(height)
    text, fixture = _footer(fig, height, judged)
    foot.text(0.005, 0.5, text, fontsize=7, ha="left", va="center",
              color="#b00000" if fixture else "#555555")
    axes = body.subplots(1, len(keys), sharey=True, squeeze=False)[0]
    rows = {m.name: i for i, m in enumerate(members)}
    host_edges = [i - 0.5 for i in range(1, len(members))
                  if members[i].host != members[i - 1].host]
    for ax, key in zip(axes, keys):
        _panel(ax, judged, key, members, rows, host_edges)
    axes[0].set_yticks(range(len(members)))
    axes[0].set_yticklabels([plot_text(m.name) for m in members],
                            fontsize=8)
    axes[0].set_ylim(len(members) - 0.5, -0.5)
    handles = [
        Line2D([], [], color=OK_COLOUR, marker="o", ls="", label="GPU"),
        Line2D([], [], color=OUTLIER_COLOUR, marker="D", ls="",
               label="outlier"),
        Line2D([], [], color=BAND_COLOUR, lw=8,
               label="±%g %% band" % fa.OUTLIER_PCT),
        Line2D([], [], color=LIMIT_COLOUR, lw=2,
               label="noise limit (where wider)"),
    ]
    plots.legend_outside(body, "upper center", handles=handles, ncol=4,
                fontsize=8, frameon=False)
    return plots.save(fig, outdir, page.FIGURE)


def _panel(ax, judged, key, members, rows, host_edges):
    devs = [judged.cells[m.name][key.name].deviation_pct for m in members]
    span = max([MIN_SPAN_PCT] + [1.2 * abs(d) + 1.5 for d in devs
                                 if d is not None])
    ax.axvspan(-fa.OUTLIER_PCT, fa.OUTLIER_PCT, color=BAND_COLOUR, lw=0,
               zorder=0)
    ax.axvline(0, color="#888888", lw=0.8, zorder=1)
    for edge in host_edges:
        ax.axhline(edge, color="#999999", lw=0.6, ls="--", zorder=1)
    for m in members:
        c = judged.cells[m.name][key.name]
        y = rows[m.name]
        if c.deviation_pct is None:
            ax.text(0, y, "n/a", fontsize=7, color="#888888", ha="center",
                    va="center")
            continue
        if c.threshold_pct and c.threshold_pct > fa.OUTLIER_PCT:
            limit = min(c.threshold_pct, span)
            ax.plot([-limit, limit], [y, y], color=LIMIT_COLOUR, lw=2,
                    zorder=2, solid_capstyle="butt")
        if c.outlier:
            ax.plot(c.deviation_pct, y, marker="D", color=OUTLIER_COLOUR,
                    ms=7, zorder=4)
            ax.annotate("%+.1f %%" % c.deviation_pct,
                        (c.deviation_pct, y), xytext=(
                            -4 if c.deviation_pct < 0 else 4, 5),
                        textcoords="offset points", fontsize=7,
                        color=OUTLIER_COLOUR, va="bottom",
                        ha="left" if c.deviation_pct < 0 else "right")
        else:
            ax.plot(c.deviation_pct, y, marker="o", color=OK_COLOUR, ms=5,
                    zorder=3)
    ax.set_xlim(-span, span)
    ax.set_title("%s\n%s" % (key.short, "lower is faster"
                             if not key.higher_is_better else
                             "higher is faster"), fontsize=8)
    ax.tick_params(axis="x", labelsize=7)
    ax.set_xlabel("% from median", fontsize=7)
    ax.grid(axis="x", alpha=0.3)

"""A Perfetto-like picture of a window of an `ewbench run --trace` file
(timeline.py picks the window)."""

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ...core import atomic
from ...core.sinks import plot_text
from .common import DPI, variant_styles


def timeline_bars(ax, lefts, widths, y, **style):
    """Rectangles from each left to left + width, between y - 0.4 and
    y + 0.4, as one collection: the polygons Axes.broken_barh makes
    (matplotlib >= 3.7), built from arrays, where broken_barh converts each
    bar in Python (a million kernels took it 20 s)."""
    from matplotlib.collections import PolyCollection
    x0 = np.asarray(lefts, dtype=float)
    x1 = x0 + np.asarray(widths, dtype=float)
    y0 = y - 0.4
    y1 = y0 + 0.8
    verts = np.empty((len(x0), 4, 2))
    verts[:, 0, 0] = verts[:, 1, 0] = x0
    verts[:, 2, 0] = verts[:, 3, 0] = x1
    verts[:, 0, 1] = verts[:, 3, 1] = y0
    verts[:, 1, 1] = verts[:, 2, 1] = y1
    ax.add_collection(PolyCollection(verts, **style), autolim=True)


def plot_timeline(events, window, out_png, title):
    """A Perfetto-like picture of a window (start, end µs) of a trace: host
    NVTX ranges by nesting depth on top, GPU kernels below (helper kernels
    such as the L2 flush in grey), time in µs from the window's start."""
    from ...timeline import GPU_PID, HOST_PID
    host = [e for e in events if e.pid == HOST_PID]
    gpu = [e for e in events if e.pid == GPU_PID]
    if not events:
        raise ValueError("no events in the window")
    t0 = window[0]
    depths = sorted({e.depth for e in host})
    lanes = {d: i for i, d in enumerate(reversed(depths))}
    gpu_lane = -1.5
    fig = Figure(figsize=(12, 1.2 + 0.45 * (len(depths) + 2)),
                 layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    variants = sorted({e.variant for e in gpu if e.variant})
    styles = variant_styles(variants) if variants else {}
    # One collection per lane and colour, not an artist per event, built
    # from arrays: the cost stays linear and small in the events drawn.
    bars = {}       # (y, colour): ([left], [width])
    for e in host:
        y = lanes[e.depth]
        lefts, widths = bars.setdefault((y, "#5b6f8b"), ([], []))
        lefts.append(e.start_us - t0)
        widths.append(e.dur_us)
        ax.text(max(e.start_us - t0, 0) + 0.5, y, plot_text(e.name),
                va="center",
                fontsize=7, clip_on=True)
    for e in gpu:
        helper = "flush" in e.name or not e.variant
        color = "#aaaaaa" if helper else styles[e.variant][0]
        lefts, widths = bars.setdefault((gpu_lane, color), ([], []))
        lefts.append(e.start_us - t0)
        widths.append(e.dur_us)
    for (y, color), (lefts, widths) in bars.items():
        if y == gpu_lane:
            timeline_bars(ax, lefts, widths, y, facecolors=color,
                          edgecolors="white", linewidths=0.3)
        else:
            timeline_bars(ax, lefts, widths, y, facecolors=color, alpha=0.35,
                          edgecolors=color)
    ax.autoscale_view()
    ax.set_yticks([gpu_lane] + [lanes[d] for d in depths])
    ax.set_yticklabels(["GPU kernels"] + ["NVTX depth %d" % d
                                          for d in depths], fontsize=8)
    ax.set_xlim(0, window[1] - window[0])
    ax.set_xlabel("time since the window's start (µs)")
    ax.set_title(plot_text(title), fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    handles = [Line2D([], [], color=styles[v][0], lw=6, label=plot_text(v))
               for v in variants]
    handles.append(Line2D([], [], color="#aaaaaa", lw=6,
                          label="helper (L2 flush) or unlabelled"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1),
              fontsize=8, frameon=False)
    atomic.savefig(fig, out_png, dpi=DPI)
    return out_png

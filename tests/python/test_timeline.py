"""The trace reader and the timeline picture, on a synthetic trace."""

import gzip
import json
import os

import pytest

from ewbench.analysis import timeline
from ewbench.analysis.__main__ import main
from ewbench.analysis.core.load import DataError


def write_trace(path):
    events = [
        {"name": "process_name", "ph": "M", "pid": 0, "tid": 0,
         "args": {"name": "ewbench host"}},
        {"name": "run", "ph": "X", "pid": 0, "tid": 1, "ts": 0.0,
         "dur": 100.0, "cat": "ewbench", "args": {"depth": 0}},
        {"name": "add_f32 n=1Mi block=256 warm", "ph": "X", "pid": 0,
         "tid": 1, "ts": 10.0, "dur": 40.0, "cat": "ewbench",
         "args": {"depth": 1}},
        {"name": "ewb_add_f32", "ph": "X", "pid": 1, "tid": 13, "ts": 12.0,
         "dur": 3.0, "cat": "kernel", "args": {"variant": "add_f32"}},
        {"name": "ewb_l2_flush_kernel", "ph": "X", "pid": 1, "tid": 13,
         "ts": 20.0, "dur": 5.0, "cat": "kernel", "args": {"variant": None}},
        {"name": "ewb_add_f32", "ph": "X", "pid": 1, "tid": 13, "ts": 70.0,
         "dur": 3.0, "cat": "kernel", "args": {"variant": "add_f32"}},
    ]
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump({"traceEvents": events, "displayTimeUnit": "ns"}, f)


def test_window_of_a_point(tmp_path):
    path = str(tmp_path / "t.json.gz")
    write_trace(path)
    events = timeline.read_trace(path)
    assert [e.start_us for e in events] == sorted(e.start_us for e in events)
    window = timeline.point_window(events, "add_f32 n=1Mi")
    assert window == (10.0, 50.0)
    names = [e.name for e in timeline.in_window(events, *window)]
    # The kernel at 70 us lies outside the point's range.
    assert names.count("ewb_add_f32") == 1 and "run" in names
    assert timeline.point_window(events, "add_f16") is None


def test_timeline_command_draws_a_png(tmp_path):
    path = str(tmp_path / "t.json.gz")
    out = str(tmp_path / "t.png")
    write_trace(path)
    assert main(["timeline", path, "--point", "add_f32 n=1Mi", "-o", out]) == 0
    assert os.path.getsize(out) > 1000
    assert main(["timeline", path, "--point", "nothing", "-o", out]) == 2


def test_not_a_trace(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("[1, 2]")
    with pytest.raises(DataError):
        timeline.read_trace(str(path))


def test_bars_draw_what_broken_barh_draws(tmp_path):
    # plots.timeline_bars stands in for Axes.broken_barh (which converts
    # each bar in Python): the same picture, pixel for pixel, overlapping
    # bars, a bar left of the axes and one of zero width included.
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ewbench.analysis.report import plots
    rng = np.random.default_rng(3)
    lefts = np.concatenate([[-5.0, 40.0], rng.uniform(0, 100, 300)])
    widths = np.concatenate([[8.0, 0.0], rng.uniform(0.1, 6, 300)])

    def png(draw):
        fig = Figure(figsize=(6, 2))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        draw(ax, -1.5, dict(facecolors="#1f77b4", edgecolors="white",
                            linewidths=0.3))
        draw(ax, 0, dict(facecolors="#5b6f8b", alpha=0.35,
                         edgecolors="#5b6f8b"))
        ax.autoscale_view()
        ax.set_xlim(0, 100)
        path = tmp_path / ("%d.png" % len(list(tmp_path.iterdir())))
        fig.savefig(path, format="png")
        return path.read_bytes()
    drawn = png(lambda ax, y, style: plots.timeline_bars(ax, lefts, widths, y,
                                                         **style))
    reference = png(lambda ax, y, style: ax.broken_barh(
        list(zip(lefts, widths)), (y - 0.4, 0.8), **style))
    assert drawn == reference

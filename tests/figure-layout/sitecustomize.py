"""Put on PYTHONPATH by tests/references.sh with EWB_LAYOUT_DIR set: in
an analysis process, and in the plot workers it forks, each SVG figure
ewbench saves (core.atomic.savefig, the figure's last file, its layout
final) is then measured (tests/python/figure_layout.py) and what covers
what written to EWB_LAYOUT_DIR/<figure file>.faults, one line each;
empty where nothing does.  Measured once saved, so the files written
are those of a render without it.  (This file stands in for Debian's
sitecustomize, which only installs apport's exception hook.)"""

import os
import sys


def _measure_saved_figures(where):
    try:
        from ewbench.analysis.core import atomic
    except ImportError:         # not the analysis (the interpreter probe)
        return
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(
        __file__)), os.pardir, "python"))
    from figure_layout import layout_faults
    save = atomic.savefig

    def savefig(fig, path, **kwargs):
        save(fig, path, **kwargs)
        if kwargs.get("format", os.path.splitext(path)[1][1:]) == "svg":
            faults = layout_faults(fig)
            name = os.path.join(where, os.path.basename(path) + ".faults")
            with open(name, "w", encoding="utf-8") as f:
                f.write("".join(line + "\n" for line in faults))
    atomic.savefig = savefig


if os.environ.get("EWB_LAYOUT_DIR"):
    _measure_saved_figures(os.environ["EWB_LAYOUT_DIR"])

"""Figures of a study, written as a palette PNG (for the HTML) and an SVG
(full size, linked from it).

These are the only modules (with fleet/plots) that import matplotlib.  They
use the object API (Figure + the Agg canvas, constrained layout) and never
pyplot, so they need no display and change no global backend.  Figures are
drawn at the width the HTML shows them (DPI 100, at most FIG_WIDTH inches),
so 9-point text is 12 pixels on screen.  Every figure carries a footer with
the run ids and the GPU, and says so loudly when a run is a fixture.

Roles are drawn differently everywhere (variants.py): the study's
variants in colour with a marker each, the fastest of ewbench's additions
in purple, the other additions as thin grey lines, cub in black and
PyTorch in brown.

  common        the styles, the figure with its footer, save (PNG + SVG),
                the roofs (FMA, block launch), labels placed beside points
                and on lines
  study         plot_study: every figure of report/figures.py's FIGURES
                that the study's parts allow
  timeline      plot_timeline: a window of an `ewbench run --trace` file

and one module per figure of the Figures section, each named, titled,
captioned and given its runs by its spec in report/figures.py (the
package docstring of ewbench.analysis says what each draws).

This package's names below are those the rest of the analysis and the
tests use as plots.NAME.
"""

from .common import (ADDITION_GREY, BEST_ADDITION, DPI, FIG_WIDTH,
                     FOOTER_INCHES, PEER_STYLES, PROBE_STYLE, ROLE_COLOURS,
                     STUDY_COLOURS, Style,
                     USER_STYLE, block_rate_at, block_roof, families,
                     family_styles, framed_figure, legend_outside,
                     new_figure, place_labels, save, settle, variant_styles)
from .cache_tier import (MARKER_OCTAVES, block_roofs, cache_tier_panel,
                         marked_indices, marker_stagger, plot_cache_tier)
from .blocks import block_roof_lines, plot_blocks
from .concurrency import placed_points, plot_concurrency
from .dram_share import (bandwidth_interval, intensity_note, plot_dram_share,
                         share_rows)
from .instructions import plot_instructions
from .roofline import plot_roofline, roofline_points
from .study import plot_study
from .timeline import plot_timeline, timeline_bars

__all__ = [
    "ADDITION_GREY", "BEST_ADDITION", "DPI", "FIG_WIDTH", "FOOTER_INCHES",
    "PEER_STYLES", "PROBE_STYLE", "ROLE_COLOURS", "STUDY_COLOURS",
    "USER_STYLE", "Style", "families", "framed_figure",
    "new_figure", "block_rate_at", "block_roof", "family_styles",
    "legend_outside", "place_labels", "save", "settle", "variant_styles",
    "MARKER_OCTAVES", "cache_tier_panel", "marked_indices", "marker_stagger",
    "block_roofs", "plot_cache_tier", "block_roof_lines", "plot_blocks",
    "placed_points", "plot_concurrency", "bandwidth_interval",
    "intensity_note", "plot_dram_share", "share_rows", "plot_instructions",
    "plot_roofline", "roofline_points", "plot_study", "timeline_bars",
    "plot_timeline",
]

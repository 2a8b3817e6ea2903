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

  common        the styles, the figure with its footer, save (PNG + SVG)
  cache_tier    bandwidth (linear) vs footprint, one panel per op family,
                warm solid and cold dashed, staggered markers, the nominal
                and effective L2, the DRAM ceilings, the share of reads
                served by L2 on a second axis (sweep part)
  blocks        bandwidth vs threads per block per variant, one panel per
                size tier, the published block circled (blocks part)
  dram_share    per variant at the largest size: % of its op's DRAM
                ceiling with the 95 % interval of the median and the repeat
                rounds, and the bytes counted at DRAM, L2 and L1 over the
                bytes moved (it replaces a roofline: docs/analysis.md)
  instructions  bytes per issued instruction, global-load bytes per warp
                load instruction, and % of DRAM ceiling, per variant
  study         plot_study: every figure the study's parts allow
  timeline      plot_timeline: a window of an `ewbench run --trace` file

This package's names below are those the rest of the analysis and the
tests use as plots.NAME.
"""

from .common import (ADDITION_GREY, BEST_ADDITION, DPI, FIG_WIDTH,
                     FOOTER_INCHES, PEER_STYLES, STUDY_COLOURS, USER_STYLE,
                     Style, _families, _figure, family_styles,
                     legend_outside, save, variant_styles)
from .cache_tier import (MARKER_OCTAVES, _cache_tier_panel, _marked,
                         _stagger, plot_cache_tier)
from .blocks import plot_blocks
from .dram_share import (_bandwidth_interval, _intensity_note,
                         plot_dram_share, share_rows)
from .instructions import plot_instructions
from .study import plot_study
from .timeline import _bars, plot_timeline

__all__ = [
    "ADDITION_GREY", "BEST_ADDITION", "DPI", "FIG_WIDTH", "FOOTER_INCHES",
    "PEER_STYLES", "STUDY_COLOURS", "USER_STYLE", "Style", "_families",
    "_figure", "family_styles", "legend_outside", "save", "variant_styles",
    "MARKER_OCTAVES", "_cache_tier_panel", "_marked", "_stagger",
    "plot_cache_tier", "plot_blocks", "_bandwidth_interval",
    "_intensity_note", "plot_dram_share", "share_rows", "plot_instructions",
    "plot_study", "_bars", "plot_timeline",
]

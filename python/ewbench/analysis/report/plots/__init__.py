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
  cache_tier    bandwidth (linear) vs footprint, one panel per op family,
                warm solid and cold dashed, staggered markers, the nominal
                and effective L2, the DRAM ceilings, the block-launch
                roofs, the share of reads served by L2 on a second axis
                (sweep part)
  roofline      hierarchical roofline: per study add, FLOP/s vs FLOP per
                byte counted at DRAM, L2 (and L1 where counted) across the
                sizes, against the DRAM and L2 ceilings, the FMA roof and
                the block-launch roof (sweep part)
  blocks        bandwidth vs threads per block per variant, one panel per
                op family, a line style per size tier, the published block
                circled, the block-launch roof rising with the block
                (blocks part)
  dram_share    per variant at the largest size: % of its op's DRAM
                ceiling with the 95 % interval of the median and the repeat
                rounds, and the bytes counted at DRAM, L2 and L1 over the
                bytes moved (it replaces a roofline: docs/analysis.md)
  concurrency   the measured concurrency curve (DRAM bandwidth vs KiB of
                loads in flight per SM, a line per request size), one panel
                per shape (copy, add), with the study's variants at the
                largest size placed on it (ceilings + article part)
  instructions  bytes per issued instruction, global-load bytes per warp
                load instruction, and % of DRAM ceiling, per variant
  study         plot_study: every figure the study's parts allow
  timeline      plot_timeline: a window of an `ewbench run --trace` file

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

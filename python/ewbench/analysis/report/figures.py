"""The figures of a study's Figures section, in the report's order: one
spec each (FigureSpec: its file name, title, caption, the function under
report/plots that draws it and the runs it is drawn from), declared once
here.  Adding a figure is adding its module under report/plots/ and its
spec here, in FIGURES; the page (its caption, the files `ewbench report`
claims) and plots/study.py (what it draws) read this table.

This module imports no matplotlib: the page reads the titles and
captions without it, and plot_study imports each spec's draw only when
it draws.  The figures of other sections (user_kernels.py, energy.py)
are drawn and captioned by their sections."""

from dataclasses import dataclass
from typing import Callable

from ..core import study as stu
from ..core import variants as var


@dataclass(frozen=True)
class FigureSpec:
    name: str           # figures/NAME.svg, the anchor fig-NAME
    title: str          # the heading over it
    caption: str        # what it shows, under it
    draw: str           # "module.function" under report/plots: draw(run,
    #                     outdir, *extra) -> [png, svg], or None to skip
    inputs: Callable    # inputs(study, marks) -> (run, *extra), or None
    #                     when the study's parts do not allow the figure


def _main(study, _marks=None):
    """The article run, else the study's main run."""
    return (study.run(stu.ARTICLE) or study.main,)


def _sweep(study, _marks=None):
    """The sweep (dense sizes), else the article run."""
    return (study.run(stu.SWEEP) or _main(study)[0],)


def _sweep_with_l2_mark(study, marks):
    """The sweep, with the effective L2 finding 2 located (its mark)."""
    return _sweep(study) + (marks.get("effective_l2"),)


def _main_with_repeats(study, _marks=None):
    """The article run, with the study's repeat rounds."""
    return _main(study) + (study.repeats,)


def _block_sweep(study, _marks=None):
    """The block sweep with the study's published blocks, else the article
    run where it timed a variant at several blocks (no published blocks);
    else None."""
    blocks = study.run(stu.BLOCKS)
    if blocks is not None:
        return (blocks, var.STUDY_BLOCKS)
    main = _main(study)[0]
    if any(len({p.block for p in main.points if p.variant == v}) > 1
           for v in {p.variant for p in main.points}):
        return (main, None)
    return None


CACHE_TIER = FigureSpec(
    "cache_tier", "Cache-tier plot",
    "Bandwidth (bytes moved / median time) against the footprint of one "
    "launch, one panel per op family (fp32 and fp16 adds apart): warm "
    "solid, cold dashed and paler. The bandwidth axis is linear from "
    "zero, the footprint axis logarithmic. The study's variants in "
    "colour with a marker each, the fastest of ewbench's additions in "
    "purple; peers and other additions, where the sweep has them, as "
    "the legend under each panel keys every series. Each series marks "
    "one size per octave, staggered against the others, so lines that "
    "lie on one another still show every series' markers. Black dotted "
    "vertical line: the nominal L2 capacity; dashed line, named by "
    "the arrow: the effective L2 for streaming that finding 2 located "
    "(where the share of reads served by L2 falls through 50 %), over "
    "a blue band from where that share starts to fall (95 %); thick "
    "translucent red line: the op's measured DRAM ceiling, dotted red: "
    "the spec peak, each named on its line; the L2 read ceiling (blue "
    "dash-dot) is drawn only where it lies near the data, else named "
    "in the panel title. Thick translucent grey line, named on it: the "
    "block-launch roof of the highlighted variants whose blocks move "
    "the same bytes at every size, the bytes of one block times the "
    "measured block-launch rate of its block size (the legend names "
    "the variants, bytes a block and rate), drawn where it lies within "
    "the axis. Where the run has one-pass residency "
    "counters, the grey dotted line (right axis) is the median share "
    "of reads served by L2 over the warm points of each footprint.",
    "cache_tier.plot_cache_tier", _sweep_with_l2_mark)


ROOFLINE = FigureSpec(
    "roofline", "Hierarchical roofline",
    "One panel per study variant that does FLOPs (the adds; relu and "
    "abs do none), fp32 and fp16 in columns, all on the same "
    "logarithmic axes: FLOP/s achieved against FLOPs per byte counted "
    "at each memory level, for one size per octave of the run "
    "(sweep, else article), warm where its counters describe a warm "
    "L2, else cold (the title says which). Red squares: DRAM bytes "
    "(dram__bytes_read.sum + dram__bytes_write.sum); blue dots: L2 "
    "bytes (lts__t_bytes.sum, else the read and write sectors x 32 B); "
    "green triangles: L1 bytes, where the run counted them (the title "
    "says which levels it has); a thin grey line joins one size's "
    "levels. Red line: the op's DRAM ceiling times FLOP per byte; blue "
    "dash-dot: the measured L2 read ceiling times FLOP per byte; both "
    "stop at the FMA roof of the dtype (black, fp32_fma or fp16_fma), "
    "drawn right of the first ridge; thick grey line: the variant's "
    "block-launch roof, FLOPs of one block times the measured block "
    "rate of its block size, where its blocks do the same work at "
    "every size.",
    "roofline.plot_roofline", _sweep)


BLOCKS = FigureSpec(
    "blocks", "Block sizes",
    "Bandwidth against threads per block, one panel per op family; "
    "each variant's largest size solid (smaller sizes dashed, dotted). "
    "A ring marks the block the study published; the green band is 128 "
    "to 256 threads (finding 5); the horizontal line is the op's DRAM "
    "ceiling. Thick grey lines, named where they leave the panel: the "
    "block-launch roof of each variant's largest size, its bytes of "
    "one block times the measured block-launch rate of that block "
    "size (between two measured sizes with the same rate, that rate; "
    "no roof at a size without one).",
    "blocks.plot_blocks", _block_sweep)


DRAM_SHARE = FigureSpec(
    "dram_share", "Share of the DRAM ceiling",
    "At the largest size (warm when measured), per variant grouped by "
    "op family, fastest first, coloured by role (study, ewbench "
    "addition, peer). Left: bandwidth in % of the op's measured DRAM "
    "ceiling (dram_add for add, dram_copy for relu and abs), a dot at "
    "the median and a bar over the 95 % confidence interval of the "
    "median (most are narrower than the dot: the numbers at the right "
    "give each median and interval); red rings: the same rows' medians "
    "in the repeat rounds, where the study has them; red line: the "
    "ceiling (100 %); dotted grey: 80 %, the DRAM-bound rule's floor "
    "(the rule also needs no sibling faster by more than 3 %); "
    "dotted red: the spec peak, per op family. Right, where counters "
    "were taken: the bytes counted at DRAM (red squares), L2 (blue "
    "dots; hollow: less the sectors that crossed the fabric between "
    "the L2's partitions, where measured) and L1 (green triangles) "
    "over the bytes the kernel must move, on a logarithmic axis with "
    "1x marked. The title gives each "
    "op family's intensity (FLOP per byte moved) and how far under "
    "the ridge of its FMA roof and DRAM ceiling it lies.",
    "dram_share.plot_dram_share", _main_with_repeats)


CONCURRENCY = FigureSpec(
    "concurrency", "Concurrency curve",
    "The memory-concurrency curve that `ewbench ceilings` measured: "
    "DRAM bandwidth (bytes read and written over time) against the KiB "
    "of loads in flight per SM that its kernel holds, on a logarithmic "
    "axis, one panel per shape (copy, the shape of relu and abs; add), "
    "one line per request size (bytes per warp load instruction). "
    "Dotted verticals, with their KiB: where each line reaches 95 % of "
    "its top, what the latency rule takes as enough. Thick red line: "
    "the op's DRAM ceiling. Diamonds: the study's variants at the "
    "largest size, at their own estimated loads in flight per SM "
    "(bytes read per thread x resident threads) and measured "
    "bandwidth, filled in the colour of the line they are placed on "
    "(their own request size, else the nearest measured); variants "
    "whose loads in flight are unknown are named in the title.",
    "concurrency.plot_concurrency", _main)


INSTRUCTIONS = FigureSpec(
    "instructions", "Instruction efficiency",
    "At the largest size, per variant (grouped by op family, fastest "
    "first; colour = study, ewbench addition or peer): bytes moved per "
    "issued warp instruction with the issue-bound threshold of each row "
    "in red, global-load bytes per warp load instruction (128 B scalar "
    "fp32, 512 B for 128-bit loads) and the share of the DRAM ceiling "
    "with 80 % dotted, the DRAM-bound rule's floor (the rule also "
    "needs no sibling faster by more than 3 %).",
    "instructions.plot_instructions", _main)


FIGURES = (CACHE_TIER, ROOFLINE, BLOCKS, DRAM_SHARE, CONCURRENCY,
           INSTRUCTIONS)
NAMES = tuple(spec.name for spec in FIGURES)

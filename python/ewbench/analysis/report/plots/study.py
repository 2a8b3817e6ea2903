"""Every figure of a study, drawn from the runs its parts allow, in
forked processes where the platform has fork (core/workers.py)."""

import multiprocessing
import os

from ...core import workers
from ...core import study as stu
from ...core import variants as var
from .blocks import plot_blocks
from .cache_tier import plot_cache_tier
from .concurrency import plot_concurrency
from .dram_share import plot_dram_share
from .instructions import plot_instructions
from .roofline import plot_roofline


FIGURES = ("cache_tier", "roofline", "blocks", "dram_share", "concurrency",
           "instructions")


def plot_study(study, outdir, marks=None):
    """{name: [png, svg]} of every figure the study's parts allow: the
    cache-tier plot and the hierarchical roofline from the sweep (else the
    article run), the block plot from the block sweep, the DRAM share
    (with the repeat rounds), the concurrency curve (where ceilings.csv
    has it) and instructions from the article run.  marks: what the
    findings located, drawn where it belongs ({"effective_l2":
    EffectiveL2.mark}).  The figures are drawn in parallel where the platform
    forks (seconds each, in matplotlib)."""
    marks = marks or {}
    main = study.run(stu.ARTICLE) or study.main
    sweep = study.run(stu.SWEEP) or main
    jobs = [("cache_tier", plot_cache_tier,
             (sweep, outdir, marks.get("effective_l2"))),
            ("roofline", plot_roofline, (sweep, outdir))]
    blocks = study.run(stu.BLOCKS)
    if blocks is not None or any(
            len({p.block for p in main.points if p.variant == v}) > 1
            for v in {p.variant for p in main.points}):
        published = var.STUDY_BLOCKS if blocks is not None else None
        jobs.append(("blocks", plot_blocks, (blocks or main, outdir,
                                             published)))
    jobs += [("dram_share", plot_dram_share, (main, outdir, study.repeats)),
             ("concurrency", plot_concurrency, (main, outdir)),
             ("instructions", plot_instructions, (main, outdir))]
    drawn = _draw_all([(draw, args) for _, draw, args in jobs])
    return {name: paths for (name, _, _), paths in zip(jobs, drawn)
            if paths}


def _draw_one(job):
    draw, args = job
    return draw(*args)


def _draw_all(jobs):
    """[draw(*args)] for jobs [(draw, args)], in forked processes when the
    platform has fork (the figures share nothing), else one by one; on
    Ctrl-C or any failure the workers end before the exception goes on
    up (workers.py)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return [_draw_one(job) for job in jobs]
    return workers.run_all(_draw_one, jobs, os.cpu_count() or 1)

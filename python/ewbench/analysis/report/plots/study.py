"""Every figure of a study's Figures section (report/figures.py's
FIGURES), drawn from the runs its parts allow, in forked processes where
the platform has fork (core/workers.py)."""

import importlib
import multiprocessing
import os

from ...core import workers
from .. import figures as fig

FIGURES = fig.NAMES


def plot_study(study, outdir, marks=None):
    """{name: [png, svg]} of every figure the study's parts allow, in
    figures.FIGURES' order: each spec's inputs(study, marks) name the runs
    it is drawn from (None: not this study's figure), its draw draws it.
    marks: what the findings located, drawn where it belongs
    ({"effective_l2": EffectiveL2.mark}).  The figures are drawn in
    parallel where the platform forks (seconds each, in matplotlib)."""
    marks = marks or {}
    jobs = []
    for spec in fig.FIGURES:
        inputs = spec.inputs(study, marks)
        if inputs is not None:
            jobs.append((spec.name, _draw_function(spec),
                         (inputs[0], outdir) + tuple(inputs[1:])))
    drawn = _draw_all([(draw, args) for _, draw, args in jobs])
    return {name: paths for (name, _, _), paths in zip(jobs, drawn)
            if paths}


def _draw_function(spec):
    """The function spec.draw names ("module.function" under plots/)."""
    module, function = spec.draw.rsplit(".", 1)
    return getattr(importlib.import_module("." + module, __package__),
                   function)


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

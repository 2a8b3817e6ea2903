"""The article's smaller sizes timed in three processes (article-rounds/,
study.with_times_of; docs/analysis.md, "Three processes"): a point takes
its time from the process whose median is the middle one; its counters,
launch intervals and second timer stay the article's own; without an odd
number of processes the article's times stand."""

import os
import shutil
from dataclasses import replace

import pytest

from ewbench.analysis.core import crosscheck
from ewbench.analysis.core import select as sel
from ewbench.analysis.core import study
from ewbench.analysis.report.page import method
from conftest import FIXTURE, rewrite, scale_times

ADD = ("add_f32", 1 << 20, 256, "warm", "stream")
SLOW = ("add_f32", 1 << 20, "warm")


def add_round(root, number, factors):
    """article-rounds/round-NUMBER/: the fixture's run, its rows of
    `factors` slower (scale_times)."""
    run = root / study.ARTICLE_ROUNDS / ("round-%d" % number)
    shutil.copytree(FIXTURE, run)
    os.remove(run / "ceilings.csv")
    scale_times(str(run), factors)
    return run


def point(s, key=ADD):
    return next(p for p in s.run(study.ARTICLE).points if p.key == key)


def test_a_point_takes_the_middle_process_and_keeps_its_own(study_dir):
    alone = study.load_study(str(study_dir))
    own = point(alone)
    add_round(study_dir, 2, {SLOW: 1.10})
    add_round(study_dir, 3, {SLOW: 1.04})
    s = study.load_study(str(study_dir))
    p = point(s)
    # the middle of 1.00, 1.10 and 1.04 times the article's
    assert p.time_median_ns == pytest.approx(1.04 * own.time_median_ns)
    assert p.bandwidth == pytest.approx(own.bandwidth / 1.04)
    assert p.time_min_ns == pytest.approx(1.04 * own.time_min_ns)
    # the row its own process measured is kept, and its counters
    assert p.own is not None and p.own.time_median_ns == own.time_median_ns
    article = s.run(study.ARTICLE)
    assert sel.metric(article, p, "dram__bytes_read.sum") == sel.metric(
        alone.run(study.ARTICLE), own, "dram__bytes_read.sum")
    # the points every process timed alike keep their own rows
    assert all(q.own is None for q in article.points if q.key != ADD)
    # the article's largest size is not timed again: its own
    assert point(s, ("add_f32", 1 << 28, 256, "warm", "stream")).own is None
    assert [os.path.basename(r.path) for r in s.article_rounds] == [
        "round-2", "round-3"]
    assert ("%s/round-3" % study.ARTICLE_ROUNDS) in [
        folder for folder, _ in s.every_run()]
    text = method._article_rounds_text(s)
    assert "by another process's row" in text and ", 1 of them" in text


def test_the_median_is_robust_to_one_process_off(study_dir):
    # the article's own process 8 % slow, the rounds agree: theirs
    scale_times(str(study_dir / study.ARTICLE), {SLOW: 1.08})
    own = point(study.load_study(str(study_dir)))
    add_round(study_dir, 2, {})
    add_round(study_dir, 3, {SLOW: 1.001})
    p = point(study.load_study(str(study_dir)))
    assert p.time_median_ns == pytest.approx(own.time_median_ns / 1.08 *
                                             1.001)


def test_an_even_number_of_processes_has_no_median(study_dir):
    own = point(study.load_study(str(study_dir)))
    add_round(study_dir, 2, {SLOW: 1.10})
    s = study.load_study(str(study_dir))
    assert point(s) == own and point(s).own is None
    assert "no median" in method._article_rounds_text(s)


def test_a_row_that_failed_its_check_is_no_process_of_the_median(
        study_dir):
    own = point(study.load_study(str(study_dir)))
    add_round(study_dir, 2, {SLOW: 1.10})
    run = add_round(study_dir, 3, {SLOW: 1.04})

    def fail(text):
        lines = text.split("\n")
        header = lines[0].split(",")
        for i, line in enumerate(lines[1:], 1):
            f = line.split(",")
            if len(f) == len(header) and tuple(f[1:2]) + (
                    int(f[4]), f[6]) == SLOW and f[5] == "256":
                f[header.index("check")] = "fail"
                lines[i] = ",".join(f)
        return "\n".join(lines)
    rewrite(str(run / "timing.csv"), fail)
    assert point(study.load_study(str(study_dir))).time_median_ns == \
        own.time_median_ns


def test_the_cross_check_is_of_the_process_that_ran_it(study_dir):
    own = replace(point(study.load_study(str(study_dir))),
                  time_source="replay")
    own = replace(own, crosscheck_ns=own.time_median_ns * 1.001,
                  activity_median_ns=own.time_median_ns * 1.05)
    median = replace(own, own=own, time_median_ns=own.time_median_ns * 1.2)
    assert crosscheck.check(median).disagreement == pytest.approx(0.001)
    assert crosscheck.check(median).point is own

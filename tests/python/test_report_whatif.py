"""The report's section of a user's op made into the family
(report/whatif.py), on the H200 rows committed under
reports/reference/nvidia-h200-user-kernels/elementwise/add (measured):
the what-if's own ranking laid out, the user's kernel beside the winner
with its margin by the noise rule, the built-in and cub, and why the
winner wins in what the run holds (no counters there: the section says
so; with counters it cites them)."""

import dataclasses
import re
import os

from ewbench.analysis import whatif
from ewbench.analysis.core import document as doc
from ewbench.analysis.core import noise, study as stu
from ewbench.analysis.core.load import MetricValue, load_run
from ewbench.analysis.report import whatif as section_of
from ewbench.analysis.report.model import faults
from conftest import ROOT

ADD = os.path.join(ROOT, "reports", "reference", "nvidia-h200-user-kernels",
                   "elementwise", "add")
KEY = (1 << 28, "f32", "warm", "stream")


def blocks_of(run):
    return section_of.section(stu.single_run_study(run))


def table_of(blocks):
    return next(b for b in blocks if isinstance(b, doc.Table))


def text_of(blocks):
    return doc.render_markdown(blocks)


def test_the_table_is_the_whatifs_ranking():
    run = load_run(ADD)
    rows, _, count = whatif.ranking(whatif.groups(run.points)[KEY],
                                    noise.run_floor(run))
    blocks = blocks_of(run)
    assert isinstance(blocks[0], doc.Heading)
    table = table_of(blocks)
    # One row per ranking row, in its order, with its place and role.
    assert [(r[0], r[1]) for r in table.rows] == [
        (str(place), role) for place, role, *_ in rows]
    assert [r[1] for r in table.rows] == ["generated"] * 5 + [
        "user", "built-in", "cub"]
    assert table.rows[0][2] == "`%s`" % rows[0][2]
    # The access column: the member's word and words per input, from its
    # id; the user's kernel's elements per thread from run.json (no SASS
    # recorded for it in this run); the built-in's widest SASS load.
    winner = whatif.member(rows[0][2])
    assert table.rows[0][4] == "%d-bit × %d" % (winner.bits, winner.words)
    assert table.rows[5][4] == "4 elements a thread"
    assert table.rows[6][4] == "widest load 128-bit (SASS)"
    text = text_of(blocks)
    assert "%d candidates checked and ranked" % count in text
    # 44 members (36, and on sm_90 two two-stage bulk-copy ones and six
    # one-stage ones) x 5 blocks.
    assert count == 220


def test_the_winner_beside_the_users_kernel_by_the_noise_rule():
    run = load_run(ADD)
    pts = whatif.groups(run.points)[KEY]
    rows, _, _ = whatif.ranking(pts, noise.run_floor(run))
    winner, user = rows[0], next(r for r in rows if r[1] == "user")
    gain = 100.0 * (winner[5] / user[5] - 1)
    text = text_of(blocks_of(run))
    # 4445 against 4399 GB/s: 1.0 %, inside the run's 2.4 % noise limit.
    assert "Over your kernel: %+.1f %% GB/s, within the noise" % gain \
        in " ".join(text.split())
    assert "The run collected no counters" in " ".join(text.split())
    assert "32-bit words, 3 per thread per input" in " ".join(text.split())
    assert "1 element of f32 per word" in " ".join(text.split())


def test_counters_are_cited_where_the_run_has_them():
    """The same rows with load counters for the winner and the user's
    kernel (as a run with counters collects them): the why cites both."""
    run = load_run(ADD)
    pts = whatif.groups(run.points)[KEY]
    rows, _, _ = whatif.ranking(pts, noise.run_floor(run))
    by = {(p.variant, p.block): p for p in pts}
    winner = by[(rows[0][2], rows[0][3])]
    user = next(by[(r[2], r[3])] for r in rows if r[1] == "user")

    read = 8 << 28          # two f32 inputs

    def counters(per_warp, request_bytes, sectors_per_request):
        requests = read / request_bytes
        return {"derived__global_ld_inst_per_warp":
                MetricValue(per_warp, "", "derived"),
                faults.REQUESTS["loads"]: MetricValue(requests, "", "cupti"),
                faults.SECTORS["loads"]: MetricValue(
                    requests * sectors_per_request, "", "cupti")}
    # The winner: a warp's 128-bit load, 512 bytes in 16 sectors; the
    # user's: 32-bit loads of 128 bytes touching 8 sectors (strided).
    with_counters = dataclasses.replace(run, metrics={
        winner.key: counters(2.0, 512, 16.0),
        user.key: counters(8.0, 128, 8.0)})
    text = " ".join(text_of(blocks_of(with_counters)).split())
    assert "the winner 2.0 global load instructions per warp" in text
    assert "the winner 2.0 global load instructions per warp, 16.0 " \
        "sectors per load request (16.0 ideal)" in text
    assert "yours 8.0 global load instructions per warp, 8.0 sectors " \
        "per load request (4.0 ideal)" in text
    assert "no counters" not in text


def test_a_run_without_generated_members_has_no_section():
    run = load_run(ADD)
    plain = dataclasses.replace(run, points=tuple(
        p for p in run.points if not whatif.member(p.variant)))
    assert blocks_of(plain) == []


def test_a_cause_is_named_only_for_a_lead_beyond_the_noise():
    """As measured the user's kernel is within the noise of the winner:
    no cause named.  The same run with the user's kernel taking twice as
    long: the lead is beyond the noise and the why is given."""
    run = load_run(ADD)
    text = " ".join(text_of(blocks_of(run)).split())
    assert "No cause to name, its lead within the noise" in text
    assert "Why:" not in text

    def slower(p):
        if not p.variant.startswith(whatif.USER_PREFIX):
            return p
        return dataclasses.replace(p, **{
            f: 2 * getattr(p, f) for f in (
                "time_median_ns", "time_ci_low_ns", "time_ci_high_ns")})
    slow = dataclasses.replace(run, points=tuple(map(slower, run.points)))
    rows, _, _ = whatif.ranking(whatif.groups(slow.points)[KEY],
                                noise.run_floor(slow))
    text = " ".join(text_of(blocks_of(slow)).split())
    user = next(r for r in rows if r[1] == "user")
    assert "Over your kernel: %+.1f %% GB/s, beyond the noise limit" % (
        100.0 * (rows[0][5] / user[5] - 1)) in text
    assert re.search(r"Over your kernel: \+10\d\.\d % GB/s", text)
    assert "Why: `%s` loads %d-bit words" % (
        rows[0][2], whatif.member(rows[0][2]).bits) in text


def test_the_section_shows_every_prediction_beside_its_measurement(
        monkeypatch, tmp_path):
    """With the ceilings of the rows' call, the section's table gives each
    member shown its prediction and measured / predicted (the what-if's,
    report/whatif.py: candidate_prediction), and its note the error over
    all 220."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    ceilings = os.path.join(os.path.dirname(os.path.dirname(ADD)),
                            "userfaults", "ceilings")
    study = stu.open_study(ADD, ceilings)
    run = study.main
    table = table_of(section_of.section(study))
    predict, _ = section_of.predictor(run)
    for row in table.rows:
        variant = row[2].strip("`")
        if not variant.startswith("gen:"):
            assert row[-2:] == ("", "")
            continue
        p = next(q for q in run.points if q.variant == variant and
                 str(q.block) == row[3])
        got = predict(p)
        assert row[-2:] == ("%.0f" % (got.value / 1e9),
                            "%.3f" % (p.bandwidth / got.value))
    text = " ".join(text_of(section_of.section(study)).split())
    assert "Predicted from the ceilings run " in text
    assert "220 of 220 members" in text

"""What the L2 byte counter counts (report/l2_counts.py): the 1.5x of the
H100 and H200 against the sectors that crossed the L2's partition fabric,
measured or not (issue 40)."""

import dataclasses

from ewbench.analysis.core.load import MetricValue
from ewbench.analysis.report import l2_counts as l2c
from ewbench.analysis.report import plots
from test_findings import healthy_points, make_run

MiB = 1 << 20


def counted(l2_ratio, fabric_ratio=None):
    """A run whose largest-size points count l2_ratio x their bytes at
    L2, and fabric_ratio x of them as sectors from the fabric (None: the
    counter not taken)."""
    pts = healthy_points()
    top = max(p.n for p in pts)
    metrics = {}
    for p in pts:
        if p.n != top:
            continue
        values = {"lts__t_bytes.sum": MetricValue(
            l2_ratio * p.bytes_moved, "byte", "cupti")}
        if fabric_ratio is not None:
            values["lts__t_sectors_srcunit_ltcfabric.sum"] = MetricValue(
                fabric_ratio * p.bytes_moved / 32, "sector", "cupti")
        metrics[p.key] = values
    return make_run(pts, metrics)


def note_of(run):
    return l2c.note(l2c.l2_count(run, [p for p in run.points
                                       if p.n == max(q.n for q in
                                                     run.points)]),
                    50 * MiB, 34.9 * MiB)


def test_without_the_fabric_counter_the_hypothesis_is_untested():
    text = note_of(counted(1.5))
    assert "is 1.50x (1.50-1.50x) over 6 rows" in text
    assert "not measured in this run" in text and "untested" in text
    # the capacity the hypothesis implies, beside what finding 2 measured
    assert "1/1.5 of its nominal 50 MiB of distinct data, 33.3 MiB, " \
        "against the 34.9 MiB effective L2" in text


def test_the_fabric_counter_tests_the_partition_hypothesis():
    holds = note_of(counted(1.5, 0.5))
    assert "0.50x the bytes moved; the L2 bytes less them are 1.00x " \
        "(1.00-1.00x), within 5 % of 1x on 6 of 6 rows: the hypothesis " \
        "holds" in holds
    fails = note_of(counted(1.5, 0.2))
    assert "are 1.30x" in fails and "on 0 of 6 rows" in fails and \
        "does not hold" in fails
    assert l2c.l2_count(counted(1.5, 0.5), counted(1.5, 0.5).points) \
        .holds is True


def test_no_l2_counter_no_note():
    assert l2c.note(l2c.l2_count(make_run(healthy_points()),
                                 healthy_points())) == ""


def test_the_figure_draws_the_l2_bytes_less_the_fabrics(tmp_path):
    run = counted(1.5, 0.5)
    # the ceilings the figure needs, and a DRAM count so it has a panel
    _, svg = plots.plot_dram_share(run, str(tmp_path))
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    assert "at L2 less those that crossed the partition fabric" in text
    bare = dataclasses.replace(run, metrics={
        k: {"lts__t_bytes.sum": v["lts__t_bytes.sum"]}
        for k, v in run.metrics.items()})
    _, svg = plots.plot_dram_share(bare, str(tmp_path / "bare"))
    with open(svg, encoding="utf-8") as f:
        assert "partition fabric" not in f.read()


def test_one_row_off_does_not_refute_what_the_others_show():
    # the H200 reference: 34 of 36 rows within 5 %, the highest 1.28x
    run = counted(1.5, 0.5)
    keys = [p.key for p in run.points if p.key in run.metrics]
    metrics = dict(run.metrics)
    p = next(q for q in run.points if q.key == keys[0])
    metrics[keys[0]] = dict(metrics[keys[0]], **{
        "lts__t_bytes.sum": MetricValue(1.78 * p.bytes_moved, "byte",
                                        "cupti")})
    count = l2c.l2_count(dataclasses.replace(run, metrics=metrics),
                         [q for q in run.points if q.key in keys])
    assert count.own_within == len(keys) - 1 and count.holds is True

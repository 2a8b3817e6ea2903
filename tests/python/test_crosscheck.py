"""The timer cross-check (core/crosscheck.py; docs/analysis.md, "The timer
cross-check"): which rows it judges, which it flags, and what the report's
Method and Threats say of it."""

from ewbench.analysis.core import crosscheck
from ewbench.analysis.core.load import Point


def point(time_ns, cross_ns, ci_pct=0.2, source="kernel", **over):
    half = time_ns * ci_pct / 100
    base = dict(run_id="r", variant="add_f16", op="add", dtype="f16",
                n=1 << 28, block=256, cache="warm", launch="stream",
                grid=None, footprint_bytes=3 << 28, bytes_moved=3 << 28,
                flops=1 << 28, iters=20, time_median_ns=time_ns,
                time_min_ns=None, time_max_ns=None, time_mean_ns=None,
                time_stddev_ns=None, activity_median_ns=None,
                bandwidth_median_bytes_per_s=None,
                bandwidth_max_bytes_per_s=None, spec_dram_pct=None,
                check="pass", time_source=source,
                time_ci_low_ns=time_ns - half, time_ci_high_ns=time_ns + half,
                crosscheck_ns=cross_ns)
    base.update(over)
    return Point(**base)


def test_a_slowed_kernel_is_flagged_and_an_agreeing_one_is_not():
    slowed = crosscheck.check(point(826.6e3, 746.9e3))
    assert slowed.disagreement < -0.09 and slowed.flagged
    agreeing = crosscheck.check(point(733.4e3, 734.2e3))
    assert not agreeing.flagged


def test_the_row_interval_and_the_gap_widen_the_tolerance():
    # 5 % apart at 100 us: beyond 2 % + 2 us + a 0.2 % interval, within
    # the same with a 2 % interval (replay rows); records-timed rows
    # allow a 1 us gap: 4 % apart is beyond 2 % + 1 us + 0.2 %.
    replay = dict(source="replay")
    assert crosscheck.check(point(100e3, 95e3, ci_pct=0.2, **replay)).flagged
    assert not crosscheck.check(point(100e3, 95e3, ci_pct=2.0,
                                      **replay)).flagged
    assert crosscheck.check(point(100e3, 96e3, ci_pct=0.2)).flagged
    assert not crosscheck.check(point(100e3, 96e3, ci_pct=2.0)).flagged
    # Queued stream launches 1.51 us longer than a 25 us replay (6 %):
    # the stream's gap (cub_add_f16 at 2^24 on an H200).
    assert not crosscheck.check(point(25.04e3, 26.55e3, n=1 << 24,
                                      source="replay")).flagged


def test_short_kernels_are_checked_but_never_judged():
    c = crosscheck.check(point(3.61e3, 3.26e3, n=1 << 20))
    assert c is not None and not c.judged and not c.flagged
    assert crosscheck.check(point(20e3, 10e3)).judged


def test_rows_without_a_second_timer_have_no_check():
    assert crosscheck.check(point(5e3, None)) is None
    assert crosscheck.check(point(5e3, 4e3, source="events")) is None
    assert crosscheck.checks([point(5e3, None), point(30e3, 30e3)]) != []


def test_the_concurrent_kernel_timer_is_named():
    assert crosscheck.instrumented_timer(
        {"settings": {"timer": "cupti_kernel_activity"}})
    assert not crosscheck.instrumented_timer(
        {"settings": {"timer": "cuda_events"}})
    assert not crosscheck.instrumented_timer(None)


def test_each_protocol_names_its_two_timers():
    replayed = crosscheck.check(point(772.9e3, 774.5e3, source="replay"))
    assert replayed.timers[0] == "the uninstrumented graph replay"
    assert "queued behind a spin" in replayed.timers[1]
    recorded = crosscheck.check(point(826.6e3, 746.9e3))
    assert recorded.timers == ("the kernel records",
                               "the uninstrumented graph replay")


def test_the_records_cost_is_read_beside_the_replay():
    # add_f16 at 2^28 on an H200: records 853.6 us, replay 772.9 us.
    slowed = point(772.9e3, 774.5e3, source="replay",
                   activity_median_ns=853.6e3)
    assert abs(crosscheck.records_cost(slowed) - 0.1044) < 1e-3
    # Only replay rows, only judged sizes, only where the records ran.
    assert crosscheck.records_cost(point(853.6e3, 772.9e3)) is None
    assert crosscheck.records_cost(point(3.3e3, 3.3e3, source="replay",
                                         activity_median_ns=3.4e3)) is None
    assert crosscheck.records_cost(point(772.9e3, None,
                                         source="replay")) is None

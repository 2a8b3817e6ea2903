"""The PyTorch baseline: the pure parts, and the refusal paths."""

import os

import pytest

from analysis import torch_baseline as tb
from analysis.__main__ import EXIT_CANNOT_RUN, main
from analysis.load import load_run
from conftest import rewrite


def drop_torch_rows(run_copy):
    rewrite(run_copy / "timing.csv", lambda t: "\n".join(
        l for l in t.split("\n") if ",torch_" not in l))


def test_plan_covers_sizes_caches_and_skips_present(fixture_run, run_copy):
    assert tb.plan(fixture_run) == []           # fixture has torch rows
    drop_torch_rows(run_copy)
    jobs = tb.plan(load_run(str(run_copy)))
    assert len(jobs) == 3 * 5 * 2
    assert {j.variant for j in jobs} == {v for v, _, _ in tb.VARIANTS}
    assert {j.iters for j in jobs} == {100} and {j.warmup for j in jobs} \
        == {10}


def test_appended_row_is_schema_valid(run_copy):
    drop_torch_rows(run_copy)
    run = load_run(str(run_copy))
    job = tb.plan(run)[0]
    samples = [4000.0, 4100.0, 3900.0, 4050.0]
    timing = os.path.join(str(run_copy), "timing.csv")
    header = tb.read_header(timing)
    line = tb.csv_line(header, tb.row_values(run, job, samples, "pass"))
    assert line.endswith("\n") and line.count(",") == len(header) - 1
    tb.append_line(timing, line)
    again = load_run(str(run_copy))
    added = [p for p in again.points if p.variant == job.variant]
    assert len(added) == 1
    p = added[0]
    assert (p.block, p.grid, p.check) == (None, None, "pass")
    assert p.time_median_ns == 4025.0 and p.time_min_ns == 3900.0
    assert p.bytes_moved == tb.traffic(job.op, job.dtype, job.n)[1]
    assert p.bandwidth == pytest.approx(p.bytes_moved / 4025e-9)


def test_traffic_matches_data_format():
    assert tb.traffic("add", "f32", 10) == (120, 120, 10)
    assert tb.traffic("add", "f16", 10) == (60, 60, 10)
    assert tb.traffic("relu", "f32", 10) == (80, 80, 0)


def test_cli_reports_cannot_run(run_copy, monkeypatch, capsys):
    drop_torch_rows(run_copy)

    def no_torch():
        raise tb.CannotRun("PyTorch is not installed (test)")
    monkeypatch.setattr(tb, "import_torch", no_torch)
    before = open(run_copy / "timing.csv").read()
    assert main(["torch", str(run_copy)]) == EXIT_CANNOT_RUN
    assert "cannot run here: PyTorch is not installed" in \
        capsys.readouterr().err
    assert open(run_copy / "timing.csv").read() == before


def test_dry_run_needs_no_torch(run_copy, capsys):
    drop_torch_rows(run_copy)
    assert main(["torch", "--dry-run", str(run_copy)]) == 0
    out = capsys.readouterr().out
    assert "torch_add_f16 n=268435456 cold iters=100 warmup=10" in out

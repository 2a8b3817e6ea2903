"""Requested bytes per load instruction beside the L1 sector bytes, and
the SASS of the kernels (sass.csv), in Finding 4 and the loader: a kernel
of 32-bit loads 16 bytes apart asks for a quarter of the sector bytes its
loads touch, which the sector bytes alone hide."""

import dataclasses

from ewbench.analysis.report import findings as F
from ewbench.analysis.core import load
from ewbench.analysis.core import sass
from ewbench.analysis.core import select as sel
from ewbench.analysis.core.load import MetricValue, SassRow
from test_findings import SIZES, healthy_points, make_run, point

LD = "smsp__sass_inst_executed_op_global_ld.sum"
SECTOR_BYTES = "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum"
WARPS = "smsp__warps_launched.sum"
# variant -> (bytes a thread asks for per load, sector bytes per warp load
# over requested, elements per thread); loads of 2 operands each
LOADS = {"add_f32": (4, 1, 1), "add_f32x4": (16, 1, 4), "add_f16": (2, 1, 1),
         "add_f16x8_pack": (16, 1, 8), "add_f16x8": (4, 4, 8)}


def points():
    return healthy_points() + [point("add_f16x8", n, bandwidth=2.0e12,
                                     dtype="f16") for n in SIZES]


def counters(pts):
    """The base counters of each add point, as CUPTI gives them, with the
    derived rows left for the loader to complete (a run written before
    they existed)."""
    out = {}
    for p in pts:
        if p.variant not in LOADS:
            continue
        per_thread, waste, elements = LOADS[p.variant]
        read = p.bytes_moved * 2 // 3
        loads = read / (32 * per_thread)
        out[p.key] = {
            LD: MetricValue(loads, "inst", "cupti"),
            SECTOR_BYTES: MetricValue(read * waste, "byte", "cupti"),
            WARPS: MetricValue(p.n / elements / 32, "warp", "cupti")}
    load.complete_derived(out, pts)
    return out


def test_requested_bytes_differ_from_sector_bytes_for_32bit_loads():
    pts = points()
    metrics = counters(pts)
    run = make_run(pts, metrics)
    p = [q for q in pts if q.variant == "add_f16x8"][-1]
    assert sel.metric(run, p, sel.M_LD_REQUESTED_BYTES_PER_INST) == 128.0
    assert sel.metric(run, p, sel.M_LD_BYTES_PER_INST) == 512.0
    assert sel.metric(run, p, sel.M_LD_SECTOR_EFFICIENCY) == 25.0
    assert sel.metric(run, p, sel.M_LD_INST_PER_WARP) == 8.0
    assert metrics[p.key][sel.M_LD_REQUESTED_BYTES_PER_INST].source == \
        load.COMPLETED
    q = [q for q in pts if q.variant == "add_f16x8_pack"][-1]
    assert sel.metric(run, q, sel.M_LD_REQUESTED_BYTES_PER_INST) == 512.0
    assert sel.metric(run, q, sel.M_LD_SECTOR_EFFICIENCY) == 100.0


def test_finding_4_judges_requested_bytes_and_explains_the_plateau():
    pts = points()
    run = make_run(pts, counters(pts))
    f = F.JUDGES[3](F.make_context(run))
    assert f.verdict == F.HOLDS, f.explanation
    assert "add_f16x8_pack 8.00x (expected 8x)" in f.deciding
    assert ("add_f16x8 asks for 128 B per warp load instruction (4 B a "
            "thread) in 8 loads a thread, 4 per operand, and uses 25 % of "
            "the 512 B of L1 sectors each touches; add_f16x8_pack asks for "
            "512 B, so add_f16x8 issues 4x the load instructions") in \
        f.explanation
    assert "load instructions (SASS): not recorded (a run written before" \
        in f.explanation
    # the full-sector kernels are not listed as wasting
    assert "add_f32x4 asks" not in f.explanation


def test_finding_4_cites_the_sass_where_the_run_has_it():
    pts = points()
    rows = {"add_f16x8": (
        SassRow("add_f16x8", "sm_90", "load", "LDG.E", 32, 8),
        SassRow("add_f16x8", "sm_90", "load", "LDG.E.U16", 16, 14),
        SassRow("add_f16x8", "sm_90", "store", "STG.E", 32, 4))}
    run = dataclasses.replace(make_run(pts, counters(pts)), sass=rows)
    run.manifest["sass"] = "recorded for sm_90"
    f = F.JUDGES[3](F.make_context(run))
    assert "(SASS: 8 × LDG.E (32-bit), 14 × LDG.E.U16 (16-bit))" in \
        f.explanation
    assert "(SASS): not recorded" not in f.explanation
    assert sass.widest(run, "add_f16x8") == 32
    assert sass.summary(run, "add_f16x8").startswith(
        "SASS sm_90 (static counts, every path): loads 8 × LDG.E (32-bit)")
    assert sass.summary(run, "add_f32") == \
        "SASS not recorded for this kernel"


def test_a_row_of_an_older_definition_is_dropped():
    """derived__global_ld_bytes_per_inst once fell back to the requested
    bytes where the sector bytes were not measured: such a row is not
    sector bytes, and goes."""
    p = points()[-1]
    metrics = {p.key: {
        LD: MetricValue(1000.0, "inst", "cupti"),
        sel.M_LD_BYTES_PER_INST: MetricValue(128.0, "byte", "derived")}}
    load.complete_derived(metrics, [p])
    assert sel.M_LD_BYTES_PER_INST not in metrics[p.key]
    assert sel.M_LD_REQUESTED_BYTES_PER_INST in metrics[p.key]


def test_sass_rows_of_kernels_an_interrupted_run_never_timed(run_copy):
    # sass.csv lists every kernel of the plan before the first is timed:
    # a run stopped before one (status interrupted) has its rows without
    # timing rows; they are left out.  A complete run may not have them.
    import json
    import pytest
    from ewbench.analysis.core.load import DataError
    manifest = json.loads((run_copy / "run.json").read_text())
    row = "%s,zz_not_timed,sm_90,load,LDG.E.128,128,2\n" % \
        manifest["run_id"]
    (run_copy / "sass.csv").write_text(
        "run_id,variant,arch,kind,instruction,bits,count\n" + row)
    with pytest.raises(DataError, match="expected a variant the run "
                       "timed, got 'zz_not_timed'"):
        load.load_run(str(run_copy))
    manifest["status"] = "interrupted"
    (run_copy / "run.json").write_text(json.dumps(manifest))
    assert load.load_run(str(run_copy)).sass == {}

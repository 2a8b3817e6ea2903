"""A user's kernel (`ewbench run --kernel`) in the analysis: its role, its
run.json entry, and its place in the report beside the others."""

import json
import os

import pytest

from ewbench.analysis.core import document as doc
from ewbench.analysis.report import plots
from ewbench.analysis.report import page as report
from ewbench.analysis.core import study
from ewbench.analysis.report import user_kernels as uk
from ewbench.analysis.core import variants as var
from ewbench.analysis.core.load import DataError, load_run
from conftest import rewrite, unwrapped

USER = "user:add_f32x4_user"


def test_role_of_a_users_kernel():
    assert var.role(USER) == var.USER
    assert not var.is_own(USER)
    assert var.peer_name(USER) is None
    # After the study's, the additions and the peers.
    order = sorted([USER, "cub_add_f32", "add_f32x4_ilp2", "add_f32"],
                   key=var.sort_key)
    assert order == ["add_f32", "add_f32x4_ilp2", "cub_add_f32", USER]


def copy_rows_as(run_dir, source, change, entry):
    """Copies every `source` row of the fixture's timing.csv as the kernel
    entry (its run.json user_kernels entry) measured: change(header, cells)
    edits each copy, whose bandwidth cells are emptied (from bytes and
    time); records entry in run.json."""
    def rows(text):
        lines = text.splitlines(keepends=True)
        header = lines[0].rstrip("\r\n").split(",")
        bws = [i for i, name in enumerate(header)
               if name.startswith("bandwidth_") or name == "spec_dram_pct"]
        extra = []
        for line in lines[1:]:
            cells = line.rstrip("\r\n").split(",")
            if cells[1] != source:
                continue
            change(header, cells)
            for i in bws:
                cells[i] = ""
            extra.append(",".join(cells) + "\r\n")
        assert extra
        return text + "".join(extra)
    rewrite(os.path.join(run_dir, "timing.csv"), rows)

    def manifest(text):
        m = json.loads(text)
        m["settings"]["variants"].append(entry["variant"])
        m["user_kernels"] = [entry]
        return json.dumps(m, indent=2)
    rewrite(os.path.join(run_dir, "run.json"), manifest)


def entry(variant, file, function, op, dtype, **more):
    """A run.json user_kernels entry for variant (its function, symbol
    alike, in file), compiled for sm_90 by NVRTC 13.0, then more."""
    return {"variant": variant, "file": file, "function": function,
            "symbol": function, "op": op, "dtype": dtype,
            "source_sha256": "ab" * 32, "cache_key": "cd" * 32,
            "cached": False, "arch": "sm_90", "nvrtc": "13.0",
            "options": ["--gpu-architecture=sm_90"], **more}


def add_user_kernel(run_dir, faster=1.0):
    """Copies every add_f32x4 row of the fixture as the user's kernel
    (time divided by faster) and records it in run.json."""
    def change(header, cells):
        cells[1] = USER
        for i, name in enumerate(header):
            if name.startswith("time_") and name.endswith("_ns") and \
                    cells[i]:
                cells[i] = repr(float(cells[i]) / faster)
    copy_rows_as(run_dir, "add_f32x4", change, entry(
        USER, "examples/add_f32x4.cu", "add_f32x4_user", "add", "f32",
        elems_per_thread=4, default_block=64, timeout_s=30, stopped=None))


def test_user_kernel_beside_the_others(run_copy):
    add_user_kernel(run_copy)
    run = load_run(str(run_copy))       # validates run.json and the rows
    s = study.single_run_study(run)
    rows = uk.beside(s)
    assert rows and all(b.user.variant == USER for b in rows)
    for b in rows:
        assert b.study is not None and var.role(b.study.variant) == var.STUDY
        assert b.own is not None and var.is_own(b.own.variant)
        assert b.user.n == b.own.n and b.user.cache == b.own.cache
        # The same kernel's numbers: never beyond the noise of itself.
        same = [p for p in run.points if p.variant == "add_f32x4" and
                p.key[1:] == b.user.key[1:]]
        assert uk.verdict(b.user, same[0]) == "within noise"
    text = doc.render_markdown(uk.section(s, {}))
    assert "Your kernels beside the study" in text
    assert "`add_f32x4_user` in `examples/add_f32x4.cu`" in text
    assert "`%s`" % USER in text


def test_faster_user_kernel_is_beyond_the_noise(run_copy):
    add_user_kernel(run_copy, faster=2.0)
    s = study.single_run_study(load_run(str(run_copy)))
    assert all(uk.verdict(b.user, b.own) == "faster" for b in uk.beside(s))


def test_report_places_the_user_kernel(run_copy, tmp_path):
    add_user_kernel(run_copy)
    md, _, _ = report.write_report(load_run(str(run_copy)),
                                   str(tmp_path / "report"), plots.plot_study)
    text = open(md, encoding="utf-8").read()
    answers = text.index("## Contents")
    assert 0 < text.index("Your kernels beside the study") < answers
    assert os.path.exists(tmp_path / "report" / "figures" /
                          "user_kernels.svg")


def test_no_user_kernel_no_section(fixture_run):
    s = study.single_run_study(fixture_run)
    assert uk.section(s, {}) == [] and uk.beside(s) == []


CUSTOM = "user:fma_bf16"


def add_custom_op(run_dir):
    """Copies every relu_f32 row of the fixture (8 bytes per element) as a
    user's own 3-input bf16 op (op custom: 3 x 2 bytes read, 2 written)
    checked against its reference kernel, and records it in run.json."""
    def change(header, cells):
        cells[1:4] = [CUSTOM, "custom", "bf16"]
    copy_rows_as(run_dir, "relu_f32", change, entry(
        CUSTOM, "examples/fma_bf16.cu", "fma_bf16", "custom", "bf16",
        count="uint64", elems_per_thread=2, default_block=256, timeout_s=30,
        guard=True, stopped=None, inputs=3, in_place=False,
        bytes_per_element=8, reference={
            "file": "examples/fma_bf16_ref.cu",
            "function": "fma_bf16_ref", "symbol": "fma_bf16_ref",
            "source_sha256": "ef" * 32, "cache_key": "01" * 32,
            "cached": True, "count": "uint64", "ulps": 1, "rel": 0}))


def test_custom_op_beside_kernels_of_its_bytes(run_copy):
    add_custom_op(run_copy)
    run = load_run(str(run_copy))       # op custom, dtype bf16 validate
    s = study.single_run_study(run)
    rows = uk.beside(s)
    assert rows and all(b.user.variant == CUSTOM for b in rows)
    for b in rows:
        assert b.user.op == "custom" and b.user.dtype == "bf16"
        # Beside the built-in kernels of 8 bytes an element (relu and abs
        # f32), never beside add (12) or the f16 ones (4 or 6).
        assert b.study is not None
        for _, p in b.others():
            assert p.bytes_moved == b.user.bytes_moved == 8 * b.user.n
            assert p.op in ("relu", "abs") and p.dtype == "f32"
        assert "% of " in uk.of_ceiling(run, b.user)


def test_report_renders_a_custom_op(run_copy, tmp_path):
    add_custom_op(run_copy)
    md, _, _ = report.write_report(load_run(str(run_copy)),
                                   str(tmp_path / "report"), plots.plot_study)
    text = unwrapped(open(md, encoding="utf-8").read())
    section = text[text.index("Your kernels beside the study"):]
    assert "`user:fma_bf16`" in section
    assert "custom bf16" in section
    assert "checked against `fma_bf16_ref` in `examples/fma_bf16_ref.cu`" \
        in section and "within 1 ulp; 3 inputs, 8 bytes per element" \
        in section
    assert "| DRAM ceiling |" in section


def _edit_user_entry(run_dir, change):
    def manifest(text):
        m = json.loads(text)
        change(m["user_kernels"][0])
        return json.dumps(m, indent=2)
    rewrite(os.path.join(run_dir, "run.json"), manifest)


def test_close_tolerance_and_op_source(run_copy, tmp_path):
    """Issue 41: --atol/--rtol (assert_close's rule) and where the op and
    dtype came from are run.json fields the loader accepts and the report
    says."""
    add_custom_op(run_copy)

    def close(entry):
        entry["op_from"] = "--reference"
        entry["dtype_from"] = "parameters"
        entry["reference"].update(atol=1e-3, rtol=1.6e-2)
    _edit_user_entry(run_copy, close)
    run = load_run(str(run_copy))
    assert run.manifest["user_kernels"][0]["reference"]["rtol"] == 1.6e-2
    # Words only: no figure reads a tolerance; the figures of this run
    # are test_report_renders_a_custom_op's.
    md, _, _ = report.write_report(run, str(tmp_path / "report"),
                                   lambda *args: {})
    text = unwrapped(open(md, encoding="utf-8").read())
    assert "within 1 ulp or 0.001 + 0.016 × |expected|" in text


def test_bad_tolerance_or_op_source_refused(run_copy):
    add_custom_op(run_copy)
    _edit_user_entry(run_copy,
                     lambda e: e["reference"].update(atol=-1e-3))
    with pytest.raises(DataError, match=r"run\.json:\d+: .*atol"):
        load_run(str(run_copy))
    _edit_user_entry(run_copy, lambda e: (
        e["reference"].update(atol=1e-3), e.update(op_from="guessed")))
    with pytest.raises(DataError, match=r"run\.json:\d+: .*op_from"):
        load_run(str(run_copy))

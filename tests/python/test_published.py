"""The write-ups' published numbers beside a GPU's (published.py)."""

import dataclasses
import os
from statistics import median

import pytest

from ewbench.analysis.core import document as doc
from ewbench.analysis.report import published as pub
from ewbench.analysis.core import variants as var
from ewbench.analysis.core.load import load_run

from conftest import ROOT

H100 = os.path.join(ROOT, "reports", "reference", "nvidia-h100", "article")


@pytest.fixture(scope="module")
def h100():
    return load_run(H100)


def test_published_bandwidth_is_the_write_ups_arithmetic():
    row = next(r for r in pub.PUBLISHED
               if (r.dtype, r.n, r.kernels) == ("f32", 1 << 28, pub.STUDY))
    # 3 operands x 4 bytes x 2^28 / 2.045 ms: the article's ~1575 GB/s.
    assert pub.published_bandwidth(row) == pytest.approx(1575e9, rel=0.001)
    relu = next(r for r in pub.PUBLISHED if r.kernels == "relu_f32x4")
    # The ReLU report's 75.5 % of the T4's 320 GB/s.
    assert 100 * pub.published_bandwidth(relu) / relu.writeup.peak == \
        pytest.approx(75.5, abs=0.1)


def test_measured_is_the_median_of_the_study_variants(h100):
    rows = pub.beside(h100)
    fp16 = next(b for b in rows if (b.published.dtype, b.published.n,
                                    b.published.kernels) ==
                ("f16", 1 << 28, pub.STUDY))
    mine = [p.time_median_ns for p in h100.points
            if p.n == 1 << 28 and p.op == "add" and p.dtype == "f16"
            and p.cache == "warm" and p.launch == "stream"
            and var.role(p.variant) == var.STUDY]
    assert fp16.count == len(mine) == 4
    assert fp16.time_ns == median(mine)
    spec = h100.device["dram_bandwidth_bytes_per_s"]
    assert fp16.measured_pct == pytest.approx(
        100 * 6 * (1 << 28) / (median(mine) * 1e-9) / spec)
    # No ReLU row at the report's 10M elements: n/a, not a neighbour.
    relu = [b for b in rows if b.published.op == "relu"]
    assert relu and all(b.time_ns is None and b.count == 0 for b in relu)


def test_section_says_when_the_gpu_is_the_write_ups_own(h100):
    def text(run):
        return " ".join(b.text for b in pub.section(run, "P", "p")
                        if isinstance(b, doc.Paragraph))

    assert "compare the shares" in text(h100)
    manifest = dict(h100.manifest)
    manifest["device"] = dict(h100.device, name="NVIDIA GeForce RTX 5090")
    rtx = dataclasses.replace(h100, manifest=manifest)
    assert pub.own_writeups("NVIDIA GeForce RTX 5090") == [pub.ARTICLE]
    assert "is the GPU of the article: the times compare directly" in \
        text(rtx)
    table = next(b for b in pub.section(h100, "P", "p")
                 if isinstance(b, doc.Table))
    assert len(table.rows) == len(pub.PUBLISHED)

"""The write-ups' published numbers beside what this GPU measured.

The study's numbers were measured on other GPUs (docs/study.md): the
article's adds on an RTX 5090, the ReLU report's on a Tesla T4.  Times do
not carry from one GPU to another; shares of each GPU's own DRAM peak do.
So each published row is set beside this GPU's rows of the same kernels at
the same size (warm, back-to-back launches, as the article timed), both as
time, bandwidth and share of their own GPU's peak.  Where this GPU is the
write-up's own, the times compare directly, and the report says so.
"""

from dataclasses import dataclass
from statistics import median
from typing import Optional

from ..core import variants as var


@dataclass(frozen=True)
class WriteUp:
    name: str           # as the report names it
    gpu: str            # the GPU, as CUDA names it
    peak: float         # its DRAM peak, byte/s
    peak_source: str    # where the peak comes from


# The peaks: the RTX 5090's data sheet (docs/gpus.md, 512-bit GDDR7 at
# 28 Gbps); the T4's is the one the ReLU report divides by.
ARTICLE = WriteUp("the article", "NVIDIA GeForce RTX 5090", 1792e9,
                  "data sheet, docs/gpus.md")
RELU_REPORT = WriteUp("the ReLU report", "Tesla T4", 320e9,
                      "the report's own peak")


@dataclass(frozen=True)
class Published:
    writeup: WriteUp
    op: str
    dtype: str
    n: int
    kernels: str        # "study" (the study's variants of op/dtype), or a
    #                     variant id
    time_ms: float      # as published
    label: str          # what the write-up timed, in its words


STUDY = "study"

# docs/study.md "Published numbers", from the write-ups.
PUBLISHED = (
    Published(ARTICLE, "add", "f32", 1 << 20, STUDY, 0.0041, "all fp32"),
    Published(ARTICLE, "add", "f16", 1 << 20, STUDY, 0.0041, "all fp16"),
    Published(ARTICLE, "add", "f32", 1 << 20, "torch_add_f32", 0.0044,
              "PyTorch fp32"),
    Published(ARTICLE, "add", "f16", 1 << 20, "torch_add_f16", 0.0044,
              "PyTorch fp16"),
    Published(ARTICLE, "add", "f32", 1 << 24, STUDY, 0.118, "fp32 variants"),
    Published(ARTICLE, "add", "f32", 1 << 24, "torch_add_f32", 0.118,
              "PyTorch fp32"),
    Published(ARTICLE, "add", "f16", 1 << 24, STUDY, 0.0348,
              "fp16 variants"),
    Published(ARTICLE, "add", "f16", 1 << 24, "torch_add_f16", 0.0148,
              "PyTorch fp16"),
    Published(ARTICLE, "add", "f32", 1 << 28, STUDY, 2.045,
              "fp32 variants"),
    Published(ARTICLE, "add", "f16", 1 << 28, STUDY, 1.02, "fp16 variants"),
    Published(RELU_REPORT, "relu", "f32", 10 * 1000 * 1000, "relu_f32",
              0.3365, "naive ReLU"),
    Published(RELU_REPORT, "relu", "f32", 10 * 1000 * 1000, "relu_f32x4",
              0.3311, "float4 ReLU"),
    Published(RELU_REPORT, "relu", "f32", 10 * 1000 * 1000,
              "torch_relu_f32", 0.3385, "PyTorch"),
)

ELEMENT_BYTES = {"f32": 4, "f16": 2}
# Bytes moved per element, counted as the write-ups count them: the adds
# read two operands and write one, ReLU reads one and writes one.
OPERANDS = {"add": 3, "relu": 2}


def published_bandwidth(row):
    """byte/s of a published row, counted as its write-up counts."""
    return (OPERANDS[row.op] * ELEMENT_BYTES[row.dtype] * row.n
            / (row.time_ms * 1e-3))


@dataclass(frozen=True)
class Beside:
    published: Published
    bandwidth: float            # the published row's, byte/s
    peak_pct: float             # of its write-up's GPU's peak
    time_ns: Optional[float]    # this GPU's: median over the kernels
    measured_bandwidth: Optional[float]
    measured_pct: Optional[float]   # of this GPU's spec peak
    count: int                  # this GPU's rows behind the median


def _kernels(row, points):
    """This GPU's warm stream rows of the published row's kernels."""
    out = []
    for p in points:
        if (p.n, p.op, p.dtype, p.cache, p.launch) != \
                (row.n, row.op, row.dtype, "warm", "stream"):
            continue
        if p.check not in (None, "pass") or p.time_median_ns is None:
            continue
        if row.kernels == STUDY and var.role(p.variant) == var.STUDY:
            out.append(p)
        elif p.variant == row.kernels:
            out.append(p)
    return out


def beside(run):
    """Every published row with this run's rows beside it (None where the
    run has none at that size)."""
    spec = run.device.get("dram_bandwidth_bytes_per_s")
    rows = []
    for row in PUBLISHED:
        bw = published_bandwidth(row)
        got = _kernels(row, run.points)
        t = median(p.time_median_ns for p in got) if got else None
        mbw = None if t is None else \
            OPERANDS[row.op] * ELEMENT_BYTES[row.dtype] * row.n / (t * 1e-9)
        rows.append(Beside(row, bw, 100 * bw / row.writeup.peak, t, mbw,
                           None if mbw is None or not spec
                           else 100 * mbw / spec, len(got)))
    return rows


def own_writeups(device_name):
    """The write-ups measured on this very GPU."""
    return [w for w in (ARTICLE, RELU_REPORT) if w.gpu == device_name]


def _ms(ns):
    return "n/a" if ns is None else "%.4g" % (ns / 1e6)


def _gb(bw):
    return "n/a" if bw is None else "%.0f" % (bw / 1e9)


def _pc(value):
    return "n/a" if value is None else "%.0f %%" % value


def section(run, heading, anchor):
    """The report's section: every published row beside this GPU's."""
    from ..core import document as doc
    from ..core.units import size_label

    name = run.device.get("name", "this GPU")
    own = own_writeups(name)
    if own:
        lead = ("%s is the GPU of %s: the times compare directly." %
                (name, " and ".join(w.name for w in own)))
    else:
        lead = ("The write-ups measured other GPUs: compare the shares of "
                "each GPU's own DRAM peak, not the times.")
    text = ("%s Published: the write-ups' times (docs/study.md) and the "
            "bandwidth they imply, counted as they count it (an add moves "
            "three elements per element, two read and one written; ReLU "
            "two), as a share of their GPU's peak (%s). Here: the median "
            "over this run's warm, back-to-back rows of the same kernels "
            "at the same size (the study's variants where the write-up "
            "speaks of them all), as a share of this GPU's spec peak." % (
                lead, "; ".join(
                    "%s's %s: %.0f GB/s, %s" % (w.name, w.gpu, w.peak / 1e9,
                                               w.peak_source)
                    for w in (ARTICLE, RELU_REPORT))))
    rows = []
    for b in beside(run):
        p = b.published
        rows.append((p.writeup.name, size_label(p.n) if p.n & (p.n - 1) == 0
                     else "%gM" % (p.n / 1e6), p.label,
                     "%.4g" % p.time_ms, _gb(b.bandwidth), _pc(b.peak_pct),
                     _ms(b.time_ns), _gb(b.measured_bandwidth),
                     _pc(b.measured_pct)))
    missing = sorted({size_label(b.published.n) if b.published.n &
                      (b.published.n - 1) == 0 else
                      "%gM" % (b.published.n / 1e6)
                      for b in beside(run) if b.time_ns is None})
    blocks = [doc.Heading(2, heading, anchor), doc.Paragraph(text),
              doc.Table(("write-up", "n", "kernels", "published ms",
                         "GB/s", "of its peak", "here ms", "GB/s",
                         "of this GPU's spec"), tuple(rows))]
    if missing:
        blocks.append(doc.Paragraph(
            "n/a: this run has no warm stream rows of those kernels at %s "
            "elements." % ", ".join(missing)))
    return blocks

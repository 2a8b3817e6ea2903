"""The findings of the study brief, in the report's order: one spec each
(common.Spec: its number, claim, short claim, the counters it needs and
its judge), declared once in its module, one line each below.  Adding a
finding is adding its module and its line here; unmeasured.USES reads
each spec's needs."""

from . import blocks, dram, l2, launch, loads, relu
from .common import make_context

FINDINGS = (
    launch.SPEC,    # 1: ~1M elements, the launch sets the time
    l2.SPEC,        # 2: in L2 above DRAM speed, spilled at DRAM speed
    dram.SPEC,      # 3: one DRAM ceiling at the largest size
    loads.SPEC,     # 4: bytes per load instruction of the wide loads
    blocks.SPEC,    # 5: 128 or 256 threads per block
    relu.SPEC,      # 6: vector ReLU against naive and PyTorch
)
JUDGES = tuple(spec.judge for spec in FINDINGS)
NUMBERS = tuple(spec.number for spec in FINDINGS)   # what the tests count


def evaluate(study, sctx=None):
    """Every finding, in order, of a Study (or of one run)."""
    sctx = sctx or make_context(study)
    return [judge(sctx) for judge in JUDGES]

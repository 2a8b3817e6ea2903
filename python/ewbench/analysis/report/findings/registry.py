"""The findings of the study brief, in the report's order: one module
each (its NUMBER, CLAIM, SHORT_CLAIM, its rule JUDGE and the text of its
deciding number), one line each below.  Adding a finding is adding its
module and its line here."""

from . import blocks, dram, l2, launch, loads, relu
from .common import make_context

FINDINGS = (
    launch,     # 1: ~1M elements, the launch sets the time
    l2,         # 2: in L2 above DRAM speed, spilled at DRAM speed
    dram,       # 3: one DRAM ceiling at the largest size
    loads,      # 4: bytes per load instruction of the wide loads
    blocks,     # 5: 128 or 256 threads per block
    relu,       # 6: vector ReLU against naive and PyTorch
)
BY_NUMBER = {unit.NUMBER: unit for unit in FINDINGS}
JUDGES = tuple(unit.JUDGE for unit in FINDINGS)


def evaluate(study, sctx=None):
    """All six findings, in order, of a Study (or of one run)."""
    sctx = sctx or make_context(study)
    return [judge(sctx) for judge in JUDGES]

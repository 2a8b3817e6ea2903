"""What a conclusion reads from metrics.csv: the Use record, its kinds
and severities.  A finding lists its own uses in its spec (findings/,
Spec.needs); unmeasured.py adds those of the verdicts, figures and
threats and judges what a gap in the counters leaves of each.  This
module imports nothing of the report, so that both can import it."""

from dataclasses import dataclass
from typing import Callable, Optional

from ..core import select as sel
from ..core import study as stu

FINDING = "finding"
VERDICT = "verdict"
FIGURE = "figure"
THREAT = "threat"
EVIDENCE = "evidence"       # explains a verdict or a finding, decides none
# kinds the first screen's line is about
DECIDING = (FINDING, VERDICT)

UNDECIDED = "undecided"
WEAKER = "weaker"

# The warp stall reasons as one quantity (metrics/stalls.txt).
STALL_FAMILY = sel.STALL_PREFIX + "<reason>" + sel.STALL_SUFFIX

VERDICT_PARTS = (stu.ARTICLE, stu.SWEEP, stu.BLOCKS)    # verdicts shown
L2_PARTS = (stu.SWEEP, stu.ARTICLE)                     # finding 2, plot


@dataclass(frozen=True)
class Use:
    what: str               # the conclusion, as the report names it
    kind: str               # FINDING, VERDICT, FIGURE, THREAT, EVIDENCE
    parts: tuple            # parts whose counters it reads, first present
    needs: tuple            # alternatives, best first: names all measured
    without: str            # what becomes of it when none is measured
    severity: str = UNDECIDED   # of `without`
    fallback: str = ""      # when a later alternative stands in (WEAKER)
    every: bool = False     # reads every part present, not the first
    applies: Optional[Callable] = None  # run -> whether it reads counters

    @property
    def names(self):
        return {n for alternative in self.needs for n in alternative}

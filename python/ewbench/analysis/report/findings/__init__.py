"""The six findings of the study brief, judged on a study directory.

Each judge returns a Finding: a verdict ("holds", "does not hold", "not
testable with this data"), the one number that decides it, the numbers
behind it, a short explanation and the part of the study it was judged
on.  The thresholds are constants of each finding's module and
docs/analysis.md repeats them.

One module per finding, each declaring its SPEC (number, claim, the
counters it needs, judge), listed in order by registry.FINDINGS: launch
(1), l2 (2), dram (3), loads (4), blocks (5), relu (6); common holds what
they share (the verdicts, Spec, Finding, the study's context).

Which part decides which finding: 1, 3, 4 and 6 the article run (the
study's sizes, with counters and torch rows); 2 the sweep (dense sizes
around this GPU's L2), else the article run; 5 the block sweep (tune),
else any run that timed a variant at several blocks.  A single run
directory is a study of one part and is judged the same way.

Findings compare variants at their primary block size (see select.py) and
use warm points when the run has them (the write-ups timed back-to-back
launches), cold points otherwise; points whose correctness check failed
are left out.
"""

# The names the rest of the package and the tests use as findings.NAME.
from .blocks import block_sweeps
from .common import (BORDERLINE, FAILS, HOLDS, UNTESTABLE, at_size,
                     make_context)
from .l2 import F2_FIT_FRACTION, F2_ONSET_PCT, effective_l2
from .loads import load_story
from .registry import FINDINGS, JUDGES, NUMBERS, evaluate

__all__ = ["BORDERLINE", "F2_FIT_FRACTION", "F2_ONSET_PCT", "FAILS",
           "FINDINGS", "HOLDS", "JUDGES", "NUMBERS", "UNTESTABLE", "at_size",
           "block_sweeps", "effective_l2", "evaluate", "load_story",
           "make_context"]

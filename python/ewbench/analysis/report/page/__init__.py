"""report.md and report.html for a study directory (or one run).

build_document() turns a judged study and its figures into a list of
document blocks (pure); write_report() draws, renders and writes them
(build.py).

The first screen answers: the GPU and its measured ceilings, the six
findings with their verdict and deciding number, ewbench's fastest kernel
against cub and PyTorch, and the study's variants that fall short, with
the counter evidence (first.py, findings.py).  A table of contents
follows, then the sections of SECTIONS (findings.py, results.py,
method.py, threats.py); long tables are pivoted (variant x size) or
folded.
"""

# The names __main__ and the tests use as page.NAME.
from .build import (SECTIONS, build_document, sections, unclaimed,
                    write_report)
from .findings import FINDINGS_TABLE
from .first import versus_section
from .method import environment_section, method_section, reproduce_section
from .results import verdicts_section
from .threats import threats_section

__all__ = ["FINDINGS_TABLE", "SECTIONS", "build_document",
           "environment_section", "method_section", "reproduce_section",
           "sections",
           "threats_section", "unclaimed", "verdicts_section",
           "versus_section", "write_report"]

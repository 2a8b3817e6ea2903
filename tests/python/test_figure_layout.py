"""The README's `ewbench timeline` figure is laid out so that nothing
covers what it must not (figure_layout.layout_faults), on whichever
matplotlib renders it (CI runs Debian 12's 3.6 and PyPI's newest).  The
figures of the shipped references' reports, studies and fleets, are
measured as tests/references.sh renders them (with the marks of their
findings, which a drawing of the figures alone left out: it missed the
cache-tier legends that ran off the figure on matplotlib 3.6)."""

import os

import pytest

from ewbench.analysis.core import atomic

from figure_layout import layout_faults

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
REFERENCES = os.path.join(ROOT, "reports", "reference")


@pytest.fixture
def drawn(monkeypatch):
    """{figure file name: faults} of every figure saved while in use,
    measured where it would be saved, its layout final; the file itself
    is not written."""
    seen = {}

    def measured(fig, path, **kwargs):
        seen[os.path.basename(path)] = layout_faults(fig)

    monkeypatch.setattr(atomic, "savefig", measured)
    return seen


def _faults(drawn):
    return ["%s: %s" % (name, f) for name, fs in sorted(drawn.items())
            for f in fs]


def test_timeline_figure_covers_nothing(drawn, tmp_path):
    """The README's `ewbench timeline` example."""
    from ewbench.analysis.__main__ import EXIT_OK, main
    trace = os.path.join(REFERENCES, "nvidia-h200", "traced",
                         "trace.json.gz")
    assert main(["timeline", trace, "--point", "add_f32x4 n=1Mi", "--span",
                 "120", "-o", str(tmp_path / "timeline.png")]) == EXIT_OK
    assert drawn and not _faults(drawn), "\n".join(_faults(drawn))

"""The findings in the report: the first screen's table (verdict and
deciding number of each, linked to its section) and the Findings section
(claim, explanation and the numbers of each).  The findings themselves,
their claims and rules: report/findings/."""

from ...core import document as doc
from ...core import noise


FINDINGS_TABLE = "findings-table"


def findings_table(judged):
    rows = tuple(("[%d](#finding-%d)" % (f.number, f.number),
                  "[%s](#finding-%d)" % (f.short_claim, f.number),
                  "**%s**%s" % (f.verdict, ": " + f.regimes
                                if f.regimes else ""), f.deciding or "-",
                  "%s/" % f.part if f.part else "-") for f in judged)
    return doc.Table(("#", "claim", "verdict", "deciding number",
                      "judged on"), rows, FINDINGS_TABLE)


def cross_host_note(judged, run):
    """[the paragraph that says what "the cross-host spread" is], where a
    verdict or deciding number above counts in it, else []."""
    if not any("cross-host spread" in (f.deciding or "") + f.regimes
               for f in judged):
        return []
    floor = noise.run_floor(run)
    return [doc.Paragraph(
        "Nx the cross-host spread S %%: a difference in units of how far "
        "this GPU's results move from one host to another (S %%: %s at "
        "that value, the noise model's floor%s); under 1x the host alone "
        "could explain it (docs/analysis.md, \"The noise model\")." % (
            floor.describe(), ", measured between studies of this GPU on "
            "different hosts" if floor.measured else ""))]


def findings_section(judged):
    blocks = [doc.Heading(2, "Findings", "findings")]
    for f in judged:
        blocks.append(doc.Heading(3, "Finding %d: %s — **%s**" % (
            f.number, f.short_claim, f.verdict), "finding-%d" % f.number))
        blocks.append(doc.Paragraph("Claim: %s Judged on `%s/`." % (
            f.claim, f.part or "-")))
        blocks.append(doc.Paragraph(f.explanation))
        if f.numbers:
            blocks.append(doc.Details("The numbers (%d)" % len(f.numbers),
                                      (doc.Table(("quantity", "value"),
                                                 f.numbers),)))
    return blocks

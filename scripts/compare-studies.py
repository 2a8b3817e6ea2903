#!/usr/bin/env python3
"""scripts/compare-studies.py STUDY_A STUDY_B - two study directories of
one GPU side by side (e.g. `make report` of a CUDA 13.0 build and of a
CUDA 12.8 build, tests/gpu/run-all.sh's cuda12 step): what built and ran
each, the six findings' verdicts and deciding numbers, and per part the
points whose time changed beyond the noise rule (`ewbench compare`'s).

    PYTHONPATH=python scripts/compare-studies.py reports/nvidia-A reports/nvidia-B

Markdown on stdout.  Exit: 0 every verdict agrees, 1 a verdict differs,
2 usage, 3 a directory that is not a study (its message).
"""

import os
import sys

try:
    from ewbench.analysis.core import compare, study
    from ewbench.analysis.core.validate import DataError
    from ewbench.analysis.report import findings
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), os.pardir, "python"))
    from ewbench.analysis.core import compare, study
    from ewbench.analysis.core.validate import DataError
    from ewbench.analysis.report import findings

# What built and ran a study: run.json keys, as (section, key).
BUILD = (("tool", "git_revision"), ("tool", "cuda_build_version"),
         ("tool", "nvcc_release"), ("tool", "cupti_build_api"),
         ("tool", "cupti_kernel_record"), ("tool", "driver_min"),
         ("tool", "cuda_arch"), ("versions", "driver"),
         ("versions", "runtime"), ("versions", "cupti_api"),
         ("versions", "nvidia_driver"), ("device", "name"),
         ("device", "uuid"))


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def build_rows(a, b):
    ma, mb = a.main.manifest, b.main.manifest
    rows = ["| run.json | A | B |", "|---|---|---|"]
    for section, key in BUILD:
        va = (ma.get(section) or {}).get(key)
        vb = (mb.get(section) or {}).get(key)
        rows.append("| %s.%s | %s | %s |" % (section, key, cell(va),
                                             cell(vb)))
    for name, s in (("A", a), ("B", b)):
        skipped = sorted({(k["variant"], k["reason"])
                          for r in runs(s).values()
                          for k in r.manifest.get("settings", {})
                          .get("skipped", [])})
        for variant, reason in skipped:
            rows.append("| skipped in %s | %s | %s |" % (
                name, cell(variant), cell(reason)))
    return rows


def finding_rows(a, b):
    fa, fb = findings.evaluate(a), findings.evaluate(b)
    rows = ["| finding | A | B | agree | A decides by | B decides by |",
            "|---|---|---|---|---|---|"]
    differ = 0
    for x, y in zip(fa, fb):
        same = x.verdict == y.verdict
        differ += not same
        rows.append("| %d %s | %s | %s | %s | %s | %s |" % (
            x.number, cell(x.short_claim), x.verdict, y.verdict,
            "yes" if same else "**no**", cell(x.deciding or "-"),
            cell(y.deciding or "-")))
    return rows, differ


def runs(s):
    """A study's runs by name: its parts, and repeats/round-N."""
    named = dict(s.runs)
    for r in s.repeats:
        named["repeats/" + os.path.basename(r.path.rstrip("/"))] = r
    return named


def part_rows(a, b):
    rows = ["| part | matching points | slower in B | faster in B | "
            "only in A | only in B | largest change beyond the noise |",
            "|---|---|---|---|---|---|---|"]
    ra, rb = runs(a), runs(b)
    for part in sorted(set(ra) & set(rb)):
        r = compare.compare_runs(ra[part], rb[part])
        flagged = [c for c in r.changes if c.flag]
        worst = max(flagged, key=lambda c: abs(c.time_pct), default=None)
        rows.append("| %s | %d | %d | %d | %d | %d | %s |" % (
            part, len(r.changes),
            sum(c.flag == compare.SLOWER for c in r.changes),
            sum(c.flag == compare.FASTER for c in r.changes),
            len(r.only_a), len(r.only_b),
            "-" if worst is None else "%s n=%d block %s %s: %+.1f %% "
            "(limit ±%.1f %%)" % (worst.a.variant, worst.a.n,
                                  worst.a.block, worst.a.cache,
                                  worst.time_pct, worst.threshold_pct)))
    return rows


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    try:
        a, b = (study.open_study(p) for p in argv[1:])
    except (DataError, OSError, ValueError) as e:
        sys.stderr.write("compare-studies: %s\n" % e)
        return 3
    out = ["# Two studies", "", "- A: %s" % argv[1], "- B: %s" % argv[2],
           "", "## What built and ran them", ""]
    out += build_rows(a, b)
    rows, differ = finding_rows(a, b)
    out += ["", "## The six findings", ""] + rows
    out += ["", "## Timings, per part (ewbench compare's noise rule)", ""]
    out += part_rows(a, b)
    out += ["", "%d of 6 verdicts differ." % differ]
    sys.stdout.write("\n".join(out) + "\n")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

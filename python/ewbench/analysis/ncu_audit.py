"""Nsight Compute's "Estimated Speedup" set beside the gain ewbench measured
for the change each rule recommends (issue 51; docs/ncu-audit.md).

    python3 -m ewbench.analysis.ncu_audit STUDY_DIR NCU_DETAILS.csv

NCU_DETAILS.csv is `ncu --import REP --page details --csv` of a profile of
the study's kernels (tests/gpu/run-all.sh, step ncurules); STUDY_DIR holds
the experiments/ run of `make report` (the block trials, the 2x/4x
loads-per-thread probes and the siblings, at 2^28 elements, warm).  Prints
Markdown: one row per (kernel, rule with an estimate), measured or not.

ncu gives its estimate as the share of the kernel's duration a fix could
save; the measured gain is put the same way, 1 - t(changed) / t(kernel),
from the medians of the experiments run (same bytes moved).  Where a
change has several trials (block x2 and x4; 2x and 4x the loads) the best
one is shown, since ncu's number is what the fix could reach.

Exit statuses: 0 ok, 1 a file that cannot be read, 2 usage (a path that is
not there), 3 bad input (the message says file:line), 130 stdout closed.
"""

import csv
import os
import re
import statistics
import sys
from dataclasses import dataclass
from typing import Optional

from .cli import (EXIT_DATA, EXIT_ERROR, EXIT_OK, EXIT_USAGE, os_error_text,
                  stdout_broken)
from .core.validate import DataError

# What each change is, in the words the table prints.
BLOCKS = "larger blocks"
LOADS = "more loads per thread"
COALESCED = "coalesced sibling"
BALANCED = "grid over the whole array"

# Rule name (ncu's "Rule Name", spelt as ncu spells it) -> (the change
# ewbench measured that does what the rule asks, or None; why).  A rule
# that is not here is listed as "not in the table", never dropped.
RULES = {
    "AchievedOccupancy": (BLOCKS, "raise the warps resident per SM: "
                          "the block x2 and x4 trials"),
    "TheoreticalOccupancy": (BLOCKS, "blocks per SM cap the warps: larger "
                             "blocks lift the cap (block x2, x4)"),
    "CPIStall": (LOADS, "warps wait on L1TEX scoreboard: more independent "
                 "loads in flight per thread (the 2x/4x probes)"),
    "IssueSlotUtilization": (LOADS, "too few eligible warps, stalled on "
                             "loads: the same probes"),
    "UncoalescedGlobalAccess": (COALESCED, "8 of 32 bytes per sector used: "
                                "the sibling moving the same bytes in "
                                "wide loads"),
    "MemoryCacheAccessPattern": (COALESCED, "the same fault seen at L1TEX: "
                                 "the same sibling"),
    "WorkloadImbalance": (BALANCED, "some SMs idle in the persistent grid: "
                          "the sibling whose grid covers the array, "
                          "balanced by the block scheduler"),
    "HighPipeUtilization": (None, "asks for busier compute pipes; one op "
                            "per element has none to add"),
    "MemoryL2Compression": (None, "asks for compressible memory; ewbench "
                            "tries plain device memory only"),
    "FPInstructions": (None, "asks to fuse multiply and add; the study's "
                       "ops have no multiply"),
}

# (kernel, change) -> the study variant that makes that change; the
# block and loads-per-thread changes are named by rule (below).
SIBLINGS = {
    ("abs_f32_unroll", COALESCED): "abs_f32x4",
    ("add_f16x8", COALESCED): "add_f16x8_pack",
    ("add_f32x4_grid", BALANCED): "add_f32x4",
}
BLOCK_FACTORS = (2, 4)
LOAD_FACTORS = (2, 4)

COLUMNS = ("ID", "Kernel Name", "Block Size", "Rule Name",
           "Estimated Speedup Type", "Estimated Speedup",
           "Rule Description")


@dataclass(frozen=True)
class Estimate:
    """One rule's row of the ncu details CSV with an estimated speedup."""
    kernel: str          # the study variant: ewb_add_f32(...) -> add_f32
    block: int
    rule: str
    kind: str            # ncu's "Estimated Speedup Type": global or local
    pct: float           # ncu's estimated speedup, % of the duration
    about: str           # what the row is about when a rule has several
    line: int


@dataclass(frozen=True)
class Row:
    estimate: Estimate
    change: Optional[str]
    why: str
    trial: Optional[str] = None        # the trial shown (the best one)
    measured_pct: Optional[float] = None

    @property
    def ratio(self):
        """measured / estimated; None when nothing was measured."""
        if self.measured_pct is None:
            return None
        return self.measured_pct / self.estimate.pct


def number(text):
    """A number as ncu's CSV writes it: "1,447,535", "35.81"."""
    return float(text.replace(",", ""))


def variant_of(kernel_name):
    """ewb_add_f32(const float *, ...) -> add_f32."""
    name = kernel_name.split("(", 1)[0].strip()
    return name[len("ewb_"):] if name.startswith("ewb_") else name


def about(description):
    """What a rule's row is about when the rule prints several rows for one
    launch (SMs / SMSPs / L1 Slices; global loads / stores); "" else."""
    m = re.match(r"One or more (.+?) have", description)
    if m:
        return m.group(1)
    m = re.search(r"for global (loads|stores)", description)
    return m.group(1) if m else ""


def read_estimates(path):
    """Every row with an estimated speedup of the last profiled launch of
    each kernel (run-all.sh profiles the check launch, then the timed one).
    ncu's own log lines (==PROF==, ==WARNING==, ...: run-all.sh writes its
    stderr into the file too) are skipped wherever they are."""
    with open(path, newline="", encoding="utf-8") as f:
        numbered = [(number, text) for number, text in
                    enumerate(f.read().splitlines(), 1)
                    if not text.startswith("==")]
    start = next((i for i, (_, text) in enumerate(numbered)
                  if text.startswith('"ID",')), None)
    if start is None:
        raise DataError(path, None, 'expected an ncu details CSV (a header '
                        'starting "ID",), found none')
    numbered = numbered[start:]
    reader = csv.DictReader(text for _, text in numbered)
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise DataError(path, numbered[0][0], "expected the columns %s" %
                        ", ".join(missing))
    last = {}                           # variant -> the highest launch ID
    rows = []
    for r in reader:
        # one CSV record per line: ncu writes no line breaks inside fields
        line = numbered[reader.line_num - 1][0]
        try:
            launch = int(r["ID"])
            kernel = variant_of(r["Kernel Name"])
            block = int(r["Block Size"].strip("()").split(",")[0])
            pct = number(r["Estimated Speedup"]) \
                if r["Estimated Speedup"] else None
        except (ValueError, AttributeError):
            raise DataError(path, line, "expected an integer ID, a block "
                            "size (x, y, z) and a number or nothing as the "
                            "estimated speedup") from None
        last[kernel] = max(last.get(kernel, launch), launch)
        if pct is not None:
            rows.append((launch, Estimate(
                kernel, block, r["Rule Name"], r["Estimated Speedup Type"],
                pct, about(r["Rule Description"]), line)))
    return [e for launch, e in rows if launch == last[e.kernel]]


def read_points(run_dir):
    """{(variant, block): (time_median_ns, bytes_moved)} of the experiments
    run, at its one size, warm, stream-launched."""
    from .core import load
    run = load.load_run(run_dir)
    return {(p.variant, p.block): (p.time_median_ns, p.bytes_moved)
            for p in run.points if p.cache == "warm" and
            p.launch == "stream"}


def trials(e, change):
    """[(label, variant, block)] that make `change` on e's kernel."""
    if change == BLOCKS:
        return [("block %d" % (e.block * k), e.kernel, e.block * k)
                for k in BLOCK_FACTORS]
    if change == LOADS:
        return [("%s_ilp%d" % (e.kernel, k), "%s_ilp%d" % (e.kernel, k),
                 e.block) for k in LOAD_FACTORS]
    sibling = SIBLINGS.get((e.kernel, change))
    return [(sibling, sibling, e.block)] if sibling else []


def audit(estimates, points):
    """One Row per estimate, in the CSV's order."""
    out = []
    for e in estimates:
        change, why = RULES.get(e.rule, (None, "not in the table"))
        base = points.get((e.kernel, e.block))
        measured = []
        for label, variant, block in trials(e, change) if change else ():
            p = points.get((variant, block))
            if base and p and p[1] == base[1]:
                measured.append((100.0 * (1.0 - p[0] / base[0]), label))
        if not change:
            out.append(Row(e, None, why))
        elif not measured:
            out.append(Row(e, change, "not measured on this kernel"))
        else:
            pct, label = max(measured)
            out.append(Row(e, change, why, label, pct))
    return out


def summary(rows):
    """(rows, measured rows, median measured/estimated over them, per
    estimate type {type: (count, median)})."""
    done = [r for r in rows if r.measured_pct is not None]
    kinds = {}
    for kind in sorted({r.estimate.kind for r in done}):
        ratios = [r.ratio for r in done if r.estimate.kind == kind]
        kinds[kind] = (len(ratios), statistics.median(ratios))
    median = statistics.median(r.ratio for r in done) if done else None
    return len(rows), len(done), median, kinds


def _rule(e):
    return "%s (%s)" % (e.rule, e.about) if e.about else e.rule


def render(rows):
    """The audit as Markdown: the measured rows, the others, the counts."""
    done = [r for r in rows if r.measured_pct is not None]
    rest = [r for r in rows if r.measured_pct is None]
    out = ["| kernel | ncu rule | type | ncu est. | change measured | "
           "measured (time saved) | measured / est. |",
           "|---|---|---|--:|---|--:|--:|"]
    for r in done:
        e = r.estimate
        out.append("| %s | %s | %s | %.1f %% | %s: %s | %+.1f %% | %.2f |" % (
            e.kernel, _rule(e), e.kind, e.pct, r.change, r.trial,
            r.measured_pct, round(r.ratio, 2) + 0.0))   # no "-0.00"
    out += ["", "| kernel | ncu rule | type | ncu est. | not measured: why |",
            "|---|---|---|--:|---|"]
    for r in rest:
        e = r.estimate
        why = r.why if r.change is None else "%s: %s" % (r.change, r.why)
        out.append("| %s | %s | %s | %.1f %% | %s |" % (
            e.kernel, _rule(e), e.kind, e.pct, why))
    count, measured, median, kinds = summary(rows)
    out.append("")
    out.append("%d rules with an estimate; %d set beside a measured change, "
               "%d not measured." % (count, measured, count - measured))
    if median is not None:
        out.append("Median measured / estimated: %.2f (%s)." % (
            median, "; ".join("%s: %.2f over %d" % (k, m, n)
                              for k, (n, m) in kinds.items())))
    return "\n".join(out) + "\n"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    prog = "python3 -m ewbench.analysis.ncu_audit"
    try:
        if argv in (["-h"], ["--help"]):
            print(__doc__.strip())
            sys.stdout.flush()
            return EXIT_OK
        if len(argv) != 2 or argv[0].startswith("-"):
            print("usage: %s STUDY_DIR NCU_DETAILS.csv" % prog,
                  file=sys.stderr)
            return EXIT_USAGE
        study, details = argv
        experiments = os.path.join(study, "experiments")
        for path, found, what in (
                (experiments, os.path.isdir, "directory (the study's "
                 "experiments run, as `make report` writes it)"),
                (details, os.path.isfile, "file")):
            if not found(path):
                print("%s: no such %s: %s" % (prog, what, path),
                      file=sys.stderr)
                return EXIT_USAGE
        try:
            rows = audit(read_estimates(details), read_points(experiments))
        except UnicodeDecodeError:
            raise DataError(details, None, "expected UTF-8 text, as ncu "
                            "writes it") from None
        sys.stdout.write(render(rows))
        sys.stdout.flush()
        return EXIT_OK
    except DataError as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return EXIT_DATA
    except BrokenPipeError:
        return stdout_broken()
    except OSError as e:
        print("%s: %s" % (prog, os_error_text(e)), file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())

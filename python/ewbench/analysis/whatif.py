"""The what-if of a user's op (`ewbench run --elementwise FILE.cu`): the
members of the family ewbench generated for it (variants `gen:F:NAME`,
origin "generated", docs/user-kernels.md) ranked by their kernel time at
each size, dtype, cache state and launch mode of the run, beside the
user's own kernel (`user:...`), the fastest built-in kernel timed there,
cub and torch (peer-torch.csv).

A member whose check failed has no timing row (the run never times it),
so it is never ranked; a row whose check column says anything but "pass"
is left out too.  The winner's margin over the runner-up is told by the
run's noise rule (core/noise.py: the two kernel-time intervals, each
widened by the run's floor, do not overlap).  Where the run's GPU has
measured ceilings (its own, --ceilings DIR, or the ceilings cache's),
every member is predicted from them before its measurement is set
against it (report/user_experiments.py, candidate_prediction): the
shown members' predictions and measured / predicted, and the error over
all of them, hits and misses alike.

    python3 -m ewbench.analysis.whatif RUN_DIR [TOP] [--ceilings DIR]
"""

import sys

from .core import generated as gen
from .core import noise
from .core import study as stu
from .core.validate.contract import DataError
from .report import whatif as section

# The family's ids and rankings (core/generated.py), as this module's own.
GENERATED_PREFIX, USER_PREFIX, TOP = gen.GENERATED_PREFIX, gen.USER_PREFIX, \
    gen.TOP
SHAPES, Member, member = gen.SHAPES, gen.Member, gen.member
groups, ranking = gen.groups, gen.ranking


def _header(manifest):
    """What run.json says of the op and the run's seconds, one line, or
    None without its "elementwise" record."""
    op = manifest.get("elementwise")
    if not isinstance(op, dict):
        return None
    total = (manifest.get("wall_s") or {}).get("total")
    # "cached" is absent before the family's compile cache: compiled.
    if op.get("cached") is True:
        built = "for %s from the compile cache (NVRTC %s)" % (
            op.get("arch"), op.get("nvrtc"))
    else:
        built = "compiled for %s in %.2f s (NVRTC %s)" % (
            op.get("arch"), op.get("compile_s") or 0.0, op.get("nvrtc"))
    return "%s:%s, %s input(s) of %s: %d kernels %s, checked against %s; " \
        "the run took %s" % (
            op.get("file"), op.get("function"), op.get("inputs"),
            op.get("dtype"), len(op.get("variants") or ()), built,
            op.get("checked_against"),
            "%.1f s" % total if isinstance(total, (int, float))
            else "(unfinished)")


def render(run, top=TOP, predict=None, source=None):
    """The what-if's tables of a loaded run, as text (empty when the run
    has no generated member).  predict(point): a member's Prediction or
    None; source: the ceilings it is read on, or why there is none."""
    floor = noise.run_floor(run)
    lines = []
    header = _header(run.manifest)
    for (n, dtype, cache, launch), pts in sorted(groups(run.points).items()):
        rows, win, count = ranking(pts, floor, top)
        errors = section.prediction_errors(pts, predict) if predict else []
        said = section.by_member(errors)
        lines.append("n=%d %s %s %s: %d checked generated kernels ranked "
                     "(of %d points)" % (n, dtype, cache, launch, count,
                                         len(pts)))
        lines.append("%5s  %-9s  %-34s %6s %12s %9s %8s %9s %7s" % (
            "place", "who", "variant", "block", "median us", "GB/s",
            "x best", "pred GB/s", "x pred"))
        best = rows[0][4].median_ns if rows else 1.0
        for place, role, variant, block, t, gbs in rows:
            s = said.get((variant, block))
            pred = "%9.0f %7.3f" % (s.predicted / 1e9, s.ratio) if s else \
                "%9s %7s" % ("-", "-")
            lines.append("%5d  %-9s  %-34s %6s %12.2f %9.0f %8.3f %s" % (
                place, role, variant, "" if block is None else block,
                t.median_ns / 1e3, gbs, best / t.median_ns, pred))
        if win is not None:
            lines.append("winner over the runner-up: %s" % win.text())
        if predict or source:
            lines.append(section.prediction_line(errors, count, source))
        lines.append("")
    if lines and header:
        lines.insert(0, header)
    return "\n".join(lines)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    ceilings = None
    if "--ceilings" in argv:
        at = argv.index("--ceilings")
        if at + 1 >= len(argv):
            argv = []
        else:
            ceilings = argv[at + 1]
            del argv[at:at + 2]
    if not argv or len(argv) > 2 or \
            (len(argv) == 2 and not argv[1].isdigit()):
        sys.stderr.write("usage: python3 -m ewbench.analysis.whatif "
                         "RUN_DIR [TOP] [--ceilings DIR]\n")
        return 2
    try:
        run = stu.open_study(argv[0], ceilings).main
    except DataError as e:
        sys.stderr.write("ewbench whatif: %s\n" % e)
        return 2
    predict, source = section.predictor(run)
    text = render(run, int(argv[1]) if len(argv) > 1 else TOP, predict,
                  source)
    if not text:
        sys.stderr.write("ewbench whatif: %s: no generated kernel "
                         "(ewbench run --elementwise)\n" % argv[0])
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

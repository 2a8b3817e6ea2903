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
widened by the run's floor, do not overlap).

    python3 -m ewbench.analysis.whatif RUN_DIR [TOP]
"""

import re
import sys
from typing import NamedTuple

from .core import noise, timing
from .core.load import load_run
from .core.validate.contract import DataError

GENERATED_PREFIX = "gen:"
USER_PREFIX = "user:"
CUB_PREFIX = "cub_"
TORCH_PREFIX = "torch_"
TOP = 5

# A member's id, gen:FUNCTION:SHAPE_vBITS_kK (docs/user-kernels.md).
_MEMBER = re.compile(
    r"^gen:.+:(tile|stride|runs|bulk|bulkone)_v(\d+)_k(\d+)$")
SHAPES = {"tile": "one tile per block", "stride": "grid-stride",
          "runs": "persistent runs of tiles",
          "bulk": "one tile per block by bulk copies (TMA)",
          "bulkone": "one tile per block by bulk copies (TMA) in one stage"}


class Member(NamedTuple):
    shape: str      # "tile", "stride", "runs", "bulk" or "bulkone"
    bits: int       # the memory word a thread loads, in bits
    words: int      # words a thread loads per input before using the first


def member(variant):
    """The Member a generated variant's id names, or None."""
    m = _MEMBER.match(variant)
    return Member(m.group(1), int(m.group(2)), int(m.group(3))) \
        if m else None


def _role(variant):
    if variant.startswith(GENERATED_PREFIX):
        return "generated"
    if variant.startswith(USER_PREFIX):
        return "user"
    if variant.startswith(CUB_PREFIX):
        return "cub"
    if variant.startswith(TORCH_PREFIX):
        return "torch"
    return "built-in"


def _passed(point):
    return point.check in (None, "pass")


def groups(points):
    """{(n, dtype, cache, launch): [point, ...]} of the groups that hold a
    generated member, every point checked and passed, and moving the
    generated members' bytes (a relu beside a generated add would be
    faster for moving less)."""
    out = {}
    for p in points:
        if _passed(p):
            out.setdefault((p.n, p.dtype, p.cache, p.launch), []).append(p)
    kept = {}
    for key, pts in out.items():
        moved = {p.bytes_moved for p in pts
                 if _role(p.variant) == "generated"}
        if moved:
            kept[key] = [p for p in pts if p.bytes_moved in moved]
    return kept


def ranking(points, floor, top=TOP):
    """The rows of one group's table: the `top` fastest generated members,
    then the user's kernel, the fastest built-in, cub and torch where the
    group has them (each with its place among all the group's points); and the
    winner's noise.Margin over the runner-up among the generated (None
    with one member).  A row: (place, role, variant, block, KernelTime,
    GB/s)."""
    timed = sorted(((timing.kernel_time(p), p) for p in points),
                   key=lambda tp: tp[0].median_ns)
    rows, shown = [], set()
    generated = [(i, t, p) for i, (t, p) in enumerate(timed)
                 if _role(p.variant) == "generated"]
    for i, t, p in generated[:top]:
        rows.append((i + 1, "generated", p.variant, p.block, t,
                     p.bytes_moved / t.median_ns))
        shown.add(p.key)
    for role in ("user", "built-in", "cub", "torch"):
        best = [(i, t, p) for i, (t, p) in enumerate(timed)
                if _role(p.variant) == role and p.key not in shown]
        if best:
            i, t, p = best[0]
            rows.append((i + 1, role, p.variant, p.block, t,
                         p.bytes_moved / t.median_ns))
    win = None
    if len(generated) > 1:
        win = noise.margin(generated[0][1], generated[1][1], floor)
    return rows, win, len(generated)


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


def render(run, top=TOP):
    """The what-if's tables of a loaded run, as text (empty when the run
    has no generated member)."""
    floor = noise.run_floor(run)
    lines = []
    header = _header(run.manifest)
    for (n, dtype, cache, launch), pts in sorted(groups(run.points).items()):
        rows, win, count = ranking(pts, floor, top)
        lines.append("n=%d %s %s %s: %d checked generated kernels ranked "
                     "(of %d points)" % (n, dtype, cache, launch, count,
                                         len(pts)))
        lines.append("%5s  %-9s  %-34s %6s %12s %9s %8s" % (
            "place", "who", "variant", "block", "median us", "GB/s",
            "x best"))
        best = rows[0][4].median_ns if rows else 1.0
        for place, role, variant, block, t, gbs in rows:
            lines.append("%5d  %-9s  %-34s %6s %12.2f %9.0f %8.3f" % (
                place, role, variant, "" if block is None else block,
                t.median_ns / 1e3, gbs, best / t.median_ns))
        if win is not None:
            lines.append("winner over the runner-up: %s" % win.text())
        lines.append("")
    if lines and header:
        lines.insert(0, header)
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or len(argv) > 2:
        sys.stderr.write("usage: python3 -m ewbench.analysis.whatif "
                         "RUN_DIR [TOP]\n")
        return 2
    try:
        run = load_run(argv[0])
    except DataError as e:
        sys.stderr.write("ewbench whatif: %s\n" % e)
        return 2
    text = render(run, int(argv[1]) if len(argv) > 1 else TOP)
    if not text:
        sys.stderr.write("ewbench whatif: %s: no generated kernel "
                         "(ewbench run --elementwise)\n" % argv[0])
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

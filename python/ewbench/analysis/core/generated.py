"""The family ewbench generates for a user's op (`ewbench run --elementwise
FILE.cu`, docs/user-kernels.md): a member's id and what it names, the
groups of a run's points that hold members, and one group's ranking by
kernel time beside the user's kernel, the fastest built-in, cub and torch.
The what-if (analysis/whatif.py) renders them; the report's model and
sections read them.
"""

import re
from typing import NamedTuple

from . import noise, timing

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


def role(variant):
    """"generated", "user", "cub", "torch" or "built-in"."""
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
                 if role(p.variant) == "generated"}
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
                 if role(p.variant) == "generated"]
    for i, t, p in generated[:top]:
        rows.append((i + 1, "generated", p.variant, p.block, t,
                     p.bytes_moved / t.median_ns))
        shown.add(p.key)
    for who in ("user", "built-in", "cub", "torch"):
        best = [(i, t, p) for i, (t, p) in enumerate(timed)
                if role(p.variant) == who and p.key not in shown]
        if best:
            i, t, p = best[0]
            rows.append((i + 1, who, p.variant, p.block, t,
                         p.bytes_moved / t.median_ns))
    win = None
    if len(generated) > 1:
        win = noise.margin(generated[0][1], generated[1][1], floor)
    return rows, win, len(generated)

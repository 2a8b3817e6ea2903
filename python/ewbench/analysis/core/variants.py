"""Who wrote a variant: the study, ewbench, a peer library, or the user.

The study's variants are the kernels of the published write-ups
(docs/study.md), the lines of kernels/study.def, read from there.  Peers
are libraries timed beside them: cub (`cub_*`, measured by ewbench) and
PyTorch (`torch_*`, measured by `ewbench torch` into
peer-torch.csv).  A user's own kernel (`ewbench run --kernel FILE.cu`) is
`user:<function>`.  The experiments' probes (kernels/probe.def: a study
variant's own loads, K times as many per thread) are probes.  Every other
variant is one of ewbench's additions.
Figures draw the three roles differently and the report never names a
peer as ewbench's own.
"""

import os
import re
from dataclasses import dataclass

STUDY = "study"
ADDITION = "ewbench addition"
PEER = "peer"
USER = "user"
PROBE = "probe"
ROLES = (STUDY, ADDITION, PROBE, PEER, USER)      # sort_key's order
USER_PREFIX = "user:"

DEFS = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                    os.pardir, "defs")
STUDY_DEF = os.path.join(DEFS, "study.def")
PROBE_DEF = os.path.join(DEFS, "probe.def")
FAST_DEF = os.path.join(DEFS, "fast.def")


def _rows(path, macro):
    """The argument lists of a .def file's MACRO(...) lines, each as a
    tuple of its leading comma-separated words (strings left out)."""
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    return [tuple(w.strip() for w in args.split(","))
            for args in re.findall(r"^%s\(([^\"]*?),\s*\"" % macro, text,
                                   re.M)]


def _study_variants(path=STUDY_DEF):
    """The ids of study.def's STUDY(id, ...) lines, in its order."""
    return tuple(row[0] for row in _rows(path, "STUDY"))


STUDY_VARIANTS = _study_variants()
# id -> (operation, elements per thread, vector width, grid-stride): the
# load shape of each study variant, as study.def writes it.
STUDY_SHAPES = {row[0]: (row[1], row[2], row[3], row[5] == "true")
                for row in _rows(STUDY_DEF, "STUDY")}
# id -> the block the study published (study.def's default block): the
# block `ewbench run` times a study variant at unless told otherwise.
STUDY_BLOCKS = {row[0]: int(row[4]) for row in _rows(STUDY_DEF, "STUDY")}


@dataclass(frozen=True)
class Probe:
    """A row of probe.def: `of`'s loads, `loads` times as many per thread,
    at `of`'s published block."""
    id: str
    operation: str
    loads: int
    block: int
    of: str


PROBES = {row[0]: Probe(row[0], row[1], int(row[3]), int(row[4]), row[5])
          for row in _rows(PROBE_DEF, "PROBE")}

# Where fast.def's rows name the default block: TILE(id, operation, K,
# access, block, ...), BULK(id, operation, K, block, fallback, ...).
_FAST_BLOCK_FIELD = {"TILE": 4, "STRIDE": 4, "BULK": 3, "BULK_STORE": 3}
# id -> the block a variant is published with (its .def row's default
# block): the one `ewbench run` times it at unless told otherwise.  A
# library's (cub) picks its own and is not listed.
PUBLISHED_BLOCKS = {**STUDY_BLOCKS,
                    **{k: p.block for k, p in PROBES.items()},
                    **{row[0]: int(row[field])
                       for macro, field in _FAST_BLOCK_FIELD.items()
                       for row in _rows(FAST_DEF, macro)}}


def probes_of(variant):
    """The probes that multiply `variant`'s loads: those of a study
    variant with the same operation and load shape (elements per thread,
    vector width, grid-stride or not), fewest loads first; () for any
    other variant.  A grid-stride kernel has none: a probe is one tile
    per block, and what it measures is not that kernel's loads."""
    shape = STUDY_SHAPES.get(variant)
    if shape is None:
        return ()
    return tuple(sorted((p for p in PROBES.values()
                         if STUDY_SHAPES.get(p.of) == shape),
                        key=lambda p: p.loads))
PEER_PREFIXES = ("cub_", "torch_")


def role(variant):
    """STUDY, ADDITION, PEER, USER or PROBE."""
    if variant in STUDY_VARIANTS:
        return STUDY
    if variant in PROBES:
        return PROBE
    if variant.startswith(USER_PREFIX):
        return USER
    if variant.startswith(PEER_PREFIXES):
        return PEER
    return ADDITION


def is_own(variant):
    """An ewbench kernel (the study's or an addition), not a peer's or a
    user's."""
    return role(variant) in (STUDY, ADDITION)


def peer_name(variant):
    """'cub' or 'torch' for a peer, None otherwise."""
    for prefix in PEER_PREFIXES:
        if variant.startswith(prefix):
            return prefix[:-1]
    return None


def family(point):
    """(op, dtype): the variants that compute the same thing."""
    return point.op, point.dtype


def family_label(fam):
    op, dtype = fam
    return "%s %s" % (op, {"f32": "fp32", "f16": "fp16"}.get(dtype, dtype))


def sort_key(variant):
    """Study variants first (in the study's order), then additions,
    probes, peers, users' kernels; alphabetical within each of those."""
    r = role(variant)
    if r == STUDY:
        return (0, STUDY_VARIANTS.index(variant), variant)
    return (ROLES.index(r), 0, variant)

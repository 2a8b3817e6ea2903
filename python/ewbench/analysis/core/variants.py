"""Who wrote a variant: the study, ewbench, a peer library, or the user.

The study's variants are the kernels of the published write-ups
(docs/study.md), the lines of kernels/study.def, read from there.  Peers
are libraries timed beside them: cub (`cub_*`, measured by ewbench) and
PyTorch (`torch_*`, measured by `ewbench torch` into
peer-torch.csv).  A user's own kernel (`ewbench run --kernel FILE.cu`) is
`user:<function>`.  Every other variant is one of ewbench's additions.
Figures draw the three roles differently and the report never names a
peer as ewbench's own.
"""

import os
import re

STUDY = "study"
ADDITION = "ewbench addition"
PEER = "peer"
USER = "user"
ROLES = (STUDY, ADDITION, PEER, USER)
USER_PREFIX = "user:"

STUDY_DEF = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         os.pardir, os.pardir, "defs", "study.def")


def _study_variants(path=STUDY_DEF):
    """The ids of study.def's STUDY(id, ...) lines, in its order."""
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    return tuple(re.findall(r"^STUDY\((\w+),", text, re.M))


STUDY_VARIANTS = _study_variants()
PEER_PREFIXES = ("cub_", "torch_")


def role(variant):
    """STUDY, ADDITION, PEER or USER."""
    if variant in STUDY_VARIANTS:
        return STUDY
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
    """Study variants first (in the study's order), then additions, then
    peers, then users' kernels; alphabetical within the last three."""
    r = role(variant)
    if r == STUDY:
        return (0, STUDY_VARIANTS.index(variant), variant)
    return ({ADDITION: 1, PEER: 2}.get(r, 3), 0, variant)

"""The machine code of a run's kernels: sass.csv (docs/data-format.md).

`ewbench run` copies, from the table its build took out of the kernel
objects (`cuobjdump -sass`, scripts/sass.sh), the global memory
instructions of each kernel it ran, for the architecture of the code the
driver loaded.  A count is static: every copy of the instruction in the
kernel, on every path (a tail loop's too), not how often it ran; how
often is the counters' business (derived__global_ld_inst_per_warp).
A run without the file (a build without cuobjdump, a run written before
ewbench recorded SASS, code JIT-compiled from PTX) has "not recorded",
with run.json's reason where it gives one.
"""

NOT_RECORDED = "not recorded"


def rows(run, variant):
    """The variant's SassRows, () when the run has none for it."""
    return (run.sass or {}).get(variant, ())


def why_not(run):
    """Why the run has no SASS: run.json's word, or that the run predates
    the record."""
    note = run.sass_note
    if note and note.startswith(NOT_RECORDED):
        return note
    if note:        # recorded, but not for this kernel (a peer's, a user's)
        return NOT_RECORDED + " for this kernel"
    return NOT_RECORDED + " (a run written before ewbench recorded SASS)"


def _access(row):
    width = "%d-bit" % row.bits if row.bits else "size in an operand"
    return "%d × %s (%s)" % (row.count, row.instruction, width)


def accesses(run, variant, kind):
    """'8 × LDG.E (32-bit), 14 × LDG.E.U16 (16-bit)': the kernel's
    instructions of one kind, widest first; '' when it has none."""
    picked = [r for r in rows(run, variant) if r.kind == kind]
    picked.sort(key=lambda r: (-(r.bits or 1 << 16), r.instruction))
    return ", ".join(_access(r) for r in picked)


def widest(run, variant, kind="load"):
    """Bits of the kernel's widest access of a kind; None when unknown
    (no rows, or bulk copies only)."""
    bits = [r.bits for r in rows(run, variant) if r.kind == kind and r.bits]
    return max(bits) if bits else None


def summary(run, variant):
    """'SASS sm_90: loads ...; stores ...' or 'SASS not recorded ...'."""
    mine = rows(run, variant)
    if not mine:
        return "SASS " + why_not(run)
    arch = ", ".join(sorted({r.arch for r in mine}))
    parts = []
    for kind, label in (("load", "loads"), ("store", "stores"),
                        ("atomic", "atomics"), ("copy", "copies")):
        text = accesses(run, variant, kind)
        if text:
            parts.append("%s %s" % (label, text))
    return "SASS %s (static counts, every path): %s" % (arch,
                                                         "; ".join(parts))

"""What the L2 byte counter counts, and the test of why it reads 1.5x.

`lts__t_bytes.sum` counts every transfer at the L2 slices, not only the
bytes the SMs ask for.  On the H100 and the H200 references it reads
1.50x the bytes the kernels move (median; add_f16x8's writes count more),
and its read sectors are 1.50x the bytes read on every row, whatever the
kernel's load width or path (32-bit, 128-bit, TMA): not over-fetch, which
would depend on those.  The hypothesis to test: GH100's
L2 is two partitions joined by a fabric, and a sector whose address lives
in the far partition is counted at a slice of the near partition and
again at its home slice, where it arrives over the fabric; with addresses
spread evenly over the two partitions, half the traffic crosses, 1 + 0.5
= 1.5.  If the near partition also holds a copy of what it fetched from
the far one, the L2 holds 1 / 1.5 = 0.67x its nominal capacity of
distinct data, near the effective L2 finding 2 measures.

`lts__t_sectors_srcunit_ltcfabric.sum` (the default metric set, on the
chips with a partitioned L2: GA100, GH100, GB100) counts the sectors that
came to a slice from the fabric: the hypothesis holds where the L2 bytes
less those sectors are the bytes moved, within FABRIC_TOLERANCE, on the
median row (the note says on how many rows).  A run
without that counter says so ("not measured").
"""

from dataclasses import dataclass
from statistics import median
from typing import Optional

from ..core import select as sel
from . import model

SECTOR_BYTES = 32
FABRIC_TOLERANCE = 0.05     # L2 bytes less the fabric's within 5 % of 1x


@dataclass(frozen=True)
class L2Count:
    """The L2 bytes over the bytes moved, over a set of rows, and the
    same less the sectors that crossed the fabric where measured."""
    rows: int
    ratios: tuple           # (lowest, median, highest) L2 bytes / moved
    reads: Optional[tuple]  # the same of the read sectors / bytes read
    writes: Optional[tuple]     # of the write sectors / bytes written
    fabric_rows: int        # rows with the fabric counter
    fabric: Optional[float]     # median fabric bytes / bytes moved
    own: Optional[tuple]    # (lowest, median, highest) of L2 less fabric
    own_within: int = 0     # rows of those within FABRIC_TOLERANCE of 1x

    @property
    def holds(self):
        """Whether the partition hypothesis holds: the median row's L2
        bytes less the fabric's within FABRIC_TOLERANCE of the bytes moved
        (the text says on how many rows); None when the fabric counter was
        not measured.  One row's extra write sectors (add_f16x8's) do not
        refute what the others show."""
        if self.own is None:
            return None
        return abs(self.own[1] - 1.0) <= FABRIC_TOLERANCE


def fabric_bytes(run, point):
    """The bytes that came to L2 slices over the partition fabric, or
    None where not measured."""
    sectors = sel.metric(run, point, sel.M_L2_FABRIC_SECTORS)
    return None if sectors is None else SECTOR_BYTES * sectors


def own_bytes(run, point):
    """The L2 bytes less those that crossed the fabric, or None."""
    total = sel.metric(run, point, sel.M_L2_BYTES)
    fabric = fabric_bytes(run, point)
    if total is None or fabric is None:
        return None
    return total - fabric


def _spread(values):
    return min(values), median(values), max(values)


def l2_count(run, points):
    """L2Count over the points with an L2 byte counter, or None."""
    ratios, reads, writes, fabric, own = [], [], [], [], []
    for p in points:
        total = sel.metric(run, p, sel.M_L2_BYTES)
        if not total or not p.bytes_moved:
            continue
        ratios.append(total / p.bytes_moved)
        output = model.output_bytes(p)
        for name, moved, into in (
                (sel.M_L2_READ_SECTORS, p.bytes_moved - output, reads),
                (sel.M_L2_WRITE_SECTORS, output, writes)):
            sectors = sel.metric(run, p, name)
            if sectors is not None and moved:
                into.append(SECTOR_BYTES * sectors / moved)
        crossed = fabric_bytes(run, p)
        if crossed is not None:
            fabric.append(crossed / p.bytes_moved)
            own.append((total - crossed) / p.bytes_moved)
    if not ratios:
        return None
    return L2Count(len(ratios), _spread(ratios),
                   _spread(reads) if reads else None,
                   _spread(writes) if writes else None, len(fabric),
                   median(fabric) if fabric else None,
                   _spread(own) if own else None,
                   sum(abs(r - 1.0) <= FABRIC_TOLERANCE for r in own))


def _range(spread):
    """'1.50x (1.50-1.91x)'."""
    low, mid, high = spread
    return "%.2fx (%.2f-%.2fx)" % (mid, low, high)


def note(count, l2_bytes=None, effective_bytes=None):
    """A paragraph for the page: what the L2 marker of the DRAM-share
    figure counts, the partition hypothesis and its test; '' without L2
    counters."""
    if count is None:
        return ""
    text = ("The L2 marker of the DRAM-share figure: `%s` over the bytes "
            "moved is %s over %d rows." % (sel.M_L2_BYTES,
                                           _range(count.ratios), count.rows))
    if count.reads and count.writes:
        text += (" Its read sectors (`%s`) are %s the bytes read, "
                 "whatever a kernel's load width or path (over-fetch "
                 "would depend on them), its write sectors %s the bytes "
                 "written." % (sel.M_L2_READ_SECTORS, _range(count.reads),
                               _range(count.writes)))
    text += (" The hypothesis: this GPU's L2 is two partitions joined by a "
             "fabric, and a sector homed in the far partition is counted "
             "at a slice of the near one and again at its home slice, "
             "where it arrives over the fabric; with addresses spread "
             "evenly, half the traffic crosses: 1.5x.")
    if l2_bytes and effective_bytes:
        text += (" If the near partition also keeps what it fetched from "
                 "the far one, the L2 holds 1/1.5 of its nominal %.0f MiB "
                 "of distinct data, %.1f MiB, against the %.1f MiB "
                 "effective L2 finding 2 measured." % (
                     l2_bytes / 2**20, l2_bytes / 1.5 / 2**20,
                     effective_bytes / 2**20))
    if count.own is None:
        return text + (" Its test, `%s` (the sectors that reached a slice "
                       "over the fabric), was not measured in this run: "
                       "the default metric set collects it on chips with "
                       "a partitioned L2 (GA100, GH100, GB100), so the "
                       "hypothesis is untested here." %
                       sel.M_L2_FABRIC_SECTORS)
    low, mid, high = count.own
    return text + (" Its test, `%s` (the sectors that reached a slice over "
                   "the fabric), measured on %d rows: %.2fx the bytes "
                   "moved; the L2 bytes less them are %.2fx (%.2f-%.2fx), "
                   "within %.0f %% of 1x on %d of %d rows: the hypothesis "
                   "%s." % (
                       sel.M_L2_FABRIC_SECTORS, count.fabric_rows,
                       count.fabric, mid, low, high, 100 * FABRIC_TOLERANCE,
                       count.own_within, count.fabric_rows,
                       "holds" if count.holds else "does not hold"))

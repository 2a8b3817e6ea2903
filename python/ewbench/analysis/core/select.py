"""Queries over a loaded run: sizes, the points of one size, metrics.

A variant may have been timed at several block sizes (tune rows, --block
LIST).  Plots and findings that compare variants use each variant's
"primary" block only, so a tune sweep does not add a second line for the
same kernel.  The run decides it (src/run/plan.c `plan_primary_blocks`,
and for `tune` src/run/printers.c `printers_tuned_block`) and run.json
says it (settings `primary_blocks`, since 2026-11-29): for `tune`, the
block it found fastest at the variant's largest size (the least median
time of any of its rows there; on a tie the smaller block); else the
variant's published block where it ran with it (kernels/*.def's default
block; a user's kernel: `--kernel-block`), else the first block it ran
with.  For a run written before 2026-11-29 the same rule is applied to
what it recorded: `command` says whether it was `tune`, and timing.csv's
rows stand in the plan's case order (size, then variant, then the
--block list's order), so a variant's first row has its first block.
"""

import math

from . import variants

# Metric names used by the analysis (spelled as CUPTI / data-format.md).
M_DRAM_READ = "dram__bytes_read.sum"
M_DRAM_WRITE = "dram__bytes_write.sum"
M_DRAM_BYTES = "dram__bytes.sum"
M_L2_BYTES = "lts__t_bytes.sum"
M_L2_READ_SECTORS = "lts__t_sectors_op_read.sum"
M_L2_WRITE_SECTORS = "lts__t_sectors_op_write.sum"
# The sectors that reached an L2 slice over the fabric between the two L2
# partitions (GA100, GH100, GB100; report/l2_counts.py).
M_L2_FABRIC_SECTORS = "lts__t_sectors_srcunit_ltcfabric.sum"
M_L1_BYTES = "l1tex__t_bytes.sum"
M_L1_GLOBAL_BYTES = ("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum",
                     "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum")
M_L2_SECTORS = ("lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum")
L2_SECTOR_BYTES = 32
M_L2_HIT = "lts__t_sector_hit_rate.pct"
M_L2_READ_HIT = "lts__t_sector_op_read_hit_rate.pct"
M_OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
M_THEORETICAL_OCCUPANCY = "sm__maximum_warps_per_active_cycle_pct"
M_REGISTERS = "launch__registers_per_thread"
M_INST_ISSUED = "smsp__inst_issued.sum"
M_BYTES_PER_INST = "derived__bytes_per_inst_issued"
# Per warp global load instruction: L1 sector bytes touched, bytes the
# kernel asked for, their ratio, and load instructions per warp.
M_LD_BYTES_PER_INST = "derived__global_ld_bytes_per_inst"
M_LD_REQUESTED_BYTES_PER_INST = "derived__global_ld_requested_bytes_per_inst"
M_LD_SECTOR_EFFICIENCY = "derived__global_ld_sector_efficiency_pct"
M_LD_INST_PER_WARP = "derived__global_ld_inst_per_warp"
M_DRAM_BANDWIDTH = "derived__dram_bandwidth"
M_KERNEL_TIME = "gpu__time_duration.sum"
M_DRAM_READ_FRACTION = "derived__dram_read_fraction"
# metrics/stalls.txt: smsp__warp_issue_stalled_<reason>_per_warp_active.pct
STALL_PREFIX = "smsp__warp_issue_stalled_"
STALL_SUFFIX = "_per_warp_active.pct"


def sizes(run):
    """Distinct element counts of the run, ascending."""
    return sorted({p.n for p in run.points})


def representative_sizes(run, limit=6):
    """At most `limit` of the run's sizes, spread evenly over the sorted
    list (first and last included): a sweep has a hundred sizes, and a
    table or a bar panel for each would bury the report."""
    all_sizes = sizes(run)
    if len(all_sizes) <= limit:
        return all_sizes
    picks = {round(i * (len(all_sizes) - 1) / (limit - 1)) for i in range(limit)}
    return [all_sizes[i] for i in sorted(picks)]


def rule_primary_blocks(run):
    """variant -> its primary block by the run's own rule (module
    comment), from its command, its rows and its published blocks."""
    published = dict(variants.PUBLISHED_BLOCKS)
    published.update(user_blocks(run))
    rows = {}
    for p in run.points:
        rows.setdefault(p.variant, []).append(p)
    if (run.manifest or {}).get("command") == "tune":
        return {v: _fastest_at_largest(ps) for v, ps in rows.items()}
    return {v: _published_else_first(ps, published.get(v))
            for v, ps in rows.items()}


def _published_else_first(rows, published):
    """The published block where one of the rows ran with it, else the
    first row's block (a library's: None)."""
    if published is not None and any(p.block == published for p in rows):
        return published
    return rows[0].block


def _fastest_at_largest(rows):
    """The block of the least median time among rows at their largest
    size, the smaller block on a tie (a library's: None)."""
    largest = max(p.n for p in rows)
    return min((p for p in rows if p.n == largest),
               key=lambda p: (p.time_median_ns,
                              -1 if p.block is None else p.block)).block


def user_blocks(run):
    """variant -> the block a user's kernel was given (`--kernel-block`,
    run.json user_kernels[].default_block): its published shape."""
    out = {}
    for e in run.manifest.get("user_kernels") or ():
        if isinstance(e, dict) and isinstance(e.get("variant"), str) and \
                isinstance(e.get("default_block"), int):
            out[e["variant"]] = e["default_block"]
    return out


def recorded_primary_blocks(run):
    """variant -> its primary block as the run recorded it (run.json
    settings.primary_blocks; None for a library's), or None for runs
    written before it."""
    blocks = ((run.manifest or {}).get("settings") or {}).get(
        "primary_blocks")
    return dict(blocks) if isinstance(blocks, dict) else None


def primary_points(run):
    """The points timed with their variant's primary block: as run.json
    records it, else by the run's rule (module comment).  A variant the
    record leaves out (a peer's file, peer-torch.csv) keeps every point."""
    primary = recorded_primary_blocks(run)
    if primary is None:
        primary = rule_primary_blocks(run)
    return [p for p in run.points
            if p.variant not in primary or p.block == primary[p.variant]]


def select(points, **where):
    """Points whose attributes equal every keyword given."""
    return [p for p in points
            if all(getattr(p, k) == v for k, v in where.items())]


def preferred_cache(points):
    """'warm' when any warm point exists, else 'cold' (None if empty)."""
    caches = {p.cache for p in points}
    if "warm" in caches:
        return "warm"
    return "cold" if "cold" in caches else None


def at_largest_size(run):
    """The passing primary-block points of a run at its largest size, in
    the preferred cache state (the figures of one size read these)."""
    points = [p for p in primary_points(run) if p.check != "fail"]
    if not points:
        return []
    n = max(p.n for p in points)
    pts = [p for p in points if p.n == n]
    cache = preferred_cache(pts)
    return [p for p in pts if p.cache == cache]


def metric(run, point, name):
    """Value of a metric for a point, or None when not measured.  A graph
    point has the counter rows of its stream launches (load.py,
    attach_launch_modes)."""
    if run.metrics is None:
        return None
    entry = run.metrics.get(point.key, {}).get(name)
    return None if entry is None else entry.value


def counter_passes(run):
    """Replay passes of the run's metric set, or None."""
    return (run.manifest.get("counters") or {}).get("passes")


def warm_counters_are_warm(run):
    """Whether the run's warm counter rows describe a warm L2: with user
    replay (ewbench re-issues each point, warm-up included, every pass)
    always; with CUPTI's kernel replay (runs before it, counters.replay =
    "kernel") only for one-pass sets, since the memory restore before each
    later pass empties L2."""
    counters = run.manifest.get("counters") or {}
    return counters.get("replay") == "user" or counter_passes(run) == 1


def l2_read_served(run, point):
    """Percent of the bytes a kernel reads that came from L2, not DRAM:
    100 x (1 - derived__dram_read_fraction); None where the counters do
    not describe the point's L2 (see warm_counters_are_warm)."""
    if not warm_counters_are_warm(run):
        return None
    frac = metric(run, point, M_DRAM_READ_FRACTION)
    if frac is None:
        return None
    return min(100.0, max(0.0, 100.0 * (1.0 - frac)))


def dram_bytes(run, point):
    """DRAM bytes read + written by the counter pass, or None."""
    read = metric(run, point, M_DRAM_READ)
    write = metric(run, point, M_DRAM_WRITE)
    if read is not None and write is not None:
        return read + write
    return metric(run, point, M_DRAM_BYTES)


def l2_bytes(run, point):
    """Bytes through the L2 slices: lts__t_bytes.sum, else the read and
    write sectors (the residency set counts only those) x 32 B; None
    where neither was measured."""
    total = metric(run, point, M_L2_BYTES)
    if total is not None:
        return total
    sectors = [metric(run, point, m) for m in M_L2_SECTORS]
    if all(v is not None for v in sectors):
        return L2_SECTOR_BYTES * sum(sectors)
    return None


def l1_bytes(run, point):
    """L1 bytes: l1tex__t_bytes.sum, else the global load and store bytes
    through the LSU pipe (the default set counts those); None."""
    total = metric(run, point, M_L1_BYTES)
    if total:
        return total
    parts = [metric(run, point, m) for m in M_L1_GLOBAL_BYTES]
    return sum(parts) if all(v is not None for v in parts) else None


def has_metric(run, name):
    if run.metrics is None:
        return False
    return any(name in values for values in run.metrics.values())


def mid_size(all_sizes):
    """The size closest (in log) to the geometric middle of the range;
    None with fewer than three sizes.  For 1Mi, 16Mi, 256Mi: 16Mi."""
    if len(all_sizes) < 3:
        return None
    inner = all_sizes[1:-1]
    middle = (all_sizes[0] * all_sizes[-1]) ** 0.5
    return min(inner, key=lambda n: abs(math.log(n / middle)))


def stall_shares(run, point):
    """[(reason, % of active warps)] of the point's warp stall reasons
    (metrics/stalls.txt), largest first, 'selected' (the warp that issued)
    left out; [] when not measured.  Only the reasons measured: a reason
    this chip has no counter for (run.json counters.left_out, e.g.
    imc_miss on GB202) is absent, never 0, and every share taken from
    these (model.PointFacts.stall_share, answers._top_stall) is over
    their sum, so the reasons present make 100 % of the stall cycles."""
    if run.metrics is None:
        return []
    entry = run.metrics.get(point.key)
    out = []
    for name, value in (entry or {}).items():
        if name.startswith(STALL_PREFIX) and name.endswith(STALL_SUFFIX) \
                and value.value is not None:
            reason = name[len(STALL_PREFIX):-len(STALL_SUFFIX)]
            if reason != "selected":
                out.append((reason, value.value))
    return sorted(out, key=lambda r: -r[1])

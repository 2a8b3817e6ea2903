/*
 * tiers.c - working-set sizes for sweeps and for `--preset tiers`.
 *
 * The grid is built in log2(bytes): segments bounded by multiples of the
 * L2 (sweep_segments), each cut into equal steps, so the segments' edges
 * are always points and no step is longer than the segment's density
 * allows.  Rounding to whole quanta of elements can merge neighbouring
 * points at the small end; repeats are dropped.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/tiers.h"

#define GIB		(1ULL << 30)

/*
 * Where a sweep spends its points: segment by segment up to `upper` x L2
 * (the last one to the sweep's top), `factor` x the caller's points per
 * octave.  A warm working set leaves L2 between about L2 / 2 and the
 * nominal L2 (finding 2's effective L2: 0.68 x on the H100 and the H200),
 * which gets the most; the launch knee (a kernel's time starts to grow
 * with its bytes) lies between L2 / 16 and L2 / 4 on the GPUs measured;
 * below and far above, bandwidth is a straight line in log-log (launch
 * cost, DRAM speed).  scripts/sweep-schedule.py checks that the study's
 * numbers come out the same as on a grid 4 x as dense from L2 / 4 to
 * 4 x L2.
 */
static const struct {
	double	upper;		/* x L2; 0: the sweep's top */
	double	factor;
} sweep_segments[] = {
	{ 1.0 / 16,	0.5 },
	{ 1.0 / 4,	1 },
	{ 1.0 / 2,	2 },
	{ 1.5,		4 },
	{ 4,		1 },
	{ 0,		0.5 },
};

enum rounding { ROUND_NEAREST, ROUND_UP };

struct grid {
	uint64_t	*n;
	size_t		 count;
	size_t		 allocated;
};

uint64_t
tier_flush_bytes(const struct tier_device *d)
{
	return 4 * d->l2_bytes > (32u << 20) ? 4 * d->l2_bytes : 32u << 20;
}

uint64_t
tier_usable_bytes(const struct tier_device *d, uint64_t budget_bytes)
{
	uint64_t	available, usable, kept;

	available = d->free_bytes != 0 ? d->free_bytes : d->memory_bytes;
	/* 15 % for the runtime, CUPTI and fragmentation, and the flush. */
	kept = available / 100 * 15 + tier_flush_bytes(d);
	usable = available > kept ? available - kept : 0;
	if (budget_bytes != 0 && budget_bytes < usable)
		usable = budget_bytes;
	return usable;
}

static uint64_t
at_least_gib(uint64_t bytes)
{
	return bytes > GIB ? bytes : GIB;
}

uint64_t
tier_dram_bytes(const struct tier_device *d)
{
	return at_least_gib(16 * d->l2_bytes);
}

/*
 * Elements per array whose working set is about `bytes`: a whole number of
 * quanta, at least one, and never more than fits in cap bytes.  The caller
 * makes sure one quantum fits.
 */
static uint64_t
elements_for(uint64_t bytes, unsigned footprint, uint64_t cap,
    enum rounding how)
{
	uint64_t	unit = (uint64_t)footprint * TIER_ELEMENT_QUANTUM;
	uint64_t	quanta, most = cap / unit;

	if (how == ROUND_UP)
		quanta = bytes / unit + (bytes % unit != 0);
	else
		quanta = (bytes + unit / 2) / unit;
	if (quanta > most)
		quanta = most;
	if (quanta == 0)
		quanta = 1;
	return quanta * TIER_ELEMENT_QUANTUM;
}

/* Appends n unless it repeats the last point (input is non-decreasing). */
static void
grid_add(struct grid *g, uint64_t n)
{
	if (g->count > 0 && g->n[g->count - 1] >= n)
		return;
	if (g->count == g->allocated) {
		g->allocated = g->allocated == 0 ? 64 : 2 * g->allocated;
		g->n = xrealloc(g->n, g->allocated * sizeof *g->n);
	}
	g->n[g->count++] = n;
}

/* Points from 2^from bytes (included) to 2^to (excluded: the next segment
 * or the top of the grid adds it), `density` per octave. */
static void
grid_segment(struct grid *g, double from, double to, double density,
    unsigned footprint, uint64_t cap)
{
	double		octaves = to - from, bytes;
	unsigned	steps, i;

	if (octaves <= 0)
		return;
	steps = (unsigned)ceil(octaves * density - 1e-9);
	if (steps == 0)
		steps = 1;
	for (i = 0; i < steps; i++) {
		bytes = exp2(from + octaves * i / steps);
		grid_add(g, elements_for((uint64_t)llround(bytes), footprint,
		    cap, ROUND_NEAREST));
	}
}

static uint64_t
clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Refuses a footprint of 0 and a memory cap that holds no quantum. */
static int
check_room(unsigned footprint, uint64_t cap, char **cause)
{
	char	have[32];

	if (footprint == 0) {
		*cause = xasprintf("footprint of 0 bytes per element");
		return -1;
	}
	if (cap / footprint < TIER_ELEMENT_QUANTUM) {
		bytes_format((double)cap, have, sizeof have);
		*cause = xasprintf("only %s of GPU memory is usable: not even "
		    "%u elements of %u bytes fit", have, TIER_ELEMENT_QUANTUM,
		    footprint);
		return -1;
	}
	return 0;
}

int
sweep_sizes(const struct tier_device *d, unsigned footprint,
    unsigned points_per_octave, uint64_t budget_bytes, uint64_t **sizes,
    size_t *count, char **cause)
{
	struct grid	g;
	uint64_t	cap = tier_usable_bytes(d, budget_bytes);
	uint64_t	lo = SWEEP_MIN_BYTES, hi, from, to;
	double		density = points_per_octave;
	char		have[32];
	size_t		i;

	if (points_per_octave == 0) {
		*cause = xasprintf("a sweep needs at least one point per "
		    "octave");
		return -1;
	}
	if (check_room(footprint, cap, cause) != 0)
		return -1;
	if (cap < lo) {
		bytes_format((double)cap, have, sizeof have);
		*cause = xasprintf("only %s of GPU memory is usable: a sweep "
		    "starts at %llu KiB", have, SWEEP_MIN_BYTES >> 10);
		return -1;
	}
	hi = at_least_gib(8 * d->l2_bytes);
	if (hi > cap)
		hi = cap;

	memset(&g, 0, sizeof g);
	if (d->l2_bytes == 0)
		grid_segment(&g, log2((double)lo), log2((double)hi), density,
		    footprint, cap);
	for (i = 0, from = lo; d->l2_bytes != 0 &&
	    i < sizeof sweep_segments / sizeof sweep_segments[0]; i++) {
		to = sweep_segments[i].upper == 0 ? hi : clamp_u64((uint64_t)
		    llround(sweep_segments[i].upper * (double)d->l2_bytes),
		    lo, hi);
		grid_segment(&g, log2((double)from), log2((double)to),
		    density * sweep_segments[i].factor, footprint, cap);
		if (to > from)
			from = to;
	}
	grid_add(&g, elements_for(hi, footprint, cap, ROUND_UP));
	*sizes = g.n;
	*count = g.count;
	return 0;
}

static void
tier_fill(struct tier_size *t, const char *name, uint64_t n,
    unsigned footprint)
{
	t->name = name;
	t->n = n;
	t->footprint_bytes = n * footprint;
}

int
tier_sizes(const struct tier_device *d, unsigned footprint,
    uint64_t budget_bytes, struct tier_size out[TIER_COUNT], char **cause)
{
	uint64_t	 cap = tier_usable_bytes(d, budget_bytes);
	uint64_t	 l2 = d->l2_bytes;
	char		 l2_text[32], ws[TIER_COUNT][32], have[32];
	double		 pct[TIER_COUNT];
	int		 i;

	if (l2 == 0) {
		*cause = xasprintf("the L2 size is unknown: cannot place the "
		    "cache tiers");
		return -1;
	}
	if (check_room(footprint, cap, cause) != 0)
		return -1;
	tier_fill(&out[TIER_LATENCY], "latency",
	    elements_for(l2 / 64, footprint, cap, ROUND_NEAREST), footprint);
	tier_fill(&out[TIER_L2], "l2",
	    elements_for(l2 * 45 / 100, footprint, cap, ROUND_NEAREST),
	    footprint);
	tier_fill(&out[TIER_DRAM], "dram",
	    elements_for(tier_dram_bytes(d), footprint, cap, ROUND_UP),
	    footprint);

	bytes_format((double)l2, l2_text, sizeof l2_text);
	if (out[TIER_DRAM].footprint_bytes < 16 * l2) {
		bytes_format((double)cap, have, sizeof have);
		bytes_format(16.0 * (double)l2, ws[0], sizeof ws[0]);
		*cause = xasprintf("the DRAM tier needs a working set of at "
		    "least 16 x the %s L2 (%s); only %s of GPU memory is "
		    "usable", l2_text, ws[0], have);
		return -1;
	}
	for (i = 0; i < TIER_COUNT; i++) {
		bytes_format((double)out[i].footprint_bytes, ws[i],
		    sizeof ws[i]);
		pct[i] = 100.0 * (double)out[i].footprint_bytes / (double)l2;
	}
	snprintf(out[TIER_LATENCY].reason, sizeof out[TIER_LATENCY].reason,
	    "working set %s = %.1f%% of the %s L2: launch cost dominates",
	    ws[TIER_LATENCY], pct[TIER_LATENCY], l2_text);
	snprintf(out[TIER_L2].reason, sizeof out[TIER_L2].reason,
	    "working set %s = %.0f%% of the %s L2: resident in L2 between "
	    "launches", ws[TIER_L2], pct[TIER_L2], l2_text);
	snprintf(out[TIER_DRAM].reason, sizeof out[TIER_DRAM].reason,
	    "working set %s = %.1fx the %s L2: DRAM-bound", ws[TIER_DRAM],
	    pct[TIER_DRAM] / 100, l2_text);
	return 0;
}

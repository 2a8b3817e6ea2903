/* test-tiers.c - the sweep grid and the cache tiers, for four real GPUs. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"
#include "run/tiers.h"
#include "check.h"

#define MIB	(1ULL << 20)
#define GIB	(1ULL << 30)

static const struct machine {
	const char		*name;
	struct tier_device	 dev;
	const char		*l2_text;	/* as reasons spell it */
} machines[] = {
	{ "H100", { 50 * MIB, 80000000000ULL, 79000000000ULL }, "50.0 MiB" },
	{ "H200", { 62914560, 141000000000ULL, 140000000000ULL }, "60.0 MiB" },
	{ "RTX 5090", { 100663296, 32000000000ULL, 31000000000ULL },
	    "96.0 MiB" },
	{ "T4", { 4 * MIB, 16000000000ULL, 15000000000ULL }, "4.0 MiB" },
};
#define NMACHINES (sizeof machines / sizeof machines[0])

/* add f32, add f16, relu f32, abs f32 in place, add f64 */
static const unsigned footprints[] = { 12, 6, 8, 4, 24 };
#define NFOOTPRINTS (sizeof footprints / sizeof footprints[0])

static uint64_t
max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Points per octave of the grid's working sets inside [lo, hi). */
static double
density(const uint64_t *n, size_t count, unsigned footprint, double lo,
    double hi)
{
	size_t	i, inside = 0;

	for (i = 0; i < count; i++) {
		double bytes = (double)(n[i] * footprint);

		if (bytes >= lo && bytes < hi)
			inside++;
	}
	return inside / log2(hi / lo);
}

static int
in_range(double x, double lo, double hi)
{
	if (x >= lo && x <= hi)
		return 1;
	fprintf(stderr, "%.2f points per octave, expected %.1f to %.1f\n", x,
	    lo, hi);
	return 0;
}

/* Distance in bytes from `bytes` to the grid's closest working set. */
static double
nearest_gap(const uint64_t *n, size_t count, unsigned footprint, double bytes)
{
	double	gap = INFINITY;
	size_t	i;

	for (i = 0; i < count; i++)
		gap = fmin(gap, fabs((double)(n[i] * footprint) - bytes));
	return gap;
}

static void
test_grid(const struct machine *m, unsigned footprint)
{
	const struct tier_device	*d = &m->dev;
	uint64_t			*n = NULL, top, l2 = d->l2_bytes;
	size_t				 count = 0, i;
	char				*cause = NULL;
	double				 first;
	static const double		 edges[] = { 1.0 / 16, 1.0 / 4,
					     1.0 / 2, 1.5, 4 };

	CHECK(sweep_sizes(d, footprint, 4, 0, &n, &count, &cause) == 0);
	CHECK(cause == NULL);
	if (n == NULL || count < 2) {
		fprintf(stderr, "%s/%u: no grid\n", m->name, footprint);
		check_failures++;
		return;
	}
	for (i = 0; i < count; i++) {
		CHECK(n[i] >= TIER_ELEMENT_QUANTUM);
		CHECK(n[i] % TIER_ELEMENT_QUANTUM == 0);
		if (i > 0)
			CHECK(n[i] > n[i - 1]);
	}
	/* Starts near 64 KiB: within half a quantum's rounding. */
	first = (double)(n[0] * footprint);
	CHECK(fabs(first - 65536.0) <= footprint * TIER_ELEMENT_QUANTUM / 2.0);
	/* Ends at or just above max(8 x L2, 1 GiB): memory is plentiful. */
	top = max_u64(8 * l2, GIB);
	CHECK(n[count - 1] * footprint >= top);
	CHECK(n[count - 1] * footprint < top + footprint * TIER_ELEMENT_QUANTUM);
	/* N = 4 points per octave on the shoulders, 4N where a warm working
	 * set leaves L2, 2N just below it, N/2 on the straight stretches. */
	CHECK(in_range(density(n, count, footprint, l2 / 2.0, 1.5 * l2),
	    14, 18));
	CHECK(in_range(density(n, count, footprint, l2 / 4.0, l2 / 2.0), 7, 9));
	CHECK(in_range(density(n, count, footprint, l2 / 16.0, l2 / 4.0),
	    3.5, 4.5));
	CHECK(in_range(density(n, count, footprint, 1.5 * l2, 4.0 * l2),
	    3.5, 5));
	if (l2 / 16.0 >= 4 * 65536.0)	/* at least two octaves below */
		CHECK(in_range(density(n, count, footprint, 65536.0,
		    l2 / 16.0), 1.5, 2.5));
	if (top >= 16.0 * l2)		/* at least two octaves above */
		CHECK(in_range(density(n, count, footprint, 4.0 * l2,
		    (double)top), 1.5, 2.5));
	/* Each segment's lower edge is a point, up to rounding. */
	for (i = 0; i < sizeof edges / sizeof edges[0]; i++)
		if (edges[i] * l2 > 65536.0 && edges[i] * l2 < top)
			CHECK(nearest_gap(n, count, footprint, edges[i] * l2) <=
			    footprint * TIER_ELEMENT_QUANTUM / 2.0);
	free(n);
}

/* A memory budget, then a small free memory, cap the grid's top. */
static void
test_grid_capped(const struct machine *m)
{
	struct tier_device	 small = m->dev;
	uint64_t		*n = NULL, cap;
	size_t			 count = 0, i;
	char			*cause = NULL;

	cap = 200 * MIB + 5;
	CHECK(sweep_sizes(&m->dev, 12, 4, cap, &n, &count, &cause) == 0);
	CHECK(count > 10);
	for (i = 0; i < count; i++)
		CHECK(n[i] * 12 <= cap);
	CHECK(n[count - 1] * 12 > cap - 12 * TIER_ELEMENT_QUANTUM);
	free(n);

	/* Usable: free memory less 15 % and the 32 MiB flush buffer. */
	small.l2_bytes = 4 * MIB;
	small.free_bytes = 256 * MIB;
	CHECK(tier_flush_bytes(&small) == 32 * MIB);
	CHECK(sweep_sizes(&small, 12, 4, 0, &n, &count, &cause) == 0);
	cap = tier_usable_bytes(&small, 0);
	CHECK(cap == 256 * MIB - 256 * MIB / 100 * 15 - 32 * MIB);
	for (i = 0; i < count; i++)
		CHECK(n[i] * 12 <= cap);
	CHECK(n[count - 1] * 12 > cap - 12 * TIER_ELEMENT_QUANTUM);
	free(n);

	/* Unknown free memory: total memory stands in. */
	small.free_bytes = 0;
	small.memory_bytes = 512 * MIB;
	CHECK(tier_usable_bytes(&small, 0) ==
	    512 * MIB - 512 * MIB / 100 * 15 - 32 * MIB);
	CHECK(tier_usable_bytes(&small, 100 * MIB) == 100 * MIB);
}

/* Without the L2's size: N points per octave throughout. */
static void
test_grid_without_l2(void)
{
	struct tier_device	 blind = { 0, 16 * GIB, 16 * GIB };
	uint64_t		*n = NULL;
	size_t			 count = 0;
	char			*cause = NULL;

	CHECK(sweep_sizes(&blind, 12, 4, 0, &n, &count, &cause) == 0);
	CHECK(count > 2 && in_range(density(n, count, 12, 65536.0,
	    (double)GIB), 3.5, 4.5));
	free(n);
}

static void
test_grid_refused(void)
{
	struct tier_device	 tiny = { 4 * MIB, 16 * GIB, 16 * GIB };
	uint64_t		*n = NULL;
	size_t			 count = 0;
	char			*cause = NULL;

	CHECK(sweep_sizes(&tiny, 12, 0, 0, &n, &count, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "octave") != NULL);
	free(cause);
	cause = NULL;
	CHECK(sweep_sizes(&tiny, 0, 4, 0, &n, &count, &cause) == -1);
	CHECK(cause != NULL);
	free(cause);
	cause = NULL;
	CHECK(sweep_sizes(&tiny, 12, 4, 32 << 10, &n, &count, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "usable") != NULL);
	free(cause);
	cause = NULL;
	CHECK(sweep_sizes(&tiny, 12, 4, 8 << 10, &n, &count, &cause) == -1);
	CHECK(cause != NULL);
	free(cause);
}

static void
test_tiers(const struct machine *m, unsigned footprint)
{
	const struct tier_device	*d = &m->dev;
	struct tier_size		 t[TIER_COUNT];
	uint64_t			 l2 = d->l2_bytes;
	char				*cause = NULL, *pct;
	int				 i;

	memset(t, 0, sizeof t);
	CHECK(tier_sizes(d, footprint, 0, t, &cause) == 0);
	CHECK(cause == NULL);
	CHECK_STR(t[TIER_LATENCY].name, "latency");
	CHECK_STR(t[TIER_L2].name, "l2");
	CHECK_STR(t[TIER_DRAM].name, "dram");
	for (i = 0; i < TIER_COUNT; i++) {
		CHECK(t[i].n % TIER_ELEMENT_QUANTUM == 0 && t[i].n > 0);
		CHECK(t[i].footprint_bytes == t[i].n * footprint);
		if (strstr(t[i].reason, m->l2_text) == NULL) {
			fprintf(stderr, "%s/%u: reason '%s' lacks '%s'\n",
			    m->name, footprint, t[i].reason, m->l2_text);
			check_failures++;
		}
		CHECK(strncmp(t[i].reason, "working set ", 12) == 0);
	}
	CHECK(t[TIER_LATENCY].footprint_bytes <= l2 / 16);
	CHECK(t[TIER_L2].footprint_bytes >= l2 * 40 / 100);
	CHECK(t[TIER_L2].footprint_bytes <= l2 * 50 / 100);
	CHECK(t[TIER_DRAM].footprint_bytes >= 16 * l2);
	CHECK(t[TIER_DRAM].footprint_bytes >= GIB);
	CHECK(t[TIER_DRAM].footprint_bytes < max_u64(16 * l2, GIB) +
	    footprint * TIER_ELEMENT_QUANTUM);
	CHECK(t[TIER_LATENCY].n < t[TIER_L2].n && t[TIER_L2].n < t[TIER_DRAM].n);
	/* The L2 reason states the share it computed. */
	pct = strstr(t[TIER_L2].reason, "= ");
	CHECK(pct != NULL && (strncmp(pct, "= 45%", 5) == 0 ||
	    strncmp(pct, "= 44%", 5) == 0 || strncmp(pct, "= 46%", 5) == 0));
}

static void
test_tiers_exact(void)
{
	struct tier_size	t[TIER_COUNT];
	char			*cause = NULL;

	/* H100, add f32: 22.5 MiB is exactly 1920 quanta of 12 KiB. */
	CHECK(tier_sizes(&machines[0].dev, 12, 0, t, &cause) == 0);
	CHECK(t[TIER_L2].n == 1966080);
	CHECK_STR(t[TIER_L2].reason, "working set 22.5 MiB = 45% of the "
	    "50.0 MiB L2: resident in L2 between launches");
	/* 1 GiB is not a multiple of 12: rounded up to the next quantum. */
	CHECK(t[TIER_DRAM].n == 89478144 + 1024);
	CHECK(tier_dram_bytes(&machines[0].dev) == GIB);
	CHECK(tier_dram_bytes(&machines[2].dev) == 16 * 100663296ULL);
}

static void
test_tiers_refused(void)
{
	struct tier_device	 d = { 50 * MIB, 80 * GIB, 80 * GIB };
	struct tier_size	 t[TIER_COUNT];
	char			*cause = NULL;

	/* 16 x L2 = 800 MiB does not fit a 700 MiB budget. */
	CHECK(tier_sizes(&d, 12, 700 * MIB, t, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "16 x the 50.0 MiB L2") != NULL);
	free(cause);
	cause = NULL;
	/* A budget between 16 x L2 and 1 GiB: the tier shrinks, still valid. */
	CHECK(tier_sizes(&d, 12, 900 * MIB, t, &cause) == 0);
	CHECK(t[TIER_DRAM].footprint_bytes >= 800 * MIB &&
	    t[TIER_DRAM].footprint_bytes <= 900 * MIB);
	d.l2_bytes = 0;
	CHECK(tier_sizes(&d, 12, 0, t, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "L2") != NULL);
	free(cause);
}

int
main(void)
{
	size_t	i, k;

	for (i = 0; i < NMACHINES; i++) {
		for (k = 0; k < NFOOTPRINTS; k++) {
			test_grid(&machines[i], footprints[k]);
			test_tiers(&machines[i], footprints[k]);
		}
		test_grid_capped(&machines[i]);
	}
	test_grid_refused();
	test_grid_without_l2();
	test_tiers_exact();
	test_tiers_refused();
	return check_exit();
}

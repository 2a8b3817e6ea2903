/*
 * test-cover.c - the grid that covers n elements (kernels/cover.h), the
 * one definition the launchers, a user's kernel, an --elementwise family
 * and the plan share: pinned at the edges (no elements, one, odd counts,
 * counts one past a whole grid, around 2^31 and 2^32), and against its
 * definition, the smallest grid whose threads hold n, over a range.
 */
#include "kernels/cover.h"
#include "kernels/registry.h"
#include "check.h"

/* The definition, by counting: the fewest blocks whose threads, per
 * elements each, reach n. */
static unsigned long long
fewest_blocks(unsigned long long n, unsigned per, unsigned block)
{
	unsigned long long	g = 0;

	while (g * block * per < n)
		g++;
	return g;
}

/* The edges, each with its grid; what it covers is the grid's threads'
 * elements. */
static const struct edge {
	unsigned long long	n;
	unsigned		per, block;
	unsigned long long	grid;
} edges[] = {
	/* No elements: no blocks, nothing covered. */
	{ 0, 1, 256, 0 }, { 0, 4, 256, 0 },
	/* One element: one block, a whole block's share covered. */
	{ 1, 1, 256, 1 }, { 1, 4, 64, 1 }, { 1, 1, 1, 1 },
	/* Odd counts and odd blocks. */
	{ 7, 1, 3, 3 }, { 1023, 4, 256, 1 }, { 1027, 8, 33, 4 },
	/* A whole grid, and one element past it (misaligned: a partial
	 * group of a thread starts a block of its own). */
	{ 1024, 4, 256, 1 }, { 1025, 4, 256, 2 },
	/* Around 2^31 (a user kernel's int count) and 2^32 (32-bit
	 * unsigned), one thread and four a group. */
	{ 2147483647ULL, 1, 256, 8388608 }, { 2147483648ULL, 1, 256, 8388608 },
	{ 2147483649ULL, 1, 256, 8388609 }, { 2147483649ULL, 4, 64, 8388609 },
	{ 4294967297ULL, 4, 1024, 1048577 },
	/* A block of one thread: the grid is the thread count, past the
	 * most a launch may have from 2^31 elements on (the plan leaves
	 * such a launch out). */
	{ 2147483647ULL, 1, 1, EWB_MAX_GRID },
	{ 2147483648ULL, 1, 1, EWB_MAX_GRID + 1 },
	{ 1ULL << 40, 1, 32, 1ULL << 35 },
};

static void
test_edges(void)
{
	size_t	i;

	for (i = 0; i < sizeof edges / sizeof edges[0]; i++) {
		const struct edge *e = &edges[i];

		if (ewb_cover_grid(e->n, e->per, e->block) != e->grid ||
		    ewb_cover_elems(e->n, e->per, e->block) !=
		    e->grid * e->block * e->per) {
			fprintf(stderr, "edge %zu: n=%llu, %u a thread, block "
			    "%u: grid %llu, want %llu\n", i, e->n, e->per,
			    e->block, ewb_cover_grid(e->n, e->per, e->block),
			    e->grid);
			check_failures++;
		}
	}
	/* What the launch covers, past n by less than one block's share. */
	CHECK(ewb_cover_elems(2147483649ULL, 4, 64) == 2147483648ULL + 256);
	CHECK(ewb_cover_elems(1, 4, 64) == 256);
	/* Rounding up twice (to whole threads, then whole blocks) is
	 * rounding up once to a whole block's share. */
	CHECK(ewb_cover_grid(4294967297ULL, 8, 128) ==
	    ewb_div_up(4294967297ULL, 8 * 128));
	CHECK(ewb_div_up(0, 7) == 0);
	CHECK(ewb_div_up(7, 7) == 1);
	CHECK(ewb_div_up(8, 7) == 2);
	CHECK(ewb_div_up(~0ULL, 1) == ~0ULL);
	CHECK(ewb_div_up(~0ULL, 2) == 1ULL << 63);
}

static void
test_definition(void)
{
	static const unsigned	pers[] = { 1, 2, 3, 4, 8 };
	static const unsigned	blocks[] = { 1, 3, 32, 33, 64, 256, 1024 };
	unsigned long long	n;
	size_t			i, j;

	for (i = 0; i < sizeof pers / sizeof pers[0]; i++)
		for (j = 0; j < sizeof blocks / sizeof blocks[0]; j++)
			for (n = 0; n <= 5000; n += 1 + n / 64) {
				unsigned long long g = fewest_blocks(n,
				    pers[i], blocks[j]);

				CHECK(ewb_cover_grid(n, pers[i], blocks[j]) ==
				    g);
				CHECK(ewb_cover_elems(n, pers[i],
				    blocks[j]) == g * blocks[j] * pers[i]);
			}
}

int
main(void)
{
	test_edges();
	test_definition();
	return check_exit();
}

/*
 * family.c - the family of kernels generated for a user's op, as data:
 * every memory word (the element itself, 64 bits, 128 bits) x words per
 * thread per input (1, 2, 4, 8) x launch shape (one tile per block,
 * grid-stride, persistent runs), the three axes of the study's variants
 * (docs/kernels.md), and the bulk-copy (TMA) tile of 16-byte packets, K 1
 * and 2, in two stages (bulk) and in one (bulkone, also of the element
 * itself at K 2, 3, 4 and 6), each where its shared memory fits
 * (opgen.h); the threads per block are the run's --block.
 */
#include <stdio.h>
#include <string.h>

#include "opgen/opgen.h"

static const unsigned ks[OPGEN_KS] = { 1, 2, 4, 8 };
static const unsigned one_elem_ks[OPGEN_ONE_ELEM_KS] = { 2, 3, 4, 6 };
static const unsigned one_packet_ks[OPGEN_ONE_PACKET_KS] = { 1, 2 };

const char *
opgen_shape_name(enum opgen_shape s)
{
	static const char *const names[] = { "tile", "stride", "runs",
	    "bulk", "bulkone" };

	return names[s];
}

static void
member(struct opgen_kernel *g, enum opgen_shape s, enum opgen_access a,
    unsigned k, unsigned elem)
{
	memset(g, 0, sizeof *g);
	g->shape = s;
	g->access = a;
	g->k = k;
	g->word_bytes = a == OPGEN_SCALAR ? elem : a == OPGEN_V64 ? 8 : 16;
	g->lanes = g->word_bytes / elem;
	/* The word by its bits: v16 or v32 is the element itself. */
	snprintf(g->name, sizeof g->name, "%s_v%u_k%u",
	    opgen_shape_name(g->shape), g->word_bytes * 8, g->k);
}

/* Whether a bulk-copy member's tile at the largest block fits the shared
 * memory every GPU with bulk copies gives a block (opgen.h). */
static bool
bulk_fits(unsigned inputs, unsigned k, unsigned word_bytes)
{
	return inputs * k * EWB_MAX_BLOCK * word_bytes <=
	    OPGEN_BULK_SHARED_MOST;
}

/* Every member loads every input; only the bulk members' shared memory
 * depends on how many. */
unsigned
opgen_family(enum ewb_dtype dtype, unsigned inputs, struct opgen_kernel *out)
{
	unsigned	elem = ewb_dtype_size(dtype), n = 0;
	unsigned	a, k, s;

	for (s = 0; s < OPGEN_WORD_SHAPES; s++)
		for (a = 0; a < OPGEN_ACCESSES; a++)
			for (k = 0; k < OPGEN_KS; k++)
				member(&out[n++], (enum opgen_shape)s,
				    (enum opgen_access)a, ks[k], elem);
	for (k = 0; k < OPGEN_BULK_KS; k++)
		if (bulk_fits(inputs, ks[k], 16))
			member(&out[n++], OPGEN_BULK, OPGEN_V128, ks[k], elem);
	for (k = 0; k < OPGEN_ONE_ELEM_KS; k++)
		if (bulk_fits(inputs, one_elem_ks[k], elem))
			member(&out[n++], OPGEN_BULK_ONE, OPGEN_SCALAR,
			    one_elem_ks[k], elem);
	for (k = 0; k < OPGEN_ONE_PACKET_KS; k++)
		if (bulk_fits(inputs, one_packet_ks[k], 16))
			member(&out[n++], OPGEN_BULK_ONE, OPGEN_V128,
			    one_packet_ks[k], elem);
	return n;
}

/*
 * family.c - the family of kernels generated for a user's op, as data:
 * every memory word (the element itself, 64 bits, 128 bits) x words per
 * thread per input (1, 2, 4, 8) x launch shape (one tile per block,
 * grid-stride, persistent runs), the three axes of the study's variants
 * (docs/kernels.md), and the bulk-copy (TMA) tile of 16-byte packets, K 1
 * and 2 where its shared memory fits (opgen.h); the threads per block
 * are the run's --block.
 */
#include <stdio.h>
#include <string.h>

#include "opgen/opgen.h"

static const unsigned ks[OPGEN_KS] = { 1, 2, 4, 8 };

const char *
opgen_shape_name(enum opgen_shape s)
{
	static const char *const names[] = { "tile", "stride", "runs",
	    "bulk" };

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
		if (inputs * ks[k] * EWB_MAX_BLOCK * 16 <=
		    OPGEN_BULK_SHARED_MOST)
			member(&out[n++], OPGEN_BULK, OPGEN_V128, ks[k], elem);
	return n;
}

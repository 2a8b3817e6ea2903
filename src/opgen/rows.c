/*
 * rows.c - which registry rows are the run's op's family (launch.c sets
 * them), so that the plan orders them as the family does.  No CUDA, no
 * NVRTC: in the host library, which the plan is part of.
 */
#include "opgen/opgen.h"

/* The rows of the run's op (launch.c), for opgen_member_index. */
static const struct ewb_variant	*rows;
static size_t			 nrows;

void
opgen_rows_set(const struct ewb_variant *first, size_t count)
{
	rows = first;
	nrows = count;
}

size_t
opgen_member_index(const struct ewb_variant *v)
{
	size_t	i;

	for (i = 0; i < nrows && &rows[i] != v; i++)
		;
	return i;
}

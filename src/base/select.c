/*
 * select.c - variant selection over the registry, and a variant's footprint
 * (the plan's and the run's files').
 *
 * Kept apart from match.c so that libewb.a (and its unit tests) link
 * without the CUDA kernel library.
 */
#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"

int
variants_select(const char *patterns, bool *selected, char **cause)
{
	const char	**ids;
	bool		 *probe;
	size_t		  i;
	int		  rc;

	ids = xcalloc(ewb_variant_count, sizeof *ids);
	probe = xcalloc(ewb_variant_count, sizeof *probe);
	for (i = 0; i < ewb_variant_count; i++) {
		ids[i] = ewb_variants[i].id;
		probe[i] = variant_named_only(&ewb_variants[i]);
	}
	rc = ids_select(patterns, ids, probe, ewb_variant_count, selected,
	    cause);
	free(ids);
	free(probe);
	return rc;
}

bool
variant_named_only(const struct ewb_variant *v)
{
	return strcmp(v->origin, "probe") == 0;
}

unsigned
variant_footprint_per_element(const struct ewb_variant *v)
{
	if (v->in_place)
		return ewb_dtype_size(v->dtype);
	return v->read_bytes + v->write_bytes;
}

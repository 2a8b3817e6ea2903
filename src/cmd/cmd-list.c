/*
 * cmd-list.c - `ewbench list`: the variants of the registry and their
 * facts, and those this build lacks (no GPU needed).
 */
#include <stdio.h>

#include "base/ewbench.h"
#include "cmd/commands.h"

static int
list_command(int argc, char **argv)
{
	size_t	i;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "ewbench list: takes no arguments\n");
		return EWB_EXIT_USAGE;
	}
	printf("%-18s %-4s %-5s %-7s %5s %4s %5s %5s %5s %3s  %s\n", "id", "op",
	    "dtype", "origin", "block", "e/t", "vec", "B/el", "flop", "inp",
	    "technique");
	for (i = 0; i < ewb_variant_count; i++) {
		const struct ewb_variant *v = &ewb_variants[i];

		printf("%-18s %-4s %-5s %-7s %5u %4u %5u %5u %5u %3s  %s\n",
		    v->id, ewb_op_name(v->op), ewb_dtype_name(v->dtype),
		    v->origin, v->default_block, v->elems_per_thread,
		    v->vector_width, v->read_bytes + v->write_bytes, v->flops,
		    v->in_place ? "yes" : "no", v->technique);
	}
	printf("\nblock: published threads per block; e/t: elements per "
	    "thread; vec: elements per memory instruction;\nB/el: bytes read "
	    "+ written per element; flop: per element; inp: in place\n");
	for (i = 0; i < ewb_variant_count; i++) {
		if (ewb_variants[i].unavailable != NULL)
			printf("not in this build: %s: %s\n", ewb_variants[i].id,
			    ewb_variants[i].unavailable);
	}
	return EWB_EXIT_OK;
}

const struct command_entry list_entry = { "list", list_command, false };

/*
 * sass.h - the global memory instructions of ewbench's own kernels, taken
 * from the built kernel objects at build time (`cuobjdump -sass`, reduced
 * by scripts/sass.sh into kernels/sass-table.c), so that they describe the
 * very binary that runs.  `ewbench run` writes the rows of the variants it
 * ran, for the code the driver loaded, to the run's sass.csv
 * (docs/data-format.md).
 */
#ifndef EWB_SASS_H
#define EWB_SASS_H

#include <stddef.h>

struct sass_row {
	const char	*variant;	/* registry id: kernel ewb_<variant> */
	const char	*arch;		/* "sm_90" */
	const char	*kind;		/* load, store, atomic, copy */
	const char	*instruction;	/* "LDG.E.128", modifiers and all */
	unsigned	 bits;		/* one thread's access; 0: not named
					   (bulk and tensor copies) */
	unsigned	 count;		/* copies in the code, every path */
};

/* "recorded", or "not recorded: why" (no cuobjdump at build time). */
extern const char		ewb_sass_status[];
extern const struct sass_row	ewb_sass_rows[];
extern const size_t		ewb_sass_count;

#endif

/*
 * cli.h - command-line options of `ewbench run` and `ewbench check`.
 */
#ifndef EWB_CLI_H
#define EWB_CLI_H

#include "ewbench.h"

enum cache_mode { CACHE_WARM = 1, CACHE_COLD = 2, CACHE_BOTH = 3 };
enum launch_mode { LAUNCH_STREAM = 1, LAUNCH_GRAPH = 2, LAUNCH_BOTH = 3 };

struct run_options {
	bool		*selected;	/* one flag per ewb_variants[] row */
	uint64_t	*sizes;		/* ascending, no duplicates */
	size_t		 nsizes;
	const char	*preset;	/* NULL, "article" or "tiers" */
	unsigned	*blocks;	/* threads per block to run; none:
					   each variant's default */
	size_t		 nblocks;
	unsigned	 iters;
	unsigned	 warmup;
	enum cache_mode	 cache;
	enum launch_mode launch;
	int		 device;
	uint64_t	 seed;
	const char	*out;		/* run directory; NULL: a dated name */
	bool		 no_cupti;
	const char	*metrics;	/* metric group or names */
	bool		 check_only;	/* `ewbench check` */
	bool		 sweep;		/* `ewbench sweep`: sizes from the L2 */
	bool		 tune;		/* `ewbench tune`: a block-size sweep */
	const char	*trace;		/* --trace FILE.json, or NULL */
	bool		 profile_window; /* cudaProfilerStart/Stop around
					   the measured launches */
	bool		 quiet;
	bool		 misalign;	/* operands 4 bytes past a 16-byte
					   boundary: the vector variants'
					   fallback paths */
};

/* Parses argv (argv[0] is the command name) into opts; on a usage error
 * returns -1 with a one-line cause. */
int	 cli_parse_run(int argc, char **argv, struct run_options *opts,
	    char **cause);
void	 cli_free_run(struct run_options *);
/* Appends sizes; then sorts them and drops repeats. */
void	 cli_add_sizes(struct run_options *, const uint64_t *, size_t);
void	 cli_normalise_sizes(struct run_options *);

/* Parses "--device N" style integers with range checks. */
int	 cli_parse_uint(const char *text, const char *what, unsigned min,
	    unsigned max, unsigned *out, char **cause);

#endif

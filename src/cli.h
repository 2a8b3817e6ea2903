/*
 * cli.h - command-line options of `ewbench run` and `ewbench check`.
 */
#ifndef EWB_CLI_H
#define EWB_CLI_H

#include <getopt.h>

#include "ewbench.h"
#include "userkernel.h"

/* The measuring commands: one parser, one plan, one loop. */
enum command {
	CMD_RUN,	/* `ewbench run`: check, time, counters */
	CMD_CHECK,	/* `ewbench check`: correctness only */
	CMD_SWEEP,	/* `ewbench sweep`: sizes from the L2, graph launches */
	CMD_TUNE	/* `ewbench tune`: every block size, tier sizes */
};

enum cache_mode { CACHE_WARM = 1, CACHE_COLD = 2, CACHE_BOTH = 3 };
enum launch_mode { LAUNCH_STREAM = 1, LAUNCH_GRAPH = 2, LAUNCH_BOTH = 3 };

struct run_options {
	enum command	 command;
	bool		*selected;	/* one flag per ewb_variants[] row */
	uint64_t	*sizes;		/* ascending, no duplicates */
	size_t		 nsizes;
	const char	*preset;	/* NULL, "article" or "tiers" */
	unsigned	*blocks;	/* threads per block to run; none:
					   each variant's default */
	size_t		 nblocks;
	unsigned	*block_times;	/* --block x2,x4: multiples of each
					   variant's own block */
	size_t		 nblock_times;
	unsigned	 iters;		/* samples: at least */
	unsigned	 max_iters;	/* at most */
	double		 max_time_ms;	/* of sampling, once iters are in */
	double		 target_pct;	/* stop: the median's CI within it */
	unsigned	 warmup;
	enum cache_mode	 cache;
	enum launch_mode launch;
	int		 device;
	uint64_t	 seed;
	const char	*out;		/* run directory; NULL: a dated name */
	bool		 no_cupti;	/* no CUPTI at all: events time */
	bool		 no_counters;	/* no Range Profiler */
	const char	*metrics;	/* metric group or names */
	bool		 dry_run;	/* print the plan and its cost, exit */
	const char	*chip;		/* --dry-run for this GPU's facts
					   (chips.h), not the device's */
	bool		 allow_fallback; /* run a variant whose technique this
					   GPU lacks, as its fallback */
	unsigned	 density;	/* sweep: sizes per doubling (more
					   around the L2) */
	const char	*trace;		/* --trace FILE.json, or NULL */
	bool		 profile_window; /* cudaProfilerStart/Stop around
					   the measured launches */
	bool		 quiet;
	bool		 misalign;	/* operands 4 bytes past a 16-byte
					   boundary: the vector variants'
					   fallback paths */
	/* --device all or N,M,...: one child process per GPU (fleet.c). */
	bool		 device_given;
	bool		 fleet;
	bool		 device_all;
	unsigned	*devices;
	size_t		 ndevices;
	const char	**variant_lists;	/* each -v, in argv */
	size_t		 nvariant_lists;
	bool		*replaced;	/* argc flags: the argv entries of
					   --device and --out, which each
					   child of a fleet gets anew */
	bool		 bundled;	/* -o inside "-qo": not replaceable */
	/* --kernel FILE.cu[:FUNCTION] and its options; once compiled and
	 * loaded (cmd-run.c), its variant, measured after the selected
	 * built-in ones (default: those of its op and dtype). */
	struct user_spec kernel;
	const struct ewb_variant *user_variant;
};

/* Parses argv (argv[0] is the command name) into opts; on a usage error
 * returns -1 with a one-line cause. */
int	 cli_parse_run(int argc, char **argv, struct run_options *opts,
	    char **cause);
void	 cli_free_run(struct run_options *);

/* --device all | N | N,M,...: sets device, device_given, and for a list
 * fleet, device_all, devices. */
int	 cli_parse_device(struct run_options *, const char *text,
	    char **cause);
/* Marks argv[first..optind) (what getopt took for --device or --out) as
 * replaced for a fleet's children. */
void	 cli_mark_replaced(struct run_options *, int argc, char **argv,
	    int first);

/* The options' values given twice: -v, -s, --block and --kernel-flags
 * add up; any other option that takes a value is refused the second time
 * (cli_given_once).  given[] is indexed by getopt's return value. */
#define CLI_OPTION_VALUES	512
int	 cli_given_once(const struct option *longopts, const char **given,
	    int ch, const char *value, const char *why, char **cause);
/* The cause of getopt's error return ch ('?' or ':'), quoting the
 * argument that failed; before: optind before the call.  The parsers use
 * "+" ordering (no permutation), so that argument is argv[optind] while
 * getopt is part way through a bundle ("-q=1"), else argv[optind - 1].
 * after: what follows in the message. */
char	*cli_option_error(char **argv, int before, int ch, const char *after);

/* Parses "--device N" style integers with range checks. */
int	 cli_parse_uint(const char *text, const char *what, unsigned min,
	    unsigned max, unsigned *out, char **cause);
/* Parses "--target 0.5" style numbers with range checks. */
int	 cli_parse_number(const char *text, const char *what, double min,
	    double max, double *out, char **cause);

/* The timing defaults (docs/analysis.md, "How a point is timed"). */
#define CLI_MIN_SAMPLES		20u
#define CLI_MAX_SAMPLES		2000u
#define CLI_MAX_TIME_MS		10.0
#define CLI_TARGET_PCT		0.5

#endif

/*
 * settings.h - what a measuring command is asked to do: the run's
 * settings as a plain struct, filled by the command line (cmd/cli.c) or
 * a test between settings_init and settings_finish (settings.c), and
 * read by the plan, the measuring loop and the run's files.
 */
#ifndef EWB_SETTINGS_H
#define EWB_SETTINGS_H

#include "base/ewbench.h"
#include "userkernel/userkernel.h"

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
	unsigned	 residency;	/* --residency: resident blocks per
					   SM, capped (residency.c); 0: not
					   capped */
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
	bool		 energy;	/* run --energy: energy windows
					   after each point (energy.h) */
	double		 energy_window_s;
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
	/* --elementwise FILE.cu[:FUNCTION]: once compiled (setup.c), the
	 * family generated for it, measured after the user's kernel. */
	const char	*elementwise;
	const struct ewb_variant *generated;
	size_t		 ngenerated;
	/* generated[i] is run: the members -v names (settings_select_
	 * members); NULL, every member. */
	bool		*generated_selected;
};

/* The timing defaults (docs/analysis.md, "How a point is timed"). */
#define SETTINGS_MIN_SAMPLES	20u
#define SETTINGS_MAX_SAMPLES	2000u
#define SETTINGS_MAX_TIME_MS	10.0
#define SETTINGS_TARGET_PCT	0.5

/* The command's defaults into o (o->selected allocated, none selected;
 * metrics NULL and max_iters 0 stand for "not given"). */
void	 settings_init(struct run_options *o, enum command);
/* Sizes added to o's (settings_finish sorts them and drops repeats). */
void	 settings_add_sizes(struct run_options *o, const uint64_t *sizes,
	    size_t count);
/* --preset NAME: "article" adds the study's three sizes, "tiers" sizes
 * from the GPU's L2 once the plan knows it. */
int	 settings_preset(struct run_options *o, const char *name,
	    char **cause);
/* What the settings given imply: a --kernel's spec finished, the
 * variants selected (-v's lists, a --kernel's family, or every one), no
 * counters without CUPTI or under a trace, tune's blocks and tiers, the
 * default metric set and sizes, sizes ascending and each once.  -1 with
 * a cause for settings that contradict each other. */
int	 settings_finish(struct run_options *o, char **cause);
/* --elementwise with -v, once its family of n members is built: each -v
 * pattern matched against the built-in variants and the members alike
 * (a typo's suggestions from both); the built-ins it names selected, and
 * the members it names, or every member where it names none.  -1 with a
 * cause where a pattern matches neither. */
int	 settings_select_members(struct run_options *o,
	    const struct ewb_variant *members, size_t n, char **cause);
void	 settings_free(struct run_options *o);

#endif

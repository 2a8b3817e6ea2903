/*
 * cli.c - options of the measuring commands: run, check, sweep, tune.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "counters/counters.h"
#include "run/energy.h"
#include "device/placement.h"

/* The study's sizes: 1024^2, 4096^2 and 16384^2 elements. */
static const uint64_t preset_article[] = { 1ULL << 20, 1ULL << 24, 1ULL << 28 };

/* Sizes `ewbench check` uses by default: tails of every vector width, odd
 * sizes, one past 2^24. */
static const uint64_t check_sizes[] = {
	1, 3, 7, 8, 33, 1000003, 1ULL << 20, (1ULL << 24) + 5
};

enum {
	OPT_NO_CUPTI = 256,
	OPT_METRICS,
	OPT_PRESET,
	OPT_WARMUP,
	OPT_SEED,
	OPT_CACHE,
	OPT_DEVICE,
	OPT_BLOCK,
	OPT_ITERS,
	OPT_MAX_ITERS,
	OPT_NO_COUNTERS,
	OPT_MAX_TIME,
	OPT_TARGET,
	OPT_LAUNCH,
	OPT_TRACE,
	OPT_PROFILE_WINDOW,
	OPT_MISALIGN,
	OPT_DRY_RUN,
	OPT_ALLOW_FALLBACK,
	OPT_DENSITY,
	OPT_CHIP,
	OPT_KERNEL,
	OPT_OP,
	OPT_DTYPE,
	OPT_ELEMS_PER_THREAD,
	OPT_KERNEL_BLOCK,
	OPT_KERNEL_FLAGS,
	OPT_KERNEL_TIMEOUT,
	OPT_NO_GUARD,
	OPT_REFERENCE,
	OPT_ULPS,
	OPT_REL,
	OPT_ATOL,
	OPT_RTOL,
	OPT_ENERGY,
	OPT_ENERGY_WINDOW
};

static const struct option run_longopts[] = {
	{ "variant",	required_argument, NULL, 'v' },
	{ "size",	required_argument, NULL, 's' },
	{ "preset",	required_argument, NULL, OPT_PRESET },
	{ "block",	required_argument, NULL, OPT_BLOCK },
	{ "iters",	required_argument, NULL, OPT_ITERS },
	{ "max-iters",	required_argument, NULL, OPT_MAX_ITERS },
	{ "max-time",	required_argument, NULL, OPT_MAX_TIME },
	{ "target",	required_argument, NULL, OPT_TARGET },
	{ "warmup",	required_argument, NULL, OPT_WARMUP },
	{ "cache",	required_argument, NULL, OPT_CACHE },
	{ "device",	required_argument, NULL, OPT_DEVICE },
	{ "seed",	required_argument, NULL, OPT_SEED },
	{ "out",	required_argument, NULL, 'o' },
	{ "no-cupti",	no_argument,	   NULL, OPT_NO_CUPTI },
	{ "no-counters", no_argument,	   NULL, OPT_NO_COUNTERS },
	{ "metrics",	required_argument, NULL, OPT_METRICS },
	{ "quiet",	no_argument,	   NULL, 'q' },
	{ "launch",	required_argument, NULL, OPT_LAUNCH },
	{ "trace",	required_argument, NULL, OPT_TRACE },
	{ "profile-window", no_argument,   NULL, OPT_PROFILE_WINDOW },
	{ "misalign",	no_argument,	   NULL, OPT_MISALIGN },
	{ "dry-run",	no_argument,	   NULL, OPT_DRY_RUN },
	{ "allow-fallback", no_argument,   NULL, OPT_ALLOW_FALLBACK },
	{ "density",	required_argument, NULL, OPT_DENSITY },
	{ "chip",	required_argument, NULL, OPT_CHIP },
	{ "kernel",	required_argument, NULL, OPT_KERNEL },
	{ "op",		required_argument, NULL, OPT_OP },
	{ "dtype",	required_argument, NULL, OPT_DTYPE },
	{ "elems-per-thread", required_argument, NULL, OPT_ELEMS_PER_THREAD },
	{ "kernel-block", required_argument, NULL, OPT_KERNEL_BLOCK },
	{ "kernel-flags", required_argument, NULL, OPT_KERNEL_FLAGS },
	{ "kernel-timeout", required_argument, NULL, OPT_KERNEL_TIMEOUT },
	{ "no-guard",	no_argument,	   NULL, OPT_NO_GUARD },
	{ "reference",	required_argument, NULL, OPT_REFERENCE },
	{ "ulps",	required_argument, NULL, OPT_ULPS },
	{ "rel",	required_argument, NULL, OPT_REL },
	{ "atol",	required_argument, NULL, OPT_ATOL },
	{ "rtol",	required_argument, NULL, OPT_RTOL },
	{ "energy",	no_argument,	   NULL, OPT_ENERGY },
	{ "energy-window", required_argument, NULL, OPT_ENERGY_WINDOW },
	{ NULL, 0, NULL, 0 }
};


static void
cli_add_sizes(struct run_options *o, const uint64_t *sizes, size_t count)
{
	o->sizes = xrealloc(o->sizes, (o->nsizes + count) * sizeof *o->sizes);
	memcpy(o->sizes + o->nsizes, sizes, count * sizeof *sizes);
	o->nsizes += count;
}

/* Sort ascending and drop repeats: a point is measured once per run. */
static void
cli_normalise_sizes(struct run_options *o)
{
	sizes_sort_unique(o->sizes, &o->nsizes);
}

/* One block size into the --block list, once. */
static void
add_block(struct run_options *o, unsigned block)
{
	size_t	k;

	for (k = 0; k < o->nblocks && o->blocks[k] != block; k++)
		;
	if (k < o->nblocks)
		return;		/* listed already */
	o->blocks = xrealloc(o->blocks, (o->nblocks + 1) * sizeof *o->blocks);
	o->blocks[o->nblocks++] = block;
}

/* One multiple of each variant's own block into the --block list, once. */
static void
add_block_times(struct run_options *o, unsigned times)
{
	size_t	k;

	for (k = 0; k < o->nblock_times && o->block_times[k] != times; k++)
		;
	if (k < o->nblock_times)
		return;
	o->block_times = xrealloc(o->block_times, (o->nblock_times + 1) *
	    sizeof *o->block_times);
	o->block_times[o->nblock_times++] = times;
}

/* --block 256 or --block 32,64,128: each from 1 to 1024, or "own" (kept
 * as 0), each variant's published shape, or "xK" (K from 2 to 32), K
 * times it; given twice, the lists add up. */
static int
parse_blocks(struct run_options *o, const char *text, char **cause)
{
	char		*copy = xstrdup(text), *word, *next;
	unsigned	*block;
	size_t		 count;

	for (word = copy; word != NULL; word = next) {
		if ((next = strchr(word, ',')) != NULL)
			*next++ = '\0';
		if (*word == '\0') {
			*cause = xasprintf("--block: empty item in '%s'",
			    shown(text, SHOWN_MOST));
			free(copy);
			return -1;
		}
		if (strcmp(word, "own") == 0) {
			add_block(o, 0);
			continue;
		}
		if (word[0] == 'x' && word[1] != '\0') {
			if (uint_list_parse(word + 1, "--block's xK", 2, 32,
			    &block, &count, cause) != 0) {
				free(copy);
				return -1;
			}
			add_block_times(o, block[0]);
			free(block);
			continue;
		}
		/* One word, one number: the list parser checks its range. */
		if (uint_list_parse(word, "--block", 1, EWB_MAX_BLOCK, &block,
		    &count,
		    cause) != 0) {
			free(copy);
			return -1;
		}
		add_block(o, block[0]);
		free(block);
	}
	free(copy);
	return 0;
}

/* The options of a --kernel (userkernel.h); 1 when ch is none of them. */
static int
parse_kernel_option(struct run_options *o, int ch, const char *arg,
    char **cause)
{
	struct user_spec	*k = &o->kernel;

	switch (ch) {
	case OPT_KERNEL:
		return user_spec_kernel(k, arg, cause);
	case OPT_OP:
		return user_spec_op(k, arg, cause);
	case OPT_DTYPE:
		return user_spec_dtype(k, arg, cause);
	case OPT_ELEMS_PER_THREAD:
		return cli_parse_uint(arg, "--elems-per-thread", 1, 1024,
		    &k->per_thread, cause);
	case OPT_KERNEL_BLOCK:
		return cli_parse_uint(arg, "--kernel-block", 1, EWB_MAX_BLOCK,
		    &k->block, cause);
	case OPT_KERNEL_FLAGS:
		user_spec_flags(k, arg);
		return 0;
	case OPT_KERNEL_TIMEOUT:
		return cli_parse_uint(arg, "--kernel-timeout", 1, 86400,
		    &k->timeout_s, cause);
	case OPT_NO_GUARD:
		k->no_guard = true;
		return 0;
	case OPT_REFERENCE:
		return user_spec_reference(k, arg, cause);
	case OPT_ULPS:
		return user_spec_ulps(k, arg, cause);
	case OPT_REL:
		return user_spec_rel(k, arg, cause);
	case OPT_ATOL:
		return user_spec_atol(k, arg, cause);
	case OPT_RTOL:
		return user_spec_rtol(k, arg, cause);
	}
	return 1;
}

/* -v LIST, given once or more: the lists add up (default: every
 * variant). */
static int
select_variants(struct run_options *o, char **cause)
{
	bool	*one;
	size_t	 i, k;

	if (o->nvariant_lists == 0) {
		if (variants_select("*", o->selected, cause) != 0)
			return -1;
		/* check, by default, checks every variant: the experiments'
		 * probes too, which the other commands run only by name. */
		for (i = 0; o->command == CMD_CHECK &&
		    i < ewb_variant_count; i++)
			o->selected[i] = true;
		return 0;
	}
	one = xcalloc(ewb_variant_count, sizeof *one);
	for (k = 0; k < o->nvariant_lists; k++) {
		if (variants_select(o->variant_lists[k], one, cause) != 0) {
			free(one);
			return -1;
		}
		for (i = 0; i < ewb_variant_count; i++)
			o->selected[i] = o->selected[i] || one[i];
	}
	free(one);
	return 0;
}

/* With --kernel and no -v: the built-in variants of the kernel's op and
 * dtype, to measure it beside; for a user's op (--reference), those that
 * move as many bytes per element (a 3-input bf16 op, 8: relu and abs
 * f32), the DRAM-bound kernels it compares with. */
static void
select_family(struct run_options *o)
{
	const struct user_spec	*k = &o->kernel;
	unsigned		 inputs = user_spec_inputs(k);
	unsigned		 bytes = ((inputs == 0 ? 1 : inputs) + 1) *
				     ewb_dtype_size(k->dtype);
	size_t			 i;

	for (i = 0; i < ewb_variant_count; i++)
		o->selected[i] = k->op == EWB_OP_CUSTOM ?
		    ewb_variants[i].read_bytes + ewb_variants[i].write_bytes ==
		    bytes : ewb_variants[i].op == k->op &&
		    ewb_variants[i].dtype == k->dtype;
}

/* --energy: run's, and beside what it needs (energy.h). */
static int
check_energy(const struct run_options *o, const char *command,
    bool window_given, char **cause)
{
	if (window_given && !o->energy) {
		*cause = xstrdup("--energy-window is the length of --energy's "
		    "windows: it needs --energy");
		return -1;
	}
	if (!o->energy)
		return 0;
	if (o->command != CMD_RUN) {
		*cause = xasprintf("--energy is run's (ewbench run --energy "
		    "...), not %s's", command);
		return -1;
	}
	if (o->trace != NULL) {
		*cause = xstrdup("--energy with --trace: the trace would hold "
		    "every launch of the energy windows (millions); trace "
		    "another run");
		return -1;
	}
	return 0;
}

int
cli_parse_run(int argc, char **argv, struct run_options *o, char **cause)
{
	const char	*given[CLI_OPTION_VALUES] = { NULL };
	uint64_t	*parsed;
	size_t		 count;
	char		*end;
	char		*after;
	int		 ch, first;
	bool		 metrics_given = false, max_iters_given = false;
	bool		 window_given = false;
	int		 rc;

	memset(o, 0, sizeof *o);
	o->iters = CLI_MIN_SAMPLES;
	o->max_iters = CLI_MAX_SAMPLES;
	o->max_time_ms = CLI_MAX_TIME_MS;
	o->target_pct = CLI_TARGET_PCT;
	o->warmup = 10;
	if (strcmp(argv[0], "check") == 0)
		o->command = CMD_CHECK;
	else if (strcmp(argv[0], "sweep") == 0)
		o->command = CMD_SWEEP;
	else if (strcmp(argv[0], "tune") == 0)
		o->command = CMD_TUNE;
	else
		o->command = CMD_RUN;
	/* A sweep shows the kernel, not the launch path, in both cache states. */
	o->cache = o->command == CMD_SWEEP ? CACHE_BOTH : CACHE_WARM;
	o->launch = o->command == CMD_SWEEP ? LAUNCH_GRAPH : LAUNCH_STREAM;
	o->seed = 1;
	o->density = 3;
	o->metrics = "default";
	o->energy_window_s = ENERGY_WINDOW_S;
	o->selected = xcalloc(ewb_variant_count, sizeof *o->selected);

	optind = 1;
	opterr = 0;
	for (first = optind; (ch = getopt_long(argc, argv, "+:v:s:o:q",
	    run_longopts, NULL)) != -1; first = optind) {
		if (ch != 'v' && ch != 's' && ch != OPT_BLOCK &&
		    ch != OPT_KERNEL_FLAGS && cli_given_once(run_longopts,
		    given, ch, optarg, ch == OPT_KERNEL ? "one kernel of "
		    "yours per run" : ch == OPT_REFERENCE ? "one reference "
		    "kernel per run" : ch == OPT_DEVICE ? "give one list, "
		    "e.g. --device 0,2" : ch == OPT_METRICS ? "give one set, "
		    "metric names comma separated" : ch == OPT_PRESET ?
		    "choose one" : NULL, cause) != 0)
			return -1;
		switch (ch) {
		case 'v':
			o->variant_lists = xrealloc(o->variant_lists,
			    (o->nvariant_lists + 1) *
			    sizeof *o->variant_lists);
			o->variant_lists[o->nvariant_lists++] = optarg;
			break;
		case 's':
			if (sizes_parse(optarg, &parsed, &count, cause) != 0)
				return -1;
			cli_add_sizes(o, parsed, count);
			free(parsed);
			break;
		case OPT_PRESET:
			if (strcmp(optarg, "article") == 0) {
				o->preset = "article";
				cli_add_sizes(o, preset_article, 3);
			} else if (strcmp(optarg, "tiers") == 0)
				o->preset = "tiers";	/* sized from the L2 */
			else {
				*cause = xasprintf("--preset: unknown preset "
				    "'%s' (known: article, tiers)",
				    shown(optarg, SHOWN_MOST));
				return -1;
			}
			break;
		case OPT_BLOCK:
			if (parse_blocks(o, optarg, cause) != 0)
				return -1;
			break;
		case OPT_ITERS:
			if (cli_parse_uint(optarg, "--iters", 1, 1000000,
			    &o->iters, cause) != 0)
				return -1;
			break;
		case OPT_MAX_ITERS:
			if (cli_parse_uint(optarg, "--max-iters", 1, 1000000,
			    &o->max_iters, cause) != 0)
				return -1;
			max_iters_given = true;
			break;
		case OPT_MAX_TIME:
			if (cli_parse_number(optarg, "--max-time", 0.01, 1e6,
			    &o->max_time_ms, cause) != 0)
				return -1;
			break;
		case OPT_TARGET:
			if (cli_parse_number(optarg, "--target", 0.01, 100,
			    &o->target_pct, cause) != 0)
				return -1;
			break;
		case OPT_WARMUP:
			if (cli_parse_uint(optarg, "--warmup", 0, 1000000,
			    &o->warmup, cause) != 0)
				return -1;
			break;
		case OPT_CACHE:
			if (strcmp(optarg, "warm") == 0)
				o->cache = CACHE_WARM;
			else if (strcmp(optarg, "cold") == 0)
				o->cache = CACHE_COLD;
			else if (strcmp(optarg, "both") == 0)
				o->cache = CACHE_BOTH;
			else {
				*cause = xasprintf("--cache: '%s' is not warm, "
				    "cold or both", shown(optarg, SHOWN_MOST));
				return -1;
			}
			break;
		case OPT_LAUNCH:
			if (strcmp(optarg, "stream") == 0)
				o->launch = LAUNCH_STREAM;
			else if (strcmp(optarg, "graph") == 0)
				o->launch = LAUNCH_GRAPH;
			else if (strcmp(optarg, "both") == 0)
				o->launch = LAUNCH_BOTH;
			else {
				*cause = xasprintf("--launch: '%s' is not "
				    "stream, graph or both",
				    shown(optarg, SHOWN_MOST));
				return -1;
			}
			break;
		case OPT_TRACE:
			o->trace = optarg;
			break;
		case OPT_PROFILE_WINDOW:
			o->profile_window = true;
			break;
		case OPT_MISALIGN:
			o->misalign = true;
			break;
		case OPT_DRY_RUN:
			o->dry_run = true;
			break;
		case OPT_CHIP:
			o->chip = optarg;
			break;
		case OPT_ALLOW_FALLBACK:
			o->allow_fallback = true;
			break;
		case OPT_ENERGY:
			o->energy = true;
			break;
		case OPT_ENERGY_WINDOW:
			if (cli_parse_number(optarg, "--energy-window",
			    ENERGY_WINDOW_MIN_S, ENERGY_WINDOW_MAX_S,
			    &o->energy_window_s, cause) != 0)
				return -1;
			window_given = true;
			break;
		case OPT_DENSITY:
			if (cli_parse_uint(optarg, "--density", 1, 12,
			    &o->density, cause) != 0)
				return -1;
			break;
		case OPT_DEVICE:
			if (cli_parse_device(o, optarg, cause) != 0)
				return -1;
			cli_mark_replaced(o, argc, argv, first);
			break;
		case OPT_SEED:
			/* strtoull takes " -1" as 2^64 - 1: digits only. */
			errno = 0;
			o->seed = strtoull(optarg, &end, 0);
			if (errno != 0 || *end != '\0' ||
			    !isdigit((unsigned char)*optarg)) {
				*cause = xasprintf("--seed: '%s' is not an "
				    "unsigned 64-bit number",
				    shown(optarg, SHOWN_MOST));
				return -1;
			}
			break;
		case 'o':
			o->out = optarg;
			cli_mark_replaced(o, argc, argv, first);
			break;
		case OPT_NO_CUPTI:
			o->no_cupti = true;
			break;
		case OPT_NO_COUNTERS:
			o->no_counters = true;
			break;
		case OPT_METRICS:
			o->metrics = optarg;
			metrics_given = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case ':':
			*cause = cli_option_error(argv, first, ch, "");
			return -1;
		default:
			if ((rc = parse_kernel_option(o, ch, optarg,
			    cause)) <= 0) {
				if (rc < 0)
					return -1;
				break;
			}
			after = xasprintf(" for '%s' (see ewbench %s --help)",
			    argv[0], argv[0]);
			*cause = cli_option_error(argv, first, ch, after);
			free(after);
			return -1;
		}
	}
	if (optind < argc) {
		*cause = xasprintf("unexpected argument '%s'",
		    shown(argv[optind], SHOWN_MOST));
		return -1;
	}
	if (user_spec_finish(&o->kernel, cause) != 0)
		return -1;
	if (o->kernel.path != NULL && o->nvariant_lists == 0)
		select_family(o);
	else if (select_variants(o, cause) != 0)
		return -1;
	if (o->chip != NULL && !o->dry_run) {
		*cause = xstrdup("--chip plans for a GPU by name: it needs "
		    "--dry-run");
		return -1;
	}
	if (check_energy(o, argv[0], window_given, cause) != 0)
		return -1;
	if (o->out != NULL && *o->out == '\0') {
		*cause = xstrdup("--out: an empty directory name");
		return -1;
	}
	/* One CUPTI client per process: a profiler window is for nsys or
	 * ncu, which leave ewbench none; a trace's collector times the
	 * kernels itself, but leaves no room for the counters. */
	if (o->profile_window)
		o->no_cupti = true;
	if (o->no_cupti || o->trace != NULL)
		o->no_counters = true;
	if (!max_iters_given && o->max_iters < o->iters)
		o->max_iters = o->iters;
	if (o->max_iters < o->iters) {
		*cause = xasprintf("--max-iters %u is below --iters %u",
		    o->max_iters, o->iters);
		return -1;
	}
	/* tune times shapes: every block size from one warp to the limit,
	 * at the tier sizes, without counters unless --metrics is given. */
	if (o->command == CMD_TUNE) {
		static const unsigned tune_blocks[] = {
			32, 64, 96, 128, 192, 256, 384, 512, 768, 1024
		};

		if (o->nblocks == 0 && o->nblock_times == 0) {
			o->nblocks = sizeof tune_blocks / sizeof tune_blocks[0];
			o->blocks = xmalloc(sizeof tune_blocks);
			memcpy(o->blocks, tune_blocks, sizeof tune_blocks);
		}
		if (!metrics_given)
			o->no_counters = true;
		if (o->nsizes == 0 && o->preset == NULL)
			o->preset = "tiers";
	}
	/* A metric set that cannot be read is a usage error, found before
	 * any GPU work. */
	if (!o->no_counters && o->command != CMD_CHECK) {
		struct metric_set	set;

		if (metric_set_load(o->metrics, &set, cause) != 0)
			return -1;
		metric_set_free(&set);
	}
	if (o->command == CMD_SWEEP && (o->nsizes > 0 || o->preset != NULL)) {
		*cause = xasprintf("sweep chooses its sizes from the L2 size; "
		    "use run for --size or --preset");
		return -1;
	}
	/* Tier sizes come once the device is known (plan.c); --size adds to
	 * them. */
	if (o->command == CMD_SWEEP ||
	    (o->preset != NULL && strcmp(o->preset, "tiers") == 0)) {
		cli_normalise_sizes(o);
		return 0;
	}
	if (o->nsizes == 0) {
		if (o->command == CMD_CHECK)
			cli_add_sizes(o, check_sizes,
			    sizeof check_sizes / sizeof check_sizes[0]);
		else {
			o->preset = "article";
			cli_add_sizes(o, preset_article, 3);
		}
	}
	cli_normalise_sizes(o);
	return 0;
}

void
cli_free_run(struct run_options *o)
{
	free(o->selected);
	free(o->variant_lists);
	free(o->sizes);
	free(o->blocks);
	free(o->block_times);
	free(o->devices);
	free(o->replaced);
	user_spec_free(&o->kernel);
}


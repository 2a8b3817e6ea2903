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

/* The table: its VALUE column as getopt's has_arg, its REPEAT column as
 * two fields. */
#define FLAG(field)		no_argument
#define TEXT(field)		required_argument
#define COUNT(field, min, max)	required_argument
#define NUMBER(field, min, max)	required_argument
#define CHOICE(field, choices)	required_argument
#define SPEC(parser)		required_argument
#define OWN			required_argument
#define ADDS			true, NULL
#define ONCE(why)		false, why
#define RUN_OPTION(id, name, letter, value, repeat, commands, help) \
	{ name, letter, value, OPT_##id, repeat, commands, help },
const struct run_option run_options[RUN_OPTIONS] = {
#include "cmd/run-options.def"
};

/* getopt's table of long options, from the same rows. */
static const struct option *
run_longopts(void)
{
	static struct option	table[RUN_OPTIONS + 1];
	size_t			i;

	if (table[0].name != NULL)
		return table;
	for (i = 0; i < RUN_OPTIONS; i++) {
		table[i].name = run_options[i].name;
		table[i].has_arg = run_options[i].has_arg;
		table[i].val = run_options[i].value;
	}
	return table;
}

/* "+:v:s:o:q": the letters, ':' after those that take a value; "+" stops
 * at the first argument that is not an option, ':' reports a missing
 * value as ':'. */
static const char *
run_shortopts(void)
{
	static char	text[2 + 2 * RUN_OPTIONS + 1];
	size_t		i, n = 0;

	if (text[0] != '\0')
		return text;
	text[n++] = '+';
	text[n++] = ':';
	for (i = 0; i < RUN_OPTIONS; i++) {
		if (run_options[i].letter == 0)
			continue;
		text[n++] = (char)run_options[i].letter;
		if (run_options[i].has_arg == required_argument)
			text[n++] = ':';
	}
	text[n] = '\0';
	return text;
}

/* The row getopt's ch is, or NULL (an error return). */
static const struct run_option *
run_option_of(int ch)
{
	size_t	i;

	for (i = 0; i < RUN_OPTIONS; i++) {
		if (run_options[i].value == ch)
			return &run_options[i];
	}
	return NULL;
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

static const struct choice cache_choices[] = {
	{ "warm", CACHE_WARM }, { "cold", CACHE_COLD }, { "both", CACHE_BOTH },
	{ NULL, 0 }
};
static const struct choice launch_choices[] = {
	{ "stream", LAUNCH_STREAM }, { "graph", LAUNCH_GRAPH },
	{ "both", LAUNCH_BOTH }, { NULL, 0 }
};

/* The value of an option whose row says how to parse it (VALUE other
 * than OWN): 0, or -1 with *cause; 1 when ch is none of them. */
static int
parse_value(struct run_options *o, int ch, const char *arg, char **cause)
{
	switch (ch) {
#define FLAG(field)		o->field = true; return 0;
#define TEXT(field)		o->field = arg; return 0;
#define COUNT(field, min, max)	\
	return cli_parse_uint(arg, option, min, max, &o->field, cause);
#define NUMBER(field, min, max)	\
	return cli_parse_number(arg, option, min, max, &o->field, cause);
#define CHOICE(field, choices)	{					\
		int	chosen;						\
									\
		if (choice_parse(arg, option, choices, &chosen,		\
		    cause) != 0)					\
			return -1;					\
		o->field = chosen;					\
		return 0;						\
	}
#define SPEC(parser)		\
	return user_spec_##parser(&o->kernel, arg, cause);
#define OWN			break;
#define RUN_OPTION(id, name, letter, value, ...)			\
	case OPT_##id: {						\
		const char *option = "--" name;				\
									\
		(void)option;						\
		value							\
	}
#include "cmd/run-options.def"
	}
	return 1;
}

/* The bit of run-options.def's COMMANDS column for a command. */
static unsigned
command_bit(enum command command)
{
	switch (command) {
	case CMD_CHECK:	return OPTS_CHECK;
	case CMD_SWEEP:	return OPTS_SWEEP;
	case CMD_TUNE:	return OPTS_TUNE;
	default:	return OPTS_RUN;
	}
}

/* An option of another command ("--density" given to run): refused,
 * naming the commands that take it, since ignoring it would run
 * something else than was asked for. */
static char *
not_this_command(const struct run_option *row, const char *command)
{
	static const struct {
		unsigned	 bit;
		const char	*name;
	} names[] = {
		{ OPTS_RUN, "run" }, { OPTS_CHECK, "check" },
		{ OPTS_SWEEP, "sweep" }, { OPTS_TUNE, "tune" }
	};
	char	*list = xstrdup(""), *more;
	size_t	 i, n = 0, count = 0;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		count += (row->commands & names[i].bit) != 0;
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		if ((row->commands & names[i].bit) == 0)
			continue;
		n++;
		more = xasprintf("%s%s%s's", list, n == 1 ? "" : n == count ?
		    " and " : ", ", names[i].name);
		free(list);
		list = more;
	}
	more = xasprintf("--%s is %s, not %s's (see ewbench %s --help)",
	    row->name, list, command, command);
	free(list);
	return more;
}

/* --energy beside what it needs (energy.h); only run takes it. */
static int
check_energy(const struct run_options *o, bool window_given, char **cause)
{
	if (window_given && !o->energy) {
		*cause = xstrdup("--energy-window is the length of --energy's "
		    "windows: it needs --energy");
		return -1;
	}
	if (!o->energy)
		return 0;
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
	const struct run_option *row;
	int		 ch, first;
	int		 rc;

	settings_init(o, strcmp(argv[0], "check") == 0 ? CMD_CHECK :
	    strcmp(argv[0], "sweep") == 0 ? CMD_SWEEP :
	    strcmp(argv[0], "tune") == 0 ? CMD_TUNE : CMD_RUN);

	optind = 1;
	opterr = 0;
	for (first = optind; (ch = getopt_long(argc, argv, run_shortopts(),
	    run_longopts(), NULL)) != -1; first = optind) {
		row = run_option_of(ch);
		if (row != NULL && (row->commands & command_bit(o->command)) ==
		    0) {
			*cause = not_this_command(row, argv[0]);
			return -1;
		}
		if (row != NULL && !row->adds && cli_given_once(run_longopts(),
		    given, ch, optarg, row->once_why, cause) != 0)
			return -1;
		if ((rc = parse_value(o, ch, optarg, cause)) <= 0) {
			if (rc < 0)
				return -1;
			continue;
		}
		switch (ch) {
		case OPT_VARIANT:
			o->variant_lists = xrealloc(o->variant_lists,
			    (o->nvariant_lists + 1) *
			    sizeof *o->variant_lists);
			o->variant_lists[o->nvariant_lists++] = optarg;
			break;
		case OPT_SIZE:
			if (sizes_parse(optarg, &parsed, &count, cause) != 0)
				return -1;
			settings_add_sizes(o, parsed, count);
			free(parsed);
			break;
		case OPT_PRESET:
			if (settings_preset(o, optarg, cause) != 0)
				return -1;
			break;
		case OPT_BLOCK:
			if (parse_blocks(o, optarg, cause) != 0)
				return -1;
			break;
		case OPT_DEVICE:
			if (cli_parse_device(o, optarg, cause) != 0)
				return -1;
			cli_mark_replaced(o, argc, argv, first);
			break;
		case OPT_SEED:
			/* strtoull takes " -1" as 2^64 - 1: digits only,
			 * read in base 10 as every number is ("010" is
			 * ten). */
			errno = 0;
			o->seed = strtoull(optarg, &end, 10);
			if (errno != 0 || *end != '\0' ||
			    !isdigit((unsigned char)*optarg)) {
				*cause = xasprintf("--seed: '%s' is not an "
				    "unsigned 64-bit number",
				    shown(optarg, SHOWN_MOST));
				return -1;
			}
			break;
		case OPT_OUT:
			o->out = optarg;
			cli_mark_replaced(o, argc, argv, first);
			break;
		case ':':
			*cause = cli_option_error(run_longopts(), argv, first,
			    ch, "");
			return -1;
		case OPT_KERNEL_FLAGS:
			user_spec_flags(&o->kernel, optarg);
			break;
		default:
			after = xasprintf(" for '%s' (see ewbench %s --help)",
			    argv[0], argv[0]);
			*cause = cli_option_error(run_longopts(), argv, first,
			    ch, after);
			free(after);
			return -1;
		}
	}
	if (optind < argc) {
		*cause = xasprintf("unexpected argument '%s'",
		    shown(argv[optind], SHOWN_MOST));
		return -1;
	}
	if (settings_finish(o, cause) != 0)
		return -1;
	if (o->chip != NULL && !o->dry_run) {
		*cause = xstrdup("--chip plans for a GPU by name: it needs "
		    "--dry-run");
		return -1;
	}
	/* given[] holds the value of each option given ONCE, as
	 * --energy-window is. */
	if (check_energy(o, given[OPT_ENERGY_WINDOW] != NULL, cause) != 0)
		return -1;
	if (o->out != NULL && *o->out == '\0') {
		*cause = xstrdup("--out: an empty directory name");
		return -1;
	}
	/* A metric set that cannot be read is a usage error, found before
	 * any GPU work. */
	if (!o->no_counters && o->command != CMD_CHECK) {
		struct metric_set	set;

		if (metric_set_load(o->metrics, &set, cause) != 0)
			return -1;
		metric_set_free(&set);
	}
	return 0;
}

/*
 * cli.h - command-line options of the measuring commands (run, check,
 * sweep, tune): their table (run-options.def) and its parser, and what
 * every command's parser shares (cli-values.c).
 */
#ifndef EWB_CLI_H
#define EWB_CLI_H

#include <getopt.h>

#include "base/ewbench.h"
#include "run/settings.h"

/* The commands that take an option, whose help page lists it
 * (run-options.def). */
enum {
	OPTS_RUN = 1 << 0, OPTS_CHECK = 1 << 1, OPTS_SWEEP = 1 << 2,
	OPTS_TUNE = 1 << 3,
	OPTS_MEASURE = OPTS_RUN | OPTS_CHECK | OPTS_SWEEP | OPTS_TUNE,
	OPTS_TIMED = OPTS_RUN | OPTS_SWEEP | OPTS_TUNE	/* those that time */
};

/* Each row's index in run_options[], and what getopt returns for it:
 * OPT_ID, its letter if it has one, else 256 and up. */
enum run_option_index {
#define RUN_OPTION(id, ...)	RUN_OPTION_##id,
#include "cmd/run-options.def"
#undef RUN_OPTION
	RUN_OPTIONS
};
enum run_option_value {
#define RUN_OPTION(id, name, letter, ...) \
	OPT_##id = (letter) != 0 ? (letter) : 256 + RUN_OPTION_##id,
#include "cmd/run-options.def"
#undef RUN_OPTION
};

/* A row of run-options.def. */
struct run_option {
	const char	*name;		/* --name */
	int		 letter;	/* -letter, or 0 */
	int		 has_arg;	/* getopt's no_argument, ... */
	int		 value;		/* OPT_ID */
	bool		 adds;		/* given twice, the values add up */
	const char	*once_why;	/* else why a second is refused */
	unsigned	 commands;	/* OPTS_RUN | ...: those taking it */
	const char	*help;		/* its lines there */
};
extern const struct run_option run_options[RUN_OPTIONS];

/* Parses argv (argv[0] is the command name) into opts (settings.h: free
 * them with settings_free); on a usage error returns -1 with a one-line
 * cause. */
int	 cli_parse_run(int argc, char **argv, struct run_options *opts,
	    char **cause);

/* --device all | N | N,M,...: sets device, device_given, and for a list
 * fleet, device_all, devices. */
int	 cli_parse_device(struct run_options *, const char *text,
	    char **cause);
/* Marks argv[first..optind) (what getopt took for --device or --out) as
 * replaced for a fleet's children. */
void	 cli_mark_replaced(struct run_options *, int argc, char **argv,
	    int first);

/* The options given twice: -v, -s, --block and --kernel-flags add up;
 * any other option, with a value or without, is refused the second time
 * (cli_given_once).  given[] is indexed by getopt's return value: the
 * value of an option with one, a mark for one without. */
#define CLI_OPTION_VALUES	512
int	 cli_given_once(const struct option *longopts, const char **given,
	    int ch, const char *value, const char *why, char **cause);
/* The cause of getopt's error return ch ('?' or ':'), quoting the
 * argument that failed; before: optind before the call.  The parsers use
 * "+" ordering (no permutation), so that argument is argv[optind] while
 * getopt is part way through a bundle ("-q=1"), else argv[optind - 1].
 * A long option of longopts given a value it does not take
 * ("--dry-run=1"), or abbreviated to a prefix of several ("--max"), is
 * said as such, not as unknown.  after: what follows the message of a
 * missing value or an unknown option. */
char	*cli_option_error(const struct option *longopts, char **argv,
	    int before, int ch, const char *after);

/* Parses "--device N" style integers with range checks. */
int	 cli_parse_uint(const char *text, const char *what, unsigned min,
	    unsigned max, unsigned *out, char **cause);
/* Parses "--target 0.5" style numbers with range checks. */
int	 cli_parse_number(const char *text, const char *what, double min,
	    double max, double *out, char **cause);

#endif

/*
 * cmd-metrics.c - `ewbench metrics`: list the metric sets and check them
 * against a chip with the CUPTI host API (no GPU needed for that).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/commands.h"
#include "base/ewbench.h"
#include "cmd/cli.h"
#include "device/chips.h"
#include "counters/counters.h"
#include "device/device.h"

/* Chip used by --check when there is neither --chip nor a GPU: the one a
 * plan without a GPU uses. */
#define DEFAULT_CHIP	CHIPS_DEFAULT

static const char usage_text[] =
"usage: ewbench metrics --list [--chip NAME] [--metrics SPEC]\n"
"       ewbench metrics --check [--chip NAME] [--metrics SPEC]\n"
"\n"
"Metric sets are files metrics/<group>.txt (docs/metrics.md), searched in\n"
"$EWBENCH_METRICS_DIR, then the source tree's metrics/ (for the build\n"
"tree's ewbench) or the installed one, found from the binary.\n"
"\n"
"  --list          the sets, their one-line description and metrics; with a\n"
"                  chip (--chip, or the GPU's), also each metric's unit and\n"
"                  description and the set's pass count (the default)\n"
"  --check         resolve the sets for the chip with the CUPTI host API\n"
"                  (each entry collected under the first of its names the\n"
"                  chip knows) and print pass counts, then a line that\n"
"                  sums them up; exit 2 naming an entry the chip has no\n"
"                  name for, unless the entry ends with '| -' (then it is\n"
"                  left out, and said).  Without --chip and without a GPU\n"
"                  the chip is " DEFAULT_CHIP ".\n"
"  --chip NAME     a GPU by board or chip name, as `run --dry-run --chip`\n"
"                  takes it (RTX 5090, T4, A100, H200, ...), or any chip\n"
"                  CUPTI knows (GB202, GA107, ...); case, blanks and '-'\n"
"                  do not matter.  `all`: every chip CUPTI knows, with\n"
"                  --check (what CI runs)\n"
"  --metrics SPEC  one set: a group name, a file path, or a comma-separated\n"
"                  list of metric names (default: every group)\n"
"  -h, --help      this page\n"
"\n"
"Exit status:\n"
"  0    success\n"
"  1    CUPTI failed, or a group file cannot be read or parsed\n"
"  2    bad command line; with --check, an entry a chip has no name for\n"
"       (unless it ends with '| -'), or a name no chip knows\n"
"\n"
"Examples:\n"
"  ewbench metrics --list --metrics stalls --chip rtx-5090\n"
"  ewbench metrics --check --chip all\n";

enum {
	METRICS_OPT_LIST = 256, METRICS_OPT_CHECK, METRICS_OPT_CHIP,
	METRICS_OPT_METRICS
};

static const struct option metrics_longopts[] = {
	{ "list",	no_argument,		NULL, METRICS_OPT_LIST },
	{ "check",	no_argument,		NULL, METRICS_OPT_CHECK },
	{ "chip",	required_argument,	NULL, METRICS_OPT_CHIP },
	{ "metrics",	required_argument,	NULL, METRICS_OPT_METRICS },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 }
};

struct metrics_options {
	bool		 list;
	bool		 check;
	const char	*chip;		/* --chip as given, or NULL */
	const char	*spec;		/* NULL: every group */
};

static int
usage_error(char *cause)
{
	fprintf(stderr, "ewbench metrics: %s\n(see ewbench metrics --help)\n",
	    cause);
	free(cause);
	return EWB_EXIT_USAGE;
}

/* Returns -1 when done (help printed or a usage error: *code says). */
static int
parse_options(int argc, char **argv, struct metrics_options *o, int *code)
{
	const char	*given[CLI_OPTION_VALUES] = { NULL };
	char		*cause;
	int		 ch, first;

	memset(o, 0, sizeof *o);
	optind = 1;
	opterr = 0;
	for (first = optind; (ch = getopt_long(argc, argv, "+:h",
	    metrics_longopts, NULL)) != -1; first = optind) {
		if (cli_given_once(metrics_longopts, given, ch, optarg,
		    ch == METRICS_OPT_METRICS ? "give one set, metric names comma "
		    "separated" : NULL, &cause) != 0) {
			*code = usage_error(cause);
			return -1;
		}
		switch (ch) {
		case METRICS_OPT_LIST:
			o->list = true;
			break;
		case METRICS_OPT_CHECK:
			o->check = true;
			break;
		case METRICS_OPT_CHIP:
			o->chip = optarg;
			break;
		case METRICS_OPT_METRICS:
			o->spec = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			*code = EWB_EXIT_OK;
			return -1;
		case ':':
		default:
			*code = usage_error(cli_option_error(metrics_longopts,
			    argv, first, ch, ""));
			return -1;
		}
	}
	if (optind < argc) {
		*code = usage_error(xasprintf("unexpected argument '%s'",
		    argv[optind]));
		return -1;
	}
	if (o->list && o->check) {
		*code = usage_error(xstrdup("--list and --check exclude each "
		    "other"));
		return -1;
	}
	if (!o->check)
		o->list = true;
	return 0;
}

/*
 * The CUPTI chip of --chip: a board or chip name of chips.h, else a chip
 * CUPTI knows (any case).  -1 with a cause naming both lists.
 */
static int
chip_of_option(const char *name, char **chip, char **cause)
{
	const char	*cupti;
	char		*upper, *p, *known, *error = NULL;

	if (chips_cupti(name, &cupti) == 0) {
		*chip = xstrdup(cupti);
		return 0;
	}
	upper = xstrdup(name);
	for (p = upper; *p != '\0'; p++)
		*p = (char)toupper((unsigned char)*p);
	if (counters_chip_check(upper, &error) == 0) {
		*chip = upper;
		return 0;
	}
	known = chips_names();
	*cause = xasprintf("%s; or a GPU by name: %s", error, known);
	free(known);
	free(error);
	free(upper);
	return -1;
}

/*
 * The chips to describe or check against: --chip (every chip CUPTI knows
 * for `all`), else the GPU's, else (for --check only) DEFAULT_CHIP, said
 * on stderr.  None for a --list without either.
 */
static int
resolve_chips(const struct metrics_options *o, char ***chips, size_t *count,
    char **cause)
{
	char	*chip = NULL, *error = NULL;
	int	 devices = 0;

	*chips = NULL;
	*count = 0;
	if (o->chip != NULL && strcasecmp(o->chip, "all") == 0) {
		if (!o->check) {
			*cause = xstrdup("--chip all goes with --check");
			return -1;
		}
		counters_chips(chips, count);
		if (*count == 0) {
			*cause = xstrdup("CUPTI's host API lists no chips");
			return -1;
		}
		return 0;
	}
	if (o->chip != NULL) {
		if (chip_of_option(o->chip, &chip, cause) != 0)
			return -1;
	} else if (device_count(&devices, &error) != EWB_EXIT_OK) {
		/* No GPU, said as every command says it (device.c). */
		if (o->check) {
			fprintf(stderr, "ewbench metrics: %s; checking against "
			    "chip %s (choose with --chip)\n", error,
			    DEFAULT_CHIP);
			chip = xstrdup(DEFAULT_CHIP);
		}
	} else if (counters_device_chip(0, &chip, &error) == 0)
		fprintf(stderr, "ewbench metrics: chip %s (CUDA device 0)\n",
		    chip);
	else if (o->check) {
		fprintf(stderr, "ewbench metrics: no GPU to ask (%s); checking "
		    "against chip %s (choose with --chip)\n", error,
		    DEFAULT_CHIP);
		chip = xstrdup(DEFAULT_CHIP);
	}
	free(error);
	if (chip != NULL) {
		*chips = xcalloc(1, sizeof **chips);
		(*chips)[0] = chip;
		*count = 1;
	}
	return 0;
}

static size_t
longest_name(const struct metric_set *set)
{
	size_t	i, len, width = 0;

	for (i = 0; i < set->count; i++) {
		if ((len = strlen(set->metrics[i])) > width)
			width = len;
	}
	for (i = 0; i < set->nleft_out; i++) {
		if ((len = strlen(set->left_out[i].metric)) > width)
			width = len;
	}
	return width;
}

static void
print_long(const char *text)
{
	const char	*p = text, *nl;
	size_t		 len;

	printf("\n");
	while (*p != '\0') {
		nl = strchr(p, '\n');
		len = nl == NULL ? strlen(p) : (size_t)(nl - p);
		if (len == 0)
			printf("\n");
		else
			printf("    %.*s\n", (int)len, p);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
}

/* An entry as the group file writes it: "a | b | -". */
static void
print_entry(const struct metric_set *set, size_t i)
{
	size_t	k;

	printf("  %s", set->names[i][0]);
	for (k = 1; set->names[i][k] != NULL; k++)
		printf(" | %s", set->names[i][k]);
	printf("%s\n", set->optional[i] ? " | -" : "");
}

/* One set of --list for a chip: each entry under the name collected,
 * with unit and description, and the entries left out. */
static int
list_resolved(const struct metric_set *set, const char *chip, char **cause)
{
	struct metric_info	*info;
	size_t			 i, width = longest_name(set);
	int			 passes = 0;

	info = xcalloc(set->count, sizeof *info);
	if (counters_inspect(chip, set, info, &passes, cause) != 0) {
		free(info);
		return -1;
	}
	printf("  %d pass%s on %s\n", passes, passes == 1 ? "" : "es", chip);
	for (i = 0; i < set->count; i++) {
		printf("  %-*s  %-10s %s\n", (int)width, set->metrics[i],
		    metric_unit(set->metrics[i], info[i].dim_unit),
		    info[i].description != NULL ? info[i].description : "");
		if (strcmp(set->collected[i], set->metrics[i]) != 0)
			printf("  %-*s  (collected as %s on %s)\n", (int)width,
			    "", set->collected[i], chip);
	}
	for (i = 0; i < set->nleft_out; i++)
		printf("  %-*s  LEFT OUT: %s\n", (int)width,
		    set->left_out[i].metric, set->left_out[i].reason);
	metric_info_free(info, set->count);
	free(info);
	return 0;
}

/* One set of --list; returns -1 when CUPTI failed (cause set). */
static int
list_set(const struct metric_set *set, const char *chip, bool with_long,
    char **cause)
{
	struct metric_set	 resolved;
	size_t			 i;
	int			 rc = 0;

	printf("%s: %s\n", set->name, set->short_desc != NULL ?
	    set->short_desc : "(metrics given on the command line)");
	if (chip == NULL) {
		for (i = 0; i < set->count; i++)
			print_entry(set, i);
	} else {
		metric_set_copy(&resolved, set);
		if (counters_resolve(chip, &resolved, cause) != 0)
			rc = -1;
		else
			rc = list_resolved(&resolved, chip, cause);
		metric_set_free(&resolved);
		if (rc != 0)
			return -1;
	}
	if (with_long && set->long_desc != NULL)
		print_long(set->long_desc);
	printf("\n");
	return 0;
}

/* "name (did you mean x?)" for a metric chip does not know. */
static char *
unknown_with_suggestion(const char *chip, const char *metric)
{
	struct metric_set	 one;
	char			**bad = NULL, *error = NULL, *text;
	size_t			 nbad = 0;
	int			 passes;

	if (metric_set_load(metric, &one, &error) != 0) {
		free(error);
		return xstrdup(metric);
	}
	counters_validate(chip, &one, &passes, &bad, &nbad, &error);
	text = nbad > 0 ? xstrdup(bad[0]) : xstrdup(metric);
	strings_free(bad, nbad);
	free(error);
	metric_set_free(&one);
	return text;
}

/* Entries the chip has no name for: fine where the entry says some chips
 * have none ('| -'), a fault of the file otherwise (on stderr). */
static void
check_left_out(const struct metric_set *set, const struct metric_set *resolved,
    const char *chip, bool *any_bad)
{
	const struct metric_gap	*gap;
	char			*text;
	size_t			 i, bad = 0;
	int			 e;

	for (i = 0; i < resolved->nleft_out; i++) {
		gap = &resolved->left_out[i];
		if ((e = metric_set_index(set, gap->metric)) >= 0 &&
		    set->optional[e])
			continue;
		*any_bad = true;
		if (bad++ >= METRICS_SHOWN)
			continue;
		text = unknown_with_suggestion(chip, gap->metric);
		fprintf(stderr, "ewbench metrics: %s: %s: %s; add %s's name "
		    "after a '|' in the entry, or end the entry with '| -' "
		    "if %s has no such counter\n", set->name, text,
		    gap->reason, chip, chip);
		free(text);
	}
	if (bad > METRICS_SHOWN)
		fprintf(stderr, "ewbench metrics: %s: and %zu more entries %s "
		    "has no name for\n", set->name, bad - METRICS_SHOWN, chip);
}

/* One set of --check; returns -1 when CUPTI failed (cause set). */
static int
check_set(const struct metric_set *set, const char *chip, bool *any_bad,
    char **cause)
{
	struct metric_set	 resolved;
	char			**bad = NULL, *error = NULL;
	size_t			 nbad = 0, i, renamed = 0;
	int			 passes, rc = 0;

	metric_set_copy(&resolved, set);
	if (counters_resolve(chip, &resolved, &error) != 0) {
		fprintf(stderr, "ewbench metrics: %s: %s\n", set->name, error);
		*any_bad = true;
		goto out;
	}
	if (counters_validate(chip, &resolved, &passes, &bad, &nbad,
	    &error) != 0) {
		if (nbad == 0) {
			*cause = error;
			error = NULL;
			rc = -1;
			goto out;
		}
		fprintf(stderr, "ewbench metrics: %s: %s\n", set->name, error);
		*any_bad = true;
		goto out;
	}
	for (i = 0; i < resolved.count; i++)
		renamed += strcmp(resolved.collected[i],
		    resolved.metrics[i]) != 0;
	printf("%s: %zu metric%s valid for %s", set->name, resolved.count,
	    resolved.count == 1 ? "" : "s", chip);
	if (renamed > 0)
		printf(" (%zu under %s's names)", renamed, chip);
	printf(", %d pass%s", passes, passes == 1 ? "" : "es");
	for (i = 0; i < resolved.nleft_out && i < METRICS_SHOWN; i++)
		printf("%s%s", i == 0 ? "; left out: " : ", ",
		    resolved.left_out[i].metric);
	if (resolved.nleft_out > METRICS_SHOWN)
		printf(" and %zu more", resolved.nleft_out - METRICS_SHOWN);
	printf("\n");
	check_left_out(set, &resolved, chip, any_bad);

out:
	strings_free(bad, nbad);
	free(error);
	metric_set_free(&resolved);
	return rc;
}

/* The sets to work on: --metrics, or every group. */
static int
load_sets(const struct metrics_options *o, struct metric_set **sets,
    size_t *count, size_t *broken, int *code)
{
	char	**groups, *cause, *where;
	size_t	  ngroups, i;
	int	  rc;

	*sets = NULL;
	*count = 0;
	if (o->spec != NULL) {
		*sets = xcalloc(1, sizeof **sets);
		if ((rc = metric_set_load(o->spec, &(*sets)[0], &cause)) != 0) {
			free(*sets);
			*sets = NULL;
			if (rc != METRIC_SET_BROKEN) {
				*code = usage_error(cause);
				return -1;
			}
			/* As --help says: a file that cannot be read or
			 * parsed is exit 1. */
			fprintf(stderr, "ewbench metrics: %s\n", cause);
			free(cause);
			*code = EWB_EXIT_ERROR;
			return -1;
		}
		*count = 1;
		return 0;
	}

	metric_set_groups(&groups, &ngroups);
	if (ngroups == 0) {
		where = metric_set_search_path();
		fprintf(stderr, "ewbench metrics: no metric sets in %s\n",
		    where);
		free(where);
		free(groups);
		*code = EWB_EXIT_ERROR;
		return -1;
	}
	*sets = xcalloc(ngroups, sizeof **sets);
	for (i = 0; i < ngroups; i++) {
		/* A broken group file is reported; the others go on. */
		if (metric_set_load(groups[i], &(*sets)[*count], &cause) == 0)
			(*count)++;
		else {
			fprintf(stderr, "ewbench metrics: %s\n", cause);
			free(cause);
			(*broken)++;
		}
		free(groups[i]);
	}
	free(groups);
	return 0;
}

/* --chip all: a chip whose host API CUPTI refuses (a Tegra Volta, say)
 * is said and skipped; the sets are checked on every other one. */
static bool
chip_skipped(const struct metrics_options *o, const char *chip, char **cause)
{
	if (o->chip == NULL || strcasecmp(o->chip, "all") != 0 ||
	    counters_chip_usable(chip, cause) == 0)
		return false;
	printf("%s: skipped: CUPTI's host API cannot profile it (%s)\n", chip,
	    *cause);
	free(*cause);
	*cause = NULL;
	return true;
}

/* --check's last line: what was checked and how it went, so that a long
 * --chip all ends in its verdict. */
static void
check_summary(size_t sets, size_t chips, size_t skipped, size_t valid,
    size_t invalid, size_t unnamed, size_t broken)
{
	printf("checked %zu set%s on %zu chip%s", sets, sets == 1 ? "" : "s",
	    chips - skipped, chips - skipped == 1 ? "" : "s");
	if (skipped > 0)
		printf(" (%zu skipped: CUPTI's host API cannot profile it)",
		    skipped);
	printf(": %zu valid, %zu invalid", valid, invalid);
	if (unnamed > 0)
		printf("; %zu set%s name%s a metric no chip knows", unnamed,
		    unnamed == 1 ? "" : "s", unnamed == 1 ? "s" : "");
	if (broken > 0)
		printf("; %zu group file%s could not be read", broken,
		    broken == 1 ? "" : "s");
	printf("%s\n", invalid + unnamed + broken > 0 ? " (said above)" : "");
}

static int
metrics_command(int argc, char **argv)
{
	struct metrics_options	 o;
	struct metric_set	*sets = NULL;
	size_t			 count = 0, nchips = 0, i, c;
	size_t			 broken = 0, skipped = 0, valid = 0;
	size_t			 invalid = 0, unnamed = 0;
	char			**chips = NULL, *cause = NULL;
	bool			 any_bad = false, bad;
	int			 code = EWB_EXIT_OK;

	if (parse_options(argc, argv, &o, &code) != 0)
		goto out;
	if (resolve_chips(&o, &chips, &nchips, &cause) != 0) {
		code = usage_error(cause);
		goto out;
	}
	if (load_sets(&o, &sets, &count, &broken, &code) != 0)
		goto out;

	for (c = 0; c < (nchips > 0 ? nchips : 1); c++) {
		if (nchips > 0 && chip_skipped(&o, chips[c], &cause)) {
			skipped++;
			continue;
		}
		for (i = 0; i < count; i++) {
			bad = false;
			if ((o.check ? check_set(&sets[i], chips[c], &bad,
			    &cause) : list_set(&sets[i],
			    nchips > 0 ? chips[c] : NULL, o.spec != NULL,
			    &cause)) != 0) {
				fprintf(stderr, "ewbench metrics: %s\n", cause);
				free(cause);
				code = EWB_EXIT_ERROR;
				goto out;
			}
			any_bad |= bad;
			if (bad)
				invalid++;
			else
				valid++;
		}
	}
	/* Every chip: each name of each entry must be some chip's. */
	for (i = 0; nchips > 1 && i < count; i++) {
		if (counters_check_names(&sets[i], &cause) != 0) {
			fprintf(stderr, "ewbench metrics: %s: %s\n",
			    sets[i].name, cause);
			free(cause);
			any_bad = true;
			unnamed++;
		}
	}
	if (o.check)
		check_summary(count, nchips, skipped, valid, invalid, unnamed,
		    broken);
	if (nchips == 0)
		printf("(units, descriptions and pass counts: add --chip "
		    "%s, or run on a GPU)\n", DEFAULT_CHIP);
	/* A file that cannot be read or parsed is exit 1 (--list and
	 * --check alike); --check fails with 2 on a set a chip refuses. */
	if (broken)
		code = EWB_EXIT_ERROR;
	else if (o.check && any_bad)
		code = EWB_EXIT_USAGE;

out:
	for (i = 0; i < count; i++)
		metric_set_free(&sets[i]);
	free(sets);
	for (c = 0; c < nchips; c++)
		free(chips[c]);
	free(chips);
	return code;
}

/* Its --help page is this file's (usage above), not help.c's. */
const struct command_entry metrics_entry = { "metrics", metrics_command,
    true };

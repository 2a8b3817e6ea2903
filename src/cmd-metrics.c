/*
 * cmd-metrics.c - `ewbench metrics`: list the metric sets and check them
 * against a chip with the CUPTI host API (no GPU needed for that).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "ewbench.h"
#include "chips.h"
#include "counters.h"

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
"  --check         validate every metric of the sets against the chip with\n"
"                  the CUPTI host API and print pass counts; exit 2 naming\n"
"                  unknown metrics.  Without --chip and without a GPU the\n"
"                  chip is " DEFAULT_CHIP ".\n"
"  --chip NAME     a CUPTI chip name: GH100 (H100, H200), GA100, AD102,\n"
"                  GB100, GB202, ... (case does not matter)\n"
"  --metrics SPEC  one set: a group name, a file path, or a comma-separated\n"
"                  list of metric names (default: every group)\n"
"  -h, --help      this text\n";

enum { OPT_LIST = 256, OPT_CHECK, OPT_CHIP, OPT_METRICS };

static const struct option metrics_longopts[] = {
	{ "list",	no_argument,		NULL, OPT_LIST },
	{ "check",	no_argument,		NULL, OPT_CHECK },
	{ "chip",	required_argument,	NULL, OPT_CHIP },
	{ "metrics",	required_argument,	NULL, OPT_METRICS },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 }
};

struct metrics_options {
	bool		 list;
	bool		 check;
	char		*chip;		/* upper-cased copy, or NULL */
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
	char	*p;
	int	 ch;

	memset(o, 0, sizeof *o);
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", metrics_longopts,
	    NULL)) != -1) {
		switch (ch) {
		case OPT_LIST:
			o->list = true;
			break;
		case OPT_CHECK:
			o->check = true;
			break;
		case OPT_CHIP:
			free(o->chip);
			o->chip = xstrdup(optarg);
			for (p = o->chip; *p != '\0'; p++)
				*p = (char)toupper((unsigned char)*p);
			break;
		case OPT_METRICS:
			o->spec = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			*code = EWB_EXIT_OK;
			return -1;
		case ':':
			*code = usage_error(xasprintf("option '%s' needs a "
			    "value", argv[optind - 1]));
			return -1;
		default:
			*code = usage_error(xasprintf("unknown option '%s'",
			    argv[optind - 1]));
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
 * The chip to describe or check against: --chip, else the GPU's, else
 * (for --check only) DEFAULT_CHIP, said on stderr.  NULL for a --list
 * without either.
 */
static char *
resolve_chip(const struct metrics_options *o)
{
	char	*chip, *cause = NULL;

	if (o->chip != NULL)
		return xstrdup(o->chip);
	if (counters_device_chip(0, &chip, &cause) == 0) {
		fprintf(stderr, "ewbench metrics: chip %s (CUDA device 0)\n",
		    chip);
		return chip;
	}
	if (!o->check) {
		free(cause);
		return NULL;
	}
	fprintf(stderr, "ewbench metrics: no GPU to ask (%s); checking "
	    "against chip %s (choose with --chip)\n", cause, DEFAULT_CHIP);
	free(cause);
	return xstrdup(DEFAULT_CHIP);
}

static size_t
longest_name(const struct metric_set *set)
{
	size_t	i, len, width = 0;

	for (i = 0; i < set->count; i++) {
		if ((len = strlen(set->metrics[i])) > width)
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

/* One set of --list; returns -1 when CUPTI failed (cause set). */
static int
list_set(const struct metric_set *set, const char *chip, bool with_long,
    char **cause)
{
	struct metric_info	*info = NULL;
	size_t			 i, width = longest_name(set);
	int			 passes = 0;

	printf("%s: %s\n", set->name, set->short_desc != NULL ?
	    set->short_desc : "(metrics given on the command line)");
	if (chip != NULL) {
		info = xcalloc(set->count, sizeof *info);
		if (counters_inspect(chip, set, info, &passes, cause) != 0) {
			free(info);
			return -1;
		}
		if (passes > 0)
			printf("  %d pass%s on %s\n", passes,
			    passes == 1 ? "" : "es", chip);
		else
			printf("  pass count unknown: the set has metrics %s "
			    "does not know\n", chip);
	}
	for (i = 0; i < set->count; i++) {
		if (info == NULL)
			printf("  %s\n", set->metrics[i]);
		else if (info[i].valid)
			printf("  %-*s  %-10s %s\n", (int)width,
			    set->metrics[i], metric_unit(set->metrics[i],
			    info[i].dim_unit), info[i].description != NULL ?
			    info[i].description : "");
		else if (info[i].suggestion != NULL)
			printf("  %-*s  UNKNOWN on %s (did you mean %s?)\n",
			    (int)width, set->metrics[i], chip,
			    info[i].suggestion);
		else
			printf("  %-*s  UNKNOWN on %s\n", (int)width,
			    set->metrics[i], chip);
	}
	if (with_long && set->long_desc != NULL)
		print_long(set->long_desc);
	printf("\n");
	if (info != NULL) {
		metric_info_free(info, set->count);
		free(info);
	}
	return 0;
}

/* One set of --check; returns -1 when CUPTI failed (cause set). */
static int
check_set(const struct metric_set *set, const char *chip, bool *any_bad,
    char **cause)
{
	char	**bad, *error = NULL;
	size_t	  nbad, i;
	int	  passes;

	if (counters_validate(chip, set, &passes, &bad, &nbad, &error) == 0) {
		printf("%s: %zu metric%s valid for %s, %d pass%s\n", set->name,
		    set->count, set->count == 1 ? "" : "s", chip, passes,
		    passes == 1 ? "" : "es");
		return 0;
	}
	if (nbad == 0) {
		*cause = error;
		return -1;
	}
	*any_bad = true;
	fprintf(stderr, "ewbench metrics: %s: %s\n", set->name, error);
	for (i = 0; i < nbad; i++)
		free(bad[i]);
	free(bad);
	free(error);
	return 0;
}

/* The sets to work on: --metrics, or every group. */
static int
load_sets(const struct metrics_options *o, struct metric_set **sets,
    size_t *count, bool *broken, int *code)
{
	char	**groups, *cause, *where;
	size_t	  ngroups, i;

	*sets = NULL;
	*count = 0;
	if (o->spec != NULL) {
		*sets = xcalloc(1, sizeof **sets);
		if (metric_set_load(o->spec, &(*sets)[0], &cause) != 0) {
			free(*sets);
			*sets = NULL;
			*code = usage_error(cause);
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
			*broken = true;
		}
		free(groups[i]);
	}
	free(groups);
	return 0;
}

int
metrics_command(int argc, char **argv)
{
	struct metrics_options	 o;
	struct metric_set	*sets = NULL;
	size_t			 count = 0, i;
	char			*chip = NULL, *cause = NULL;
	bool			 any_bad = false, broken = false;
	int			 code = EWB_EXIT_OK;

	if (parse_options(argc, argv, &o, &code) != 0)
		goto out;
	if (o.chip != NULL && counters_chip_check(o.chip, &cause) != 0) {
		code = usage_error(cause);
		goto out;
	}
	if (load_sets(&o, &sets, &count, &broken, &code) != 0)
		goto out;
	any_bad = broken;

	chip = resolve_chip(&o);
	for (i = 0; i < count; i++) {
		if ((o.check ? check_set(&sets[i], chip, &any_bad, &cause) :
		    list_set(&sets[i], chip, o.spec != NULL, &cause)) != 0) {
			fprintf(stderr, "ewbench metrics: %s\n", cause);
			free(cause);
			code = EWB_EXIT_ERROR;
			goto out;
		}
	}
	if (chip == NULL)
		printf("(units, descriptions and pass counts: add --chip "
		    "%s, or run on a GPU)\n", DEFAULT_CHIP);
	/* --check fails on any invalid set; --list only on a broken file. */
	if (o.check ? any_bad : broken)
		code = o.check ? EWB_EXIT_USAGE : EWB_EXIT_ERROR;

out:
	for (i = 0; i < count; i++)
		metric_set_free(&sets[i]);
	free(sets);
	free(chip);
	free(o.chip);
	return code;
}

/*
 * cli-values.c - what every command's option parser shares (cli.c's,
 * cmd-ceilings.c's, cmd-metrics.c's): numbers and --device lists with
 * their ranges, an option given twice, getopt's errors quoted, the argv
 * entries a fleet's children get anew.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "device/placement.h"

/* A decimal number from min to max ("0.5", "20"), in the C locale. */
int
cli_parse_number(const char *text, const char *what, double min, double max,
    double *out, char **cause)
{
	char	*end;
	double	 v;

	errno = 0;
	v = strtod(text, &end);
	if (end == text || *end != '\0' || errno != 0 || !(v >= min) ||
	    !(v <= max) || strchr(text, ',') != NULL) {
		*cause = xasprintf("%s: '%s' is not a number from %g to %g",
		    what, shown(text, SHOWN_MOST), min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int
cli_parse_uint(const char *text, const char *what, unsigned min, unsigned max,
    unsigned *out, char **cause)
{
	char			*end;
	unsigned long long	 v;

	errno = 0;
	if (*text == '-' || *text == '\0')
		goto bad;
	v = strtoull(text, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		goto bad;
	*out = (unsigned)v;
	return 0;
bad:
	*cause = xasprintf("%s: '%s' is not a whole number from %u to %u",
	    what, shown(text, SHOWN_MOST), min, max);
	return -1;
}

int
cli_parse_device(struct run_options *o, const char *text, char **cause)
{
	free(o->devices);
	if (device_list_parse(text, &o->device_all, &o->devices, &o->ndevices,
	    &o->fleet, cause) != 0)
		return -1;
	o->device_given = true;
	o->device = o->ndevices > 0 ? (int)o->devices[0] : 0;
	return 0;
}

int
cli_given_once(const struct option *longopts, const char **given, int ch,
    const char *value, const char *why, char **cause)
{
	const struct option	*lo;

	for (lo = longopts; lo->name != NULL && lo->val != ch; lo++)
		;
	if (lo->name == NULL || lo->has_arg != required_argument ||
	    ch < 0 || ch >= CLI_OPTION_VALUES)
		return 0;
	if (given[ch] != NULL) {
		*cause = xasprintf("--%s given twice ('%s', then '%s'): %s",
		    lo->name, shown(given[ch], SHOWN_MOST),
		    shown(value, SHOWN_MOST), why != NULL ? why :
		    "give it once");
		return -1;
	}
	given[ch] = value;
	return 0;
}

char *
cli_option_error(char **argv, int before, int ch, const char *after)
{
	const char	*arg = argv[optind == before ? optind : optind - 1];

	if (ch == ':')
		return xasprintf("option '%s' needs a value%s",
		    shown(arg, SHOWN_MOST), after);
	/* A character of a bundle: "-q=1" holds the unknown '-='. */
	if (arg[0] == '-' && arg[1] != '-' && strlen(arg) > 2 &&
	    optopt > 0 && optopt < 128)
		return xasprintf("unknown option '%s' in '%s'%s",
		    shown((char[]){ '-', (char)optopt, '\0' }, 2),
		    shown(arg, SHOWN_MOST), after);
	return xasprintf("unknown option '%s'%s", shown(arg, SHOWN_MOST),
	    after);
}

void
cli_mark_replaced(struct run_options *o, int argc, char **argv, int first)
{
	int	i;

	if (o->replaced == NULL)
		o->replaced = xcalloc((size_t)argc + 1, sizeof *o->replaced);
	/* "-qo DIR": the bundle holds another option, which must stay. */
	if (argv[first][0] == '-' && argv[first][1] != '-' &&
	    argv[first][1] != 'o')
		o->bundled = true;
	for (i = first; i < optind && i < argc; i++)
		o->replaced[i] = true;
}

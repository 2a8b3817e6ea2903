/*
 * cli-values.c - what every command's option parser shares (cli.c's,
 * cmd-ceilings.c's, cmd-metrics.c's): numbers and --device lists with
 * their ranges, an option given twice, getopt's errors quoted, the argv
 * entries a fleet's children get anew, and how a command refuses.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
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

/* What given[] holds for a flag (an option without a value) given. */
static const char flag_given[] = "";

int
cli_given_once(const struct option *longopts, const char **given, int ch,
    const char *value, const char *why, char **cause)
{
	const struct option	*lo;

	for (lo = longopts; lo->name != NULL && lo->val != ch; lo++)
		;
	if (lo->name == NULL || ch < 0 || ch >= CLI_OPTION_VALUES)
		return 0;
	if (lo->has_arg == no_argument)
		value = flag_given;
	if (given[ch] == flag_given) {
		*cause = xasprintf("--%s given twice: %s", lo->name,
		    why != NULL ? why : "give it once");
		return -1;
	}
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

/* The long options whose name begins with the len characters of name:
 * the one named exactly, else every one it abbreviates; their count. */
static size_t
long_matches(const struct option *longopts, const char *name, size_t len,
    const struct option **found, size_t room)
{
	const struct option	*lo;
	size_t			 n = 0;

	for (lo = longopts; lo->name != NULL; lo++) {
		if (strlen(lo->name) == len && strncmp(lo->name, name,
		    len) == 0) {
			found[0] = lo;
			return 1;
		}
	}
	for (lo = longopts; lo->name != NULL; lo++) {
		if (strncmp(lo->name, name, len) != 0)
			continue;
		if (n < room)
			found[n] = lo;
		n++;
	}
	return n;
}

/* The cause of getopt's '?' for a long option ("--name" or
 * "--name=value"): one that takes no value given one, or an abbreviation
 * of more than one option, each said whole; NULL when it names none
 * (unknown). */
static char *
long_option_error(const struct option *longopts, const char *arg)
{
	const struct option	*found[8];
	const char		*name = arg + 2, *eq = strchr(name, '=');
	size_t			 len = eq != NULL ? (size_t)(eq - name) :
				     strlen(name), n, i;
	char			*list, *more;

	if (len == 0 || (n = long_matches(longopts, name, len, found,
	    sizeof found / sizeof found[0])) == 0)
		return NULL;
	if (n == 1) {
		if (eq == NULL || found[0]->has_arg != no_argument)
			return NULL;
		return xasprintf("option '--%s' takes no value (given '%s')",
		    found[0]->name, shown(arg, SHOWN_MOST));
	}
	list = xasprintf("--%s", found[0]->name);
	for (i = 1; i < n && i < sizeof found / sizeof found[0]; i++) {
		more = xasprintf("%s, --%s", list, found[i]->name);
		free(list);
		list = more;
	}
	/* name's first len characters begin option names: plain ASCII. */
	more = xasprintf("option '--%.*s' is ambiguous (%s%s): give more of "
	    "its name", (int)len, name, list, n > i ? ", ..." : "");
	free(list);
	return more;
}

char *
cli_option_error(const struct option *longopts, char **argv, int before,
    int ch, const char *after)
{
	const char	*arg = argv[optind == before ? optind : optind - 1];
	char		*cause;

	if (ch == ':')
		return xasprintf("option '%s' needs a value%s",
		    shown(arg, SHOWN_MOST), after);
	if (strncmp(arg, "--", 2) == 0 &&
	    (cause = long_option_error(longopts, arg)) != NULL)
		return cause;
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

int
command_refuses(const char *command, char *cause, int code)
{
	fprintf(stderr, "ewbench %s: %s\n", command, cause);
	free(cause);
	return code;
}

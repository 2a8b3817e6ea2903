/*
 * metric-sets.c - metric sets as data: the likwid-style group format
 * (metrics/<group>.txt) parsed, metric lists given on the command line,
 * and what is done with a set (copied, resolved for a chip, flattened).
 * metric-groups.c finds the group files.  No GPU and no CUPTI.  See
 * counters.h.
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"
#include "counters/counters.h"

enum section { SECTION_HEAD, SECTION_METRICS, SECTION_LONG };

/* Appends an entry: its names (taken), NULL-terminated, and whether it
 * may be absent. */
static void
set_add(struct metric_set *set, char **names, bool optional)
{
	size_t	n = set->count + 1;

	set->metrics = xrealloc(set->metrics, n * sizeof *set->metrics);
	set->names = xrealloc(set->names, n * sizeof *set->names);
	set->optional = xrealloc(set->optional, n * sizeof *set->optional);
	set->metrics[set->count] = xstrdup(names[0]);
	set->names[set->count] = names;
	set->optional[set->count] = optional;
	set->count = n;
}

static void
names_free(char **names)
{
	size_t	i;

	if (names == NULL)
		return;
	for (i = 0; names[i] != NULL; i++)
		free(names[i]);
	free(names);
}

/* Is name one of names (NULL-terminated; NULL: none)? */
static bool
names_have(char **names, const char *name)
{
	size_t	i;

	for (i = 0; names != NULL && names[i] != NULL; i++) {
		if (strcmp(names[i], name) == 0)
			return true;
	}
	return false;
}

/* Is name any name of an entry of the set? */
static bool
set_has_name(const struct metric_set *set, const char *name)
{
	size_t	i, k;

	for (i = 0; i < set->count; i++) {
		for (k = 0; set->names[i][k] != NULL; k++) {
			if (strcmp(set->names[i][k], name) == 0)
				return true;
		}
	}
	return false;
}

/* CUPTI names: unit__counter[.rollup[.submetric]], [A-Za-z0-9_.]. */
static int
metric_name_check(const char *name, char **cause)
{
	const char	*p;

	if (*name == '\0') {
		*cause = xstrdup("empty metric name");
		return -1;
	}
	for (p = name; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.') {
			*cause = xasprintf("'%s' is not a metric name (bad "
			    "character '%s')", shown(name, SHOWN_MOST),
			    shown((char[]){ *p, '\0' }, 1));
			return -1;
		}
	}
	if (strstr(name, "__") == NULL || *name == '.' || p[-1] == '.') {
		*cause = xasprintf("'%s' is not a metric name (metric names "
		    "look like dram__bytes_read.sum)", shown(name, SHOWN_MOST));
		return -1;
	}
	return 0;
}

static char	*trim_blanks(char *);

/* One entry, "a | b | -": checked, then appended. */
static int
set_add_checked(struct metric_set *set, const char *entry, char **cause)
{
	char	*copy, *item, *next, **names = NULL;
	size_t	 n = 0;
	bool	 optional = false;

	copy = xstrdup(entry);
	for (item = copy; item != NULL; item = next) {
		if ((next = strchr(item, '|')) != NULL)
			*next++ = '\0';
		item = trim_blanks(item);
		if (optional) {
			*cause = xasprintf("'-' (none on some chips) is the "
			    "last alternative of an entry, in '%s'",
			    shown(entry, SHOWN_MOST));
			goto fail;
		}
		if (strcmp(item, "-") == 0) {
			if (n == 0) {
				*cause = xasprintf("an entry starts with a "
				    "metric name, not '-', in '%s'",
				    shown(entry, SHOWN_MOST));
				goto fail;
			}
			optional = true;
			continue;
		}
		if (strpbrk(item, " \t") != NULL) {
			*cause = xasprintf("one entry a line, its names "
			    "separated by '|', not '%s'",
			    shown(entry, SHOWN_MOST));
			goto fail;
		}
		if (metric_name_check(item, cause) != 0)
			goto fail;
		if (set_has_name(set, item) || names_have(names, item)) {
			*cause = xasprintf("metric '%s' listed twice", item);
			goto fail;
		}
		names = xrealloc(names, (n + 2) * sizeof *names);
		names[n++] = xstrdup(item);
		names[n] = NULL;
	}
	free(copy);
	set_add(set, names, optional);
	return 0;

fail:
	free(copy);
	names_free(names);
	return -1;
}

/* Trims blanks at both ends, in place. */
static char *
trim_blanks(char *s)
{
	char	*end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* Is `line` the keyword, alone or followed by blanks and an argument? */
static const char *
keyword(const char *line, const char *word)
{
	size_t	len = strlen(word);

	if (strncmp(line, word, len) != 0)
		return NULL;
	if (line[len] != '\0' && !isspace((unsigned char)line[len]))
		return NULL;
	return line + len;
}

static void
long_append(char **text, const char *line, size_t len)
{
	size_t	old = *text == NULL ? 0 : strlen(*text);

	*text = xrealloc(*text, old + len + 2);
	memcpy(*text + old, line, len);
	(*text)[old + len] = '\n';
	(*text)[old + len + 1] = '\0';
}

/* One line outside LONG, comment already stripped and trimmed. */
static int
parse_line(struct metric_set *set, enum section *section, bool *seen_metrics,
    char *line, char **cause)
{
	const char	*arg;
	char		*error;

	if ((arg = keyword(line, "SHORT")) != NULL) {
		if (set->short_desc != NULL) {
			*cause = xstrdup("a second SHORT line");
			return -1;
		}
		arg = trim_blanks((char *)arg);
		if (*arg == '\0') {
			*cause = xstrdup("SHORT needs a one-line description");
			return -1;
		}
		set->short_desc = xstrdup(arg);
		return 0;
	}
	if (keyword(line, "METRICS") != NULL) {
		if (strcmp(line, "METRICS") != 0) {
			*cause = xstrdup("METRICS stands alone on its line; "
			    "names follow, one a line");
			return -1;
		}
		if (*seen_metrics) {
			*cause = xstrdup("a second METRICS line");
			return -1;
		}
		*seen_metrics = true;
		*section = SECTION_METRICS;
		return 0;
	}
	if (keyword(line, "LONG") != NULL) {
		if (strcmp(line, "LONG") != 0) {
			*cause = xstrdup("LONG stands alone on its line; "
			    "the prose follows");
			return -1;
		}
		*section = SECTION_LONG;
		return 0;
	}
	if (*section != SECTION_METRICS) {
		*cause = xasprintf("expected SHORT, METRICS or LONG, not '%s'",
		    shown(line, SHOWN_MOST));
		return -1;
	}
	if (set_add_checked(set, line, &error) != 0) {
		*cause = error;
		return -1;
	}
	return 0;
}

int
metric_set_parse(const char *text, const char *name, struct metric_set *set,
    char **cause)
{
	enum section	 section = SECTION_HEAD;
	bool		 seen_metrics = false;
	const char	*p = text, *nl;
	char		*line, *text_line, *hash, *error;
	size_t		 len, lineno = 0;

	memset(set, 0, sizeof *set);
	set->name = xstrdup(name);
	/* A UTF-8 byte order mark (some editors write one) is no text. */
	if (strncmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (*p != '\0') {
		nl = strchr(p, '\n');
		len = nl == NULL ? strlen(p) : (size_t)(nl - p);
		lineno++;
		if (section == SECTION_LONG)
			long_append(&set->long_desc, p, len);
		else {
			line = xmalloc(len + 1);
			memcpy(line, p, len);
			line[len] = '\0';
			if ((hash = strchr(line, '#')) != NULL)
				*hash = '\0';
			text_line = trim_blanks(line);
			if (*text_line != '\0' && parse_line(set, &section,
			    &seen_metrics, text_line, &error) != 0) {
				*cause = xasprintf("line %zu: %s", lineno,
				    error);
				free(error);
				free(line);
				goto fail;
			}
			free(line);
		}
		p += len + (nl != NULL);
	}

	if (set->short_desc == NULL) {
		*cause = xstrdup("no SHORT line (a one-line description)");
		goto fail;
	}
	if (set->count == 0) {
		*cause = xstrdup("no metrics (a METRICS line, then one name "
		    "a line)");
		goto fail;
	}
	if (set->long_desc != NULL && *trim_blanks(set->long_desc) == '\0') {
		free(set->long_desc);
		set->long_desc = NULL;
	}
	return 0;

fail:
	metric_set_free(set);
	return -1;
}

void
metric_set_free(struct metric_set *set)
{
	size_t	i;

	for (i = 0; i < set->count; i++) {
		free(set->metrics[i]);
		names_free(set->names[i]);
		if (set->collected != NULL)
			free(set->collected[i]);
	}
	for (i = 0; i < set->nleft_out; i++) {
		free(set->left_out[i].metric);
		free(set->left_out[i].reason);
	}
	free(set->metrics);
	free(set->names);
	free(set->optional);
	free(set->collected);
	free(set->left_out);
	free(set->chip);
	free(set->name);
	free(set->short_desc);
	free(set->long_desc);
	free(set->path);
	memset(set, 0, sizeof *set);
}

int
metric_set_index(const struct metric_set *set, const char *metric)
{
	size_t	i;

	for (i = 0; i < set->count; i++) {
		if (strcmp(set->metrics[i], metric) == 0)
			return (int)i;
	}
	return -1;
}

void
metric_set_copy(struct metric_set *dst, const struct metric_set *src)
{
	size_t	i, k;
	char	**names;

	memset(dst, 0, sizeof *dst);
	dst->name = dup_or_null(src->name);
	dst->short_desc = dup_or_null(src->short_desc);
	dst->long_desc = dup_or_null(src->long_desc);
	dst->path = dup_or_null(src->path);
	for (i = 0; i < src->count; i++) {
		for (k = 0; src->names[i][k] != NULL; k++)
			;
		names = xcalloc(k + 1, sizeof *names);
		while (k-- > 0)
			names[k] = xstrdup(src->names[i][k]);
		set_add(dst, names, src->optional[i]);
	}
	dst->chip = dup_or_null(src->chip);
	if (src->collected != NULL) {
		dst->collected = xcalloc(src->count, sizeof *dst->collected);
		for (i = 0; i < src->count; i++)
			dst->collected[i] = xstrdup(src->collected[i]);
	}
	if (src->nleft_out > 0) {
		dst->left_out = xcalloc(src->nleft_out,
		    sizeof *dst->left_out);
		for (i = 0; i < src->nleft_out; i++) {
			dst->left_out[i].metric =
			    xstrdup(src->left_out[i].metric);
			dst->left_out[i].reason =
			    xstrdup(src->left_out[i].reason);
		}
		dst->nleft_out = src->nleft_out;
	}
}

void
metric_set_flatten(struct metric_set *dst, const struct metric_set *src)
{
	char	**names;
	size_t	  i, k;

	memset(dst, 0, sizeof *dst);
	dst->name = xstrdup(src->name);
	for (i = 0; i < src->count; i++) {
		for (k = 0; src->names[i][k] != NULL; k++) {
			names = xcalloc(2, sizeof *names);
			names[0] = xstrdup(src->names[i][k]);
			set_add(dst, names, false);
		}
	}
}

/* "a, b" of an entry's names. */
static char *
names_text(char **names)
{
	char	*list = NULL;
	size_t	 k;

	for (k = 0; names[k] != NULL; k++)
		list_append(&list, ", ", names[k]);
	return list;
}

int
metric_set_resolve(struct metric_set *set, const char *chip,
    bool (*known)(void *ctx, const char *name), void *ctx, char **cause)
{
	struct metric_gap	*gap;
	char			*list, *found;
	size_t			 i, k, kept = 0;

	if (set->collected != NULL) {
		*cause = xasprintf("metric set %s is already resolved for %s",
		    set->name, set->chip);
		return -1;
	}
	set->chip = xstrdup(chip);
	set->collected = xcalloc(set->count, sizeof *set->collected);
	for (i = 0; i < set->count; i++) {
		found = NULL;
		for (k = 0; set->names[i][k] != NULL && found == NULL; k++) {
			if (known(ctx, set->names[i][k]))
				found = set->names[i][k];
		}
		if (found != NULL) {
			/* Entry i moves to kept (kept <= i). */
			set->metrics[kept] = set->metrics[i];
			set->names[kept] = set->names[i];
			set->optional[kept] = set->optional[i];
			set->collected[kept] = xstrdup(found);
			kept++;
			continue;
		}
		set->left_out = xrealloc(set->left_out,
		    (set->nleft_out + 1) * sizeof *set->left_out);
		gap = &set->left_out[set->nleft_out++];
		gap->metric = set->metrics[i];
		list = names_text(set->names[i]);
		gap->reason = set->names[i][1] == NULL ?
		    xasprintf("%s has no such metric", chip) :
		    xasprintf("%s knows none of its names (%s)", chip, list);
		free(list);
		names_free(set->names[i]);
	}
	set->count = kept;
	if (kept == 0) {
		*cause = xasprintf("no metric of set %s exists on %s", set->name,
		    chip);
		return -1;
	}
	return 0;
}

const char *
metric_set_cupti_name(const struct metric_set *set, size_t i)
{
	return set->collected != NULL ? set->collected[i] : set->metrics[i];
}

int
metric_set_parse_list(const char *spec, struct metric_set *set, char **cause)
{
	char	*copy, *item, *next, *error;

	memset(set, 0, sizeof *set);
	set->name = xstrdup("custom");
	copy = xstrdup(spec);
	for (item = copy; item != NULL; item = next) {
		if ((next = strchr(item, ',')) != NULL)
			*next++ = '\0';
		if (set_add_checked(set, trim_blanks(item), &error) != 0) {
			*cause = xasprintf("--metrics: %s", error);
			free(error);
			free(copy);
			metric_set_free(set);
			return -1;
		}
	}
	free(copy);
	return 0;
}

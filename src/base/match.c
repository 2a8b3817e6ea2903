/*
 * match.c - choosing variants by id or glob, and suggesting ids for typos.
 *
 * Registry-free: select.c hands the registry's ids to ids_select, so the
 * matching can be tested against any list of ids.
 */
#define _POSIX_C_SOURCE 200809L

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"

#define MAX_SUGGESTIONS	3

size_t
edit_distance(const char *s, const char *t)
{
	size_t	 slen = strlen(s), tlen = strlen(t), i, j, best;
	size_t	*prev, *cur, *swap;

	/* Levenshtein distance, keeping two rows of the table. */
	prev = xcalloc(tlen + 1, sizeof *prev);
	cur = xcalloc(tlen + 1, sizeof *cur);
	for (j = 0; j <= tlen; j++)
		prev[j] = j;
	for (i = 1; i <= slen; i++) {
		cur[0] = i;
		for (j = 1; j <= tlen; j++) {
			best = prev[j - 1] + (s[i - 1] != t[j - 1]);
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			cur[j] = best;
		}
		swap = prev;
		prev = cur;
		cur = swap;
	}
	best = prev[tlen];
	free(prev);
	free(cur);
	return best;
}

/*
 * The cause for a pattern that matched nothing: up to MAX_SUGGESTIONS ids
 * within a third of the pattern's length (at least 1) edits, closest first,
 * registry order among equals.
 */
static char *
no_match_cause(const char *pattern, const char *const *ids, size_t n)
{
	size_t		*distance, limit, d, i, found = 0;
	const char	*what;
	char		*list = NULL, *next;

	limit = strlen(pattern) / 3;
	if (limit < 1)
		limit = 1;
	distance = xcalloc(n, sizeof *distance);
	for (i = 0; i < n; i++)
		distance[i] = edit_distance(pattern, ids[i]);

	for (d = 0; d <= limit && found < MAX_SUGGESTIONS; d++) {
		for (i = 0; i < n && found < MAX_SUGGESTIONS; i++) {
			if (distance[i] != d)
				continue;
			if (list == NULL)
				next = xstrdup(ids[i]);
			else
				next = xasprintf("%s, %s", list, ids[i]);
			free(list);
			list = next;
			found++;
		}
	}
	free(distance);

	what = strpbrk(pattern, "*?[") != NULL ?
	    "no variant matches" : "unknown variant";
	if (list == NULL)
		return xasprintf("%s '%s'; run 'ewbench list' to see the "
		    "variants", what, shown(pattern, SHOWN_MOST));
	next = xasprintf("%s '%s'; did you mean %s?", what,
	    shown(pattern, SHOWN_MOST), list);
	free(list);
	return next;
}

/* The cause for a pattern that matches only ids run by name alone: it
 * lists them; NULL when it matches none of them either. */
static char *
named_only_cause(const char *pattern, const char *const *ids,
    const bool *named_only, size_t n)
{
	char	*list = NULL, *next;
	size_t	 i;

	for (i = 0; named_only != NULL && i < n; i++) {
		if (!named_only[i] || fnmatch(pattern, ids[i], 0) != 0)
			continue;
		next = xasprintf("%s%s%s", list ? list : "", list ? ", " : "",
		    ids[i]);
		free(list);
		list = next;
	}
	if (list == NULL)
		return NULL;
	next = xasprintf("'%s' matches only the experiments' probes, which run "
	    "only when named: %s", pattern, list);
	free(list);
	return next;
}

int
ids_select(const char *patterns, const char *const *ids,
    const bool *named_only, size_t n, bool *selected, char **cause)
{
	char	*copy, *token, *next, *end;
	size_t	 i;
	bool	 matched;
	int	 rc = 0;

	for (i = 0; i < n; i++)
		selected[i] = false;

	copy = xstrdup(patterns);
	for (token = copy; token != NULL; token = next) {
		if ((next = strchr(token, ',')) != NULL)
			*next++ = '\0';
		token += strspn(token, " \t");
		end = token + strlen(token);
		while (end > token && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';

		if (*token == '\0') {
			*cause = xasprintf("empty variant name in '%s'",
			    shown(patterns, SHOWN_MOST));
			rc = -1;
			break;
		}
		matched = false;
		for (i = 0; i < n; i++) {
			if (named_only != NULL && named_only[i] ?
			    strcmp(token, ids[i]) == 0 :
			    strcmp(token, "all") == 0 ||
			    fnmatch(token, ids[i], 0) == 0) {
				selected[i] = true;
				matched = true;
			}
		}
		if (!matched) {
			*cause = named_only_cause(token, ids, named_only, n);
			if (*cause == NULL)
				*cause = no_match_cause(token, ids, n);
			rc = -1;
			break;
		}
	}
	free(copy);
	return rc;
}

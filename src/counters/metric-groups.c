/*
 * metric-groups.c - metric sets by name: the group files (metrics/NAME.txt)
 * searched for in their directories, loaded and listed.  The format
 * itself is metric-sets.c's.  No GPU and no CUPTI.  See counters.h.
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ewbench.h"
#include "counters/counters.h"
#include "base/paths.h"

/* A group file is a few hundred bytes; anything this big is a mistake. */
#define METRIC_FILE_MAX		(1024 * 1024)
#define METRIC_DIRS_MAX		(1 + PATHS_MAX)

static size_t
metric_dirs(char *dirs[METRIC_DIRS_MAX])
{
	const char	*env = getenv("EWBENCH_METRICS_DIR");
	size_t		 n = 0;

	if (env != NULL && *env != '\0')
		dirs[n++] = xstrdup(env);
	return n + paths_data_dirs("metrics", dirs + n);
}

char *
metric_set_search_path(void)
{
	char	*dirs[METRIC_DIRS_MAX], *path = NULL;
	size_t	 n, i;

	n = metric_dirs(dirs);
	for (i = 0; i < n; i++)
		list_append(&path, ", ", dirs[i]);
	paths_free(dirs, n);
	return path == NULL ? xstrdup("(none: set EWBENCH_METRICS_DIR)") : path;
}

static bool
group_name_ok(const char *name)
{
	const char	*p;

	if (*name == '\0')
		return false;
	for (p = name; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return false;
	}
	return true;
}

static int
read_text(const char *path, char **text, char **cause)
{
	size_t	 len;

	if (read_user_file(path, METRIC_FILE_MAX, text, &len, cause) != 0)
		return -1;
	if (strlen(*text) != len) {
		*cause = xasprintf("%s: not a text file", path);
		free(*text);
		*text = NULL;
		return -1;
	}
	return 0;
}

static int
load_file(const char *path, const char *name, struct metric_set *set,
    char **cause)
{
	char	*text, *error;

	if (read_text(path, &text, cause) != 0)
		return METRIC_SET_BROKEN;
	if (metric_set_parse(text, name, set, &error) != 0) {
		*cause = xasprintf("%s: %s", path, error);
		free(error);
		free(text);
		return METRIC_SET_BROKEN;
	}
	free(text);
	set->path = xstrdup(path);
	return 0;
}

/* Base name of a path without ".txt": the set's name. */
static char *
name_of_path(const char *path)
{
	const char	*base = strrchr(path, '/');
	char		*name;
	size_t		 len;

	base = base == NULL ? path : base + 1;
	name = xstrdup(base);
	len = strlen(name);
	if (len > 4 && strcmp(name + len - 4, ".txt") == 0)
		name[len - 4] = '\0';
	return name;
}

static char *
groups_text(void)
{
	char	**names, *list = NULL;
	size_t	  count, i;

	metric_set_groups(&names, &count);
	for (i = 0; i < count; i++) {
		list_append(&list, ", ", names[i]);
		free(names[i]);
	}
	free(names);
	return list == NULL ? xstrdup("none") : list;
}

int
metric_set_load(const char *spec, struct metric_set *set, char **cause)
{
	char	*dirs[METRIC_DIRS_MAX], *path, *name, *where, *groups, *moved;
	size_t	 n, i;
	int	 rc;

	memset(set, 0, sizeof *set);
	if (spec == NULL || *spec == '\0') {
		*cause = xstrdup("empty metric set (give a group name or "
		    "metric names)");
		return -1;
	}
	if (strchr(spec, '/') != NULL) {
		name = name_of_path(spec);
		rc = load_file(spec, name, set, cause);
		free(name);
		return rc;
	}
	if (strstr(spec, "__") != NULL || strchr(spec, ',') != NULL)
		return metric_set_parse_list(spec, set, cause);

	if (!group_name_ok(spec)) {
		*cause = xasprintf("'%s' is neither a metric group nor a "
		    "metric name", shown(spec, SHOWN_MOST));
		return -1;
	}
	n = metric_dirs(dirs);
	for (i = 0; i < n; i++) {
		path = xasprintf("%s/%s.txt", dirs[i], spec);
		if (access(path, F_OK) == 0) {
			rc = load_file(path, spec, set, cause);
			free(path);
			paths_free(dirs, n);
			return rc;
		}
		free(path);
	}
	paths_free(dirs, n);

	where = metric_set_search_path();
	groups = groups_text();
	moved = paths_moved_build_note();
	*cause = xasprintf("no metric group '%s' (searched %s; groups: %s)%s%s",
	    spec, where, groups, moved != NULL ? "; " : "",
	    moved != NULL ? moved : "");
	free(where);
	free(groups);
	free(moved);
	return -1;
}

static int
compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
metric_set_groups(char ***names, size_t *count)
{
	char		*dirs[METRIC_DIRS_MAX], *name;
	DIR		*d;
	struct dirent	*e;
	size_t		 n, i, j, len;
	bool		 seen;

	*names = NULL;
	*count = 0;
	n = metric_dirs(dirs);
	for (i = 0; i < n; i++) {
		if ((d = opendir(dirs[i])) == NULL)
			continue;
		while ((e = readdir(d)) != NULL) {
			len = strlen(e->d_name);
			if (len <= 4 || strcmp(e->d_name + len - 4, ".txt") != 0)
				continue;
			name = name_of_path(e->d_name);
			seen = !group_name_ok(name);
			for (j = 0; j < *count && !seen; j++)
				seen = strcmp((*names)[j], name) == 0;
			if (seen) {
				free(name);
				continue;
			}
			*names = xrealloc(*names, (*count + 1) * sizeof **names);
			(*names)[(*count)++] = name;
		}
		closedir(d);
	}
	paths_free(dirs, n);
	if (*count > 0)
		qsort(*names, *count, sizeof **names, compare_names);
}

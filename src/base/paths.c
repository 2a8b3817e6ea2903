/*
 * paths.c - where ewbench's data lives, found from the running binary.
 * See paths.h.
 */
#define _GNU_SOURCE
#include <sys/stat.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "base/ewbench.h"
#include "base/paths.h"

char *
paths_relative(const char *from, const char *to)
{
	size_t	 common = 0, i, ups = 0;
	char	*out, *next;

	/* The longest common prefix that ends at a component boundary. */
	for (i = 0; from[i] != '\0' && from[i] == to[i]; i++) {
		if (from[i] == '/')
			common = i;
	}
	if ((from[i] == '\0' || from[i] == '/') &&
	    (to[i] == '\0' || to[i] == '/'))
		common = i;
	for (i = common; from[i] != '\0'; i++) {
		if (from[i] == '/' && from[i + 1] != '/' && from[i + 1] != '\0')
			ups++;
	}
	out = xstrdup("");
	while (ups-- > 0) {
		next = xasprintf("%s%s..", out, *out != '\0' ? "/" : "");
		free(out);
		out = next;
	}
	while (to[common] == '/')
		common++;
	if (to[common] != '\0') {
		next = xasprintf("%s%s%s", out, *out != '\0' ? "/" : "",
		    to + common);
		free(out);
		out = next;
	}
	if (*out == '\0') {
		free(out);
		out = xstrdup(".");
	}
	return out;
}

/* The directory of the running binary, resolved; NULL if unknown. */
static char *
exe_dir(void)
{
	char	*exe, *slash;

	if ((exe = realpath("/proc/self/exe", NULL)) == NULL)
		return NULL;
	if ((slash = strrchr(exe, '/')) != NULL)
		*(slash == exe ? slash + 1 : slash) = '\0';
	return exe;
}

static bool
same_dir(const char *a, const char *b)
{
	char	*ra = realpath(a, NULL), *rb = realpath(b, NULL);
	bool	 same = ra != NULL && rb != NULL && strcmp(ra, rb) == 0;

	free(ra);
	free(rb);
	return same;
}

static bool
exists(const char *dir, const char *file)
{
	char	*path = xasprintf("%s/%s", dir, file);
	bool	 there = access(path, F_OK) == 0;

	free(path);
	return there;
}

/* A build tree holds autoconf's config.status; an installed bin/ never. */
static bool
build_tree(const struct paths_config *c, const char *here)
{
	return same_dir(here, c->builddir) || exists(here, "config.status");
}

/* Appends dir/what to dirs unless it is there already. */
static void
add(char *dirs[PATHS_MAX], size_t *n, const char *dir, const char *what)
{
	char	*path = xasprintf("%s/%s", dir, what);
	size_t	 i;

	for (i = 0; i < *n; i++) {
		if (strcmp(dirs[i], path) == 0 || same_dir(dirs[i], path)) {
			free(path);
			return;
		}
	}
	dirs[(*n)++] = path;
}

size_t
paths_candidates(const struct paths_config *c, const char *here,
    const char *what, char *dirs[PATHS_MAX])
{
	char	*rel, *data;
	size_t	 n = 0;

	if (here != NULL && build_tree(c, here)) {
		/* Built in its source tree: the source is beside it, moved
		 * or not.  Else (a separate build directory) the source
		 * tree it was configured from. */
		if (exists(here, "configure.ac"))
			add(dirs, &n, here, what);
		add(dirs, &n, c->srcdir, what);
		return n;
	}
	if (here != NULL) {
		rel = paths_relative(c->bindir, c->pkgdatadir);
		data = xasprintf("%s/%s", here, rel);
		add(dirs, &n, data, what);
		free(data);
		free(rel);
	}
	add(dirs, &n, c->pkgdatadir, what);
	return n;
}

char *
paths_moved_note(const struct paths_config *c, const char *here)
{
	if (here == NULL || same_dir(here, c->builddir) ||
	    !exists(here, "config.status"))
		return NULL;
	return xasprintf("this ewbench is a build tree's, moved from %s (its "
	    "source tree: %s): run ./configure and make in %s, or make "
	    "install", c->builddir, c->srcdir, here);
}

static const struct paths_config configured = {
	EWB_BINDIR, EWB_PKGDATADIR, EWB_SRCDIR, EWB_BUILDDIR
};

size_t
paths_data_dirs(const char *what, char *dirs[PATHS_MAX])
{
	char	*here = exe_dir();
	size_t	 n = paths_candidates(&configured, here, what, dirs);

	free(here);
	return n;
}

char *
paths_data_dir(const char *what)
{
	char		*dirs[PATHS_MAX], *found = NULL;
	struct stat	 st;
	size_t		 n = paths_data_dirs(what, dirs), i;

	for (i = 0; i < n && found == NULL; i++) {
		if (stat(dirs[i], &st) == 0 && S_ISDIR(st.st_mode))
			found = realpath(dirs[i], NULL);
	}
	paths_free(dirs, n);
	return found;
}

char *
paths_moved_build_note(void)
{
	char	*here = exe_dir(), *note;

	note = paths_moved_note(&configured, here);
	free(here);
	return note;
}

char *
paths_installed_rule(void)
{
	return paths_relative(EWB_BINDIR, EWB_PKGDATADIR);
}

void
paths_free(char *dirs[], size_t n)
{
	while (n > 0)
		free(dirs[--n]);
}

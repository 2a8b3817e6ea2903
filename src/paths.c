/*
 * paths.c - where ewbench's data lives, found from the running binary.
 * See paths.h.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "ewbench.h"
#include "paths.h"

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

size_t
paths_data_dirs(const char *what, char *dirs[PATHS_MAX])
{
	char	*here = exe_dir(), *rel;
	size_t	 n = 0;

	if (here != NULL && same_dir(here, EWB_BUILDDIR)) {
		dirs[n++] = xasprintf("%s/%s", EWB_SRCDIR, what);
		free(here);
		return n;
	}
	if (here != NULL) {
		rel = paths_relative(EWB_BINDIR, EWB_PKGDATADIR);
		dirs[n++] = xasprintf("%s/%s/%s", here, rel, what);
		free(rel);
		free(here);
	}
	dirs[n] = xasprintf("%s/%s", EWB_PKGDATADIR, what);
	if (n > 0 && same_dir(dirs[0], dirs[n]))
		free(dirs[n]);
	else
		n++;
	return n;
}

void
paths_free(char *dirs[], size_t n)
{
	while (n > 0)
		free(dirs[--n]);
}

/*
 * paths.h - where ewbench's data lives (the metric groups, the Python
 * analysis, the examples, the docs), found the way git finds its helpers:
 * from the running binary.
 *
 * The build tree's ./ewbench uses the source tree.  So does a build tree
 * that was moved (a binary with autoconf's config.status beside it): the
 * source beside it when it was built in its source tree (the README's
 * way), else the source tree it was configured from, where that still is.
 * Any other binary is an installed one: it looks relative to itself first
 * (bindir to pkgdatadir, as configured), so that `make install
 * prefix=DIR`, `DESTDIR=` staging and a moved installation work once the
 * source tree is gone, then in the configured pkgdatadir.
 */
#ifndef EWB_PATHS_H
#define EWB_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#define PATHS_MAX	2

/* What the build configured (config.h and the Makefile's -D flags);
 * tests pass their own. */
struct paths_config {
	const char	*bindir;
	const char	*pkgdatadir;
	const char	*srcdir;	/* absolute */
	const char	*builddir;	/* absolute */
};

/* Candidate directories for `what` (a folder of pkgdatadir: "metrics",
 * "python", "examples", "docs"), most preferred first, malloc'd; returns
 * how many. */
size_t	 paths_data_dirs(const char *what, char *dirs[PATHS_MAX]);
void	 paths_free(char *dirs[], size_t n);
/* The first of them that is a directory, resolved (no "..", no links),
 * malloc'd; NULL when none is. */
char	*paths_data_dir(const char *what);
/* For a message that found nothing there: when this ewbench is a moved
 * build tree's, a sentence naming where it was built and the fix; else
 * NULL.  Malloc'd. */
char	*paths_moved_build_note(void);
/* What an installed ewbench follows from its bin/ to its data:
 * "../share/ewbench" as configured.  Malloc'd. */
char	*paths_installed_rule(void);

/* The same from a given configuration and binary directory `here` (NULL:
 * unknown), for tests. */
size_t	 paths_candidates(const struct paths_config *, const char *here,
	    const char *what, char *dirs[PATHS_MAX]);
char	*paths_moved_note(const struct paths_config *, const char *here);

/* The relative path that leads from directory `from` to `to`, both
 * absolute: "../share/ewbench" from "/usr/bin" to "/usr/share/ewbench";
 * "." when they are the same.  Malloc'd. */
char	*paths_relative(const char *from, const char *to);

#endif

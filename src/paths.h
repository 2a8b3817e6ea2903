/*
 * paths.h - where ewbench's data lives (the metric groups, the Python
 * analysis), found the way git finds its helpers: from the running binary.
 *
 * The build tree's ./ewbench uses the source tree.  Any other binary is an
 * installed one: it looks relative to itself first (bindir to pkgdatadir,
 * as configured), so that `make install prefix=DIR`, `DESTDIR=` staging
 * and a moved installation work once the source tree is gone, then in the
 * configured pkgdatadir.
 */
#ifndef EWB_PATHS_H
#define EWB_PATHS_H

#include <stddef.h>

#define PATHS_MAX	2

/* Candidate directories for `what` (a folder of pkgdatadir: "metrics",
 * "python"), most preferred first, malloc'd; returns how many. */
size_t	 paths_data_dirs(const char *what, char *dirs[PATHS_MAX]);
void	 paths_free(char *dirs[], size_t n);

/* The relative path that leads from directory `from` to `to`, both
 * absolute: "../share/ewbench" from "/usr/bin" to "/usr/share/ewbench";
 * "." when they are the same.  Malloc'd. */
char	*paths_relative(const char *from, const char *to);

#endif

/*
 * test-paths.c - the relative path from bindir to pkgdatadir that an
 * installed ewbench follows to its data (paths.c), and where a binary that
 * is not the build tree's looks.
 */
#include <stdlib.h>

#include "config.h"
#include "paths.h"
#include "tests/unit/check.h"

static void
relative(const char *from, const char *to, const char *want)
{
	char	*got = paths_relative(from, to);

	CHECK_STR(got, want);
	free(got);
}

int
main(void)
{
	char	*dirs[PATHS_MAX];
	size_t	 n;

	relative("/usr/local/bin", "/usr/local/share/ewbench",
	    "../share/ewbench");
	relative("/usr/bin", "/usr/bin", ".");
	relative("/opt/ewbench/bin/", "/opt/ewbench/share/ewbench",
	    "../share/ewbench");
	relative("/a/b", "/a/bc", "../bc");
	relative("/a/bc", "/a/b", "../b");
	relative("/", "/usr/share/ewbench", "usr/share/ewbench");
	relative("/x/y/z", "/", "../../..");
	relative("/usr/bin", "/usr/bin/sub", "sub");

	/* This test program is not the build tree's ewbench: it looks
	 * beside itself first, then in the configured pkgdatadir. */
	n = paths_data_dirs("metrics", dirs);
	CHECK(n >= 1 && n <= PATHS_MAX);
	CHECK_STR(dirs[n - 1], EWB_PKGDATADIR "/metrics");
	paths_free(dirs, n);
	return check_exit();
}

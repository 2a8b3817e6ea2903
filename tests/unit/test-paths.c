/*
 * test-paths.c - the relative path from bindir to pkgdatadir that an
 * installed ewbench follows to its data (paths.c), and where each kind of
 * binary looks: the build tree's, a build tree moved (in its source tree,
 * or a separate build directory), an installed one, moved or not.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "base/ewbench.h"
#include "base/paths.h"
#include "tests/unit/check.h"

static void
relative(const char *from, const char *to, const char *want)
{
	char	*got = paths_relative(from, to);

	CHECK_STR(got, want);
	free(got);
}

/* The candidates for "metrics" from `here` under c, as "a|b". */
static char *
candidates(const struct paths_config *c, const char *here)
{
	char	*dirs[PATHS_MAX], *text;
	size_t	 n = paths_candidates(c, here, "metrics", dirs);

	text = n == 1 ? xstrdup(dirs[0]) : n == 2 ?
	    xasprintf("%s|%s", dirs[0], dirs[1]) : xstrdup("?");
	paths_free(dirs, n);
	return text;
}

/* The candidates from here are want, which this frees. */
static void
expect_candidates(const struct paths_config *c, const char *here, char *want)
{
	char	*got = candidates(c, here);

	CHECK_STR(got, want);
	free(got);
	free(want);
}

static void
touch(const char *dir, const char *file)
{
	char	*path = xasprintf("%s/%s", dir, file);
	FILE	*f = fopen(path, "w");

	CHECK(f != NULL);
	if (f != NULL)
		fclose(f);
	free(path);
}

static void
test_candidates(void)
{
	char	 tmpl[] = "/tmp/ewbench-paths-XXXXXX", *root, *got, *want;
	char	*src, *build, *clone, *moved, *bin, *note;
	struct paths_config c;

	CHECK((root = mkdtemp(tmpl)) != NULL);
	if (root == NULL)
		return;
	src = xasprintf("%s/src", root);
	build = xasprintf("%s/build", root);
	clone = xasprintf("%s/clone", root);
	moved = xasprintf("%s/moved", root);
	bin = xasprintf("%s/opt/bin", root);
	mkdir(src, 0755);
	mkdir(build, 0755);
	mkdir(clone, 0755);
	mkdir(moved, 0755);
	want = xasprintf("%s/opt", root);
	mkdir(want, 0755);
	free(want);
	mkdir(bin, 0755);
	touch(build, "config.status");
	touch(clone, "config.status");
	touch(clone, "configure.ac");
	touch(moved, "config.status");
	c.bindir = "/usr/local/bin";
	c.pkgdatadir = "/usr/local/share/ewbench";
	c.srcdir = src;
	c.builddir = build;

	/* The build tree's: the source tree. */
	expect_candidates(&c, build, xasprintf("%s/metrics", src));
	/* A clone built in place and moved: the source beside it, then
	 * where it was built from. */
	expect_candidates(&c, clone, xasprintf("%s/metrics|%s/metrics",
	    clone, src));
	/* A separate build directory moved: its source tree. */
	expect_candidates(&c, moved, xasprintf("%s/metrics", src));
	/* Installed, wherever: beside itself, then as configured. */
	expect_candidates(&c, bin, xasprintf("%s/../share/ewbench/metrics|"
	    "/usr/local/share/ewbench/metrics", bin));
	expect_candidates(&c, NULL,
	    xstrdup("/usr/local/share/ewbench/metrics"));

	/* What a moved build tree says when its data is not found. */
	CHECK(paths_moved_note(&c, build) == NULL);
	CHECK(paths_moved_note(&c, bin) == NULL);
	note = paths_moved_note(&c, moved);
	want = xasprintf("this ewbench is a build tree's, moved from %s (its "
	    "source tree: %s): run ./configure and make in %s, or make "
	    "install", build, src, moved);
	CHECK(note != NULL);
	if (note != NULL)
		CHECK_STR(note, want);
	free(note);
	free(want);

	got = xasprintf("rm -rf '%s'", root);
	CHECK(system(got) == 0);
	free(got);
	free(src);
	free(build);
	free(clone);
	free(moved);
	free(bin);
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
	test_candidates();
	return check_exit();
}

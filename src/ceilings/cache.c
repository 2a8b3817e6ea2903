/*
 * cache.c - the ceilings cache: a complete `ewbench ceilings` run of a GPU,
 * kept for the analysis of that GPU's later runs (docs/ceilings.md, "The
 * ceilings cache").  An entry is <cache>/ceilings/<GPU UUID>/<revision>/
 * holding the run's ceilings.csv and run.json as written: keyed by the GPU
 * (its UUID, one physical device) and the build that measured it (the git
 * revision run.json records).  Another GPU or another build is another
 * entry; a newer measurement of the same replaces it.  The analysis
 * (analysis/core/ceilings_cache.py) also refuses an entry whose driver
 * differs from the run's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"
#include "ceilings/ceilings.h"
#include "revision.h"

/* The most bytes of either file copied (run.json is a few KiB). */
#define CACHE_FILE_MAX	(4u << 20)

/* A UUID or revision as one path component: letters, digits, '-', '.',
 * not empty, not starting with '.'. */
static bool
component(const char *s)
{
	if (*s == '\0' || *s == '.')
		return false;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '-' || *s == '.'))
			return false;
	return true;
}

/* Copies dir/name to entry/name (0600, atomically). */
static int
copy_file(const char *dir, const char *entry, const char *name,
    char **cause)
{
	char	*from = xasprintf("%s/%s", dir, name);
	char	*to = xasprintf("%s/%s", entry, name);
	char	*text = NULL;
	size_t	 len = 0;
	int	 rc;

	rc = read_user_file(from, CACHE_FILE_MAX, &text, &len, cause);
	if (rc == 0)
		rc = file_write_atomic_mode(to, text, len, 0600, cause);
	free(text);
	free(from);
	free(to);
	return rc;
}

void
ceilings_cache_store(const char *run_dir, const char *uuid, bool quiet)
{
	char	*why = NULL, *root, *entry = NULL, *cause = NULL;

	if (!component(uuid) || !component(EWB_GIT_REVISION))
		return;
	if ((root = private_cache_dir(&why)) == NULL) {
		if (why != NULL)
			fprintf(stderr, "ewbench: ceilings cache %s: not "
			    "cached\n", why);
		free(why);
		return;
	}
	entry = xasprintf("%s/ceilings/%s/%s", root, uuid, EWB_GIT_REVISION);
	if (make_dirs(entry, 0700, NULL, NULL) != 0)
		cause = xasprintf("%s: %s", entry, strerror(errno));
	/* ceilings.csv first: until run.json follows, the entry's run.json
	 * names another run, whose rows these are not, and the analysis
	 * refuses the pair (check_run_id). */
	else if (copy_file(run_dir, entry, "ceilings.csv", &cause) != 0 ||
	    copy_file(run_dir, entry, "run.json", &cause) != 0)
		;
	else if (!quiet)
		printf("ewbench: ceilings cached for this GPU and build in "
		    "%s\n", entry);
	if (cause != NULL) {
		fprintf(stderr, "ewbench: ceilings cache: %s (not cached)\n",
		    cause);
		free(cause);
	}
	free(entry);
	free(root);
}

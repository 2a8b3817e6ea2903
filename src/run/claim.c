/*
 * claim.c - the run directory: named (output_default_dir, output_run_id),
 * claimed before anything is written to it (for a run or a fleet's
 * parent, under a lock, refused where run files already are), released
 * again when nothing was measured, checked writable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "run/output.h"

/* Removes the directories a claim made: deepest and its parents, up to
 * and including top (both made by the claim), innermost first; stops at
 * the first that is not empty. */
static void
remove_made_dirs(const char *deepest, const char *top)
{
	char	*path, *slash;

	if (top == NULL)
		return;
	path = xstrdup(deepest);
	while (rmdir(path) == 0 && strcmp(path, top) != 0 &&
	    (slash = strrchr(path, '/')) != NULL && slash != path)
		*slash = '\0';
	free(path);
}

/* What exit status a failed file operation on --out earns: the user's
 * choice of name is a usage error, the file system's state an I/O one. */
static int
claim_errno_code(int error)
{
	return error == ENAMETOOLONG || error == ENOTDIR || error == ELOOP ?
	    EWB_EXIT_USAGE : EWB_EXIT_ERROR;
}

/* mkdir -p --out: dir and its parents (make_dirs).  *top is the first
 * (outermost) directory this call created, malloc'd, or NULL; on failure
 * the directories made are removed again. */
static int
make_out_dirs(const char *dir, char **top, char **cause)
{
	char	*failed, *up;
	int	 error, code;

	if (make_dirs(dir, 0777, top, &failed) == 0)
		return 0;
	error = errno;
	code = claim_errno_code(error);
	*cause = xasprintf("--out %s: cannot create %s: %s", dir, failed,
	    strerror(error));
	if (*top != NULL) {
		up = strrchr(failed, '/');
		if (up != NULL && up != failed)
			*up = '\0';
		remove_made_dirs(failed, *top);
		free(*top);
		*top = NULL;
	}
	free(failed);
	return code;
}

/* Files that mark a directory as holding (part of) a run, or a fleet. */
static const char *const run_files[] = {
	"run.json", "timing.csv", "metrics.csv", "sass.csv", "ceilings.csv",
	"energy.csv", "fleet.json"
};

int
output_check_trace(const char *trace, const char *out, char **cause)
{
	const char	*slash = strrchr(trace, '/');
	const char	*name = slash != NULL ? slash + 1 : trace;
	char		*dir = slash != NULL ? xasprintf("%.*s",
			    (int)(slash - trace > 0 ? slash - trace : 1), trace) :
			    xstrdup(".");
	char		 a[PATH_MAX], b[PATH_MAX];
	size_t		 i;
	int		 rc = 0;

	/* Same directory by its real path (the out directory not made yet
	 * cannot hold the trace's, which must exist). */
	if (out != NULL && realpath(dir, a) != NULL &&
	    realpath(out, b) != NULL && strcmp(a, b) == 0)
		for (i = 0; i < sizeof run_files / sizeof run_files[0]; i++)
			if (strcmp(name, run_files[i]) == 0) {
				*cause = xasprintf("--trace %s: is the run's "
				    "own %s in --out %s; name the trace "
				    "otherwise (e.g. timeline.json)", trace,
				    run_files[i], out);
				rc = -1;
				break;
			}
	free(dir);
	return rc;
}

/* The lock every claim takes, for run directories and fleet parents
 * alike: created exclusively, held only while the claim looks for run
 * files and creates its marker, so of two claims of one directory one
 * sees the other's marker or cannot take the lock. */
#define CLAIM_LOCK	".ewbench-claim"

/* The longest name written in a claimed directory: file_write_atomic's
 * temporary file for fleet.json. */
#define LONGEST_NAME	"/.fleet.json.XXXXXX"

int
output_claim_dir(const char *dir, char **created, char **cause)
{
	return output_claim_as(dir, "run.json", created, cause);
}

/* EWB_EXIT_USAGE with the cause when dir holds a run file, else 0. */
static int
holds_run(const char *dir, char **cause)
{
	struct stat	 st;
	char		*path;
	size_t		 i;

	for (i = 0; i < sizeof run_files / sizeof run_files[0]; i++) {
		path = xasprintf("%s/%s", dir, run_files[i]);
		if (lstat(path, &st) == 0) {
			*cause = xasprintf("--out %s already holds a run (%s); "
			    "choose another directory", dir, run_files[i]);
			free(path);
			return EWB_EXIT_USAGE;
		}
		free(path);
	}
	return 0;
}

/* What a claim of dir refuses for its name alone: an empty one, one too
 * long for its files, one that is not a directory. */
static int
unusable_name(const char *dir, char **cause)
{
	struct stat	 st;

	if (dir[0] == '\0') {
		*cause = xstrdup("--out: an empty directory name");
		return EWB_EXIT_USAGE;
	}
	if (strlen(dir) + sizeof LONGEST_NAME > PATH_MAX) {
		*cause = xasprintf("--out: a path of %zu characters leaves no "
		    "room for its files (at most %zu)", strlen(dir),
		    (size_t)PATH_MAX - sizeof LONGEST_NAME);
		return EWB_EXIT_USAGE;
	}
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		*cause = xasprintf("--out %s is not a directory", dir);
		return EWB_EXIT_USAGE;
	}
	return 0;
}

int
output_check_claimable(const char *dir, char **cause)
{
	int	code;

	if ((code = unusable_name(dir, cause)) != 0)
		return code;
	return holds_run(dir, cause);
}

/* With the lock held: refuses a directory that holds a run, then creates
 * the marker. */
static int
claim_locked(const char *dir, const char *marker, char **cause)
{
	static const char claimed[] = "{\"status\": \"claimed\"}\n";
	char		*path;
	ssize_t		 n;
	int		 fd, code, error;

	if ((code = holds_run(dir, cause)) != 0)
		return code;
	path = xasprintf("%s/%s", dir, marker);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		code = claim_errno_code(errno);
		*cause = xasprintf("--out %s: cannot claim %s: %s", dir, path,
		    strerror(errno));
		free(path);
		return code;
	}
	/* A short write is a full disk that took part of it. */
	n = write(fd, claimed, sizeof claimed - 1);
	error = n < 0 ? errno : ENOSPC;
	if (close(fd) != 0 && n == (ssize_t)sizeof claimed - 1) {
		error = errno;
		n = -1;
	}
	if (n != (ssize_t)sizeof claimed - 1) {
		*cause = xasprintf("--out %s: cannot write %s: %s", dir, path,
		    strerror(error));
		unlink(path);
		free(path);
		return EWB_EXIT_ERROR;
	}
	free(path);
	return 0;
}

int
output_claim_as(const char *dir, const char *marker, char **created,
    char **cause)
{
	struct stat	 st;
	sigset_t	 block, old;
	char		*lock;
	int		 fd, code;

	*created = NULL;
	if ((code = unusable_name(dir, cause)) != 0)
		return code;
	if (stat(dir, &st) != 0 &&
	    (code = make_out_dirs(dir, created, cause)) != 0)
		return code;
	/* No signal may leave the lock behind. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGPIPE);
	sigprocmask(SIG_BLOCK, &block, &old);
	lock = xasprintf("%s/%s", dir, CLAIM_LOCK);
	fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0 && errno == EEXIST) {
		*cause = xasprintf("--out %s is being claimed by another "
		    "ewbench (or one was killed while claiming it: then "
		    "remove %s)", dir, lock);
		code = EWB_EXIT_USAGE;
	} else if (fd < 0) {
		code = claim_errno_code(errno);
		*cause = xasprintf("--out %s: cannot claim %s: %s", dir, lock,
		    strerror(errno));
	} else {
		close(fd);
		code = claim_locked(dir, marker, cause);
		unlink(lock);
	}
	free(lock);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (code != 0) {
		remove_made_dirs(dir, *created);
		free(*created);
		*created = NULL;
	}
	return code;
}

void
output_release_claim(const char *dir, char *created)
{
	output_release_as(dir, "run.json", created);
}

void
output_release_as(const char *dir, const char *marker, char *created)
{
	char	*path;
	size_t	 i;

	/* The claim found no run file: every one there now is this run's. */
	for (i = 0; i < sizeof run_files / sizeof run_files[0]; i++) {
		if (strcmp(run_files[i], "fleet.json") == 0 &&
		    strcmp(marker, "fleet.json") != 0)
			continue;
		path = xasprintf("%s/%s", dir, run_files[i]);
		unlink(path);
		free(path);
	}
	remove_made_dirs(dir, created);
	free(created);
}

int
output_check_writable(const char *path, const char *what, char **cause)
{
	struct stat	 st;
	const char	*slash = strrchr(path, '/'), *why = NULL;
	char		*dir;

	if (*path == '\0') {
		*cause = xasprintf("%s: an empty file name", what);
		return -1;
	}
	if (slash != NULL && slash[1] == '\0') {
		*cause = xasprintf("%s %s names a directory, not a file", what,
		    path);
		return -1;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		*cause = xasprintf("%s %s is a directory", what, path);
		return -1;
	}
	if (strlen(path) + sizeof ".XXXXXX" > PATH_MAX) {
		*cause = xasprintf("%s: a path of %zu characters is too long",
		    what, strlen(path));
		return -1;
	}
	dir = slash == NULL ? xstrdup(".") : slash == path ? xstrdup("/") :
	    xasprintf("%.*s", (int)(slash - path), path);
	if (stat(dir, &st) != 0)
		why = strerror(errno);
	else if (!S_ISDIR(st.st_mode))
		why = "not a directory";
	else if (access(dir, W_OK | X_OK) != 0)
		why = strerror(errno);
	if (why != NULL) {
		*cause = xasprintf("%s %s: cannot write in %s: %s", what, path,
		    dir, why);
		free(dir);
		return -1;
	}
	free(dir);
	return 0;
}

void
output_utc_now(char *buf, size_t len)
{
	time_t		now = time(NULL);
	struct tm	tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void
output_default_dir(const struct device_facts *d, const char *prefix,
    char *buf, size_t len)
{
	char		slug[64];
	time_t		now = time(NULL);
	struct tm	tm;

	device_slug(d, slug, sizeof slug);
	gmtime_r(&now, &tm);
	snprintf(buf, len, "%s-%s-", prefix, slug);
	strftime(buf + strlen(buf), len - strlen(buf), "%Y%m%d-%H%M%S", &tm);
}

void
output_run_id(const struct device_facts *d, char *buf, size_t len)
{
	char		slug[64], stamp[32];
	time_t		now = time(NULL);
	struct tm	tm;

	device_slug(d, slug, sizeof slug);
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	snprintf(buf, len, "%s-%s-%x", stamp, slug, (unsigned)getpid());
}

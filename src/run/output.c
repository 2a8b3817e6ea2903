/*
 * output.c - writes a run directory (docs/data-format.md).
 *
 * CSV rows go out one complete line at a time (csv.c); run.json is replaced
 * atomically at the start, after every point, and at the end, so an
 * interrupted run always leaves a readable manifest and complete rows.
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
#include "run/energy.h"
#include "run/output.h"
#include "device/placement.h"
#include "run/sass.h"

/* Header rows from columns.def: the key, then each file's own columns. */
#define NAME(name, ...)		#name,
#define SKIP(name, ...)
static const char *const timing_header[] = {
#define KEY		NAME
#define TIMING		NAME
#define METRICS		SKIP
#define CEILINGS	SKIP
#define SASS		SKIP
#define ENERGY		SKIP
#include "run/columns.def"
#undef TIMING
#undef METRICS
};

static const char *const metrics_header[] = {
#define TIMING		SKIP
#define METRICS		NAME
#include "run/columns.def"
#undef KEY
#undef TIMING
#undef METRICS
#undef SASS
};

static const char *const sass_header[] = {
#define KEY		SKIP
#define TIMING		SKIP
#define METRICS		SKIP
#define SASS		NAME
#include "run/columns.def"
#undef KEY
#undef TIMING
#undef METRICS
#undef SASS
#undef ENERGY
};

static const char *const energy_header[] = {
#define KEY		NAME
#define TIMING		SKIP
#define METRICS		SKIP
#define SASS		SKIP
#define ENERGY		NAME
#include "run/columns.def"
#undef KEY
#undef TIMING
#undef METRICS
#undef CEILINGS
#undef SASS
#undef ENERGY
};

#define COUNT(a) (sizeof (a) / sizeof (a)[0])

const char *
cache_name(enum cache_mode c)
{
	return c == CACHE_COLD ? "cold" : "warm";
}

uint64_t
point_bytes_moved(const struct point *p)
{
	return p->n * (uint64_t)(p->v->read_bytes + p->v->write_bytes);
}

uint64_t
point_footprint(const struct point *p)
{
	return p->n * variant_footprint_per_element(p->v);
}

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

/* With the lock held: refuses a directory that holds a run, then creates
 * the marker. */
static int
claim_locked(const char *dir, const char *marker, char **cause)
{
	static const char claimed[] = "{\"status\": \"claimed\"}\n";
	struct stat	 st;
	char		*path;
	size_t		 i;
	ssize_t		 n;
	int		 fd, code, error;

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
	if (stat(dir, &st) != 0) {
		if ((code = make_out_dirs(dir, created, cause)) != 0)
			return code;
	} else if (!S_ISDIR(st.st_mode)) {
		*cause = xasprintf("--out %s is not a directory", dir);
		return EWB_EXIT_USAGE;
	}
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

static void
host_json(struct json *j)
{
	struct utsname	 u;
	char		 host[256] = "unknown", cpu[256] = "unknown", line[512];
	char		 os[400] = "unknown";
	FILE		*f;

	gethostname(host, sizeof host - 1);
	if (uname(&u) == 0)
		snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release,
		    u.machine);
	if ((f = fopen("/proc/cpuinfo", "r")) != NULL) {
		while (fgets(line, sizeof line, f) != NULL) {
			char *colon = strchr(line, ':');

			if (strncmp(line, "model name", 10) != 0 ||
			    colon == NULL)
				continue;
			snprintf(cpu, sizeof cpu, "%s", colon + 2);
			cpu[strcspn(cpu, "\n")] = '\0';
			break;
		}
		fclose(f);
	}
	json_begin_object(j, "host");
	json_str(j, "hostname", host);
	json_str(j, "os", os);
	json_str(j, "cpu", cpu);
	json_end_object(j);
}

/* [{"variant": ..., "reason": ...}, ...] */
static void
variant_notes_json(struct json *j, const char *key,
    const struct skipped_variant *notes, size_t count)
{
	size_t	i;

	json_begin_array(j, key);
	for (i = 0; i < count; i++) {
		json_begin_object(j, NULL);
		json_str(j, "variant", notes[i].variant);
		json_str(j, "reason", notes[i].reason);
		json_end_object(j);
	}
	json_end_array(j);
}

static void
settings_json(const struct manifest *m, struct json *j)
{
	const struct run_options	*o = m->opts;
	size_t				 i;

	json_begin_object(j, "settings");
	json_begin_array(j, "variants");
	for (i = 0; i < ewb_variant_count; i++) {
		if (o->selected[i])
			json_str(j, NULL, ewb_variants[i].id);
	}
	if (o->user_variant != NULL)
		json_str(j, NULL, o->user_variant->id);
	json_end_array(j);
	json_begin_array(j, "sizes");
	for (i = 0; i < m->nsizes; i++)
		json_u64(j, NULL, m->sizes[i]);
	json_end_array(j);
	json_begin_array(j, "blocks");
	for (i = 0; i < o->nblocks; i++)
		json_u64(j, NULL, o->blocks[i]);
	json_end_array(j);
	if (o->nblock_times > 0) {
		json_begin_array(j, "block_times");
		for (i = 0; i < o->nblock_times; i++)
			json_u64(j, NULL, o->block_times[i]);
		json_end_array(j);
	}
	json_u64(j, "iters", o->iters);
	json_u64(j, "warmup", o->warmup);
	json_begin_array(j, "cache");
	if (o->cache & CACHE_WARM)
		json_str(j, NULL, "warm");
	if (o->cache & CACHE_COLD)
		json_str(j, NULL, "cold");
	json_end_array(j);
	json_u64(j, "seed", o->seed);
	json_u64(j, "flush_bytes", m->flush_bytes);
	json_str(j, "timer", m->timer != NULL ? m->timer : "cuda_events");
	/* The stopping rule of measure.c's points (ceilings have their
	 * own). */
	if (o->max_iters > 0) {
		json_begin_object(j, "timing");
		json_u64(j, "min_samples", o->iters);
		json_u64(j, "max_samples", o->max_iters);
		json_f64(j, "max_time_ms", o->max_time_ms);
		json_f64(j, "target_ci_pct", o->target_pct);
		json_u64(j, "ci_confidence_pct", STATS_CI_PCT);
		if (m->timer_step_ns > 0)
			json_f64(j, "timer_step_ns", m->timer_step_ns);
		else
			json_null(j, "timer_step_ns");
		json_end_object(j);
	}
	json_begin_array(j, "launch");
	if (o->launch & LAUNCH_STREAM)
		json_str(j, NULL, "stream");
	if (o->launch & LAUNCH_GRAPH)
		json_str(j, NULL, "graph");
	json_end_array(j);
	json_begin_array(j, "size_choices");
	for (i = 0; i < m->nchoices; i++) {
		json_begin_object(j, NULL);
		json_u64(j, "footprint_bytes_per_element",
		    m->choices[i].footprint_per_element);
		json_str(j, "tier", m->choices[i].tier);
		json_u64(j, "n", m->choices[i].n);
		json_str(j, "reason", m->choices[i].reason);
		json_end_object(j);
	}
	json_end_array(j);
	json_bool(j, "sweep", o->command == CMD_SWEEP);
	if (o->command == CMD_SWEEP)
		json_u64(j, "density", o->density);
	if (o->preset != NULL)
		json_str(j, "preset", o->preset);
	else
		json_null(j, "preset");
	json_bool(j, "check_only", o->command == CMD_CHECK);
	json_bool(j, "misalign", o->misalign);
	json_bool(j, "allow_fallback", o->allow_fallback);
	variant_notes_json(j, "skipped", m->skipped, m->nskipped);
	variant_notes_json(j, "fallbacks", m->fallbacks, m->nfallbacks);
	json_end_object(j);
}

static void
counters_json(const struct manifest *m, struct json *j)
{
	const struct metric_set	*set = m->metrics;
	size_t			 i;

	json_begin_object(j, "counters");
	json_bool(j, "enabled", strcmp(m->counters_status, "ok") == 0);
	json_str(j, "status", m->counters_status);
	if (m->counters_reason != NULL)
		json_str(j, "reason", m->counters_reason);
	else
		json_null(j, "reason");
	if (m->metric_set != NULL)
		json_str(j, "metric_set", m->metric_set);
	json_begin_array(j, "metrics");
	for (i = 0; set != NULL && i < set->count; i++)
		json_str(j, NULL, set->metrics[i]);
	json_end_array(j);
	/* Per chip: the name each was collected under, and the entries the
	 * chip has no name for. */
	if (set != NULL && set->collected != NULL) {
		json_begin_object(j, "collected");
		for (i = 0; i < set->count; i++)
			json_str(j, set->metrics[i], set->collected[i]);
		json_end_object(j);
		json_begin_array(j, "left_out");
		for (i = 0; i < set->nleft_out; i++) {
			json_begin_object(j, NULL);
			json_str(j, "metric", set->left_out[i].metric);
			json_str(j, "reason", set->left_out[i].reason);
			json_end_object(j);
		}
		json_end_array(j);
	}
	if (m->passes > 0)
		json_i64(j, "passes", m->passes);
	if (m->chip != NULL)
		json_str(j, "chip", m->chip);
	json_str(j, "replay", m->replay != NULL ? m->replay : "user");
	json_str(j, "range", m->range != NULL ? m->range : "auto");
	if (m->counters_wall != NULL) {
		const struct counters_wall *w = m->counters_wall;

		json_begin_object(j, "wall_s");
		json_f64(j, "open", w->open);
		json_f64(j, "config", w->config);
		json_f64(j, "passes", w->passes);
		json_f64(j, "decode", w->decode);
		json_f64(j, "evaluate", w->evaluate);
		json_u64(j, "sessions", w->sessions);
		json_u64(j, "ranges", w->ranges);
		json_end_object(j);
	}
	json_end_object(j);
}

/* Where the wall time went; absent until a run has measured. */
static void
wall_json(const struct manifest *m, struct json *j)
{
	const struct run_wall	*w = &m->wall;

	if (w->total <= 0)
		return;
	json_begin_object(j, "wall_s");
	json_f64(j, "setup", w->setup);
	json_f64(j, "inputs", w->inputs);
	json_f64(j, "fill", w->fill);
	json_f64(j, "reference", w->reference);
	json_f64(j, "upload", w->upload);
	json_f64(j, "checks", w->checks);
	json_f64(j, "timing", w->timing);
	json_f64(j, "timing_warmup", w->warmup);
	json_f64(j, "timing_readback", w->readback);
	json_f64(j, "counters", w->counters);
	if (w->energy > 0)
		json_f64(j, "energy", w->energy);
	json_f64(j, "total", w->total);
	json_end_object(j);
}

static void
checks_json(const struct manifest *m, struct json *j)
{
	size_t	i;

	json_begin_object(j, "checks");
	json_u64(j, "passed", m->checks_passed);
	json_u64(j, "failed", m->nfailures);
	json_begin_array(j, "failures");
	for (i = 0; i < m->nfailures; i++) {
		const struct check_failure *f = &m->failures[i];

		json_begin_object(j, NULL);
		json_str(j, "variant", f->variant);
		json_u64(j, "n", f->n);
		json_u64(j, "index", f->bad.index);
		json_f64(j, "got", f->bad.got);
		json_f64(j, "expected", f->bad.expected);
		json_u64(j, "bad_count", f->bad.bad_count);
		/* A user kernel's write outside its output (guard region). */
		if (f->bad.outside != 0)
			json_str(j, "outside", f->bad.outside > 0 ? "after" :
			    "before");
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

int
manifest_write(const char *dir, const struct manifest *m, const char *status,
    char **cause)
{
	struct json	*j = json_new();
	char		*path;
	int		 i, rc;

	json_begin_object(j, NULL);
	json_i64(j, "schema_version", EWB_SCHEMA_VERSION);
	json_str(j, "run_id", m->run_id);
	json_str(j, "status", status);
	json_str(j, "command", m->command);
	json_begin_array(j, "argv");
	for (i = 0; i < m->argc; i++)
		json_str(j, NULL, m->argv[i]);
	json_end_array(j);
	json_str(j, "started_utc", m->started_utc);
	if (m->finished_utc[0] != '\0')
		json_str(j, "finished_utc", m->finished_utc);
	else
		json_null(j, "finished_utc");

	json_begin_object(j, "tool");
	json_str(j, "name", PACKAGE_NAME);
	json_str(j, "version", PACKAGE_VERSION);
	json_str(j, "git_revision", EWB_GIT_REVISION);
	json_str(j, "cuda_arch", EWB_CUDA_ARCH);
	json_i64(j, "cuda_build_version", EWB_CUDA_BUILD_VERSION);
	json_str(j, "nvcc_release", EWB_NVCC_RELEASE);
	json_str(j, "nvcc_flags", "-O3 -std=c++17 -lineinfo");
	json_i64(j, "cupti_build_api", EWB_CUPTI_BUILD_API);
	json_str(j, "cupti_kernel_record", EWB_CUPTI_KERNEL_RECORD_NAME);
	json_str(j, "driver_min", EWB_DRIVER_MIN);
	json_end_object(j);

	host_json(j);
	json_begin_object(j, "versions");
	json_i64(j, "driver", m->device->driver_version);
	json_i64(j, "runtime", m->device->runtime_version);
	if (m->cupti_version != 0)
		json_u64(j, "cupti_api", m->cupti_version);
	/* The driver's release, from NVML (the CUDA version above is only
	 * the API level it supports). */
	if (m->host_facts != NULL &&
	    m->host_facts->settings.driver_version[0] != '\0')
		json_str(j, "nvidia_driver",
		    m->host_facts->settings.driver_version);
	else
		json_null(j, "nvidia_driver");
	json_end_object(j);
	device_json(m->device, j);
	if (m->host_facts != NULL)
		placement_json(m->host_facts, j);
	settings_json(m, j);
	counters_json(m, j);
	checks_json(m, j);
	wall_json(m, j);
	if (m->sass != NULL)
		json_str(j, "sass", m->sass);
	if (m->energy != NULL)
		energy_json(m->energy, j);
	if (m->extra_json != NULL)
		m->extra_json(j, m->extra_ctx);
	json_end_object(j);

	path = xasprintf("%s/run.json", dir);
	rc = file_write_atomic(path, json_text(j), strlen(json_text(j)), cause);
	free(path);
	json_free(j);
	return rc;
}

int
manifest_update(const char *dir, struct manifest *m, const char *status,
    char **cause)
{
	if (dir == NULL)
		return 0;
	if (strcmp(status, "running") != 0)
		output_utc_now(m->finished_utc, sizeof m->finished_utc);
	return manifest_write(dir, m, status, cause);
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

static struct csv *
open_in(const char *dir, const char *name, const char *const *header,
    size_t columns, char **cause)
{
	char		*path = xasprintf("%s/%s", dir, name);
	struct csv	*csv = csv_open(path, header, columns, cause);

	free(path);
	return csv;
}

struct csv *
timing_csv_open(const char *dir, char **cause)
{
	return open_in(dir, "timing.csv", timing_header, COUNT(timing_header),
	    cause);
}

struct csv *
metrics_csv_open(const char *dir, char **cause)
{
	return open_in(dir, "metrics.csv", metrics_header,
	    COUNT(metrics_header), cause);
}

struct csv *
energy_csv_open(const char *dir, char **cause)
{
	return open_in(dir, "energy.csv", energy_header, COUNT(energy_header),
	    cause);
}

/* The key columns every file starts with. */
static void
point_keys(struct csv *csv, const char *run_id, const struct point *p)
{
	csv_str(csv, run_id);
	csv_str(csv, p->v->id);
	csv_str(csv, ewb_op_name(p->v->op));
	csv_str(csv, ewb_dtype_name(p->v->dtype));
	csv_u64(csv, p->n);
	if (p->block != 0)
		csv_u64(csv, p->block);
	else
		csv_empty(csv);
	csv_str(csv, cache_name(p->cache));
	csv_str(csv, p->launch);
}

/* An interval's median and CI half-width; NaN (empty fields) when not
 * measured. */
static void
csv_interval(struct csv *csv, const struct interval *v)
{
	csv_f64(csv, v->median_ns);
	csv_f64(csv, v->ci_ns);
}

int
timing_csv_row(struct csv *csv, const char *run_id, const struct point *p,
    const struct timed *t, double spec_bandwidth, bool check_passed,
    char **cause)
{
	const struct stats *s = &t->st;
	double	moved = (double)point_bytes_moved(p);
	double	bw = moved / (s->median * 1e-9);
	char	throttle[96];

	point_keys(csv, run_id, p);
	if (p->grid != 0)
		csv_u64(csv, p->grid);
	else
		csv_empty(csv);
	csv_u64(csv, point_footprint(p));
	csv_u64(csv, point_bytes_moved(p));
	csv_u64(csv, p->n * p->v->flops);
	csv_u64(csv, t->launches);
	csv_f64(csv, s->median);
	csv_f64(csv, s->min);
	csv_f64(csv, s->max);
	csv_f64(csv, s->mean);
	csv_f64(csv, s->stddev);
	csv_f64(csv, NAN);	/* activity_median_ns: time_median_ns now */
	csv_f64(csv, bw);
	csv_f64(csv, moved / (s->min * 1e-9));
	csv_f64(csv, spec_bandwidth > 0 ? 100.0 * bw / spec_bandwidth : NAN);
	csv_str(csv, check_passed ? "pass" : "fail");
	csv_str(csv, t->source);
	csv_f64(csv, s->ci_low);
	csv_f64(csv, s->ci_high);
	csv_f64(csv, s->q3 - s->q1);
	csv_str(csv, t->stop);
	gpu_throttle_names(t->throttle, throttle, sizeof throttle);
	csv_str(csv, throttle);
	csv_interval(csv, &t->interval);
	csv_interval(csv, &t->queued);
	csv_interval(csv, &t->graph);
	csv_f64(csv, t->batch_ns);
	csv_f64(csv, t->sm_clock_min_mhz);
	csv_f64(csv, t->memory_clock_min_mhz);
	return csv_end_row(csv, cause);
}

int
sass_csv_write(const char *dir, const char *run_id,
    const struct sass_row *const *rows, size_t count, char **cause)
{
	struct csv	*csv;
	size_t		 i;

	if ((csv = open_in(dir, "sass.csv", sass_header, COUNT(sass_header),
	    cause)) == NULL)
		return -1;
	for (i = 0; i < count; i++) {
		csv_str(csv, run_id);
		csv_str(csv, rows[i]->variant);
		csv_str(csv, rows[i]->arch);
		csv_str(csv, rows[i]->kind);
		csv_str(csv, rows[i]->instruction);
		if (rows[i]->bits != 0)
			csv_u64(csv, rows[i]->bits);
		else
			csv_empty(csv);
		csv_u64(csv, rows[i]->count);
		if (csv_end_row(csv, cause) != 0) {
			csv_close(csv, NULL);
			return -1;
		}
	}
	return csv_close(csv, cause);
}

int
metrics_csv_row(struct csv *csv, const char *run_id, const struct point *p,
    const char *metric, double value, const char *unit, const char *source,
    char **cause)
{
	point_keys(csv, run_id, p);
	csv_str(csv, metric);
	csv_f64(csv, value);
	csv_str(csv, unit);
	csv_str(csv, source);
	return csv_end_row(csv, cause);
}

int
energy_csv_row(struct csv *csv, const char *run_id, const struct point *p,
    unsigned window, const struct energy_window *idle,
    const struct energy_window *busy, unsigned per_replay, char **cause)
{
	struct energy_result	r;
	char			throttle[96];

	energy_result(busy, idle, point_bytes_moved(p), &r);
	point_keys(csv, run_id, p);
	csv_u64(csv, window);
	if (p->grid != 0)
		csv_u64(csv, p->grid);
	else
		csv_empty(csv);
	csv_u64(csv, point_bytes_moved(p));
	csv_u64(csv, per_replay);
	csv_f64(csv, busy->launches);
	csv_f64(csv, busy->seconds);
	csv_u64(csv, busy->energy_mj);
	csv_f64(csv, idle->seconds);
	csv_u64(csv, idle->energy_mj);
	csv_f64(csv, r.board_w);
	csv_f64(csv, r.idle_w);
	csv_f64(csv, r.net_w);
	csv_f64(csv, r.pj_per_byte);
	csv_f64(csv, r.bandwidth);
	csv_u64(csv, busy->updates);
	csv_u64(csv, idle->updates);
	csv_u64(csv, busy->drained);
	csv_f64(csv, busy->sm_clock_min_mhz);
	csv_f64(csv, busy->memory_clock_min_mhz);
	csv_f64(csv, busy->temperature_max_c);
	gpu_throttle_names(busy->throttle, throttle, sizeof throttle);
	csv_str(csv, throttle);
	csv_f64(csv, busy->power_limit_w);
	csv_f64(csv, idle->sm_clock_min_mhz);
	csv_f64(csv, idle->temperature_max_c);
	return csv_end_row(csv, cause);
}

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
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "output.h"
#include "placement.h"

/* Header rows from columns.def: the key, then each file's own columns. */
#define NAME(name, ...)		#name,
#define SKIP(name, ...)
static const char *const timing_header[] = {
#define KEY		NAME
#define TIMING		NAME
#define METRICS		SKIP
#define CEILINGS	SKIP
#include "columns.def"
#undef TIMING
#undef METRICS
};

static const char *const metrics_header[] = {
#define TIMING		SKIP
#define METRICS		NAME
#include "columns.def"
#undef KEY
#undef TIMING
#undef METRICS
#undef CEILINGS
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

/* Distinct bytes: each operand array once (in place: one array). */
unsigned
variant_footprint_per_element(const struct ewb_variant *v)
{
	if (v->in_place)
		return ewb_dtype_size(v->dtype);
	return v->read_bytes + v->write_bytes;
}

uint64_t
point_footprint(const struct point *p)
{
	return p->n * variant_footprint_per_element(p->v);
}

/* mkdir -p: dir and its parents (dir is not empty).  *top is the first
 * (outermost) directory this call created, malloc'd, or NULL. */
static int
make_dirs(const char *dir, char **top, char **cause)
{
	char	*path = xstrdup(dir), *s;

	*top = NULL;
	for (s = path + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char saved = *s;
		*s = '\0';
		if (mkdir(path, 0777) == 0) {
			if (*top == NULL)
				*top = xstrdup(path);
		} else if (errno != EEXIST) {
			*cause = xasprintf("--out %s: cannot create %s: %s", dir,
			    path, strerror(errno));
			free(path);
			return -1;
		}
		*s = saved;
		if (saved == '\0')
			break;
	}
	free(path);
	return 0;
}

/* Files that mark a directory as holding (part of) a run, or a fleet. */
static const char *const run_files[] = {
	"run.json", "timing.csv", "metrics.csv", "ceilings.csv", "fleet.json"
};

int
output_claim_dir(const char *dir, char **created, char **cause)
{
	return output_claim_as(dir, "run.json", created, cause);
}

int
output_claim_as(const char *dir, const char *marker, char **created,
    char **cause)
{
	struct stat	 st;
	char		*path;
	size_t		 i;
	int		 fd;

	*created = NULL;
	if (dir[0] == '\0') {
		*cause = xstrdup("--out: an empty directory name");
		return -1;
	}
	if (stat(dir, &st) != 0) {
		if (make_dirs(dir, created, cause) != 0)
			return -1;
	} else if (!S_ISDIR(st.st_mode)) {
		*cause = xasprintf("--out %s is not a directory", dir);
		return -1;
	}
	for (i = 0; i < sizeof run_files / sizeof run_files[0]; i++) {
		path = xasprintf("%s/%s", dir, run_files[i]);
		if (stat(path, &st) == 0) {
			*cause = xasprintf("--out %s already holds a run (%s); "
			    "choose another directory", dir, run_files[i]);
			free(path);
			return -1;
		}
		free(path);
	}
	/* The claim: run.json (or fleet.json) created exclusively, so two
	 * runs racing for one directory cannot both have it. */
	path = xasprintf("%s/%s", dir, marker);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
	if (fd < 0) {
		*cause = xasprintf("--out %s: cannot claim %s: %s", dir, path,
		    strerror(errno));
		free(path);
		return -1;
	}
	if (write(fd, "{\"status\": \"claimed\"}\n", 22) != 22) {
		*cause = xasprintf("--out %s: cannot write %s", dir, path);
		close(fd);
		unlink(path);
		free(path);
		return -1;
	}
	close(fd);
	free(path);
	return 0;
}

void
output_release_claim(const char *dir, char *created)
{
	output_release_as(dir, "run.json", created);
}

void
output_release_as(const char *dir, const char *marker, char *created)
{
	char	*path = xasprintf("%s/%s", dir, marker), *slash;

	unlink(path);
	free(path);
	/* The directories the claim made, innermost first. */
	path = xstrdup(dir);
	while (created != NULL && rmdir(path) == 0 &&
	    strcmp(path, created) != 0 && (slash = strrchr(path, '/')) != NULL)
		*slash = '\0';
	free(path);
	free(created);
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
	json_str(j, "timer", "cuda_event_per_launch");
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
	size_t	i;

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
	for (i = 0; i < m->nmetrics; i++)
		json_str(j, NULL, m->metric_names[i]);
	json_end_array(j);
	if (m->passes > 0)
		json_i64(j, "passes", m->passes);
	if (m->chip != NULL)
		json_str(j, "chip", m->chip);
	json_str(j, "replay", m->replay != NULL ? m->replay : "user");
	json_str(j, "range", "auto");
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
	json_f64(j, "counters", w->counters);
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
	json_str(j, "nvcc_flags", "-O3 -std=c++17 -lineinfo");
	json_end_object(j);

	host_json(j);
	json_begin_object(j, "versions");
	json_i64(j, "driver", m->device->driver_version);
	json_i64(j, "runtime", m->device->runtime_version);
	if (m->cupti_version != 0)
		json_u64(j, "cupti_api", m->cupti_version);
	json_end_object(j);
	device_json(m->device, j);
	if (m->host_facts != NULL)
		placement_json(m->host_facts, j);
	settings_json(m, j);
	counters_json(m, j);
	checks_json(m, j);
	wall_json(m, j);
	if (m->extra_json != NULL)
		m->extra_json(j, m->extra_ctx);
	json_end_object(j);

	path = xasprintf("%s/run.json", dir);
	rc = file_write_atomic(path, json_text(j), strlen(json_text(j)), cause);
	free(path);
	json_free(j);
	return rc;
}

void
manifest_update(const char *dir, struct manifest *m, const char *status)
{
	char	*cause = NULL;

	if (dir == NULL)
		return;
	if (strcmp(status, "running") != 0)
		output_utc_now(m->finished_utc, sizeof m->finished_utc);
	if (manifest_write(dir, m, status, &cause) != 0) {
		fprintf(stderr, "ewbench: %s\n", cause);
		free(cause);
	}
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

int
timing_csv_row(struct csv *csv, const char *run_id, const struct point *p,
    unsigned iters, const struct stats *s, double activity_median_ns,
    double spec_bandwidth, bool check_passed, char **cause)
{
	double	moved = (double)point_bytes_moved(p);
	double	bw = moved / (s->median * 1e-9);

	point_keys(csv, run_id, p);
	if (p->grid != 0)
		csv_u64(csv, p->grid);
	else
		csv_empty(csv);
	csv_u64(csv, point_footprint(p));
	csv_u64(csv, point_bytes_moved(p));
	csv_u64(csv, p->n * p->v->flops);
	csv_u64(csv, iters);
	csv_f64(csv, s->median);
	csv_f64(csv, s->min);
	csv_f64(csv, s->max);
	csv_f64(csv, s->mean);
	csv_f64(csv, s->stddev);
	csv_f64(csv, activity_median_ns);	/* NaN (empty) untraced */
	csv_f64(csv, bw);
	csv_f64(csv, moved / (s->min * 1e-9));
	csv_f64(csv, spec_bandwidth > 0 ? 100.0 * bw / spec_bandwidth : NAN);
	csv_str(csv, check_passed ? "pass" : "fail");
	return csv_end_row(csv, cause);
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

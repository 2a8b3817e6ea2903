/*
 * manifest.c - run.json (docs/data-format.md): the host, the settings,
 * the counters' state, the wall-time breakdown, the checks, rewritten
 * atomically at the start, after every point and at the end, so an
 * interrupted run always leaves a readable manifest.
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
#include "revision.h"
#include "run/energy.h"
#include "run/output.h"
#include "device/placement.h"

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
primary_blocks_json(const struct manifest *m, struct json *j)
{
	size_t	i;

	json_begin_object(j, "primary_blocks");
	for (i = 0; i < m->nprimary; i++) {
		if (m->primary[i].block == 0)
			json_null(j, m->primary[i].variant);
		else
			json_u64(j, m->primary[i].variant,
			    m->primary[i].block);
	}
	json_end_object(j);
}

static void
manifest_settings_json(const struct manifest *m, struct json *j)
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
	for (i = 0; i < o->ngenerated; i++)
		if (o->generated_selected == NULL || o->generated_selected[i])
			json_str(j, NULL, o->generated[i].id);
	json_end_array(j);
	json_begin_array(j, "sizes");
	for (i = 0; i < m->nsizes; i++)
		json_u64(j, NULL, m->sizes[i]);
	json_end_array(j);
	json_begin_array(j, "blocks");
	for (i = 0; i < o->nblocks; i++)
		json_u64(j, NULL, o->blocks[i]);
	json_end_array(j);
	primary_blocks_json(m, j);
	if (o->nblock_times > 0) {
		json_begin_array(j, "block_times");
		for (i = 0; i < o->nblock_times; i++)
			json_u64(j, NULL, o->block_times[i]);
		json_end_array(j);
	}
	/* --residency: every case capped at that many resident blocks
	 * per SM (its dynamic shared memory in the metrics' theoretical
	 * occupancy). */
	if (o->residency > 0)
		json_u64(j, "residency", o->residency);
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
	json_str(j, "preset", o->preset);
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
	json_str(j, "reason", m->counters_reason);
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
	json_str(j, "finished_utc",
	    m->finished_utc[0] != '\0' ? m->finished_utc : NULL);

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
	manifest_settings_json(m, j);
	counters_json(m, j);
	checks_json(m, j);
	wall_json(m, j);
	if (m->sass != NULL)
		json_str(j, "sass", m->sass);
	if (m->energy != NULL)
		energy_json(m->energy, j);
	if (m->extra_json != NULL)
		m->extra_json(j, m->extra_ctx);
	if (m->op_json != NULL)
		m->op_json(j, m->op_ctx);
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

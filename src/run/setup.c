/*
 * setup.c - `ewbench run` before the walk: the counters opened (or
 * why not), metric names checked, the device opened, a --kernel compiled,
 * loaded and watched, and --dry-run's plan without a GPU.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "run/runner.h"

/* Counters are optional: when they cannot be had, say why once and go on
 * timing; rows are then absent, never zero. */
void
runner_start_counters(struct runner *r)
{
	char	*cause = NULL;
	size_t	 i;

	r->man.counters_status = "off";
	if (r->opts.no_counters || r->opts.command == CMD_CHECK)
		return;
	if (metric_set_load(r->opts.metrics, &r->mset, &cause) == 0) {
		r->have_mset = true;
		r->man.metric_set = r->opts.metrics;
		r->man.metrics = &r->mset;
		if (counters_open(&r->counters, r->dev.index, &r->mset,
		    &cause) == 0)
			cause = NULL;
	}
	if (cause != NULL) {
		fprintf(stderr, "ewbench: counters unavailable, timing only: "
		    "%s\n", cause);
		r->man.counters_status = "unavailable";
		r->man.counters_reason = cause;
		r->counters = NULL;
		return;
	}
	r->man.counters_status = "ok";
	for (i = 0; i < r->mset.nleft_out && !r->opts.quiet; i++)
		fprintf(stderr, "ewbench: counters: %s left out: %s\n",
		    r->mset.left_out[i].metric, r->mset.left_out[i].reason);
	r->man.passes = counters_passes(r->counters);
	r->man.chip = counters_chip(r->counters);
	r->man.replay = counters_replay(r->counters);
	r->man.range = counters_range(r->counters);
	r->man.cupti_version = counters_cupti_version();
}

/* Metric names given on the command line, against every chip CUPTI
 * knows (no GPU needed): a misspelt one is a usage error, not a run
 * without counters.  Group files are checked by `ewbench metrics
 * --check`. */
int
runner_check_metric_names(const struct run_options *o, char **cause)
{
	struct metric_set	set;
	int			rc = 0;

	if (o->no_cupti || o->command == CMD_CHECK)
		return 0;
	if (metric_set_load(o->metrics, &set, cause) != 0)
		return -1;
	if (set.short_desc == NULL)
		rc = counters_check_names(&set, cause);
	metric_set_free(&set);
	return rc;
}

/* Stops the collector that timed the kernels; it kept nothing. */
void
runner_stop_kernel_clock(void)
{
	struct trace	*t = NULL;
	char		*cause = NULL;

	trace_stop(&t, &cause);
	trace_free(t);
	free(cause);
}

/* The device, opened after the activity collector has started (it must
 * see the first CUDA call): --trace's, or the one that times kernels.  A
 * trace that cannot start on a machine without a GPU is reported as no
 * GPU; a kernel clock that cannot start (another CUPTI tool attached)
 * leaves the timing to CUDA events, and the rows say so. */
int
runner_open_device(struct runner *r, char **cause)
{
	char	*trace_cause = NULL;
	int	 code;

	r->man.timer = "cuda_events";
	if (r->opts.trace != NULL && trace_start(TRACE_FULL,
	    &trace_cause) != 0) {
		if ((code = device_open(r->opts.device, &r->dev, cause)) != 0) {
			free(trace_cause);
			return code;
		}
		*cause = xasprintf("--trace: %s", trace_cause);
		free(trace_cause);
		return EWB_EXIT_ERROR;
	}
	if (r->opts.trace == NULL && !r->opts.no_cupti &&
	    r->opts.command != CMD_CHECK && !r->opts.dry_run)
		(void)trace_start(TRACE_KERNELS, &trace_cause);
	/* Warm points of a run that is not traced are timed by replays of
	 * a graph, the records paused (measure.c); the rest by records. */
	if (trace_started())
		r->man.timer = trace_mode() == TRACE_KERNELS ?
		    (strcmp(trace_kernel_kind(), "kernel") == 0 ?
		    "graph_replay+cupti_kernel_records" :
		    "graph_replay+cupti_kernel_activity") :
		    strcmp(trace_kernel_kind(), "kernel") == 0 ?
		    "cupti_kernel_records" : "cupti_kernel_activity";
	/* Without a usable GPU CUPTI fails too (CUPTI_ERROR_UNKNOWN): the
	 * GPU's own reason is the one to say. */
	code = device_open(r->opts.device, &r->dev, cause);
	if (code == 0 && trace_cause != NULL)
		fprintf(stderr, "ewbench: kernel times unavailable, timing "
		    "with CUDA events: %s\n", trace_cause);
	free(trace_cause);
	return code;
}

/* The plan says when the run directory will have no sass.csv (a build
 * without cuobjdump): it is nowhere else to be seen before the run. */
void
runner_plan_print_sass(const struct run_options *o)
{
	if (o->command != CMD_CHECK && strcmp(ewb_sass_status,
	    "recorded") != 0)
		printf("sass.csv: %s\n", ewb_sass_status);
}

/* --dry-run without the GPU: the plan for a GPU's facts by name (--chip),
 * or, where there is no usable GPU, a generic estimate for CHIPS_DEFAULT's,
 * said as such.  Counter passes come from CUPTI's host API (no GPU). */
int
runner_plan_without_gpu(struct runner *r, const char *command, const char *no_gpu)
{
	const char	*cupti;
	char		*cause = NULL, **bad = NULL;
	size_t		 nbad = 0, i;
	int		 passes = 0, code, rc;

	if (chips_plan_facts(r->opts.chip, no_gpu, &r->dev, &cupti,
	    &cause) != 0) {
		fprintf(stderr, "ewbench %s: %s\n", command, cause);
		free(cause);
		return EWB_EXIT_USAGE;
	}
	/* --kernel, --elementwise: compiled for the chip's architecture,
	 * not loaded. */
	if ((r->opts.kernel.path != NULL &&
	    (code = runner_start_user_kernel(r, &cause)) != 0) ||
	    (r->opts.elementwise != NULL &&
	    (code = runner_start_elementwise(r, &cause)) != 0)) {
		fprintf(stderr, "ewbench %s: %s\n", command, cause);
		free(cause);
		return code;
	}
	if (!r->opts.no_counters && r->opts.command != CMD_CHECK &&
	    metric_set_load(r->opts.metrics, &r->mset, &cause) == 0) {
		r->have_mset = true;
		if (counters_resolve(cupti, &r->mset, &cause) != 0 ||
		    counters_validate(cupti, &r->mset, &passes, &bad, &nbad,
		    &cause) != 0) {
			printf("counters not planned: %s\n", cause);
			passes = 0;
		}
		for (i = 0; i < r->mset.nleft_out && i < METRICS_SHOWN; i++)
			printf("counters: %s left out: %s\n",
			    r->mset.left_out[i].metric,
			    r->mset.left_out[i].reason);
		if (r->mset.nleft_out > METRICS_SHOWN)
			printf("counters: %zu more left out\n",
			    r->mset.nleft_out - METRICS_SHOWN);
		strings_free(bad, nbad);
	}
	free(cause);
	cause = NULL;
	if ((rc = plan_build(&r->opts, &r->dev, r->dev.memory_bytes,
	    passes > 0, &r->plan, &cause)) != 0) {
		fprintf(stderr, "ewbench %s: %s\n", command, cause);
		free(cause);
		return rc == PLAN_NOTHING_LEFT ? EWB_EXIT_USAGE : EWB_EXIT_ERROR;
	}
	/* What a run on that GPU would refuse (exit 4), the plan refuses. */
	if (plan_fits(&r->plan, r->dev.memory_bytes, r->dev.name,
	    &cause) != 0) {
		fprintf(stderr, "ewbench %s: %s\n", command, cause);
		free(cause);
		return EWB_EXIT_NOMEM;
	}
	plan_print(&r->plan, &r->opts, &r->dev, passes, stdout);
	runner_plan_print_sass(&r->opts);
	return EWB_EXIT_OK;
}

/* The watchdog's last act, the main thread stuck in a GPU wait: say so and
 * mark run.json; the watchdog then exits without another CUDA call. */
static void
watchdog_fired(void *ctx, const char *what, unsigned seconds)
{
	struct runner	*r = ctx;

	r->user.stopped = xasprintf("%s did not return within %u s "
	    "(--kernel-timeout)", what, seconds);
	fprintf(stderr, "ewbench: WATCHDOG: %s did not return within %u s: "
	    "stopped.  A kernel that never returns (an endless loop, a wait "
	    "on a flag no thread sets) keeps the GPU until its process ends; "
	    "--kernel-timeout SECONDS allows longer.%s%s\n", what, seconds,
	    r->dir != NULL ? " Complete rows are kept in " : "",
	    r->dir != NULL ? r->dir : "");
	manifest_update(r->dir, &r->man, "failed", NULL);
}

/* --kernel: compiled for this GPU (or taken from the cache), its variant
 * added to the plan's, its entry in run.json; unless --dry-run (which
 * launches nothing), loaded and the watchdog started.  Returns 0 or an
 * exit code. */
/* How a build came, and which toolkit and driver compiled and run it:
 * "<file> for sm_XX from the cache (<entry>)" or "<file> compiled for
 * sm_XX in 0.31 s (NVRTC 12.8; driver CUDA 13.0)". */
static void
say_build(const char *id, const char *path, const struct user_build *b,
    int driver)
{
	char	runs[48] = "no driver here";

	if (driver > 0)
		snprintf(runs, sizeof runs, "driver CUDA %d.%d", driver / 1000,
		    driver % 1000 / 10);
	if (b->cached)
		printf("ewbench: %s: %s for sm_%u from the cache (%s; %s)\n",
		    id, path, b->arch, b->cache_path, runs);
	else
		printf("ewbench: %s: %s compiled for sm_%u in %.2f s "
		    "(NVRTC %d.%d; %s)\n", id, path, b->arch, b->compile_s,
		    b->nvrtc_major, b->nvrtc_minor, runs);
	if (b->arch != b->device_arch)
		printf("ewbench: %s: this GPU is sm_%u, which NVRTC %d.%d does "
		    "not know: its sm_%u code runs on it\n", id,
		    b->device_arch, b->nvrtc_major, b->nvrtc_minor, b->arch);
}

int
runner_start_user_kernel(struct runner *r, char **cause)
{
	struct user_build	 b, ref;
	unsigned		 arch = (unsigned)(r->dev.cc_major * 10 +
				     r->dev.cc_minor);
	const struct user_spec	*s = &r->opts.kernel;
	int			 code;

	if (user_build(s, arch, &b, &code, cause) != 0) {
		user_build_free(&b);
		return code;
	}
	if (b.log != NULL)
		fprintf(stderr, "%s", b.log);	/* warnings */
	memset(&ref, 0, sizeof ref);
	if (s->ref_path != NULL) {
		if (user_build_reference(s, arch, &ref, &code, cause) != 0) {
			user_build_free(&ref);
			user_build_free(&b);
			return code;
		}
		if (ref.log != NULL)
			fprintf(stderr, "%s", ref.log);
	}
	user_kernel_init(&r->user, s, &b, s->ref_path != NULL ? &ref : NULL);
	if (!r->opts.quiet) {
		say_build(r->user.id, s->path, &r->user.build,
		    r->dev.driver_version);
		if (s->ref_path != NULL)
			say_build("its reference", s->ref_path, &r->user.ref,
			    r->dev.driver_version);
	}
	/* What it is checked as (a --dry-run's plan says it). */
	if (!r->opts.quiet && !r->opts.dry_run) {
		char	*what = user_spec_describe(s, r->user.id);

		printf("ewbench: %s\n", what);
		free(what);
	}
	r->opts.user_variant = &r->user.variant;
	r->man.extra_json = user_kernel_json;
	r->man.extra_ctx = &r->user;
	if (r->opts.dry_run)
		return 0;
	if (user_kernel_load(&r->user, cause) != 0 ||
	    watchdog_start(watchdog_fired, r, cause) != 0)
		return EWB_EXIT_ERROR;
	return 0;
}

/* Splits --elementwise FILE.cu[:FUNCTION]: the function when what
 * follows the last ':' is a C identifier (else the path holds it). */
static char *
elementwise_function(const char *text, char **path)
{
	const char	*colon = strrchr(text, ':'), *p;
	bool		 ident = colon != NULL && colon[1] != '\0' &&
			    !(colon[1] >= '0' && colon[1] <= '9');

	for (p = colon != NULL ? colon + 1 : NULL; ident && *p != '\0'; p++)
		ident = *p == '_' || (*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
	if (!ident) {
		*path = xstrdup(text);
		return NULL;
	}
	*path = xasprintf("%.*s", (int)(colon - text), text);
	return xstrdup(colon + 1);
}

/* --elementwise: the op's family compiled for this GPU by NVRTC, its rows
 * added to the plan's; unless --dry-run, loaded and the watchdog
 * started.  One op of the same inputs and dtype as a --kernel of a
 * user's op (--reference), whose reference then checks the family too.
 * Returns 0 or an exit code. */
int
runner_start_elementwise(struct runner *r, char **cause)
{
	const struct user_spec	*s = &r->opts.kernel;
	struct opgen_build	 b;
	unsigned		 arch = user_nvrtc_arch((unsigned)(
				     r->dev.cc_major * 10 + r->dev.cc_minor));
	char			*path, *function;
	int			 code = EWB_EXIT_USAGE;

	function = elementwise_function(r->opts.elementwise, &path);
	if (arch == 0) {
		*cause = xasprintf("--elementwise %s: this ewbench's NVRTC "
		    "cannot compile for this GPU's sm_%d%d", path,
		    r->dev.cc_major, r->dev.cc_minor);
		code = EWB_EXIT_ERROR;
		goto fail;
	}
	if (opgen_build(path, function, arch, &b, &code, cause) != 0)
		goto fail;
	if (s->path != NULL && s->op == EWB_OP_CUSTOM &&
	    (user_spec_inputs(s) != b.inputs || s->dtype != b.dtype)) {
		*cause = xasprintf("--elementwise %s:%s takes %u input%s of "
		    "%s; --kernel %s with its --reference, %u of %s: one op "
		    "per run", path, b.function, b.inputs,
		    b.inputs == 1 ? "" : "s", ewb_dtype_name(b.dtype),
		    s->path, user_spec_inputs(s), ewb_dtype_name(s->dtype));
		opgen_build_free(&b);
		code = EWB_EXIT_USAGE;
		goto fail;
	}
	/* The rows keep the path: the build's points at it. */
	r->gen_path = path;
	free(function);
	opgen_op_init(&r->gen, &b);
	/* -v, now that the members' ids are known */
	if (settings_select_members(&r->opts, r->gen.variants, r->gen.count,
	    cause) != 0)
		return EWB_EXIT_USAGE;
	if (!r->opts.quiet) {
		const struct opgen_build *g = &r->gen.build;
		char	*how = g->cached ? xasprintf("for sm_%u from the cache "
			    "(%s)", g->arch, g->cache_path) : xasprintf(
			    "compiled for sm_%u in %.2f s (NVRTC %d.%d)",
			    g->arch, g->compile_s, g->nvrtc_major,
			    g->nvrtc_minor);

		printf("ewbench: --elementwise %s:%s: %u kernels (%u input%s, "
		    "%s) %s, checked against %s\n", g->path, g->function,
		    r->gen.count, g->inputs, g->inputs == 1 ? "" : "s",
		    ewb_dtype_name(g->dtype), how, s->ref_path != NULL ?
		    s->ref_path : "the function itself, one thread per element");
		free(how);
	}
	r->opts.generated = r->gen.variants;
	r->opts.ngenerated = r->gen.count;
	r->gen.given_reference = s->ref_path != NULL;
	r->man.op_json = opgen_op_json;
	r->man.op_ctx = &r->gen;
	if (r->opts.dry_run)
		return 0;
	if (opgen_op_load(&r->gen, cause) != 0)
		return EWB_EXIT_ERROR;
	/* The --kernel's start has started it already. */
	if (s->path == NULL && watchdog_start(watchdog_fired, r, cause) != 0)
		return EWB_EXIT_ERROR;
	return 0;
fail:
	free(path);
	free(function);
	return code;
}

/*
 * cmd-run.c - `ewbench run`, `check`, `sweep` and `tune`: the command glue.
 *
 * Parse; claim the run directory (before the device is opened, so a
 * refused --out costs nothing and is never written to); open the device,
 * compile and load a --kernel (userkernel.h: its GPU work then runs under
 * the watchdog), and open the counters; build the plan (plan.c); then
 * walk it: per size and dtype, fresh inputs; per case, a check on the GPU
 * against the CPU reference (checker.c), then the timed points along the
 * plan's axes (measure.c); after the cases of a size and dtype, their
 * counters in as few profiler sessions as fit (profile.c).  Results go to the printers
 * (printers.c) and the manifest, which is rewritten after every group so
 * an interrupted run leaves complete rows and a readable run.json.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "run/bench.h"
#include "cmd/cli.h"
#include "device/chips.h"
#include "run/energy.h"
#include "cmd/fleet.h"
#include "device/hostfacts.h"
#include "run/nvtx.h"
#include "run/printers.h"
#include "cmd/commands.h"
#include "run/sass.h"
#include "trace/trace.h"
#include "device/watchdog.h"

struct runner {
	struct run_options	 opts;
	struct device_facts	 dev;
	struct host_facts	 host;		/* run.json "placement" */
	struct manifest		 man;
	struct plan		 plan;
	struct bench		 bench;
	struct printers		 pr;
	struct counters		*counters;
	struct metric_set	 mset;
	bool			 have_mset;
	bool			 pause_counters;	/* before each group:
							   counters_in_the_way */
	struct energy		 energy;	/* --energy (energy.h) */
	struct user_kernel	 user;		/* --kernel (id NULL: none) */
	bool			 user_failed;	/* its check failed: no more
						   timing or counters */
	struct point		 at;		/* the point at work, and */
	const char		*at_phase;	/* what of it: "check", ... */
	const char		*dir;		/* claimed; NULL: none */
	char			*created;	/* what the claim made */
	double			 started;
	char			 default_dir[256];
	char			 sass_note[256];	/* run.json "sass" */
};

/* Counters are optional: when they cannot be had, say why once and go on
 * timing; rows are then absent, never zero. */
static void
start_counters(struct runner *r)
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

static void
record_failure(struct runner *r, const struct point *p,
    const struct mismatch *bad)
{
	struct check_failure	*f;

	r->man.failures = xrealloc(r->man.failures,
	    (r->man.nfailures + 1) * sizeof *r->man.failures);
	f = &r->man.failures[r->man.nfailures++];
	f->variant = p->v->id;
	f->n = p->n;
	f->bad = *bad;
}

/* After measure_time failed: whether the range profiler object the
 * counters keep enabled between their sessions took the kernel records'
 * timestamps (CUPTI gives none while one is enabled on some drivers).  If
 * it may have, it is given back before every group from now on, and the
 * point can be timed again. */
static bool
counters_in_the_way(struct runner *r, char **cause)
{
	if (!r->bench.records_short || r->counters == NULL || r->pause_counters)
		return false;
	r->bench.records_short = false;
	r->pause_counters = true;
	counters_pause(r->counters);
	free(*cause);
	*cause = NULL;
	return true;
}

/* A user kernel's GPU work runs under the watchdog (watchdog.h): the
 * limit, and a second more per other point sharing the stretch. */
static void
watch(struct runner *r, const struct point *p, const char *phase,
    size_t others)
{
	char	what[160], size[32];

	size_format(p->n, size, sizeof size);
	snprintf(what, sizeof what, "%s n=%s (%s)", p->v->id, size, phase);
	watchdog_arm(what, r->opts.kernel.timeout_s + (unsigned)others);
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

/* --energy: the point's energy windows (energy.h), warm, replayed from a
 * graph, written beside its timing rows. */
static int
energy_point(struct runner *r, const struct launch *l, struct point *p,
    char **cause)
{
	struct energy_window	idle, busy[ENERGY_WINDOWS];
	unsigned		per_replay = 0;
	double			t0 = monotonic_seconds();
	int			rc;

	p->cache = CACHE_WARM;
	p->launch = "graph";
	nvtx_push_phase("energy");
	if (variant_is_user(p->v))
		watch(r, p, "energy", (size_t)ceil(energy_point_seconds(
		    r->opts.energy_window_s)));
	rc = energy_measure(&r->energy, &r->bench, l, &idle, busy,
	    &per_replay, cause);
	watchdog_disarm();
	nvtx_pop();
	r->man.wall.energy += monotonic_seconds() - t0;
	if (rc != 0)
		return -1;
	return printers_energy(&r->pr, p, &idle, busy, per_replay, cause);
}

/* One case: its check, then each timed point along the plan's axes. */
static int
run_case(struct runner *r, const struct plan_case *c, char **cause)
{
	const struct plan	*pl = &r->plan;
	struct launch		 l;
	struct point		 p;
	struct mismatch		 bad;
	struct timed		 t;
	size_t			 i, k;
	int			 passed;
	bool			 user = variant_is_user(c->v);

	double			 t0 = monotonic_seconds(), t1;

	bench_case(&r->bench, c, &l, &p);
	r->at = p;
	r->at_phase = "check";
	/* A user's op's reference kernel runs in checker_prepare: under the
	 * watchdog too (the CPU's reference of a built-in op is not). */
	if (user && c->v->op == EWB_OP_CUSTOM)
		watch(r, &p, "check", 0);
	if (checker_prepare(&r->bench, c, cause) != 0) {
		watchdog_disarm();
		return -1;
	}
	t1 = monotonic_seconds();
	r->man.wall.inputs += t1 - t0;
	if (bench_kernels(&l, &l.kernels, cause) != 0) {
		watchdog_disarm();
		return -1;
	}
	nvtx_push_phase("check");
	if (user && c->v->op != EWB_OP_CUSTOM)
		watch(r, &p, "check", 0);
	passed = checker_run(&r->bench, &l, &bad, cause);
	watchdog_disarm();
	nvtx_pop();
	t0 = monotonic_seconds();
	r->man.wall.checks += t0 - t1;
	if (passed < 0)
		return -1;
	if (passed)
		r->man.checks_passed++;
	else
		record_failure(r, &p, &bad);
	printers_checked(&r->pr, &p, passed, &bad, pl->command == CMD_CHECK);
	/* Wrong values from a kernel whose op was a guess: perhaps not the
	 * op's kernel at all. */
	if (user && !passed && bad.outside == 0 && !r->user_failed) {
		char	*hint = user_spec_guess_hint(&r->opts.kernel);

		if (hint != NULL)
			fprintf(stderr, "ewbench: %s: %s\n", c->v->id, hint);
		free(hint);
	}
	/* A user kernel that computes wrong, or writes outside its output,
	 * is not measured: its numbers would describe a wrong kernel, and
	 * its writes could land in ewbench's own buffers. */
	if (user && !passed)
		r->user_failed = true;
	if (user && r->user_failed)
		return 0;

	for (i = 0; i < pl->ncaches; i++) {
		for (k = 0; k < pl->nlaunches; k++) {
			p.cache = pl->caches[i];
			p.launch = pl->launches[k] == LAUNCH_GRAPH ? "graph" :
			    "stream";
			r->at = p;
			r->at_phase = "timing";
			nvtx_push_point(&p);
			t0 = monotonic_seconds();
			if (user)
				watch(r, &p, "timing", 0);
			if (measure_time(&r->bench, &l, p.cache,
			    pl->launches[k], &t, cause) != 0 &&
			    (!counters_in_the_way(r, cause) ||
			    measure_time(&r->bench, &l, p.cache,
			    pl->launches[k], &t, cause) != 0)) {
				watchdog_disarm();
				nvtx_pop();
				return -1;
			}
			watchdog_disarm();
			r->man.wall.timing += monotonic_seconds() - t0;
			nvtx_pop();
			if (t.queue_unfilled)
				fprintf(stderr, "ewbench: %s n=%llu: the host "
				    "could not queue %u launches behind the "
				    "spin kernel before it timed out; queued "
				    "interval not measured\n", p.v->id,
				    (unsigned long long)p.n,
				    r->bench.queue_launches);
			if (printers_timed(&r->pr, &p, &t, passed, cause) != 0)
				return -1;
		}
	}
	/* A wrong result's energy would be a wrong kernel's. */
	if (r->opts.energy && passed)
		return energy_point(r, &l, &p, cause);
	return 0;
}

/* Counters of cases[0..count) in every cache state of the plan. */
static int
profile_cases(struct runner *r, const struct plan_case *cases, size_t count,
    char **cause)
{
	const struct plan	*pl = &r->plan;
	size_t			 n = 0, i, k, m = r->mset.count;
	struct profiled		*pts = xcalloc(count * pl->ncaches + 1,
				     sizeof *pts);
	double			*values;
	struct occupancy	 occ;
	bool			 known;
	const struct point	*user = NULL;
	int			 rc = -1;

	for (i = 0; i < count; i++) {
		if (variant_is_user(cases[i].v) && r->user_failed)
			continue;	/* not measured (run_case) */
		for (k = 0; k < pl->ncaches; k++, n++) {
			bench_case(&r->bench, &cases[i], &pts[n].l, &pts[n].p);
			pts[n].p.cache = pl->caches[k];
			if (variant_is_user(cases[i].v) && user == NULL)
				user = &pts[n].p;
		}
	}
	/* One profiler session may hold every point of the group. */
	if (user != NULL)
		watch(r, user, "counters", n);
	if (n > 0) {
		r->at = user != NULL ? *user : pts[0].p;
		r->at_phase = "counters";
	}
	values = xcalloc(n * m + 1, sizeof *values);
	nvtx_push_phase("counters");
	/* The counters' replays are no point's time: CUPTI need not record
	 * their kernels. */
	if (trace_pause(true, cause) != 0)
		goto out;
	rc = profile_points(r->counters, m, pts, n, values, cause);
	watchdog_disarm();
	if (rc != 0 || trace_pause(false, cause) != 0)
		goto out;
	rc = -1;
	for (i = 0; i < n; i++) {
		if (measure_occupancy(&r->bench, &pts[i].p, &occ, &known,
		    cause) != 0 ||
		    printers_counters(&r->pr, &pts[i].p, &r->mset, r->counters,
		    values + i * m, &occ, known, cause) != 0)
			goto out;
	}
	rc = 0;
out:
	nvtx_pop();
	free(pts);
	free(values);
	return rc;
}

static int
walk_plan(struct runner *r, char **cause)
{
	const struct plan	*pl = &r->plan;
	size_t			 start, i;

	for (start = 0; start < pl->ncases && !interrupt_pending();
	    start = i) {
		const struct plan_case *first = &pl->cases[start];
		double			t0;

		/* A group: the cases of one size and dtype. */
		if (r->pause_counters)
			counters_pause(r->counters);
		for (i = start; i < pl->ncases && !interrupt_pending() &&
		    pl->cases[i].n == first->n &&
		    pl->cases[i].v->dtype == first->v->dtype; i++) {
			if (run_case(r, &pl->cases[i], cause) != 0)
				return -1;
		}
		t0 = monotonic_seconds();
		if (r->counters != NULL && pl->counters &&
		    !interrupt_pending() &&
		    profile_cases(r, first, i - start, cause) != 0)
			return -1;
		r->man.wall.counters += monotonic_seconds() - t0;
		if (manifest_update(r->dir, &r->man, "running", cause) != 0)
			return -1;
	}
	return 0;
}

/* Writes the --trace file, also after a failure or an interrupt: what was
 * collected is worth keeping.  Problems are counted, never hidden; -1
 * when the file could not be written (said on stderr). */
static int
write_trace(struct runner *r)
{
	struct trace		*t = NULL;
	struct trace_problems	 pr;
	char			*cause = NULL;

	if (trace_stop(&t, &cause) != 0) {
		fprintf(stderr, "ewbench: --trace: %s\n", cause);
		free(cause);
		cause = NULL;
	}
	if (t == NULL)
		return -1;
	trace_set_run(t, r->man.run_id, r->dev.index, r->dev.name);
	trace_problems(t, &pr);
	if (pr.dropped || pr.unreadable_buffers || pr.unpaired_ranges ||
	    pr.zero_timestamp || pr.end_before_start)
		fprintf(stderr, "ewbench: trace incomplete: %llu records "
		    "dropped, %zu unreadable buffers, %zu unpaired NVTX ranges, "
		    "%zu zero timestamps, %zu ending before they start (all "
		    "counted in the file's otherData)\n",
		    (unsigned long long)pr.dropped, pr.unreadable_buffers,
		    pr.unpaired_ranges, pr.zero_timestamp, pr.end_before_start);
	if (trace_json_write(t, r->opts.trace, &cause) != 0) {
		fprintf(stderr, "ewbench: --trace: %s\n", cause);
		free(cause);
		trace_free(t);
		return -1;
	}
	if (!r->opts.quiet)
		printf("ewbench: trace in %s (open it in ui.perfetto.dev)\n",
		    r->opts.trace);
	trace_free(t);
	return 0;
}

/* Metric names given on the command line, against every chip CUPTI
 * knows (no GPU needed): a misspelt one is a usage error, not a run
 * without counters.  Group files are checked by `ewbench metrics
 * --check`. */
static int
check_metric_names(const struct run_options *o, char **cause)
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
static void
stop_kernel_clock(void)
{
	struct trace	*t = NULL;
	char		*cause = NULL;

	trace_stop(&t, &cause);
	trace_free(t);
	free(cause);
}

/* Claims dir for this run; a directory that holds a run is refused
 * before anything is written to it. */
static int
claim(struct runner *r, const char *dir, int *code, char **cause)
{
	if ((*code = output_claim_dir(dir, &r->created, cause)) != 0)
		return -1;
	r->dir = dir;
	return 0;
}

/* The device, opened after the activity collector has started (it must
 * see the first CUDA call): --trace's, or the one that times kernels.  A
 * trace that cannot start on a machine without a GPU is reported as no
 * GPU; a kernel clock that cannot start (another CUPTI tool attached)
 * leaves the timing to CUDA events, and the rows say so. */
static int
open_device(struct runner *r, char **cause)
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
	if (trace_started())
		r->man.timer = "cupti_kernel_activity";
	/* Without a usable GPU CUPTI fails too (CUPTI_ERROR_UNKNOWN): the
	 * GPU's own reason is the one to say. */
	code = device_open(r->opts.device, &r->dev, cause);
	if (code == 0 && trace_cause != NULL)
		fprintf(stderr, "ewbench: kernel times unavailable, timing "
		    "with CUDA events: %s\n", trace_cause);
	free(trace_cause);
	return code;
}

static int	 start_user_kernel(struct runner *, char **);

/* The plan says when the run directory will have no sass.csv (a build
 * without cuobjdump): it is nowhere else to be seen before the run. */
static void
plan_print_sass(const struct run_options *o)
{
	if (o->command != CMD_CHECK && strcmp(ewb_sass_status,
	    "recorded") != 0)
		printf("sass.csv: %s\n", ewb_sass_status);
}

/* --dry-run without the GPU: the plan for a GPU's facts by name (--chip),
 * or, where there is no usable GPU, a generic estimate for CHIPS_DEFAULT's,
 * said as such.  Counter passes come from CUPTI's host API (no GPU). */
static int
plan_without_gpu(struct runner *r, const char *command, const char *no_gpu)
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
	/* --kernel: compiled for the chip's architecture, not loaded. */
	if (r->opts.kernel.path != NULL &&
	    (code = start_user_kernel(r, &cause)) != 0) {
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
		while (nbad > 0)
			free(bad[--nbad]);
		free(bad);
	}
	free(cause);
	cause = NULL;
	if ((rc = plan_build(&r->opts, &r->dev, r->dev.memory_bytes,
	    passes > 0, &r->plan, &cause)) != 0) {
		fprintf(stderr, "ewbench %s: %s\n", command, cause);
		free(cause);
		return rc == PLAN_NOTHING_LEFT ? EWB_EXIT_USAGE : EWB_EXIT_ERROR;
	}
	plan_print(&r->plan, &r->opts, &r->dev, passes, stdout);
	plan_print_sass(&r->opts);
	return EWB_EXIT_OK;
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

static int
start_user_kernel(struct runner *r, char **cause)
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

static void
runner_free(struct runner *r)
{
	if (r->pr.timing != NULL)
		csv_close(r->pr.timing, NULL);
	if (r->pr.metrics != NULL)
		csv_close(r->pr.metrics, NULL);
	if (r->pr.energy != NULL)
		csv_close(r->pr.energy, NULL);
	printers_free(&r->pr);
	if (r->counters != NULL)
		counters_close(r->counters);
	if (r->have_mset)
		metric_set_free(&r->mset);
	watchdog_stop();
	bench_close(&r->bench);
	if (r->user.spec != NULL)
		user_kernel_free(&r->user);
	plan_free(&r->plan);
	free(r->man.failures);
	free(r->man.counters_reason);
	free(r->created);
	host_facts_free(&r->host);
	cli_free_run(&r->opts);
}

/* Closes the CSVs (flushed to disk) before run.json says they are whole. */
static int
close_files(struct runner *r, char **cause)
{
	struct csv	*timing = r->pr.timing, *metrics = r->pr.metrics;
	struct csv	*energy = r->pr.energy;
	int		 rc = 0;

	r->pr.timing = r->pr.metrics = r->pr.energy = NULL;
	if (timing != NULL && csv_close(timing, cause) != 0)
		rc = -1;
	if (metrics != NULL && csv_close(metrics, rc == 0 ? cause : NULL) != 0)
		rc = -1;
	if (energy != NULL && csv_close(energy, rc == 0 ? cause : NULL) != 0)
		rc = -1;
	return rc;
}

/* Undoes the claim of a run that has written no manifest yet: its files
 * and the directories the claim made go, as if it never started. */
static void
release_claim(struct runner *r)
{
	char	*ignored = NULL;

	close_files(r, &ignored);
	free(ignored);
	if (r->dir != NULL)
		output_release_claim(r->dir, r->created);
	else
		free(r->created);
	r->created = NULL;
	r->dir = NULL;
}

static bool
ran_as_fallback(const struct plan *p, const char *id)
{
	size_t	i;

	for (i = 0; i < p->nfallbacks; i++) {
		if (strcmp(p->fallbacks[i].variant, id) == 0)
			return true;
	}
	return false;
}

/* sass.csv: the build's rows (src/run/sass.h) of each kernel the plan runs,
 * for the machine code the driver loaded for it; run.json says which
 * architecture, or why there are none.  A variant run as its fallback
 * kernel has none: its own kernel did not run. */
static int
record_sass(struct runner *r, char **cause)
{
	const struct sass_row	**rows = NULL;
	const struct ewb_variant *v;
	char			 arch[16] = "", code[16];
	size_t			 i, j, k, count = 0;
	unsigned		 loaded;
	bool			 kernels = false;
	int			 rc = 0;

	if (strcmp(ewb_sass_status, "recorded") != 0) {
		r->man.sass = ewb_sass_status;
		if (!r->opts.quiet)
			fprintf(stderr, "ewbench: sass.csv not written: %s\n",
			    ewb_sass_status + strlen("not recorded: "));
		return 0;
	}
	for (i = 0; i < r->plan.ncases; i++) {
		v = r->plan.cases[i].v;
		for (j = 0; j < i && r->plan.cases[j].v != v; j++)
			;
		if (j < i || v->kernel == NULL ||
		    ran_as_fallback(&r->plan, v->id))
			continue;
		if ((loaded = ewb_binary_arch(v->kernel)) == 0)
			continue;	/* the driver did not say: no rows */
		kernels = true;
		snprintf(code, sizeof code, "sm_%u", loaded);
		for (k = 0; k < ewb_sass_count; k++) {
			if (strcmp(ewb_sass_rows[k].variant, v->id) != 0 ||
			    strcmp(ewb_sass_rows[k].arch, code) != 0)
				continue;
			rows = xrealloc(rows, (count + 1) * sizeof *rows);
			rows[count++] = &ewb_sass_rows[k];
			snprintf(arch, sizeof arch, "%s", code);
		}
		if (arch[0] == '\0')
			snprintf(arch, sizeof arch, "%s", code);
	}
	if (count > 0) {
		snprintf(r->sass_note, sizeof r->sass_note, "recorded for %s",
		    arch);
		rc = sass_csv_write(r->dir, r->man.run_id, rows, count, cause);
	} else if (kernels)
		snprintf(r->sass_note, sizeof r->sass_note, "not recorded: "
		    "this build holds the SASS of %s, none of it for the %s "
		    "code the driver loaded (JIT-compiled from PTX)",
		    EWB_CUDA_ARCH, arch);
	else
		snprintf(r->sass_note, sizeof r->sass_note, "not recorded: "
		    "no kernel of this build ran whose loaded code the driver "
		    "names");
	r->man.sass = r->sass_note;
	free(rows);
	return rc;
}

/* The run directory's files, then the first run.json.  On failure
 * nothing of them stays: *code says why (the claim's status, or 1). */
static int
begin_output(struct runner *r, int *code, char **cause)
{
	if (r->dir == NULL) {
		output_default_dir(&r->dev, "ewbench", r->default_dir,
		    sizeof r->default_dir);
		if ((*code = output_claim_dir(r->default_dir, &r->created,
		    cause)) != 0)
			return -1;
		r->dir = r->default_dir;
	}
	*code = EWB_EXIT_ERROR;
	if ((r->pr.timing = timing_csv_open(r->dir, cause)) == NULL ||
	    (r->counters != NULL &&
	    (r->pr.metrics = metrics_csv_open(r->dir, cause)) == NULL) ||
	    (r->opts.energy &&
	    (r->pr.energy = energy_csv_open(r->dir, cause)) == NULL) ||
	    record_sass(r, cause) != 0 ||
	    manifest_update(r->dir, &r->man, "running", cause) != 0) {
		release_claim(r);
		return -1;
	}
	printers_header(&r->pr);
	return 0;
}

/* word as the shell reads it back: as it is where that is safe, else in
 * single quotes.  Appended to *line after a space. */
static void
add_word(char **line, const char *word)
{
	const char	*p;
	char		*quoted = xstrdup("'"), *more;
	bool		 plain = *word != '\0';

	for (p = word; *p != '\0' && plain; p++)
		plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_./:@%+=,-", *p) != NULL;
	for (p = word; !plain && *p != '\0'; p++) {
		more = xasprintf("%s%s", quoted, *p == '\'' ? "'\\''" :
		    (char[]){ *p, '\0' });
		free(quoted);
		quoted = more;
	}
	more = xasprintf("%s %s%s", *line, plain ? word : quoted,
	    plain ? "" : "'");
	free(quoted);
	free(*line);
	*line = more;
}

/* The command that runs point p's check alone under compute-sanitizer's
 * memcheck, which names the faulting access (docs/user-kernels.md): a
 * user's kernel with its options and --no-guard, a built-in variant by
 * its id. */
static char *
sanitizer_command(const struct runner *r, const struct point *p)
{
	const struct user_spec	*s = &r->opts.kernel;
	char			*line = xstrdup("compute-sanitizer --tool "
				    "memcheck ewbench check"), *word;
	size_t			 i;

	if (variant_is_user(p->v)) {
		word = xasprintf("%s:%s", s->path, r->user.build.function);
		add_word(&line, "--kernel");
		add_word(&line, word);
		free(word);
		if (s->ref_path != NULL) {
			word = xasprintf("%s:%s", s->ref_path,
			    r->user.ref.function);
			add_word(&line, "--reference");
			add_word(&line, word);
			free(word);
		}
		if (s->op_given) {
			add_word(&line, "--op");
			add_word(&line, ewb_op_name(s->op));
		}
		if (s->dtype_given) {
			add_word(&line, "--dtype");
			add_word(&line, ewb_dtype_name(s->dtype));
		}
		if (s->per_thread != 1) {
			word = xasprintf("%u", s->per_thread);
			add_word(&line, "--elems-per-thread");
			add_word(&line, word);
			free(word);
		}
		for (i = 0; i < s->nflags; i++) {
			word = xasprintf("--kernel-flags=%s", s->flags[i]);
			add_word(&line, word);
			free(word);
		}
		word = xasprintf("%u", p->block);
		add_word(&line, "--kernel-block");
		add_word(&line, word);
		free(word);
	} else {
		add_word(&line, "-v");
		add_word(&line, p->v->id);
		if (p->block != 0) {
			word = xasprintf("%u", p->block);
			add_word(&line, "--block");
			add_word(&line, word);
			free(word);
		}
	}
	if (r->opts.misalign)
		add_word(&line, "--misalign");
	word = xasprintf("%llu", (unsigned long long)p->n);
	add_word(&line, "-s");
	add_word(&line, word);
	free(word);
	if (variant_is_user(p->v))
		add_word(&line, "--no-guard");
	return line;
}

/*
 * After a failure: when the GPU holds a kernel's fault (an illegal
 * address, ...; sticky: a synchronisation returns it again), the cause
 * (which named only the call that met it) becomes one that names the
 * point that was at work, its size and block, and the command that finds
 * the access under compute-sanitizer; a user's kernel's entry in
 * run.json says so too ("stopped").  Any other failure is left as it is.
 */
static void
name_fault(struct runner *r, char **cause)
{
	const struct point	*p = &r->at;
	cudaError_t		 e;
	char			*was = *cause, *how, block[32], *what;

	if (p->v == NULL || !cuda_is_fault(e = cudaDeviceSynchronize()))
		return;
	if (p->block != 0)
		snprintf(block, sizeof block, "block %u", p->block);
	else
		snprintf(block, sizeof block, "block chosen by the library");
	what = xasprintf("%s n=%llu %s (%s) faulted on the GPU: %s (%s)",
	    p->v->id, (unsigned long long)p->n, block, r->at_phase,
	    cudaGetErrorString(e), cudaGetErrorName(e));
	how = sanitizer_command(r, p);
	*cause = xasprintf("%s. The GPU context is lost: the run stops "
	    "here%s%s. To find the access, run it under compute-sanitizer "
	    "(docs/user-kernels.md): %s", what, r->dir != NULL ?
	    ", its complete rows kept in " : "", r->dir != NULL ? r->dir : "",
	    how);
	if (variant_is_user(p->v) && r->user.stopped == NULL)
		r->user.stopped = xasprintf("%s; find the access with: %s",
		    what, how);
	free(what);
	free(how);
	free(was);
}

int
run_command(int argc, char **argv)
{
	struct runner	 r;
	char		*cause = NULL;
	size_t		 free_bytes = 0, total = 0;
	int		 code, rc;
	bool		 writes;

	memset(&r, 0, sizeof r);
	/* Caught from the start: a signal at any point from the claim on
	 * ends the run with its claim released or its run.json saying so. */
	interrupt_catch();
	if (cli_parse_run(argc, argv, &r.opts, &cause) != 0) {
		fprintf(stderr, "ewbench %s: %s\n", argv[0], cause);
		free(cause);
		cli_free_run(&r.opts);
		return EWB_EXIT_USAGE;
	}
	/* What can be refused without a GPU is refused now. */
	if (check_metric_names(&r.opts, &cause) != 0 ||
	    (r.opts.trace != NULL &&
	    output_check_writable(r.opts.trace, "--trace", &cause) != 0)) {
		fprintf(stderr, "ewbench %s: %s\n", argv[0], cause);
		free(cause);
		cli_free_run(&r.opts);
		return EWB_EXIT_USAGE;
	}
	/* Many GPUs (--device all, a list), or one task of a scheduler's. */
	if (fleet_dispatch(argc, argv, &r.opts, &r.host, &code) != 0) {
		host_facts_free(&r.host);
		cli_free_run(&r.opts);
		return code;
	}
	writes = r.opts.command != CMD_CHECK && !r.opts.dry_run;
	if (writes && r.opts.out != NULL &&
	    claim(&r, r.opts.out, &code, &cause) != 0) {
		fprintf(stderr, "ewbench %s: %s\n", argv[0], cause);
		free(cause);
		host_facts_free(&r.host);
		cli_free_run(&r.opts);
		return code;
	}
	if (r.opts.dry_run && r.opts.chip != NULL) {
		code = plan_without_gpu(&r, argv[0], NULL);
		runner_free(&r);
		return code;
	}
	if ((code = open_device(&r, &cause)) != 0) {
		if (r.opts.dry_run && code == EWB_EXIT_NODEV) {
			code = plan_without_gpu(&r, argv[0], cause);
			free(cause);
			runner_free(&r);
			return code;
		}
		fprintf(stderr, "ewbench: %s\n", cause);
		free(cause);
		release_claim(&r);
		host_facts_free(&r.host);
		cli_free_run(&r.opts);
		return code;
	}
	/* A --kernel that does not compile: nothing measured, the claim
	 * undone. */
	if (r.opts.kernel.path != NULL &&
	    (code = start_user_kernel(&r, &cause)) != 0) {
		fprintf(stderr, "ewbench: %s\n", cause);
		free(cause);
		release_claim(&r);
		runner_free(&r);
		return code;
	}
	host_facts_begin(&r.host, &r.dev);
	r.man.host_facts = &r.host;
	/* --energy on a GPU whose energy counter cannot measure this run:
	 * refused before anything is measured. */
	if (r.opts.energy && !r.opts.dry_run &&
	    energy_open(&r.energy, &r.host, r.opts.energy_window_s,
	    &cause) != 0) {
		fprintf(stderr, "ewbench: --energy refused: %s\n", cause);
		free(cause);
		host_facts_end(&r.host);
		release_claim(&r);
		runner_free(&r);
		return EWB_EXIT_NODEV;
	}
	nvtx_init(&r.dev);
	r.man.command = argv[0];
	r.man.argc = argc;
	r.man.argv = argv;
	r.man.device = &r.dev;
	r.man.opts = &r.opts;
	r.man.counters_status = "off";
	r.started = monotonic_seconds();
	output_utc_now(r.man.started_utc, sizeof r.man.started_utc);
	output_run_id(&r.dev, r.man.run_id, sizeof r.man.run_id);

	code = EWB_EXIT_ERROR;
	nvtx_push_phase("allocate");
	start_counters(&r);
	if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess)
		free_bytes = r.dev.memory_bytes;
	if ((rc = plan_build(&r.opts, &r.dev, free_bytes, r.counters != NULL,
	    &r.plan, &cause)) != 0) {
		if (rc == PLAN_NOTHING_LEFT)
			code = EWB_EXIT_USAGE;
		nvtx_pop();
		goto refuse;
	}
	r.man.sizes = r.plan.sizes;
	r.man.nsizes = r.plan.nsizes;
	r.man.choices = r.plan.choices;
	r.man.nchoices = r.plan.nchoices;
	r.man.skipped = r.plan.skipped;
	r.man.nskipped = r.plan.nskipped;
	r.man.fallbacks = r.plan.fallbacks;
	r.man.nfallbacks = r.plan.nfallbacks;
	r.man.flush_bytes = r.plan.flush_bytes;
	if (r.opts.dry_run) {
		nvtx_pop();
		plan_print(&r.plan, &r.opts, &r.dev, r.man.passes, stdout);
		plan_print_sass(&r.opts);
		runner_free(&r);
		return EWB_EXIT_OK;
	}
	if (bench_open(&r.bench, &r.plan, &r.opts, &r.dev, &code,
	    &cause) != 0) {
		nvtx_pop();
		goto refuse;
	}
	r.bench.host = &r.host;
	r.man.timer_step_ns = trace_started() ? r.bench.timer_step_ns : 0;
	nvtx_pop();
	if (r.opts.energy) {
		char *why = NULL;

		if (energy_alone(&r.energy, &why) != 0) {
			code = EWB_EXIT_NODEV;
			cause = xasprintf("--energy refused: %s", why);
			free(why);
			goto refuse;
		}
		r.man.energy = &r.energy;
	}
	/* Stopped before anything was measured: as if never started. */
	if (interrupt_pending()) {
		code = EWB_EXIT_INTERRUPTED;
		cause = xasprintf("interrupted before the first point%s",
		    r.dir != NULL ? "; --out released" : "");
		goto refuse;
	}
	printers_init(&r.pr, &r.dev, r.man.run_id, r.opts.quiet,
	    r.opts.command == CMD_CHECK ? r.plan.ncases :
	    plan_timed_points(&r.plan));
	r.pr.tune = r.opts.command == CMD_TUNE;
	for (size_t i = 0; i < r.plan.ncases; i++) {
		int len = (int)strlen(r.plan.cases[i].v->id);

		if (len > r.pr.id_width)
			r.pr.id_width = len;
	}
	if (writes && begin_output(&r, &code, &cause) != 0)
		goto refuse;
	code = EWB_EXIT_ERROR;
	for (size_t i = 0; i < r.plan.nskipped; i++)
		fprintf(stderr, "ewbench: skipped %s: %s\n",
		    r.plan.skipped[i].variant, r.plan.skipped[i].reason);

	r.man.wall.setup = monotonic_seconds() - r.started;
	if (r.counters != NULL)
		r.man.counters_wall = counters_wall(r.counters);
	nvtx_push_phase(r.opts.command == CMD_CHECK ? "check" : "run");
	if (walk_plan(&r, &cause) != 0) {
		nvtx_pop();
		goto fail;
	}
	nvtx_pop();
	if (close_files(&r, &cause) != 0)
		goto fail;
	r.man.wall.total = monotonic_seconds() - r.started;
	r.man.wall.fill = r.bench.wall_fill;
	r.man.wall.reference = r.bench.wall_reference;
	r.man.wall.upload = r.bench.wall_upload;
	r.man.wall.warmup = r.bench.wall_warmup;
	r.man.wall.readback = r.bench.wall_readback;
	if (interrupt_pending())
		code = EWB_EXIT_INTERRUPTED;
	else
		code = r.man.nfailures > 0 ? EWB_EXIT_CHECK : EWB_EXIT_OK;
	host_facts_end(&r.host);
	if (manifest_update(r.dir, &r.man, code == EWB_EXIT_INTERRUPTED ?
	    "interrupted" : "complete", &cause) != 0) {
		fprintf(stderr, "ewbench: %s\n", cause);
		free(cause);
		code = EWB_EXIT_ERROR;
		goto out;
	}
	if (r.pr.tune)
		printers_tune_table(&r.pr);
	if (!r.opts.quiet || r.man.nfailures > 0)
		fprintf(r.man.nfailures > 0 ? stderr : stdout,
		    "ewbench: %zu checks passed, %zu failed%s%s\n",
		    r.man.checks_passed, r.man.nfailures,
		    r.dir != NULL ? "; results in " : "",
		    r.dir != NULL ? r.dir : "");
	goto out;

refuse:
	/* Nothing measured yet: the claim is released, not kept as a
	 * failed run. */
	fprintf(stderr, "ewbench: %s\n", cause);
	free(cause);
	host_facts_end(&r.host);
	release_claim(&r);
	goto out;
fail:
	name_fault(&r, &cause);
	fprintf(stderr, "ewbench: %s\n", cause);
	free(cause);
	cause = NULL;
	host_facts_end(&r.host);
	/* The rows on disk are whole (csv.c); run.json says the run failed,
	 * or, where even that cannot be written, keeps its last state. */
	if (manifest_update(r.dir, &r.man, "failed", &cause) != 0) {
		fprintf(stderr, "ewbench: %s\n", cause);
		free(cause);
	}
out:
	if (r.opts.trace != NULL) {
		if (write_trace(&r) != 0 &&
		    (code == EWB_EXIT_OK || code == EWB_EXIT_CHECK))
			code = EWB_EXIT_ERROR;
	} else
		stop_kernel_clock();
	runner_free(&r);
	return code;
}

/*
 * walk.c - `ewbench run` walks its plan: per case a check on the GPU
 * against the CPU reference (checker.c), then the timed points along the
 * plan's axes (measure.c) and --energy's windows; once every point is
 * timed, the counters, in as few profiler sessions as fit (profile.c).
 * Each stretch of GPU work runs under the watchdog.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "run/runner.h"

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
watch_stretch(struct runner *r, const struct point *p, const char *phase,
    size_t others)
{
	char	what[160], size[32];

	size_format(p->n, size, sizeof size);
	snprintf(what, sizeof what, "%s n=%s (%s)", p->v->id, size, phase);
	watchdog_arm(what, r->opts.kernel.timeout_s + (unsigned)others);
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
		watch_stretch(r, p, "energy", (size_t)ceil(energy_point_seconds(
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

/* Where a user's kernel's failed check is noted: the --kernel's, or the
 * generated member's own (one failing member leaves the others timed). */
static bool *
failed_flag(struct runner *r, const struct ewb_variant *v)
{
	if (strcmp(v->origin, OPGEN_ORIGIN) == 0 &&
	    opgen_member_index(v) < OPGEN_KERNELS)
		return &r->gen_failed[opgen_member_index(v)];
	return &r->user_failed;
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
	bool			 user = variant_is_user(c->v), cross;

	double			 t0 = monotonic_seconds(), t1;

	bench_case(&r->bench, c, &l, &p);
	r->at = p;
	r->at_phase = "check";
	/* A user's op's reference kernel runs in checker_prepare: under the
	 * watchdog too (the CPU's reference of a built-in op is not). */
	if (user && c->v->op == EWB_OP_CUSTOM)
		watch_stretch(r, &p, "check", 0);
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
		watch_stretch(r, &p, "check", 0);
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
	if (user && !passed && bad.outside == 0 && !*failed_flag(r, c->v) &&
	    strcmp(c->v->origin, OPGEN_ORIGIN) != 0) {
		char	*hint = user_spec_guess_hint(&r->opts.kernel);

		if (hint != NULL)
			fprintf(stderr, "ewbench: %s: %s\n", c->v->id, hint);
		free(hint);
	}
	/* A user kernel that computes wrong, or writes outside its output,
	 * is not measured: its numbers would describe a wrong kernel, and
	 * its writes could land in ewbench's own buffers. */
	if (user && !passed)
		*failed_flag(r, c->v) = true;
	if (user && *failed_flag(r, c->v))
		return 0;

	/* The timer cross-check at up to CROSSCHECK_SIZES sizes: all of a
	 * run's when it has no more, else its smallest and largest. */
	cross = pl->nsizes <= CROSSCHECK_SIZES || p.n == pl->sizes[0] ||
	    p.n == pl->sizes[pl->nsizes - 1];
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
				watch_stretch(r, &p, "timing", 0);
			if (measure_time(&r->bench, &l, p.cache,
			    pl->launches[k], cross, &t, cause) != 0 &&
			    (!counters_in_the_way(r, cause) ||
			    measure_time(&r->bench, &l, p.cache,
			    pl->launches[k], cross, &t, cause) != 0)) {
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
		if (variant_is_user(cases[i].v) && *failed_flag(r, cases[i].v))
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
		watch_stretch(r, user, "counters", n);
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
		    (known && r->opts.residency > 0 &&
		    residency_occupancy(&pts[i].l, &occ, cause) != 0) ||
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

/*
 * The counters come once every point is timed.  A profiler session slows
 * what the process runs after it: on an H200 (CUDA 13.0, 2026-11-29) graph
 * replays of 1-2 us kernels ran some 180 ns a launch slower after one, and
 * cold kernels' records read some 150 ns shorter, while points timed with
 * the profiler object enabled but no session yet read as without
 * counters; a fresh object per session avoided it but cost 0.44 s a
 * session.  So: the built-in kernels' points in as few sessions as their
 * ranges fit (profile.c; a session's start costs about 25 ms whatever its
 * ranges), whatever inputs the buffers hold by then (those kernels move
 * the same bytes and issue the same instructions whatever the values);
 * then each size and dtype's user kernels in sessions of their own, their
 * inputs drawn again (the same values: checker_inputs), since a user's
 * kernel may branch on them.
 */
static int
profile_plan(struct runner *r, char **cause)
{
	const struct plan	*pl = &r->plan;
	struct plan_case	*some = xcalloc(pl->ncases + 1, sizeof *some);
	size_t			 start, i, n = 0;
	int			 rc = -1;

	for (i = 0; i < pl->ncases; i++)
		if (!variant_is_user(pl->cases[i].v))
			some[n++] = pl->cases[i];
	if (n > 0 && profile_cases(r, some, n, cause) != 0)
		goto out;
	for (start = 0; start < pl->ncases; start = i) {
		for (n = 0, i = start; i < pl->ncases &&
		    pl->cases[i].n == pl->cases[start].n &&
		    pl->cases[i].v->dtype == pl->cases[start].v->dtype; i++)
			if (variant_is_user(pl->cases[i].v))
				some[n++] = pl->cases[i];
		if (n > 0 && (checker_inputs(&r->bench, &some[0], cause) != 0 ||
		    profile_cases(r, some, n, cause) != 0))
			goto out;
	}
	rc = 0;
out:
	free(some);
	return rc;
}

int
runner_walk_plan(struct runner *r, char **cause)
{
	const struct plan	*pl = &r->plan;
	size_t			 start, i;
	double			 t0;

	for (start = 0; start < pl->ncases && !interrupt_pending();
	    start = i) {
		const struct plan_case *first = &pl->cases[start];

		/* A group: the cases of one size and dtype. */
		if (r->pause_counters)
			counters_pause(r->counters);
		for (i = start; i < pl->ncases && !interrupt_pending() &&
		    pl->cases[i].n == first->n &&
		    pl->cases[i].v->dtype == first->v->dtype; i++) {
			if (run_case(r, &pl->cases[i], cause) != 0)
				return -1;
		}
		if (manifest_update(r->dir, &r->man, "running", cause) != 0)
			return -1;
	}
	if (r->counters == NULL || !pl->counters || interrupt_pending())
		return 0;
	t0 = monotonic_seconds();
	if (profile_plan(r, cause) != 0)
		return -1;
	r->man.wall.counters += monotonic_seconds() - t0;
	return manifest_update(r->dir, &r->man, "running", cause);
}

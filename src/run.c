/*
 * run.c - `ewbench run`, `check`, `sweep` and `tune`: the measurement loop.
 *
 * For each size (ascending) and dtype, fresh random inputs are uploaded
 * once; then, per selected variant of that dtype and block size:
 *   1. check:   output poisoned (all bits set: NaN), one launch, every
 *               element compared with the CPU reference;
 *   2. timing:  `warmup` untimed launches, then `iters` timed ones.  warm =
 *               back to back on the same buffers; cold = an L2 flush
 *               (reading a buffer 4x the L2) before every launch, outside
 *               the time.  stream: each launch between its own pair of
 *               CUDA events; graph: see issue_graph();
 * and after all variants of that dtype, when counters are on:
 *   3. counters: one profiled launch per point, in its own pass (the
 *               profiler replays and serialises kernels: its times are
 *               never used as timings).
 * What makes a result valid: the check passed, the device stayed the same,
 * and the run.json manifest says how it was measured.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include "counters.h"
#include "nvtx.h"
#include "run.h"
#include "tiers.h"
#include "trace.h"

struct study {
	struct run_options	 opts;
	struct device_facts	 dev;
	struct manifest		 man;
	const char		*dir;
	struct csv		*timing;
	struct csv		*metrics;
	struct counters		*counters;
	struct metric_set	 mset;
	bool			 have_mset;

	cudaStream_t		 stream;
	cudaEvent_t		*events;	/* 2 per timed launch */
	double			*samples;
	void			*d_a, *d_b, *d_c, *d_flush;
	void			*base_a, *base_b, *base_c;	/* as allocated */
	void			*h_a, *h_b, *h_c;

	/* Sizes per variant (sweep, --preset tiers); NULL: all of opts.sizes. */
	uint64_t		**vsizes;
	size_t			 *vcount;

	/* `ewbench tune`: every timed point, for the best-shape table. */
	struct tuned {
		const struct ewb_variant *v;
		uint64_t	 n;
		unsigned	 block;
		enum cache_mode	 cache;
		const char	*launch;
		double		 median_ns;
	}			*tuned;
	size_t			 ntuned;

	/* Progress line (stderr, terminals only). */
	size_t			 points_total;
	size_t			 points_done;
	double			 started;
};

/* Everything one launch needs, for the timing loop and counter callbacks. */
struct launch {
	struct study		*s;
	const struct ewb_variant *v;
	struct ewb_launch_args	 args;
	enum cache_mode		 cache;
};

static int
launch_once(const struct launch *l, char **cause)
{
	cudaError_t	e = l->v->launch(&l->args);

	if (e != cudaSuccess)
		return cuda_fail(e, l->v->id, cause);
	return 0;
}

static int
flush_l2(struct study *s, char **cause)
{
	CUDA_TRY(ewb_l2_flush(s->d_flush, s->man.flush_bytes, s->stream),
	    cause);
	return 0;
}

/* Counter callbacks.  cold: an L2 flush before the profiling session.
 * warm: the same kernel launched just before the profiled one, inside the
 * same session (the profiler evaluates the last range): launched before
 * the session, its lines did not survive the profiler's setup. */
static int
counters_prepare(void *ctx)
{
	struct launch	*l = ctx;
	char		*cause = NULL;

	if (flush_l2(l->s, &cause) != 0) {
		fprintf(stderr, "ewbench: %s\n", cause);
		free(cause);
		return -1;
	}
	return 0;
}

static int
counters_launch(void *ctx)
{
	struct launch	*l = ctx;
	char		*cause = NULL;

	if ((l->cache == CACHE_WARM && launch_once(l, &cause) != 0) ||
	    launch_once(l, &cause) != 0) {
		fprintf(stderr, "ewbench: %s\n", cause);
		free(cause);
		return -1;
	}
	return 0;
}

static void
upload_inputs(struct study *s, enum ewb_dtype dtype, uint64_t n)
{
	size_t	bytes = n * ewb_dtype_size(dtype);
	uint64_t key = n * 2 + (dtype == EWB_F16);

	fill_random(s->h_a, dtype, n, fill_seed(s->opts.seed, key * 2));
	fill_random(s->h_b, dtype, n, fill_seed(s->opts.seed, key * 2 + 1));
	cudaMemcpy(s->d_a, s->h_a, bytes, cudaMemcpyHostToDevice);
	cudaMemcpy(s->d_b, s->h_b, bytes, cudaMemcpyHostToDevice);
}

/* One launch on fresh inputs and a poisoned output, compared element by
 * element with the CPU reference.  Returns 1 pass, 0 fail, -1 error. */
static int
check_variant(struct study *s, struct launch *l, char **cause)
{
	const struct ewb_variant	*v = l->v;
	size_t				 bytes = l->args.n * ewb_dtype_size(v->dtype);
	struct mismatch			 bad;
	struct check_failure		*f;
	const char			*corrupt;

	if (trace_point_begin(&(struct trace_label){ v->id, l->args.n,
	    "warm", "check" }, cause) != 0)
		return -1;
	if (v->in_place)
		CUDA_TRY(cudaMemcpyAsync(s->d_c, s->d_a, bytes,
		    cudaMemcpyDeviceToDevice, s->stream), cause);
	else
		CUDA_TRY(cudaMemsetAsync(s->d_c, 0xff, bytes, s->stream),
		    cause);
	if (launch_once(l, cause) != 0 ||
	    trace_point_end(NULL, NULL, cause) != 0)
		return -1;
	CUDA_TRY(cudaStreamSynchronize(s->stream), cause);
	CUDA_TRY(cudaMemcpy(s->h_c, s->d_c, bytes, cudaMemcpyDeviceToHost),
	    cause);
	/* Test hook (tests/gpu/check.sh): spoil the middle element, to prove
	 * a wrong result is caught and reported. */
	if ((corrupt = getenv("EWBENCH_TEST_CORRUPT")) != NULL &&
	    strcmp(corrupt, v->id) == 0)
		memset((char *)s->h_c + l->args.n / 2 * ewb_dtype_size(v->dtype),
		    0x7f, ewb_dtype_size(v->dtype));
	if (reference_check(v, s->h_a, s->h_b, s->h_c, l->args.n, &bad) == 0) {
		s->man.checks_passed++;
		return 1;
	}
	fprintf(stderr, "ewbench: CHECK FAILED: %s n=%llu: element %zu is %.9g, "
	    "expected %.9g (%zu of %llu elements wrong)\n", v->id,
	    (unsigned long long)l->args.n, bad.index, bad.got, bad.expected,
	    bad.bad_count, (unsigned long long)l->args.n);
	s->man.failures = xrealloc(s->man.failures,
	    (s->man.nfailures + 1) * sizeof *s->man.failures);
	f = &s->man.failures[s->man.nfailures++];
	f->variant = v->id;
	f->n = l->args.n;
	f->bad = bad;
	return 0;
}

/* The timed launches, each between its own pair of events.  Captured into
 * a graph, the events become graph nodes (cudaEventRecordExternal), so a
 * graph replay times the same thing without the host's launch path. */
static int
issue_timed(struct study *s, struct launch *l, unsigned flags, char **cause)
{
	unsigned	i;

	for (i = 0; i < s->opts.iters; i++) {
		if (l->cache == CACHE_COLD && flush_l2(s, cause) != 0)
			return -1;
		CUDA_TRY(cudaEventRecordWithFlags(s->events[2 * i], s->stream,
		    flags), cause);
		if (launch_once(l, cause) != 0)
			return -1;
		CUDA_TRY(cudaEventRecordWithFlags(s->events[2 * i + 1],
		    s->stream, flags), cause);
	}
	return 0;
}

/* Replays of one graph: warm graphs are timed per replay. */
#define GRAPH_REPLAYS	10

/*
 * Graph launches.  warm: K = iters / GRAPH_REPLAYS back-to-back launches
 * captured into one graph, replayed GRAPH_REPLAYS times with ordinary
 * events around each replay; a sample is a replay's time / K, so nothing
 * but the kernels sits between them.  cold: every launch follows a flush
 * node and sits between its own event-record nodes (an event node costs
 * about as much as a short kernel, but the flush must stay outside the
 * time).  *samples and *per say how to read the events.
 */
static int
issue_graph(struct study *s, struct launch *l, unsigned *samples,
    unsigned *per, char **cause)
{
	cudaGraph_t	graph = NULL;
	cudaGraphExec_t	exec = NULL;
	cudaError_t	e;
	unsigned	i, replays = 1;
	int		rc = 0;

	*samples = s->opts.iters;
	*per = 1;
	if (l->cache == CACHE_WARM && s->opts.iters >= GRAPH_REPLAYS) {
		replays = GRAPH_REPLAYS;
		*samples = replays;
		*per = s->opts.iters / replays;
	}
	CUDA_TRY(cudaStreamBeginCapture(s->stream,
	    cudaStreamCaptureModeThreadLocal), cause);
	if (replays > 1) {
		for (i = 0; i < *per && rc == 0; i++)
			rc = launch_once(l, cause);
	} else
		rc = issue_timed(s, l, cudaEventRecordExternal, cause);
	e = cudaStreamEndCapture(s->stream, &graph);
	if (rc != 0)
		goto out;
	rc = -1;
	if (e != cudaSuccess) {
		cuda_fail(e, "cudaStreamEndCapture", cause);
		goto out;
	}
	if ((e = cudaGraphInstantiate(&exec, graph, 0)) != cudaSuccess ||
	    (e = cudaGraphUpload(exec, s->stream)) != cudaSuccess) {
		cuda_fail(e, "cudaGraphInstantiate/Upload", cause);
		goto out;
	}
	if (replays == 1) {
		if ((e = cudaGraphLaunch(exec, s->stream)) != cudaSuccess) {
			cuda_fail(e, "cudaGraphLaunch", cause);
			goto out;
		}
		rc = 0;
		goto out;
	}
	/* One untimed replay first: the first carries the graph's setup. */
	for (i = 0; i <= replays; i++) {
		if (i > 0 && (e = cudaEventRecord(s->events[2 * (i - 1)],
		    s->stream)) != cudaSuccess)
			break;
		if ((e = cudaGraphLaunch(exec, s->stream)) != cudaSuccess)
			break;
		if (i > 0 && (e = cudaEventRecord(s->events[2 * i - 1],
		    s->stream)) != cudaSuccess)
			break;
	}
	if (e != cudaSuccess) {
		cuda_fail(e, "cudaGraphLaunch/cudaEventRecord", cause);
		goto out;
	}
	rc = 0;
out:
	if (exec != NULL)
		cudaGraphExecDestroy(exec);
	if (graph != NULL)
		cudaGraphDestroy(graph);
	return rc;
}

/* Times one point; with --trace, *activity_ns is the median GPU-side
 * duration of its timed kernels (CUPTI activity records), else NaN. */
static int
time_point(struct study *s, struct launch *l, enum launch_mode how,
    struct stats *st, unsigned *launches, double *activity_ns, char **cause)
{
	struct trace_label	 label = { l->v->id, l->args.n,
				     cache_name(l->cache), "warmup" };
	struct stats		 act;
	double			*durations = NULL;
	size_t			 count = 0;
	unsigned		 i, samples = s->opts.iters, per = 1;
	float			 ms;
	int			 rc;

	if (trace_point_begin(&label, cause) != 0)
		return -1;
	for (i = 0; i < s->opts.warmup; i++) {
		if (l->cache == CACHE_COLD && flush_l2(s, cause) != 0)
			return -1;
		if (launch_once(l, cause) != 0)
			return -1;
	}
	label.phase = "timing";
	if (trace_point_end(NULL, NULL, cause) != 0 ||
	    trace_point_begin(&label, cause) != 0)
		return -1;
	/* --profile-window: nsys --capture-range=cudaProfilerApi and
	 * ncu --profile-from-start off see the timed launches only. */
	if (s->opts.profile_window)
		CUDA_TRY(cudaProfilerStart(), cause);
	if (how == LAUNCH_GRAPH)
		rc = issue_graph(s, l, &samples, &per, cause);
	else
		rc = issue_timed(s, l, cudaEventRecordDefault, cause);
	if (rc != 0)
		return -1;
	CUDA_TRY(cudaStreamSynchronize(s->stream), cause);
	if (s->opts.profile_window)
		CUDA_TRY(cudaProfilerStop(), cause);
	if (trace_point_end(&durations, &count, cause) != 0)
		return -1;
	*activity_ns = NAN;
	if (count > 0) {
		stats_compute(durations, count, &act);
		*activity_ns = act.median;
	}
	free(durations);
	for (i = 0; i < samples; i++) {
		CUDA_TRY(cudaEventElapsedTime(&ms, s->events[2 * i],
		    s->events[2 * i + 1]), cause);
		s->samples[i] = (double)ms * 1e6 / per;
	}
	stats_compute(s->samples, samples, st);
	*launches = samples * per;
	return 0;
}

/* Registers per thread and theoretical occupancy, from the runtime. */
static int
occupancy_rows(struct study *s, const struct point *p, char **cause)
{
	struct cudaFuncAttributes	attr;
	int				blocks = 0, warps_per_block;
	double				pct;

	if (p->v->kernel == NULL || p->block == 0)
		return 0;
	CUDA_TRY(cudaFuncGetAttributes(&attr, p->v->kernel), cause);
	CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks,
	    p->v->kernel, (int)p->block, 0), cause);
	warps_per_block = ((int)p->block + 31) / 32;
	pct = 100.0 * blocks * warps_per_block /
	    (s->dev.max_threads_per_sm / 32.0);
	if (metrics_csv_row(s->metrics, s->man.run_id, p,
	    "launch__registers_per_thread", attr.numRegs, "register",
	    "occupancy_api", cause) != 0)
		return -1;
	return metrics_csv_row(s->metrics, s->man.run_id, p,
	    "sm__maximum_warps_per_active_cycle_pct", pct, "%",
	    "occupancy_api", cause);
}

static int
measure_counters(struct study *s, struct launch *l, const struct point *p,
    char **cause)
{
	size_t		 i, count = s->mset.count;
	double		*values = xcalloc(count, sizeof *values);
	double		 derived[DERIVED_COUNT];
	int		 rc = -1;

	nvtx_push_point(p);
	if (counters_measure(s->counters, l->cache == CACHE_COLD ?
	    counters_prepare : NULL, counters_launch, l, values, cause) != 0)
		goto out;
	for (i = 0; i < count; i++) {
		if (isnan(values[i]))
			continue;	/* absent, never zero */
		if (metrics_csv_row(s->metrics, s->man.run_id, p,
		    s->mset.metrics[i], values[i], counters_unit(s->counters, i),
		    "cupti", cause) != 0)
			goto out;
	}
	counters_derive(&s->mset, values, (double)point_bytes_moved(p),
	    (double)p->n * p->v->read_bytes, derived);
	for (i = 0; i < DERIVED_COUNT; i++) {
		if (isnan(derived[i]))
			continue;
		const char *name = derived_name((enum derived_id)i);

		if (metrics_csv_row(s->metrics, s->man.run_id, p, name,
		    derived[i], metric_unit(name, NULL), "derived", cause) != 0)
			goto out;
	}
	rc = occupancy_rows(s, p, cause);
out:
	nvtx_pop();
	free(values);
	return rc;
}

static double
now_seconds(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* "[37/480] add_f16 n=16Mi, 1m20s left" on stderr, rewritten in place;
 * only on a terminal, so logs stay clean. */
static void
progress(struct study *s, const struct point *p)
{
	char	size[32];
	double	elapsed, left;

	s->points_done++;
	if (s->opts.quiet || !isatty(STDERR_FILENO))
		return;
	elapsed = now_seconds() - s->started;
	left = elapsed / s->points_done * (s->points_total - s->points_done);
	size_format(p->n, size, sizeof size);
	fprintf(stderr, "\r[%zu/%zu] %s n=%s, %.0fm%02.0fs left   ",
	    s->points_done, s->points_total, p->v->id, size,
	    left / 60 < 1 ? 0 : (double)(long)(left / 60),
	    left - 60 * (double)(long)(left / 60));
	if (s->points_done == s->points_total)
		fputc('\n', stderr);
}

static void
print_point(const struct study *s, const struct point *p,
    const struct stats *st, bool passed)
{
	char	size[32];
	double	bw = (double)point_bytes_moved(p) / (st->median * 1e-9);

	if (s->opts.quiet)
		return;
	size_format(p->n, size, sizeof size);
	printf("%-18s %8s %5u %-4s %-6s %10.3f us  %8.1f GB/s  %5.1f%% spec  %s\n",
	    p->v->id, size, p->block, cache_name(p->cache), p->launch,
	    st->median / 1e3, bw / 1e9, 100.0 * bw / s->dev.dram_bandwidth,
	    passed ? "ok" : "CHECK FAILED");
	fflush(stdout);
}

/* Whether variant i is measured at n. */
static bool
variant_wants(const struct study *s, size_t i, uint64_t n)
{
	size_t	k;

	if (!s->opts.selected[i])
		return false;
	if (s->vsizes == NULL)
		return true;
	for (k = 0; k < s->vcount[i]; k++) {
		if (s->vsizes[i][k] == n)
			return true;
	}
	return false;
}

static void
make_launch(struct study *s, const struct ewb_variant *v, uint64_t n,
    unsigned block, struct launch *l, struct point *p)
{
	struct ewb_shape	shape;

	memset(l, 0, sizeof *l);
	l->s = s;
	l->v = v;
	l->args.a = s->d_a;
	l->args.b = s->d_b;
	l->args.c = s->d_c;
	l->args.n = n;
	l->args.block = block;
	l->args.sm_count = s->dev.sm_count;
	l->args.stream = s->stream;
	shape = v->shape(&l->args);
	p->v = v;
	p->n = n;
	p->block = shape.block;
	p->grid = shape.grid;
	p->launch = "stream";
}

static void
remember_tuned(struct study *s, const struct point *p, double median_ns)
{
	struct tuned	*t;

	s->tuned = xrealloc(s->tuned, (s->ntuned + 1) * sizeof *s->tuned);
	t = &s->tuned[s->ntuned++];
	t->v = p->v;
	t->n = p->n;
	t->block = p->block;
	t->cache = p->cache;
	t->launch = p->launch;
	t->median_ns = median_ns;
}

/* Per variant, size, cache state and launch mode: the published block
 * against the fastest one measured. */
static void
print_tune_summary(const struct study *s)
{
	size_t	i, k;
	char	size[32];

	printf("\n%-16s %8s %-4s %-6s  %18s  %18s  %6s\n", "variant", "n",
	    "L2", "launch", "published: GB/s", "best: GB/s", "gain");
	for (i = 0; i < s->ntuned; i++) {
		const struct tuned	*t = &s->tuned[i], *best = t, *pub = NULL;
		double			 moved;
		bool			 first = true;

		for (k = 0; k < s->ntuned; k++) {
			const struct tuned *u = &s->tuned[k];

			if (u->v != t->v || u->n != t->n || u->cache != t->cache ||
			    strcmp(u->launch, t->launch) != 0)
				continue;
			if (k < i)
				first = false;
			if (u->median_ns < best->median_ns)
				best = u;
			if (u->block == t->v->default_block)
				pub = u;
		}
		if (!first)
			continue;	/* each group once */
		moved = (double)t->n * (t->v->read_bytes + t->v->write_bytes);
		size_format(t->n, size, sizeof size);
		printf("%-16s %8s %-4s %-6s  ", t->v->id, size,
		    cache_name(t->cache), t->launch);
		if (pub != NULL)
			printf("%5u: %10.1f  ", pub->block,
			    moved / pub->median_ns);
		else
			printf("%18s  ", "-");
		printf("%5u: %10.1f  ", best->block, moved / best->median_ns);
		if (pub != NULL)
			printf("%+5.1f%%", 100.0 * (pub->median_ns /
			    best->median_ns - 1));
		printf("\n");
	}
}

/* The block sizes variant v runs with: the --block list, or its default
 * (0); a peer library always picks its own. */
static size_t
variant_blocks(const struct study *s, const struct ewb_variant *v,
    const unsigned **blocks)
{
	static const unsigned	default_block = 0;

	if (s->opts.nblocks == 0 || strcmp(v->origin, "peer") == 0) {
		*blocks = &default_block;
		return 1;
	}
	*blocks = s->opts.blocks;
	return s->opts.nblocks;
}

/* One variant at one size and block: check, then time in each cache
 * state and launch mode asked for. */
static int
check_and_time(struct study *s, const struct ewb_variant *v, uint64_t n,
    unsigned block, char **cause)
{
	static const enum cache_mode	 states[] = { CACHE_WARM, CACHE_COLD };
	struct launch			 l;
	struct point			 p;
	struct stats			 st;
	double				 activity = NAN;
	unsigned			 launches = 0;
	size_t				 k;
	int				 passed;

	make_launch(s, v, n, block, &l, &p);
	p.cache = CACHE_WARM;
	nvtx_push_phase("check");
	passed = check_variant(s, &l, cause);
	nvtx_pop();
	if (passed < 0)
		return -1;
	if (s->opts.check_only) {
		if (!s->opts.quiet && passed)
			printf("%-16s %10llu  ok\n", v->id,
			    (unsigned long long)n);
		return 0;
	}
	for (k = 0; k < 4; k++) {
		enum cache_mode	 cache = states[k % 2];
		enum launch_mode how = k < 2 ? LAUNCH_STREAM : LAUNCH_GRAPH;

		if (!(s->opts.cache & cache) || !(s->opts.launch & how))
			continue;
		l.cache = p.cache = cache;
		p.launch = how == LAUNCH_GRAPH ? "graph" : "stream";
		nvtx_push_point(&p);
		if (time_point(s, &l, how, &st, &launches, &activity,
		    cause) != 0) {
			nvtx_pop();
			return -1;
		}
		nvtx_pop();
		print_point(s, &p, &st, passed);
		progress(s, &p);
		if (s->opts.tune)
			remember_tuned(s, &p, st.median);
		if (timing_csv_row(s->timing, s->man.run_id, &p, launches,
		    &st, activity, s->dev.dram_bandwidth, passed, cause) != 0)
			return -1;
	}
	return 0;
}

/* Counters do not depend on the launch path: their rows say "stream". */
static int
profile_variant(struct study *s, const struct ewb_variant *v, uint64_t n,
    unsigned block, char **cause)
{
	static const enum cache_mode	 states[] = { CACHE_WARM, CACHE_COLD };
	struct launch			 l;
	struct point			 p;
	size_t				 k;

	make_launch(s, v, n, block, &l, &p);
	for (k = 0; k < 2; k++) {
		if (!(s->opts.cache & states[k]))
			continue;
		l.cache = p.cache = states[k];
		if (measure_counters(s, &l, &p, cause) != 0)
			return -1;
	}
	return 0;
}

/* All selected variants of one dtype at one size: timing first, then the
 * counters in a pass of their own. */
static int
run_dtype(struct study *s, enum ewb_dtype dtype, uint64_t n, char **cause)
{
	const unsigned	*blocks;
	size_t		 i, b, nb;
	int		 rc = 0;

	upload_inputs(s, dtype, n);
	for (i = 0; i < ewb_variant_count && !interrupt_pending(); i++) {
		const struct ewb_variant *v = &ewb_variants[i];

		if (!variant_wants(s, i, n) || v->dtype != dtype)
			continue;
		nb = variant_blocks(s, v, &blocks);
		for (b = 0; b < nb && !interrupt_pending(); b++) {
			if (check_and_time(s, v, n, blocks[b], cause) != 0)
				return -1;
		}
	}
	if (s->counters == NULL || s->opts.check_only)
		return 0;

	nvtx_push_phase("counters");
	for (i = 0; i < ewb_variant_count && !interrupt_pending() && rc == 0; i++) {
		const struct ewb_variant *v = &ewb_variants[i];

		if (!variant_wants(s, i, n) || v->dtype != dtype)
			continue;
		nb = variant_blocks(s, v, &blocks);
		for (b = 0; b < nb && rc == 0; b++)
			rc = profile_variant(s, v, n, blocks[b], cause);
	}
	nvtx_pop();
	return rc;
}

/* The largest array any selected variant needs, in bytes and elements. */
static void
largest_array(const struct study *s, size_t *bytes, uint64_t *n)
{
	size_t		i, k;
	uint64_t	m;

	*bytes = 0;
	*n = 0;
	for (i = 0; i < ewb_variant_count; i++) {
		if (!s->opts.selected[i])
			continue;
		for (k = 0; k < s->opts.nsizes; k++) {
			m = s->opts.sizes[k];
			if (!variant_wants(s, i, m))
				continue;
			if (m > SIZE_MAX / 16) {
				*bytes = SIZE_MAX;
				*n = m;
				return;
			}
			if (m * ewb_dtype_size(ewb_variants[i].dtype) > *bytes)
				*bytes = m * ewb_dtype_size(ewb_variants[i].dtype);
			if (m > *n)
				*n = m;
		}
	}
}

/* Device buffers for the largest size, refused before allocating when they
 * cannot fit in free memory. */
static int
allocate(struct study *s, int *code, char **cause)
{
	uint64_t n;
	size_t	bytes, free_bytes = 0, total = 0, need;
	char	have[32], want[32], size[32];

	*code = EWB_EXIT_ERROR;
	largest_array(s, &bytes, &n);
	if (bytes > SIZE_MAX / 4) {
		*cause = xasprintf("--size %llu is too large to address",
		    (unsigned long long)n);
		*code = EWB_EXIT_NOMEM;
		return -1;
	}
	s->man.flush_bytes = s->dev.l2_bytes * 4;
	if (s->man.flush_bytes < (32u << 20))
		s->man.flush_bytes = 32u << 20;
	need = 3 * bytes + s->man.flush_bytes;
	CUDA_TRY(cudaMemGetInfo(&free_bytes, &total), cause);
	if (need > free_bytes) {
		bytes_format((double)need, want, sizeof want);
		bytes_format((double)free_bytes, have, sizeof have);
		size_format(n, size, sizeof size);
		*cause = xasprintf("size %s needs %s of GPU memory (three "
		    "arrays and an L2 flush buffer); only %s is free", size,
		    want, have);
		*code = EWB_EXIT_NOMEM;
		return -1;
	}
	/* --misalign: every operand starts 4 bytes past a 16-byte boundary. */
	CUDA_TRY(cudaMalloc(&s->base_a, bytes + 16), cause);
	CUDA_TRY(cudaMalloc(&s->base_b, bytes + 16), cause);
	CUDA_TRY(cudaMalloc(&s->base_c, bytes + 16), cause);
	s->d_a = (char *)s->base_a + (s->opts.misalign ? 4 : 0);
	s->d_b = (char *)s->base_b + (s->opts.misalign ? 4 : 0);
	s->d_c = (char *)s->base_c + (s->opts.misalign ? 4 : 0);
	CUDA_TRY(cudaMalloc(&s->d_flush, s->man.flush_bytes), cause);
	s->h_a = xmalloc(bytes);
	s->h_b = xmalloc(bytes);
	s->h_c = xmalloc(bytes);
	CUDA_TRY(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking),
	    cause);
	s->samples = xcalloc(s->opts.iters, sizeof *s->samples);
	if (events_create(&s->events, s->opts.iters, cause) != 0)
		return -1;
	return 0;
}

static void
release(struct study *s)
{
	events_destroy(s->events, s->opts.iters);
	free(s->samples);
	cudaFree(s->base_a);
	cudaFree(s->base_b);
	cudaFree(s->base_c);
	cudaFree(s->d_flush);
	free(s->h_a);
	free(s->h_b);
	free(s->h_c);
	if (s->stream != NULL)
		cudaStreamDestroy(s->stream);
}

/* Counters are optional: when they cannot be had, say why once and go on
 * timing; rows are then absent, never zero. */
static void
start_counters(struct study *s)
{
	char	*cause = NULL;

	s->man.counters_status = "off";
	if (s->opts.no_cupti || s->opts.check_only)
		return;
	if (metric_set_load(s->opts.metrics, &s->mset, &cause) == 0) {
		s->have_mset = true;
		s->man.metric_set = s->opts.metrics;
		s->man.metric_names = s->mset.metrics;
		s->man.nmetrics = s->mset.count;
		if (counters_open(&s->counters, s->dev.index, &s->mset,
		    &cause) == 0)
			cause = NULL;
	}
	if (cause != NULL) {
		fprintf(stderr, "ewbench: counters unavailable, timing only: "
		    "%s\n", cause);
		s->man.counters_status = "unavailable";
		s->man.counters_reason = cause;
		s->counters = NULL;
		return;
	}
	s->man.counters_status = "ok";
	s->man.passes = counters_passes(s->counters);
	s->man.chip = counters_chip(s->counters);
}

/* run.json says why each tier size was chosen, once per footprint. */
static void
record_tiers(struct study *s, unsigned fp, const struct tier_size *tiers)
{
	struct size_choice	*c;
	size_t			 i;

	for (i = 0; i < s->man.nchoices; i++) {
		if (s->man.choices[i].footprint_per_element == fp)
			return;
	}
	s->man.choices = xrealloc(s->man.choices,
	    (s->man.nchoices + TIER_COUNT) * sizeof *s->man.choices);
	for (i = 0; i < TIER_COUNT; i++) {
		c = &s->man.choices[s->man.nchoices++];
		c->footprint_per_element = fp;
		c->tier = tiers[i].name;
		c->n = tiers[i].n;
		snprintf(c->reason, sizeof c->reason, "%s", tiers[i].reason);
	}
}

/* Sizes chosen from this GPU's L2 (sweep, --preset tiers): per variant,
 * since a working set is n times the variant's bytes per element.  Each
 * variant's arrays must fit, three of them, beside the flush buffer.
 * With --preset tiers, sizes given by --size are measured for every
 * variant besides its tiers. */
static int
plan_sizes(struct study *s, char **cause)
{
	struct tier_device	 td;
	struct tier_size	 tiers[TIER_COUNT];
	size_t			 i, k, free_bytes = 0, total = 0;
	uint64_t		 budget;
	unsigned		 fp, elem;
	bool			 use_tiers;
	/* The --size sizes: cli_add_sizes below only appends, so they stay
	 * the first ngiven of opts.sizes. */
	size_t			 ngiven = s->opts.nsizes;

	use_tiers = s->opts.preset != NULL &&
	    strcmp(s->opts.preset, "tiers") == 0;
	if (!s->opts.sweep && !use_tiers)
		return 0;
	CUDA_TRY(cudaMemGetInfo(&free_bytes, &total), cause);
	td.l2_bytes = s->dev.l2_bytes;
	td.memory_bytes = s->dev.memory_bytes;
	td.free_bytes = free_bytes;
	s->vsizes = xcalloc(ewb_variant_count, sizeof *s->vsizes);
	s->vcount = xcalloc(ewb_variant_count, sizeof *s->vcount);
	for (i = 0; i < ewb_variant_count; i++) {
		if (!s->opts.selected[i])
			continue;
		fp = variant_footprint_per_element(&ewb_variants[i]);
		elem = ewb_dtype_size(ewb_variants[i].dtype);
		/* Working set whose three arrays fit in 85% of free memory
		 * less the flush buffer (4 x L2). */
		budget = (uint64_t)((free_bytes * 0.85 - 4.0 * s->dev.l2_bytes) /
		    3 / elem * fp);
		if (s->opts.sweep) {
			if (sweep_sizes(&td, fp, 3, budget, &s->vsizes[i],
			    &s->vcount[i], cause) != 0)
				return -1;
		} else {
			if (tier_sizes(&td, fp, budget, tiers, cause) != 0)
				return -1;
			s->vcount[i] = TIER_COUNT + ngiven;
			s->vsizes[i] = xcalloc(s->vcount[i],
			    sizeof **s->vsizes);
			for (k = 0; k < TIER_COUNT; k++)
				s->vsizes[i][k] = tiers[k].n;
			for (k = 0; k < ngiven; k++)
				s->vsizes[i][TIER_COUNT + k] = s->opts.sizes[k];
			record_tiers(s, fp, tiers);
		}
		cli_add_sizes(&s->opts, s->vsizes[i], s->vcount[i]);
	}
	cli_normalise_sizes(&s->opts);
	return 0;
}

/* Writes the --trace file, also after a failure or an interrupt: what was
 * collected is worth keeping.  Problems are counted, never hidden. */
static void
write_trace(struct study *s)
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
		return;
	trace_set_run(t, s->man.run_id, s->dev.index, s->dev.name);
	trace_problems(t, &pr);
	if (pr.dropped || pr.unreadable_buffers || pr.unpaired_ranges ||
	    pr.zero_timestamp || pr.end_before_start)
		fprintf(stderr, "ewbench: trace incomplete: %llu records "
		    "dropped, %zu unreadable buffers, %zu unpaired NVTX ranges, "
		    "%zu zero timestamps, %zu ending before they start (all "
		    "counted in the file's otherData)\n",
		    (unsigned long long)pr.dropped, pr.unreadable_buffers,
		    pr.unpaired_ranges, pr.zero_timestamp, pr.end_before_start);
	if (trace_json_write(t, s->opts.trace, &cause) != 0) {
		fprintf(stderr, "ewbench: --trace: %s\n", cause);
		free(cause);
	} else if (!s->opts.quiet)
		printf("ewbench: trace in %s (open it in ui.perfetto.dev)\n",
		    s->opts.trace);
	trace_free(t);
}

static size_t
count_points(const struct study *s)
{
	size_t	i, k, count = 0, per;

	per = ((s->opts.cache & CACHE_WARM) != 0) +
	    ((s->opts.cache & CACHE_COLD) != 0);
	per *= ((s->opts.launch & LAUNCH_STREAM) != 0) +
	    ((s->opts.launch & LAUNCH_GRAPH) != 0);
	for (i = 0; i < ewb_variant_count; i++) {
		const unsigned	*blocks;
		size_t		 nb = variant_blocks(s, &ewb_variants[i], &blocks);

		for (k = 0; k < s->opts.nsizes; k++)
			count += variant_wants(s, i, s->opts.sizes[k]) ?
			    per * nb : 0;
	}
	return count;
}

static int
study_loop(struct study *s, char **cause)
{
	static const enum ewb_dtype	dtypes[] = { EWB_F32, EWB_F16 };
	size_t				i, k, j;
	bool				any;

	for (i = 0; i < s->opts.nsizes && !interrupt_pending(); i++) {
		for (k = 0; k < 2 && !interrupt_pending(); k++) {
			for (any = false, j = 0; j < ewb_variant_count; j++)
				any |= variant_wants(s, j, s->opts.sizes[i]) &&
				    ewb_variants[j].dtype == dtypes[k];
			if (!any)
				continue;
			if (run_dtype(s, dtypes[k], s->opts.sizes[i], cause) != 0)
				return -1;
			manifest_update(s->dir, &s->man, "running");
		}
	}
	return 0;
}

int
run_command(int argc, char **argv)
{
	struct study		 s;
	char			*cause = NULL, dir[256];
	int			 code;
	const char		*status;

	memset(&s, 0, sizeof s);
	if (cli_parse_run(argc, argv, &s.opts, &cause) != 0) {
		fprintf(stderr, "ewbench %s: %s\n", argv[0], cause);
		free(cause);
		return EWB_EXIT_USAGE;
	}
	/* The trace must see the first CUDA and NVTX call. */
	if (s.opts.trace != NULL && trace_start(&cause) != 0) {
		fprintf(stderr, "ewbench: --trace: %s\n", cause);
		free(cause);
		cli_free_run(&s.opts);
		return EWB_EXIT_ERROR;
	}
	if ((code = device_open(s.opts.device, &s.dev, &cause)) != 0) {
		fprintf(stderr, "ewbench: %s\n", cause);
		free(cause);
		cli_free_run(&s.opts);
		return code;
	}
	nvtx_init(&s.dev);
	s.man.command = argv[0];
	s.man.argc = argc;
	s.man.argv = argv;
	s.man.device = &s.dev;
	s.man.opts = &s.opts;
	s.man.counters_status = "off";
	output_utc_now(s.man.started_utc, sizeof s.man.started_utc);
	output_run_id(&s.dev, s.man.run_id, sizeof s.man.run_id);

	nvtx_push_phase("allocate");
	code = EWB_EXIT_ERROR;
	if (plan_sizes(&s, &cause) != 0 || allocate(&s, &code, &cause) != 0) {
		nvtx_pop();
		goto fail;
	}
	nvtx_pop();
	if (!s.opts.check_only) {
		if (s.opts.out == NULL)
			output_default_dir(&s.dev, "ewbench", dir, sizeof dir);
		s.dir = s.opts.out != NULL ? s.opts.out : dir;
		code = EWB_EXIT_ERROR;
		if (output_make_dir(s.dir, &cause) != 0 ||
		    (s.timing = timing_csv_open(s.dir, &cause)) == NULL)
			goto fail;
		start_counters(&s);
		if (s.counters != NULL &&
		    (s.metrics = metrics_csv_open(s.dir, &cause)) == NULL)
			goto fail;
		if (s.counters != NULL)
			s.man.cupti_version = counters_cupti_version();
		manifest_update(s.dir, &s.man, "running");
		if (!s.opts.quiet) {
			device_print(&s.dev, stdout);
			printf("%-18s %8s %5s %-4s %-6s %13s  %13s  %10s  "
			    "%s\n", "variant", "n", "block", "L2", "launch",
			    "median", "bandwidth", "of spec", "check");
		}
	}

	interrupt_catch();

	s.points_total = count_points(&s);
	s.started = now_seconds();
	nvtx_push_phase(s.opts.check_only ? "check" : "run");
	if (study_loop(&s, &cause) != 0) {
		nvtx_pop();
		code = EWB_EXIT_ERROR;
		goto fail;
	}
	nvtx_pop();

	if (interrupt_pending()) {
		status = "interrupted";
		code = EWB_EXIT_INTERRUPTED;
	} else {
		status = "complete";
		code = s.man.nfailures > 0 ? EWB_EXIT_CHECK : EWB_EXIT_OK;
	}
	manifest_update(s.dir, &s.man, status);
	if (s.opts.tune && !s.opts.quiet)
		print_tune_summary(&s);
	if (!s.opts.quiet || s.man.nfailures > 0)
		fprintf(s.man.nfailures > 0 ? stderr : stdout,
		    "ewbench: %zu checks passed, %zu failed%s%s\n",
		    s.man.checks_passed, s.man.nfailures,
		    s.dir != NULL ? "; results in " : "",
		    s.dir != NULL ? s.dir : "");
	goto out;

fail:
	fprintf(stderr, "ewbench: %s\n", cause);
	free(cause);
	manifest_update(s.dir, &s.man, "failed");
out:
	if (s.opts.trace != NULL)
		write_trace(&s);
	if (s.timing != NULL)
		csv_close(s.timing, NULL);
	if (s.metrics != NULL)
		csv_close(s.metrics, NULL);
	if (s.counters != NULL)
		counters_close(s.counters);
	if (s.have_mset)
		metric_set_free(&s.mset);
	release(&s);
	if (s.vsizes != NULL) {
		for (size_t i = 0; i < ewb_variant_count; i++)
			free(s.vsizes[i]);
	}
	free(s.vsizes);
	free(s.vcount);
	free(s.man.choices);
	free(s.tuned);
	free(s.man.failures);
	free(s.man.counters_reason);
	cli_free_run(&s.opts);
	return code;
}

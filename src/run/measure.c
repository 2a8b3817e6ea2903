/*
 * measure.c - timed launches of one point (docs/analysis.md, "How a point
 * is timed").
 *
 * A point's time is the GPU's own, without the host's launch path or a
 * timer's own cost in it.  A cold point's is from CUPTI's activity records
 * (trace.c, TRACE_KERNELS): the start and end of every timed kernel, each
 * after its flush.  A warm point's is from replays of its launches
 * captured in a graph, with the kernel records paused and an event pair
 * around each replay: CUPTI's instrumentation slows the kernels that keep
 * few bytes in flight by up to 11 % (docs/analysis.md, "The timer's own
 * cost"), the replay leaves them alone.  Warm-up first, by count and by
 * time; then rounds, each read back, until the median's confidence
 * interval is tight enough or a cap is reached (sampling.c).  Helper
 * kernels (the L2 flush before each cold launch, the spin that holds a
 * queue) are recorded but never counted.
 *
 * A warm point whose kernels take under TIMING_PROBE_MAX_NS, or that the
 * caller cross-checks, also gets one round of --iters launches under the
 * kernel records, in its own launch mode: the records' median span
 * (activity_median_ns, the instrumented timer beside the replay), the
 * interval from one kernel's start to the next one's (stream: as the host
 * issues them; graph: replayed), an event pair around the round
 * (batch_ns), and for short stream kernels two more intervals: launches
 * queued behind a spin kernel (the GPU's own launch rate, the host out of
 * the way) and launches replayed from a graph.  The cross-checked points
 * get a second, independent time (crosscheck): stream launches queued
 * behind a spin kernel, the records paused, an event pair around them.
 * NVML is read once a round, while its launches run: the run's clock,
 * power and temperature summary, and the row's lowest clocks and any
 * throttling reason.
 *
 * Without CUPTI (--no-cupti, or another tool attached) the old protocol
 * stands in: an event pair around each stream launch, or around each
 * replay of a graph of launches, a fixed number of times.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_profiler_api.h>

#include "run/bench.h"
#include "trace/trace.h"

/* The spin kernel gives up after this long on the GPU's clock: a queue
 * the host could not fill by then is reported, never waited for. */
#define SPIN_TIMEOUT_NS		20000000ull

/* The cross-check's stream launches cover this much of the GPU's time,
 * in at least CROSSCHECK_MIN_LAUNCHES launches and at most as many as
 * queue behind a spin kernel. */
#define CROSSCHECK_NS		0.5e6
#define CROSSCHECK_MIN_LAUNCHES	2u

/* One round: `count` launches (each after a flush when cold), or as many
 * replays of `graph` (of MEASURE_GRAPH_LAUNCHES launches each) as cover
 * them. */
static int
issue_round(struct bench *b, const struct launch *l, enum cache_mode cache,
    cudaGraphExec_t graph, unsigned count, char **cause)
{
	unsigned	i;

	if (graph != NULL) {
		for (i = 0; i < count; i += MEASURE_GRAPH_LAUNCHES)
			CUDA_TRY(cudaGraphLaunch(graph, b->stream), cause);
		return 0;
	}
	for (i = 0; i < count; i++) {
		if (cache == CACHE_COLD && bench_flush(b, cause) != 0)
			return -1;
		if (bench_launch(l, cause) != 0)
			return -1;
	}
	return 0;
}

struct graph_body {
	struct bench		*b;
	const struct launch	*l;
	enum cache_mode		 cache;
	unsigned		 launches;
};

static int
issue_graph_body(void *ctx, char **cause)
{
	const struct graph_body	*g = ctx;

	return issue_round(g->b, g->l, g->cache, NULL, g->launches, cause);
}

int
measure_graph(struct bench *b, const struct launch *l, enum cache_mode cache,
    unsigned launches, cudaGraphExec_t *exec, char **cause)
{
	struct graph_body	 body = { b, l, cache, launches };
	cudaGraph_t		 graph;
	cudaError_t		 e;

	*exec = NULL;
	if (bench_capture(b, issue_graph_body, &body, &graph, cause) != 0)
		return -1;
	e = cudaGraphInstantiate(exec, graph, 0);
	if (e == cudaSuccess)
		e = cudaGraphUpload(*exec, b->stream);
	cudaGraphDestroy(graph);
	if (e != cudaSuccess) {
		if (*exec != NULL)
			cudaGraphExecDestroy(*exec);
		*exec = NULL;
		return cuda_fail(e, "cudaGraphInstantiate/Upload", cause);
	}
	return 0;
}

/* --warmup launches, and with the kernel clock also TIMING_WARMUP_MIN_S (the
 * event protocols keep an exact count: ncu and nsys users count on it);
 * --warmup 0: none.  *per_launch_ns: the last round's time per launch
 * by an event pair around it, the host's issue included (so never less
 * than the kernel); NaN without a warm-up. */
static int
warm_up(struct bench *b, const struct launch *l, enum cache_mode cache,
    double *per_launch_ns, char **cause)
{
	double		start = monotonic_seconds();
	double		min_s = trace_started() ? TIMING_WARMUP_MIN_S : 0;
	unsigned	done = 0, chunk = b->warmup;
	float		ms;

	*per_launch_ns = NAN;
	while (b->warmup > 0 && (done < b->warmup ||
	    monotonic_seconds() - start < min_s)) {
		CUDA_TRY(cudaEventRecord(b->events[0], b->stream), cause);
		if (issue_round(b, l, cache, NULL, chunk, cause) != 0)
			return -1;
		CUDA_TRY(cudaEventRecord(b->events[1], b->stream), cause);
		CUDA_TRY(cudaStreamSynchronize(b->stream), cause);
		CUDA_TRY(cudaEventElapsedTime(&ms, b->events[0],
		    b->events[1]), cause);
		*per_launch_ns = (double)ms * 1e6 / chunk;
		done += chunk;
	}
	return 0;
}

/* Ends a point after a failure: its records are dropped, and so is any
 * further failure (the first one is the one to report). */
static void
abandon_point(void)
{
	char	*ignored = NULL;

	trace_point_end(NULL, NULL, &ignored);
	free(ignored);
}

/* A warm point of its own with the kernel records paused (a replay, the
 * cross-check): any record CUPTI still delivers while paused is dropped
 * with the point, not read as the next one's. */
static int
paused_point_begin(const struct launch *l, const char *what, char **cause)
{
	struct trace_label	label = { l->v->id, l->args.n, "warm", what };

	if (trace_point_begin(&label, cause) != 0)
		return -1;
	if (trace_pause(true, cause) != 0) {
		abandon_point();
		return -1;
	}
	return 0;
}

/* Resumes the records and ends paused_point_begin's point.  rc is the
 * timing's own outcome: after a failure its cause is the one reported,
 * and a later one is dropped. */
static int
paused_point_end(int rc, char **cause)
{
	char	*ignored = NULL;

	if (trace_pause(false, rc == 0 ? cause : &ignored) != 0)
		rc = -1;
	if (trace_point_end(NULL, NULL, rc == 0 ? cause : &ignored) != 0)
		rc = -1;
	free(ignored);
	return rc;
}

/*
 * The kernels of `launches` launches, read back after they ran: launch
 * i's duration is from its first kernel's start to its last one's end (a
 * library call may launch several: l->kernels).  With
 * `intervals`, also the start-to-start time of consecutive launches,
 * except across the first launch of each group of `group` (a graph
 * replay, a spin's queue).
 */
static int
read_round(struct bench *b, const struct launch *l, unsigned launches,
    double *durations, double *intervals, size_t *nintervals,
    unsigned group, char **cause)
{
	struct trace_span	*s = NULL;
	size_t			 count = 0, i, k = l->kernels;
	double			 t0 = monotonic_seconds();

	if (trace_point_end(&s, &count, cause) != 0)
		return -1;
	b->wall_readback += monotonic_seconds() - t0;
	if (count != (size_t)launches * k) {
		b->records_short = true;
		free(s);
		*cause = xasprintf("%s: CUPTI timed %zu of the %zu kernels "
		    "launched (records lost, or without timestamps); "
		    "--no-cupti times with CUDA events instead", l->v->id,
		    count, (size_t)launches * k);
		return -1;
	}
	for (i = 0; i < launches; i++) {
		durations[i] = (double)(s[i * k + k - 1].end_ns -
		    s[i * k].start_ns);
		if (intervals != NULL && i % group != 0)
			intervals[(*nintervals)++] = (double)(s[i * k].start_ns
			    - s[(i - 1) * k].start_ns);
	}
	free(s);
	return 0;
}

static void
interval_from(const double *values, size_t count, double step,
    struct interval *out)
{
	struct stats	st;

	out->median_ns = out->ci_ns = NAN;
	if (count == 0)
		return;
	stats_compute_steps(values, count, step, &st);
	out->median_ns = st.median;
	out->ci_ns = fmax(st.median - st.ci_low, st.ci_high - st.median);
}

/* NVML now, while a round's launches run (they are issued, not yet
 * waited for): into the run's summary, and into the row its throttling
 * reasons and lowest clocks.  Returns the seconds it took. */
static double
note_clocks(struct bench *b, struct timed *out)
{
	struct gpu_reading	r;
	double			t0 = monotonic_seconds();

	if (!host_facts_sample(b->host, &r))
		return 0;
	if (r.event_reasons > 0)
		out->throttle |= (unsigned long long)r.event_reasons &
		    gpu_throttle_mask();
	out->sm_clock_min_mhz = fmin(out->sm_clock_min_mhz, r.sm_clock_mhz);
	out->memory_clock_min_mhz = fmin(out->memory_clock_min_mhz,
	    r.memory_clock_mhz);
	return monotonic_seconds() - t0;
}

/* Rounds of kernel records until the stopping rule says enough
 * (sampling.c), or with `once` > 0 a single round of that many
 * launches. */
static int
sample_kernels(struct bench *b, const struct launch *l,
    enum cache_mode cache, enum launch_mode how, unsigned once,
    struct timed *out, char **cause)
{
	struct trace_label	 label = { l->v->id, l->args.n,
				     cache_name(cache), "timing" };
	cudaGraphExec_t		 graph = NULL;
	enum sampling_state	 state = SAMPLING_MORE;
	size_t			 n = 0, nintervals = 0, framed = 0;
	unsigned		 want = once > 0 ? once : b->rule.min_samples;
	unsigned		 group, first;
	double			 started = monotonic_seconds(), gpu_s = 0;
	double			 events_ms = 0, elapsed, nvml_s = 0;
	float			 ms;
	bool			 warm = cache == CACHE_WARM;
	int			 rc = -1;

	group = how == LAUNCH_GRAPH ? MEASURE_GRAPH_LAUNCHES : UINT32_MAX;
	if (how == LAUNCH_GRAPH &&
	    measure_graph(b, l, cache, MEASURE_GRAPH_LAUNCHES, &graph, cause) != 0)
		return -1;
	if (b->profile_window && cudaProfilerStart() != cudaSuccess) {
		cuda_fail(cudaGetLastError(), "cudaProfilerStart", cause);
		goto out;
	}
	while (state == SAMPLING_MORE) {
		unsigned	round = want;

		/* Whole replays; bench_open makes the capacity a multiple
		 * of a replay, so they stay whole at the cap too. */
		if (graph != NULL)
			round = (round + group - 1) / group * group;
		if (round > b->capacity - n)
			round = (unsigned)(b->capacity - n);
		if (trace_point_begin(&label, cause) != 0)
			goto out;
		/* The events frame all but the round's first launch (or
		 * replay): the host may take a while to issue that one, and the
		 * GPU would wait for it inside the frame. */
		first = graph != NULL ? group : 1;
		if (issue_round(b, l, cache, graph, first, cause) != 0 ||
		    cudaEventRecord(b->events[0], b->stream) != cudaSuccess ||
		    issue_round(b, l, cache, graph, round - first,
		    cause) != 0 ||
		    cudaEventRecord(b->events[1], b->stream) != cudaSuccess) {
			if (*cause == NULL)
				cuda_fail(cudaGetLastError(), "cudaEventRecord",
				    cause);
			abandon_point();
			goto out;
		}
		nvml_s += note_clocks(b, out);
		if (read_round(b, l, round, b->samples + n,
		    warm ? b->intervals : NULL, &nintervals, group,
		    cause) != 0)
			goto out;
		if (cudaEventElapsedTime(&ms, b->events[0], b->events[1]) !=
		    cudaSuccess) {
			cuda_fail(cudaGetLastError(), "cudaEventElapsedTime",
			    cause);
			goto out;
		}
		events_ms += ms;
		framed += round - first;
		for (size_t i = n; i < n + round; i++)
			gpu_s += b->samples[i] * 1e-9;
		n += round;
		stats_compute_steps(b->samples, n, b->timer_step_ns,
		    &out->st);
		/* NVML's time is not sampling's: --max-time stays the
		 * rounds'. */
		elapsed = monotonic_seconds() - started - nvml_s;
		state = once ? SAMPLING_CAP :
		    sampling_decide(&b->rule, &out->st, gpu_s, elapsed);
		if (state == SAMPLING_MORE && n >= b->capacity)
			state = SAMPLING_CAP;
		want = sampling_next(&b->rule, &out->st, gpu_s,
		    elapsed / (double)n, elapsed);
	}
	if (b->profile_window && cudaProfilerStop() != cudaSuccess) {
		cuda_fail(cudaGetLastError(), "cudaProfilerStop", cause);
		goto out;
	}
	out->source = "kernel";
	out->stop = once ? "count" : sampling_name(state);
	out->launches = (unsigned)n;
	/* Cold rounds have a flush before every launch: no cross-check. */
	if (warm && framed > 0)
		out->batch_ns = events_ms * 1e6 / (double)framed;
	interval_from(b->intervals, nintervals, b->timer_step_ns,
	    &out->interval);
	rc = 0;
out:
	if (graph != NULL)
		cudaGraphExecDestroy(graph);
	return rc;
}

/* `count` replays of graph, each between its own pair of the bench's
 * events (events 2i and 2i + 1), queued on its stream. */
static cudaError_t
replays_between_events(struct bench *b, cudaGraphExec_t graph,
    unsigned count)
{
	cudaError_t	e = cudaSuccess;
	unsigned	i;

	for (i = 0; i < count && e == cudaSuccess; i++) {
		e = cudaEventRecord(b->events[2 * i], b->stream);
		if (e == cudaSuccess)
			e = cudaGraphLaunch(graph, b->stream);
		if (e == cudaSuccess)
			e = cudaEventRecord(b->events[2 * i + 1], b->stream);
	}
	return e;
}

/* One replay of a graph of TIMING_REPLAY_MIN_LAUNCHES launches between an
 * event pair, per launch: the estimate a replay's size is set by when the
 * warm-up gave none. */
static int
estimate_replay(struct bench *b, const struct launch *l, double *out_ns,
    char **cause)
{
	cudaGraphExec_t	graph;
	cudaError_t	e;
	float		ms;

	if (measure_graph(b, l, CACHE_WARM, TIMING_REPLAY_MIN_LAUNCHES,
	    &graph, cause) != 0)
		return -1;
	e = cudaEventRecord(b->events[0], b->stream);
	if (e == cudaSuccess)
		e = cudaGraphLaunch(graph, b->stream);
	if (e == cudaSuccess)
		e = cudaEventRecord(b->events[1], b->stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(b->stream);
	if (e == cudaSuccess)
		e = cudaEventElapsedTime(&ms, b->events[0], b->events[1]);
	cudaGraphExecDestroy(graph);
	if (e != cudaSuccess)
		return cuda_fail(e, "replay estimate", cause);
	*out_ns = (double)ms * 1e6 / TIMING_REPLAY_MIN_LAUNCHES;
	return 0;
}

/* Launches of l in a graph of their own, replayed with the kernel records
 * paused, an event pair around each replay: samples of the time per
 * launch until the stopping rule says enough (sampling.c), read back a
 * round at a time.  Each replay covers TIMING_REPLAY_NS at `estimate_ns`
 * per launch (the warm-up's; NaN: measured here first).  It runs inside a point of its own, so that any
 * record CUPTI still delivers while paused (the CONCURRENT_KERNEL kind has
 * been seen to record graph launches made while it was disabled) is
 * dropped with that point, not read as the next one's. */
static int
sample_replay(struct bench *b, const struct launch *l, double estimate_ns,
    struct timed *out, char **cause)
{
	struct sampling_rule	 rule = b->rule;
	enum sampling_state	 state = SAMPLING_MORE;
	cudaGraphExec_t		 graph = NULL;
	cudaError_t		 e = cudaSuccess;
	double			 want;
	double			 started = monotonic_seconds(), gpu_s = 0;
	unsigned		 k = TIMING_REPLAY_MIN_LAUNCHES, i, round, next;
	size_t			 n = 0;
	float			 ms;
	int			 rc = -1;

	if (paused_point_begin(l, "replay", cause) != 0)
		return -1;
	if (!(estimate_ns > 0) &&
	    estimate_replay(b, l, &estimate_ns, cause) != 0)
		goto resume;
	want = ceil(TIMING_REPLAY_NS / estimate_ns);
	if (want > k)
		k = want < (double)b->capacity ? (unsigned)want :
		    (unsigned)b->capacity;
	/* --iters counts launches; a replay holds k of them. */
	rule.min_samples = (b->rule.min_samples + k - 1) / k;
	if (rule.min_samples < TIMING_REPLAY_MIN_SAMPLES)
		rule.min_samples = TIMING_REPLAY_MIN_SAMPLES;
	rule.max_samples = (unsigned)(b->capacity < b->rule.max_samples ?
	    b->capacity : b->rule.max_samples);
	if (rule.max_samples < rule.min_samples)
		rule.max_samples = rule.min_samples;
	next = rule.min_samples;
	if (measure_graph(b, l, CACHE_WARM, k, &graph, cause) != 0)
		goto resume;
	/* Once untimed: its upload, the caches as the records left them. */
	e = cudaGraphLaunch(graph, b->stream);
	while (e == cudaSuccess && state == SAMPLING_MORE) {
		/* As many samples as the events hold at once. */
		round = next < b->rule.min_samples ? next : b->rule.min_samples;
		if (round > rule.max_samples - n)
			round = (unsigned)(rule.max_samples - n);
		e = replays_between_events(b, graph, round);
		if (e == cudaSuccess)
			note_clocks(b, out);
		if (e == cudaSuccess)
			e = cudaStreamSynchronize(b->stream);
		for (i = 0; i < round && e == cudaSuccess; i++) {
			e = cudaEventElapsedTime(&ms, b->events[2 * i],
			    b->events[2 * i + 1]);
			b->samples[n + i] = (double)ms * 1e6 / k;
			gpu_s += (double)ms * 1e-3;
		}
		if (e != cudaSuccess)
			break;
		n += round;
		stats_compute_steps(b->samples, n, b->timer_step_ns / k,
		    &out->st);
		state = sampling_decide(&rule, &out->st, gpu_s,
		    monotonic_seconds() - started);
		next = sampling_next(&rule, &out->st, gpu_s,
		    (monotonic_seconds() - started) / (double)n,
		    monotonic_seconds() - started);
	}
	if (e != cudaSuccess) {
		cuda_fail(e, "replay: cudaGraphLaunch/cudaEventRecord", cause);
		goto resume;
	}
	out->source = "replay";
	out->stop = sampling_name(state);
	out->launches = (unsigned)(n * k);
	rc = 0;
resume:
	if (graph != NULL)
		cudaGraphExecDestroy(graph);
	return paused_point_end(rc, cause);
}

/*
 * The independent timer (docs/analysis.md, "The timer cross-check"):
 * enough stream launches of the point to cover CROSSCHECK_NS, queued
 * behind a spin kernel with the kernel records paused, an event pair
 * around them: back-to-back kernels from the stream's queue, where the
 * replay's come from a graph.  Warm only (a cold launch's flush would be
 * in the frame); NaN in a traced run, whose records cannot be paused, and
 * when the host could not queue them before the spin gave up.
 */
static int
crosscheck(struct bench *b, const struct launch *l, double median_ns,
    double *out_ns, char **cause)
{
	volatile unsigned	*word = b->spin_word;
	cudaError_t		 e;
	double			 want = ceil(CROSSCHECK_NS / median_ns);
	unsigned		 launches = CROSSCHECK_MIN_LAUNCHES;
	float			 ms;
	int			 rc = -1;

	*out_ns = NAN;
	if (trace_mode() != TRACE_KERNELS)
		return 0;
	if (want > launches)
		launches = want < (double)b->queue_launches ? (unsigned)want :
		    b->queue_launches;
	if (paused_point_begin(l, "crosscheck", cause) != 0)
		return -1;
	*word = EWB_SPIN_WAIT;
	__sync_synchronize();
	e = ewb_spin(b->spin_word_device, SPIN_TIMEOUT_NS, b->stream);
	if (e == cudaSuccess)
		e = cudaEventRecord(b->events[0], b->stream);
	if (e == cudaSuccess && issue_round(b, l, CACHE_WARM, NULL, launches,
	    cause) != 0)
		e = cudaErrorUnknown;
	if (e == cudaSuccess)
		e = cudaEventRecord(b->events[1], b->stream);
	__sync_synchronize();
	*word = EWB_SPIN_RELEASE;
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(b->stream);
	if (e == cudaSuccess)
		e = cudaEventElapsedTime(&ms, b->events[0], b->events[1]);
	if (e != cudaSuccess) {
		if (*cause == NULL)
			cuda_fail(e, "cross-check: ewb_spin/cudaEventRecord",
			    cause);
		goto resume;
	}
	/* A spin that gave up: the launches ran, but not queued. */
	if (*word == EWB_SPIN_RELEASED)
		*out_ns = (double)ms * 1e6 / launches;
	rc = 0;
resume:
	return paused_point_end(rc, cause);
}

/* Launches queued behind a spin kernel: the host has issued every one
 * before the GPU starts the first, so their starts are as close as the GPU
 * can launch them.  A spin that timed out means the host could not queue
 * them all in time: the interval is then unknown, and said so. */
static int
probe_queued(struct bench *b, const struct launch *l, struct interval *out,
    bool *filled, char **cause)
{
	struct trace_label	 label = { l->v->id, l->args.n, "warm",
				     "queued" };
	size_t			 nintervals = 0;
	unsigned		 r, launches = b->queue_launches;
	volatile unsigned	*word = b->spin_word;

	*filled = true;
	for (r = 0; r < MEASURE_PROBE_ROUNDS; r++) {
		*word = EWB_SPIN_WAIT;
		__sync_synchronize();
		if (trace_point_begin(&label, cause) != 0)
			return -1;
		if (ewb_spin(b->spin_word_device, SPIN_TIMEOUT_NS,
		    b->stream) != cudaSuccess ||
		    issue_round(b, l, CACHE_WARM, NULL, launches, cause) != 0) {
			*word = EWB_SPIN_RELEASE;
			abandon_point();
			return *cause != NULL ? -1 :
			    cuda_fail(cudaGetLastError(), "ewb_spin", cause);
		}
		__sync_synchronize();
		*word = EWB_SPIN_RELEASE;
		CUDA_TRY(cudaStreamSynchronize(b->stream), cause);
		if (*word != EWB_SPIN_RELEASED) {
			/* Timed out: the launches ran, but not queued. */
			*filled = false;
			abandon_point();
			break;
		}
		if (read_round(b, l, launches, b->samples, b->intervals,
		    &nintervals, launches, cause) != 0)
			return -1;
	}
	if (*filled)
		interval_from(b->intervals, nintervals, b->timer_step_ns,
		    out);
	return 0;
}

/* Launches replayed from one graph: the interval without any host. */
static int
probe_graph(struct bench *b, const struct launch *l, struct interval *out,
    char **cause)
{
	struct trace_label	 label = { l->v->id, l->args.n, "warm",
				     "graph" };
	cudaGraphExec_t		 graph;
	size_t			 nintervals = 0;
	unsigned		 r;
	int			 rc = -1;

	if (measure_graph(b, l, CACHE_WARM, MEASURE_PROBE_LAUNCHES, &graph,
	    cause) != 0)
		return -1;
	if (trace_point_begin(&label, cause) != 0)
		goto out;
	for (r = 0; r < MEASURE_PROBE_ROUNDS; r++) {
		if (cudaGraphLaunch(graph, b->stream) != cudaSuccess) {
			abandon_point();
			cuda_fail(cudaGetLastError(), "cudaGraphLaunch", cause);
			goto out;
		}
	}
	if (read_round(b, l, MEASURE_PROBE_LAUNCHES * MEASURE_PROBE_ROUNDS,
	    b->samples, b->intervals, &nintervals, MEASURE_PROBE_LAUNCHES,
	    cause) != 0)
		goto out;
	interval_from(b->intervals, nintervals, b->timer_step_ns, out);
	rc = 0;
out:
	cudaGraphExecDestroy(graph);
	return rc;
}

/* --- Without CUPTI: CUDA events, a fixed number of samples. ----------- */

/* Each launch between its own pair of events (after its flush when
 * cold).  Captured into a graph the events become graph nodes
 * (cudaEventRecordExternal), so a graph replay times the same thing
 * without the host's launch path. */
static int
events_each(struct bench *b, const struct launch *l, enum cache_mode cache,
    unsigned flags, char **cause)
{
	unsigned	i;

	for (i = 0; i < b->rule.min_samples; i++) {
		if (cache == CACHE_COLD && bench_flush(b, cause) != 0)
			return -1;
		CUDA_TRY(cudaEventRecordWithFlags(b->events[2 * i], b->stream,
		    flags), cause);
		if (bench_launch(l, cause) != 0)
			return -1;
		CUDA_TRY(cudaEventRecordWithFlags(b->events[2 * i + 1],
		    b->stream, flags), cause);
	}
	return 0;
}

static int
events_each_body(void *ctx, char **cause)
{
	const struct graph_body	*g = ctx;

	return events_each(g->b, g->l, g->cache, cudaEventRecordExternal,
	    cause);
}

/* Graph launches.  Warm: a pair of events around each replay of a graph
 * of MEASURE_GRAPH_LAUNCHES launches, a sample being the replay's mean.
 * Cold: one graph of flush, event, launch, event per sample, replayed once
 * (an event node costs about as much as a short kernel, but the flush must
 * stay outside the time). */
static int
events_graph(struct bench *b, const struct launch *l, enum cache_mode cache,
    char **cause)
{
	struct graph_body	 body = { b, l, cache, 0 };
	cudaGraphExec_t		 graph = NULL;
	cudaGraph_t		 captured;
	cudaError_t		 e = cudaSuccess;

	if (cache == CACHE_COLD) {
		if (bench_capture(b, events_each_body, &body, &captured,
		    cause) != 0)
			return -1;
		e = cudaGraphInstantiate(&graph, captured, 0);
		cudaGraphDestroy(captured);
		if (e == cudaSuccess)
			e = cudaGraphLaunch(graph, b->stream);
	} else {
		if (measure_graph(b, l, cache, MEASURE_GRAPH_LAUNCHES, &graph,
		    cause) != 0)
			return -1;
		e = replays_between_events(b, graph, b->rule.min_samples);
	}
	if (graph != NULL)
		cudaGraphExecDestroy(graph);
	if (e != cudaSuccess)
		return cuda_fail(e, "cudaGraphLaunch/cudaEventRecord", cause);
	return 0;
}

static int
sample_events(struct bench *b, const struct launch *l, enum cache_mode cache,
    enum launch_mode how, struct timed *out, char **cause)
{
	unsigned	i, per = how == LAUNCH_GRAPH && cache == CACHE_WARM ?
			    MEASURE_GRAPH_LAUNCHES : 1;
	float		ms;

	if (b->profile_window)
		CUDA_TRY(cudaProfilerStart(), cause);
	if ((how == LAUNCH_GRAPH ? events_graph(b, l, cache, cause) :
	    events_each(b, l, cache, cudaEventRecordDefault, cause)) != 0)
		return -1;
	note_clocks(b, out);
	CUDA_TRY(cudaStreamSynchronize(b->stream), cause);
	if (b->profile_window)
		CUDA_TRY(cudaProfilerStop(), cause);
	for (i = 0; i < b->rule.min_samples; i++) {
		CUDA_TRY(cudaEventElapsedTime(&ms, b->events[2 * i],
		    b->events[2 * i + 1]), cause);
		b->samples[i] = (double)ms * 1e6 / per;
	}
	stats_compute(b->samples, b->rule.min_samples, &out->st);
	out->source = per > 1 ? "batch" : "events";
	out->stop = "count";
	out->launches = b->rule.min_samples * per;
	return 0;
}

/* A warm point's round of launches under the kernel records, in its
 * launch mode, beside its replay: the records' median span
 * (activity_median_ns), the launch interval, the events around the round
 * (batch_ns) and NVML's clocks.  As many launches as cover
 * TIMING_REPLAY_NS, at least TIMING_RECORDS_MIN_LAUNCHES and at most
 * --iters. */
static int
records_round(struct bench *b, const struct launch *l, enum launch_mode how,
    struct timed *out, char **cause)
{
	struct timed	rec;
	double		want = ceil(TIMING_REPLAY_NS / out->st.median);
	unsigned	launches = b->rule.min_samples;

	if (want < launches)
		launches = want > TIMING_RECORDS_MIN_LAUNCHES ?
		    (unsigned)want : TIMING_RECORDS_MIN_LAUNCHES;

	memset(&rec, 0, sizeof rec);
	rec.batch_ns = NAN;
	rec.sm_clock_min_mhz = rec.memory_clock_min_mhz = NAN;
	rec.interval = out->interval;
	if (sample_kernels(b, l, CACHE_WARM, how, launches, &rec, cause) != 0)
		return -1;
	out->activity_median_ns = rec.st.median;
	out->interval = rec.interval;
	out->batch_ns = rec.batch_ns;
	out->throttle |= rec.throttle;
	out->sm_clock_min_mhz = fmin(out->sm_clock_min_mhz,
	    rec.sm_clock_min_mhz);
	out->memory_clock_min_mhz = fmin(out->memory_clock_min_mhz,
	    rec.memory_clock_min_mhz);
	return 0;
}

int
measure_time(struct bench *b, const struct launch *l, enum cache_mode cache,
    enum launch_mode how, bool cross, struct timed *out, char **cause)
{
	struct trace_label	 label = { l->v->id, l->args.n,
				     cache_name(cache), "warmup" };
	static bool		 replayed_before;
	bool			 filled, replay;
	double			 t0, estimate_ns;

	memset(out, 0, sizeof *out);
	if (l->kernels == 0) {
		*cause = xasprintf("%s: kernels per launch not counted (or "
		    "none)", l->v->id);
		return -1;
	}
	out->batch_ns = out->crosscheck_ns = out->activity_median_ns = NAN;
	out->sm_clock_min_mhz = out->memory_clock_min_mhz = NAN;
	out->interval.median_ns = out->interval.ci_ns = NAN;
	out->queued = out->graph = out->interval;
	/* The warm-up's kernels are read back and dropped with it. */
	t0 = monotonic_seconds();
	if (trace_point_begin(&label, cause) != 0 ||
	    warm_up(b, l, cache, &estimate_ns, cause) != 0 ||
	    trace_point_end(NULL, NULL, cause) != 0)
		return -1;
	b->wall_warmup += monotonic_seconds() - t0;
	if (!trace_started())
		return sample_events(b, l, cache, how, out, cause);
	/* A traced run's records cannot be paused: they time it. */
	replay = cache == CACHE_WARM && trace_mode() == TRACE_KERNELS;
	/* A process's first replay is made twice and the first dropped: on
	 * H200s (CUDA 13.0) the first replay of a process that had not
	 * paused the records before (no counters' session, which pauses
	 * them) ran at the records' speed, the later ones did not (add_f32
	 * at 2^28 on two boards: 992.8 us against 934.8 later in the same
	 * study; 977.6 against its own cross-check's 920.6). */
	if (replay && !replayed_before) {
		if (sample_replay(b, l, estimate_ns, out, cause) != 0)
			return -1;
		replayed_before = true;
	}
	if (!replay) {
		if (sample_kernels(b, l, cache, how, 0, out, cause) != 0)
			return -1;
	} else if (sample_replay(b, l, estimate_ns, out, cause) != 0 ||
	    /* One round of records where they are needed: the launch
	     * intervals of short kernels, and at the cross-checked sizes
	     * their own median beside the replay (what the instrumentation
	     * costs). */
	    ((out->st.median < TIMING_PROBE_MAX_NS || cross) &&
	    records_round(b, l, how, out, cause) != 0))
		return -1;
	if (cross && cache == CACHE_WARM &&
	    crosscheck(b, l, out->st.median, &out->crosscheck_ns, cause) != 0)
		return -1;
	if (cache != CACHE_WARM || how != LAUNCH_STREAM ||
	    !(out->st.median < TIMING_PROBE_MAX_NS))
		return 0;
	if (probe_queued(b, l, &out->queued, &filled, cause) != 0 ||
	    probe_graph(b, l, &out->graph, cause) != 0)
		return -1;
	out->queue_unfilled = !filled;
	return 0;
}

int
measure_occupancy(const struct bench *b, const struct point *p,
    struct occupancy *occ, bool *known, char **cause)
{
	struct cudaFuncAttributes	attr;
	int				blocks = 0, warps_per_block;

	*known = false;
	if (p->v->kernel == NULL || p->block == 0)
		return 0;
	CUDA_TRY(cudaFuncGetAttributes(&attr, p->v->kernel), cause);
	CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks,
	    p->v->kernel, (int)p->block, 0), cause);
	warps_per_block = ((int)p->block + 31) / 32;
	occ->registers = attr.numRegs;
	occ->max_warps_pct = 100.0 * blocks * warps_per_block /
	    (b->dev->max_threads_per_sm / 32.0);
	*known = true;
	return 0;
}

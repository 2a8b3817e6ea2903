/*
 * measure-events.c - a point timed by CUDA event pairs (measure.c): a
 * warm point's replays of a graph of its launches with the kernel
 * records paused, the independent cross-check, and without CUPTI every
 * point by the old protocol.
 */
#include <math.h>
#include <stdlib.h>

#include <cuda_profiler_api.h>

#include "run/measure-internal.h"
#include "trace/trace.h"

/* The cross-check's stream launches cover this much of the GPU's time,
 * in at least CROSSCHECK_MIN_LAUNCHES launches and at most as many as
 * queue behind a spin kernel. */
#define CROSSCHECK_NS		0.5e6
#define CROSSCHECK_MIN_LAUNCHES	2u

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
 * per launch (the warm-up's; NaN: measured here first).  It runs inside
 * a point of its own (paused_point_begin): the CONCURRENT_KERNEL kind has
 * been seen to record graph launches made while it was disabled. */
int
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
int
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

int
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

/*
 * measure-records.c - a point timed by CUPTI's kernel records (measure.c):
 * rounds of launches until the stopping rule says enough, each read back
 * after it ran, and the launch-interval probes of short kernels (launches
 * queued behind a spin kernel, launches replayed from a graph).
 */
#include <math.h>
#include <stdlib.h>

#include <cuda_profiler_api.h>

#include "run/measure-internal.h"
#include "trace/trace.h"

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

/* Rounds of kernel records until the stopping rule says enough
 * (sampling.c), or with `once` > 0 a single round of that many
 * launches. */
int
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

/* Launches queued behind a spin kernel: the host has issued every one
 * before the GPU starts the first, so their starts are as close as the GPU
 * can launch them.  A spin that timed out means the host could not queue
 * them all in time: the interval is then unknown, and said so. */
int
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
int
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

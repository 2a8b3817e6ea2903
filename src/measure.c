/*
 * measure.c - timed launches of one point.
 *
 * `warmup` untimed launches, then `iters` timed ones.  warm: back to back
 * on the same buffers; cold: an L2 flush (reading a buffer 4x the L2)
 * before every launch, outside the time.  stream: each launch between its
 * own pair of CUDA events, as the host issues them; graph: see
 * issue_graph().
 */
#include <math.h>
#include <stdlib.h>

#include <cuda_profiler_api.h>

#include "bench.h"
#include "trace.h"

/* The timed launches, each between its own pair of events.  Captured into
 * a graph, the events become graph nodes (cudaEventRecordExternal), so a
 * graph replay times the same thing without the host's launch path. */
static int
issue_timed(struct bench *b, const struct launch *l, enum cache_mode cache,
    unsigned flags, char **cause)
{
	unsigned	i;

	for (i = 0; i < b->iters; i++) {
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

/* What a graph of one point holds (see issue_graph). */
struct graph_body {
	struct bench		*b;
	const struct launch	*l;
	enum cache_mode		 cache;
	unsigned		 launches;	/* back to back; 0: timed */
};

static int
issue_graph_body(void *ctx, char **cause)
{
	const struct graph_body	*g = ctx;
	unsigned		 i;

	if (g->launches == 0)
		return issue_timed(g->b, g->l, g->cache,
		    cudaEventRecordExternal, cause);
	for (i = 0; i < g->launches; i++) {
		if (bench_launch(g->l, cause) != 0)
			return -1;
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
issue_graph(struct bench *b, const struct launch *l, enum cache_mode cache,
    unsigned *samples, unsigned *per, char **cause)
{
	struct graph_body body = { b, l, cache, 0 };
	cudaGraph_t	graph = NULL;
	cudaGraphExec_t	exec = NULL;
	cudaError_t	e;
	unsigned	i, replays = 1;
	int		rc = -1;

	*samples = b->iters;
	*per = 1;
	if (cache == CACHE_WARM && b->iters >= GRAPH_REPLAYS) {
		replays = GRAPH_REPLAYS;
		*samples = replays;
		*per = b->iters / replays;
		body.launches = *per;
	}
	if (bench_capture(b, issue_graph_body, &body, &graph, cause) != 0)
		return -1;
	if ((e = cudaGraphInstantiate(&exec, graph, 0)) != cudaSuccess ||
	    (e = cudaGraphUpload(exec, b->stream)) != cudaSuccess) {
		cuda_fail(e, "cudaGraphInstantiate/Upload", cause);
		goto out;
	}
	if (replays == 1) {
		if ((e = cudaGraphLaunch(exec, b->stream)) != cudaSuccess) {
			cuda_fail(e, "cudaGraphLaunch", cause);
			goto out;
		}
		rc = 0;
		goto out;
	}
	/* One untimed replay first: the first carries the graph's setup. */
	for (i = 0; i <= replays; i++) {
		if (i > 0 && (e = cudaEventRecord(b->events[2 * (i - 1)],
		    b->stream)) != cudaSuccess)
			break;
		if ((e = cudaGraphLaunch(exec, b->stream)) != cudaSuccess)
			break;
		if (i > 0 && (e = cudaEventRecord(b->events[2 * i - 1],
		    b->stream)) != cudaSuccess)
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

int
measure_time(struct bench *b, const struct launch *l, enum cache_mode cache,
    enum launch_mode how, struct timed *out, char **cause)
{
	struct trace_label	 label = { l->v->id, l->args.n,
				     cache_name(cache), "warmup" };
	struct stats		 act;
	double			*durations = NULL;
	size_t			 count = 0;
	unsigned		 i, samples = b->iters, per = 1;
	float			 ms;
	int			 rc;

	if (trace_point_begin(&label, cause) != 0)
		return -1;
	for (i = 0; i < b->warmup; i++) {
		if (cache == CACHE_COLD && bench_flush(b, cause) != 0)
			return -1;
		if (bench_launch(l, cause) != 0)
			return -1;
	}
	label.phase = "timing";
	if (trace_point_end(NULL, NULL, cause) != 0 ||
	    trace_point_begin(&label, cause) != 0)
		return -1;
	/* --profile-window: nsys --capture-range=cudaProfilerApi and
	 * ncu --profile-from-start off see the timed launches only. */
	if (b->profile_window)
		CUDA_TRY(cudaProfilerStart(), cause);
	if (how == LAUNCH_GRAPH)
		rc = issue_graph(b, l, cache, &samples, &per, cause);
	else
		rc = issue_timed(b, l, cache, cudaEventRecordDefault, cause);
	if (rc != 0)
		return -1;
	CUDA_TRY(cudaStreamSynchronize(b->stream), cause);
	if (b->profile_window)
		CUDA_TRY(cudaProfilerStop(), cause);
	if (trace_point_end(&durations, &count, cause) != 0)
		return -1;
	out->activity_ns = NAN;
	if (count > 0) {
		stats_compute(durations, count, &act);
		out->activity_ns = act.median;
	}
	free(durations);
	for (i = 0; i < samples; i++) {
		CUDA_TRY(cudaEventElapsedTime(&ms, b->events[2 * i],
		    b->events[2 * i + 1]), cause);
		b->samples[i] = (double)ms * 1e6 / per;
	}
	stats_compute(b->samples, samples, &out->st);
	out->launches = samples * per;
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

/*
 * measure-launch.c - the launches a point's timers time (measure.c): a
 * round of them, or a graph that replays them; a point given up after a
 * failure; NVML read while a round runs.
 */
#include <math.h>
#include <stdlib.h>

#include "run/measure-internal.h"
#include "trace/trace.h"

/* One round: `count` launches (each after a flush when cold), or as many
 * replays of `graph` (of MEASURE_GRAPH_LAUNCHES launches each) as cover
 * them. */
int
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

/* Ends a point after a failure: its records are dropped, and so is any
 * further failure (the first one is the one to report). */
void
abandon_point(void)
{
	char	*ignored = NULL;

	trace_point_end(NULL, NULL, &ignored);
	free(ignored);
}

/* NVML now, while a round's launches run (they are issued, not yet
 * waited for): into the run's summary, and into the row its throttling
 * reasons and lowest clocks.  Returns the seconds it took. */
double
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

/*
 * bench.c - device buffers for a plan, and one launch of a case.
 */
#include <stdlib.h>
#include <string.h>

#include "run/bench.h"

/* Launches queued behind the spin kernel.  EWBENCH_QUEUE_LAUNCHES
 * overrides MEASURE_PROBE_LAUNCHES, for the test that a queue the host
 * cannot fill is detected (tests/gpu/timing.sh). */
static unsigned
queue_launches(void)
{
	const char	*v = getenv("EWBENCH_QUEUE_LAUNCHES");
	unsigned long	 n;
	char		*end;

	if (v == NULL || *v == '\0')
		return MEASURE_PROBE_LAUNCHES;
	n = strtoul(v, &end, 10);
	if (*end != '\0' || n < 2 || n > 1000000)
		fatalx("EWBENCH_QUEUE_LAUNCHES=%s: not a whole number from 2 "
		    "to 1000000", v);
	return (unsigned)n;
}

/* The GPU timer's step, in which kernel times come (measure.c); 0 when
 * it could not be read, which leaves the statistics plain. */
static int
timer_step(struct bench *b, char **cause)
{
	unsigned long long	*step;

	CUDA_TRY(cudaHostAlloc((void **)&step, sizeof *step,
	    cudaHostAllocMapped), cause);
	*step = 0;
	if (ewb_timer_step(step, b->stream) != cudaSuccess ||
	    cudaStreamSynchronize(b->stream) != cudaSuccess) {
		cudaFreeHost(step);
		return cuda_fail(cudaGetLastError(), "ewb_timer_step", cause);
	}
	b->timer_step_ns = *step > 0 && *step < 1000000 ? (double)*step : 0;
	cudaFreeHost(step);
	return 0;
}

#define EXPECTED_PIN_RATIO	5

int
bench_open(struct bench *b, const struct plan *p, const struct run_options *o,
    const struct device_facts *d, int *code, char **cause)
{
	size_t	bytes = p->array_bytes;
	size_t	free_bytes = 0, total = 0, i, off = o->misalign ? 4 : 0, room;
	void	**arrays[6] = { &b->d_a, &b->d_b, &b->d_c, &b->d_expected,
		    &b->d_more[0], &b->d_more[1] };

	memset(b, 0, sizeof *b);
	b->dev = d;
	b->rule = timing_rule(o);
	b->warmup = o->warmup;
	b->profile_window = o->profile_window;
	b->seed = o->seed;
	b->flush_bytes = p->flush_bytes;
	b->array_bytes = bytes;
	*code = EWB_EXIT_ERROR;
	CUDA_TRY(cudaMemGetInfo(&free_bytes, &total), cause);
	if (plan_fits(p, free_bytes, NULL, cause) != 0) {
		*code = EWB_EXIT_NOMEM;
		return -1;
	}
	/* --misalign: every operand starts 4 bytes past a 16-byte
	 * boundary, the expected output too (the compare does not care). */
	for (i = 0; i < 4 + (size_t)p->more_inputs; i++) {
		CUDA_TRY(cudaMalloc(&b->base[i], bytes + 16), cause);
		*arrays[i] = (char *)b->base[i] + off;
	}
	CUDA_TRY(cudaMalloc(&b->d_flush, b->flush_bytes), cause);
	CUDA_TRY(cudaMalloc((void **)&b->d_result, sizeof *b->d_result),
	    cause);
	/* Page-locked, the expected outputs upload at full speed, but the
	 * locking costs: on an H200's host (2026-11-29) 0.5-0.7 s to allocate
	 * a GiB and 0.1-0.16 s to free it, where pageable memory uploads a GiB
	 * in 0.13-0.17 s more.  So page-locked only for a plan that uploads
	 * more than EXPECTED_PIN_RATIO times the buffer. */
	b->h_pinned = plan_expected_bytes(p) > EXPECTED_PIN_RATIO * bytes &&
	    cudaMallocHost(&b->h_expected, bytes + 1) == cudaSuccess;
	if (!b->h_pinned) {
		cudaGetLastError();
		b->h_expected = xmalloc(bytes + 1);
	}
	CUDA_TRY(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking),
	    cause);
	/* Rounds of graph launches are whole replays. */
	b->capacity = ((size_t)b->rule.max_samples + MEASURE_GRAPH_LAUNCHES -
	    1) / MEASURE_GRAPH_LAUNCHES * MEASURE_GRAPH_LAUNCHES;
	b->queue_launches = queue_launches();
	room = b->capacity;
	if (room < b->queue_launches)
		room = b->queue_launches;
	if (room < MEASURE_PROBE_LAUNCHES * MEASURE_PROBE_ROUNDS)
		room = MEASURE_PROBE_LAUNCHES * MEASURE_PROBE_ROUNDS;
	b->samples = xcalloc(room, sizeof *b->samples);
	b->intervals = xcalloc(room, sizeof *b->intervals);
	CUDA_TRY(cudaHostAlloc((void **)&b->spin_word, sizeof *b->spin_word,
	    cudaHostAllocMapped), cause);
	CUDA_TRY(cudaHostGetDevicePointer((void **)&b->spin_word_device,
	    b->spin_word, 0), cause);
	if (timer_step(b, cause) != 0)
		return -1;
	return events_create(&b->events, b->rule.min_samples, cause);
}

void
bench_close(struct bench *b)
{
	size_t	i;

	events_destroy(b->events, b->rule.min_samples);
	free(b->samples);
	free(b->intervals);
	if (b->spin_word != NULL)
		cudaFreeHost(b->spin_word);
	for (i = 0; i < 6; i++)
		cudaFree(b->base[i]);
	cudaFree(b->d_flush);
	cudaFree(b->d_result);
	cudaFree(b->d_guarded);
	if (b->h_pinned)
		cudaFreeHost(b->h_expected);
	else
		free(b->h_expected);
	if (b->stream != NULL)
		cudaStreamDestroy(b->stream);
	memset(b, 0, sizeof *b);
}

void
bench_case(struct bench *b, const struct plan_case *c, struct launch *l,
    struct point *p)
{
	struct ewb_shape	shape;

	memset(l, 0, sizeof *l);
	l->b = b;
	l->v = c->v;
	l->args.a = b->d_a;
	l->args.b = b->d_b;
	l->args.more[0] = b->d_more[0];
	l->args.more[1] = b->d_more[1];
	l->args.c = b->d_c;
	l->args.n = c->n;
	l->args.block = c->block;
	l->args.sm_count = b->dev->sm_count;
	l->args.max_threads_per_sm = b->dev->max_threads_per_sm;
	l->args.max_blocks_per_sm = b->dev->max_blocks_per_sm;
	l->args.shared_pad = c->shared_pad;
	l->args.stream = b->stream;
	shape = c->v->shape(&l->args);
	memset(p, 0, sizeof *p);
	p->v = c->v;
	p->n = c->n;
	p->block = shape.block;
	p->grid = shape.grid;
	p->cache = CACHE_WARM;
	p->launch = "stream";
}

int
bench_launch(const struct launch *l, char **cause)
{
	cudaError_t	e = l->v->launch(&l->args);

	if (e != cudaSuccess)
		return cuda_fail(e, l->v->id, cause);
	return 0;
}

int
bench_flush(struct bench *b, char **cause)
{
	CUDA_TRY(ewb_l2_flush(b->d_flush, b->flush_bytes, b->stream), cause);
	return 0;
}

int
bench_sync(struct bench *b, char **cause)
{
	CUDA_TRY(cudaStreamSynchronize(b->stream), cause);
	return 0;
}

int
bench_capture(struct bench *b, int (*issue)(void *ctx, char **cause),
    void *ctx, cudaGraph_t *graph, char **cause)
{
	cudaError_t	e;
	int		rc;

	*graph = NULL;
	CUDA_TRY(cudaStreamBeginCapture(b->stream,
	    cudaStreamCaptureModeThreadLocal), cause);
	rc = issue(ctx, cause);
	e = cudaStreamEndCapture(b->stream, graph);
	if (rc == 0 && e != cudaSuccess)
		rc = cuda_fail(e, "cudaStreamEndCapture", cause);
	if (rc != 0 && *graph != NULL) {
		cudaGraphDestroy(*graph);
		*graph = NULL;
	}
	return rc;
}

static int
issue_launch(void *ctx, char **cause)
{
	return bench_launch(ctx, cause);
}

int
bench_kernels(const struct launch *l, unsigned *count, char **cause)
{
	cudaGraph_t	 graph;
	cudaGraphNode_t	*nodes = NULL;
	enum cudaGraphNodeType type;
	cudaError_t	 e;
	size_t		 n = 0, i;
	int		 rc = -1;

	*count = 0;
	if (bench_capture(l->b, issue_launch, (void *)l, &graph, cause) != 0)
		return -1;
	if ((e = cudaGraphGetNodes(graph, NULL, &n)) != cudaSuccess)
		goto fail;
	nodes = xcalloc(n + 1, sizeof *nodes);
	if ((e = cudaGraphGetNodes(graph, nodes, &n)) != cudaSuccess)
		goto fail;
	for (i = 0; i < n; i++) {
		if ((e = cudaGraphNodeGetType(nodes[i], &type)) != cudaSuccess)
			goto fail;
		*count += type == cudaGraphNodeTypeKernel;
	}
	rc = 0;
	goto out;
fail:
	cuda_fail(e, "cudaGraphGetNodes", cause);
out:
	free(nodes);
	cudaGraphDestroy(graph);
	return rc;
}

/*
 * sample.c - one sample of a ceiling on the stream, and the loop that
 * times them: CEIL_WARMUP untimed, then `iters`, each between its own pair
 * of CUDA events.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings/internal.h"

_Static_assert(CURVE_SERIES == CEIL_CURVE_SERIES &&
    CURVE_LEVELS == CEIL_CURVE_LEVELS, "kernels/inflight.def counted twice");

/* The first id of id's family: the load levels and the block sizes are
 * one kind of sample each, told apart by their param. */
enum ceiling_id
ceil_family(enum ceiling_id id)
{
	if (id >= CEIL_LOADED_25 && id <= CEIL_LOADED_FULL)
		return CEIL_LOADED_25;
	if (id >= CEIL_BLOCK_RATE_32 && id <= CEIL_BLOCK_RATE_1024)
		return CEIL_BLOCK_RATE_32;
	return id;
}

/* One sample of ceiling id on the stream; *work gets what it does: bytes
 * read + written, flops, kernel launches, dependent loads or blocks. */
static int
enqueue(struct ceil_bench *b, enum ceiling_id id, double *work, char **cause)
{
	size_t			words = b->array_bytes / 16;
	int			sm = b->dev.sm_count;
	unsigned		i;
	struct ewb_ceil_load	load;

	switch (ceil_family(id)) {
	case CEIL_DRAM_READ:
		CUDA_TRY(ewb_ceil_read(b->a, words, b->sink, b->stream),
		    cause);
		*work = (double)b->array_bytes;
		break;
	case CEIL_DRAM_WRITE:
		CUDA_TRY(ewb_ceil_write(b->c, words, b->stream), cause);
		*work = (double)b->array_bytes;
		break;
	case CEIL_DRAM_COPY:
		CUDA_TRY(ewb_ceil_copy(b->a, b->c, words, b->stream),
		    cause);
		*work = 2.0 * b->array_bytes;
		break;
	case CEIL_DRAM_ADD:
		CUDA_TRY(ewb_ceil_add(b->a, b->b, b->c, words, b->stream),
		    cause);
		*work = 3.0 * b->array_bytes;
		break;
	case CEIL_DRAM_ADD_FIXED:
		CUDA_TRY(cudaGraphLaunch(b->fixed_graph, b->stream), cause);
		*work = FIXED_LAUNCHES;
		break;
	case CEIL_L2_READ:
		CUDA_TRY(ewb_ceil_l2_read(b->a, b->l2_set_bytes / 16,
		    b->l2_passes, b->sink, sm, b->stream), cause);
		*work = (double)b->l2_passes * b->l2_set_bytes;
		break;
	case CEIL_DRAM_LATENCY:
		CUDA_TRY(ewb_ceil_chase(b->b, CHASE_HOPS, b->chase, NULL,
		    b->stream), cause);
		*work = CHASE_HOPS;
		break;
	case CEIL_LOADED_25:		/* every load level */
		/* The chain in b, the stream from a to c. */
		load.src = b->a;
		load.dst = b->c;
		load.words = words;
		load.blocks = b->load_blocks[id];
		load.count = &b->counts[b->slot];
		CUDA_TRY(ewb_ceil_chase(b->b, CHASE_HOPS, b->chase, &load,
		    b->stream), cause);
		*work = CHASE_HOPS;
		break;
	case CEIL_BLOCK_RATE_32:	/* every block size */
		CUDA_TRY(ewb_ceil_blocks(RATE_BLOCKS, ceiling_kinds[id].param,
		    b->sink, b->stream), cause);
		*work = RATE_BLOCKS;
		break;
	case CEIL_LAUNCH_STREAM:
		for (i = 0; i < LAUNCH_BATCH; i++)
			CUDA_TRY(ewb_ceil_empty(b->stream), cause);
		*work = LAUNCH_BATCH;
		break;
	case CEIL_LAUNCH_GRAPH:
		CUDA_TRY(cudaGraphLaunch(b->graph, b->stream), cause);
		*work = LAUNCH_BATCH;
		break;
	case CEIL_FP32_FMA:
		CUDA_TRY(ewb_ceil_fma_f32(FMA_ROUNDS, b->sink, sm, work,
		    b->stream), cause);
		break;
	case CEIL_FP16_FMA:
		CUDA_TRY(ewb_ceil_fma_f16(FMA_ROUNDS, b->sink, sm, work,
		    b->stream), cause);
		break;
	default:
		fatalx("ceiling %d unknown", (int)id);
	}
	return 0;
}

bool
ceil_is_loaded(enum ceiling_id id)
{
	return ceiling_kinds[id].bandwidth != NULL;
}

/*
 * The streaming blocks beside a loaded chase: enough to offer `param` %
 * of dram_copy by Little's law at the unloaded latency (each block reads
 * EWB_CEIL_LOAD_BLOCK_BYTES per round trip and writes as much), at least
 * one; every free block slot for param 0.  The latency rises under load,
 * so the stream reaches less than it offers; its bandwidth row says what
 * it reached.
 */
static int
size_load(struct ceil_bench *b, enum ceiling_id id, char **cause)
{
	const struct ceiling	*copy = b->row_of[CEIL_DRAM_COPY];
	const struct ceiling	*latency = b->row_of[CEIL_DRAM_LATENCY];
	unsigned		 most, param = ceiling_kinds[id].param;
	double			 blocks;

	if (b->chase_wave < 2) {
		*cause = xasprintf("%s: the chase kernel has %u resident "
		    "block(s) on this GPU, no room for a stream beside it",
		    ceiling_kinds[id].name, b->chase_wave);
		return -1;
	}
	most = b->chase_wave - 1;
	if (copy == NULL || latency == NULL)
		fatalx("%s measured before dram_copy and dram_latency",
		    ceiling_kinds[id].name);
	blocks = ceil(param / 100.0 * (copy->value / 2) *
	    (latency->value * 1e-9) / EWB_CEIL_LOAD_BLOCK_BYTES);
	b->load_blocks[id] = param == 0 || blocks >= most ? most :
	    blocks < 1 ? 1 : (unsigned)blocks;
	return 0;
}

/* One sample of a concurrency-curve point: blocks_per_sm blocks on every
 * SM, counted by SM into b->per_sm when count is set. */
int
ceil_enqueue_curve(struct ceil_bench *b, const struct curve_point *c,
    bool count, double *work, char **cause)
{
	CUDA_TRY(ewb_ceil_inflight(b->a, b->b, b->c, b->curve_bytes, c->inputs,
	    c->request / 32, c->loads, c->blocks_per_sm, b->dev.sm_count,
	    count ? b->per_sm : NULL, b->stream), cause);
	*work = (c->inputs + 1.0) * b->curve_bytes;
	return 0;
}

static int
enqueue_sample(struct ceil_bench *b, const struct sample *s, double *work,
    char **cause)
{
	if (s->graph != NULL) {
		CUDA_TRY(cudaGraphLaunch(s->graph, b->stream), cause);
		*work = s->launches;
		return 0;
	}
	return s->point != NULL ? ceil_enqueue_curve(b, s->point, false, work,
	    cause) : enqueue(b, s->id, work, cause);
}

/* `launches` calls of launch(b, arg), captured from the stream as a graph
 * into *exec; `what` names the kernel in a failure. */
int
ceil_capture(struct ceil_bench *b, ceil_launch_fn launch, const void *arg,
    unsigned launches, cudaGraphExec_t *exec, const char *what, char **cause)
{
	cudaGraph_t	graph = NULL;
	cudaError_t	e = cudaSuccess;
	unsigned	i;

	CUDA_TRY(cudaStreamBeginCapture(b->stream,
	    cudaStreamCaptureModeThreadLocal), cause);
	for (i = 0; i < launches && e == cudaSuccess; i++)
		e = launch(b, arg);
	if (e != cudaSuccess) {
		cudaStreamEndCapture(b->stream, &graph);
		if (graph != NULL)
			cudaGraphDestroy(graph);
		*cause = xasprintf("%s (graph capture): %s", what,
		    cudaGetErrorString(e));
		return -1;
	}
	CUDA_TRY(cudaStreamEndCapture(b->stream, &graph), cause);
	e = cudaGraphInstantiate(exec, graph, 0);
	cudaGraphDestroy(graph);
	if (e != cudaSuccess)
		return cuda_fail(e, "cudaGraphInstantiate", cause);
	return 0;
}

/* `warmup` untimed samples, then `iters` timed ones, each between its own
 * pair of events, into st; *work is one sample's work. */
int
ceil_sample_times(struct ceil_bench *b, const struct sample *s, unsigned warmup,
    unsigned iters, struct stats *st, double *work, char **cause)
{
	unsigned	i;
	float		ms;

	b->slot = 0;
	for (i = 0; i < warmup; i++) {
		if (enqueue_sample(b, s, work, cause) != 0)
			return -1;
	}
	for (i = 0; i < iters; i++) {
		b->slot = 1 + i;
		CUDA_TRY(cudaEventRecord(b->events[2 * i], b->stream), cause);
		if (enqueue_sample(b, s, work, cause) != 0)
			return -1;
		CUDA_TRY(cudaEventRecord(b->events[2 * i + 1], b->stream),
		    cause);
	}
	/* NVML while the samples run: run.json placement.nvml.sampled. */
	host_facts_sample(&b->host, NULL);
	CUDA_TRY(cudaStreamSynchronize(b->stream), cause);
	for (i = 0; i < iters; i++) {
		CUDA_TRY(cudaEventElapsedTime(&ms, b->events[2 * i],
		    b->events[2 * i + 1]), cause);
		b->samples[i] = (double)ms * 1e6;
	}
	stats_compute(b->samples, iters, st);
	return 0;
}

/* Warm-up, then `iters` timed samples of ceiling id; *work is one
 * sample's work. */
int
ceil_measure(struct ceil_bench *b, enum ceiling_id id, struct stats *st,
    double *work, char **cause)
{
	struct sample	s = { id, NULL, NULL, 0 };

	/* The chain lives in array b (dram_add, measured before, is done
	 * with it); the loaded chases walk on where the last one stopped. */
	if (id == CEIL_DRAM_LATENCY)
		CUDA_TRY(ewb_ceil_chase_init(b->b, b->array_bytes / 16,
		    b->chase, b->stream), cause);
	if (ceil_is_loaded(id)) {
		if (size_load(b, id, cause) != 0)
			return -1;
		CUDA_TRY(cudaMemsetAsync(b->counts, 0, (b->opts.iters + 1) *
		    sizeof *b->counts, b->stream), cause);
	}
	return ceil_sample_times(b, &s, CEIL_WARMUP, b->opts.iters, st, work,
	    cause);
}

/* The curve's samples: CURVE_ITERS, fewer when --iters asks for fewer;
 * of a point's fixed cost, CURVE_FIXED_ITERS. */
unsigned
ceil_curve_iters(const struct ceil_bench *b)
{
	return b->opts.iters < CURVE_ITERS ? b->opts.iters : CURVE_ITERS;
}

unsigned
ceil_curve_fixed_iters(const struct ceil_bench *b)
{
	return b->opts.iters < CURVE_FIXED_ITERS ? b->opts.iters :
	    CURVE_FIXED_ITERS;
}

/*
 * plan.c - what `ewbench ceilings` will measure and with what: the
 * arrays sized from the L2 and free memory, the launch graph, --dry-run's
 * plan and its time; the device memory taken and given back.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdio.h>

#include "device/chips.h"
#include "run/tiers.h"
#include "ceilings/internal.h"

/* The launches ceil_capture makes graphs of: an empty kernel
 * (launch_graph), dram_add over fixed_bytes of each array
 * (dram_add_fixed_cost). */
static cudaError_t
launch_empty(struct ceil_bench *b, const void *arg)
{
	(void)arg;
	return ewb_ceil_empty(b->stream);
}

static cudaError_t
launch_fixed_add(struct ceil_bench *b, const void *arg)
{
	(void)arg;
	return ewb_ceil_add(b->a, b->b, b->c, b->fixed_bytes / 16, b->stream);
}

/* The sizes: three DRAM arrays of max(16 x L2, 1 GiB), or as large as
 * 3/4 of free memory allows but at least 4 x L2; the L2 working set. */
static int
size_arrays(struct ceil_bench *b, size_t free_bytes, int *code, char **cause)
{
	struct tier_device	td;
	size_t			fit;
	size_t			sink_bytes = EWB_CEIL_SINK_WORDS * sizeof *b->sink;
	char			have[32], want[32];

	*code = EWB_EXIT_ERROR;
	if (b->dev.l2_bytes == 0) {
		*cause = xasprintf("the device reports no L2 size");
		return -1;
	}
	td.l2_bytes = b->dev.l2_bytes;
	td.memory_bytes = b->dev.memory_bytes;
	td.free_bytes = free_bytes;
	fit = tier_usable_bytes(&td, 0);
	fit = fit > sink_bytes ? (fit - sink_bytes) / 3 : 0;
	b->array_bytes = tier_dram_bytes(&td);
	if (b->array_bytes > fit)
		b->array_bytes = fit;
	b->array_bytes -= b->array_bytes % (1 << 20);
	if (b->array_bytes < 4 * b->dev.l2_bytes) {
		bytes_format(3.0 * 4 * b->dev.l2_bytes, want, sizeof want);
		bytes_format((double)free_bytes, have, sizeof have);
		*cause = xasprintf("DRAM ceilings need three arrays of at "
		    "least 4 x L2 (%s in all, beside the flush buffer and the "
		    "15 %% of free memory kept free); only %s is free", want,
		    have);
		*code = EWB_EXIT_NOMEM;
		return -1;
	}
	/* Half of each array, but at least 4 x L2 where the arrays allow
	 * it: the curve's rows stream through DRAM, and are many. */
	b->curve_bytes = b->array_bytes / 2;
	if (b->curve_bytes < 4 * b->dev.l2_bytes)
		b->curve_bytes = b->array_bytes < 4 * b->dev.l2_bytes ?
		    b->array_bytes : 4 * b->dev.l2_bytes;
	b->curve_bytes -= b->curve_bytes % (1 << 20);
	b->fixed_bytes = b->array_bytes / FIXED_SHARE;
	b->fixed_bytes -= b->fixed_bytes % (1 << 20);
	b->l2_set_bytes = b->dev.l2_bytes / 4;
	b->l2_set_bytes -= b->l2_set_bytes % 4096;
	if (b->l2_set_bytes == 0)
		b->l2_set_bytes = 4096;
	b->l2_passes = (unsigned)(L2_TRAFFIC / b->l2_set_bytes);
	if (b->l2_passes == 0)
		b->l2_passes = 1;
	return 0;
}

/* --dry-run: what would be measured, with its sizes, and about how long,
 * on the GPU or, with --chip or without a usable GPU, for a GPU's facts
 * by name (chips.h). */
int
ceilings_plan(struct ceil_bench *b, const char *no_gpu)
{
	const char	*cupti;
	char		*cause = NULL, what[CEIL_METHOD_SIZE], mem[32], fixed[64];
	size_t		 free_bytes = 0, total = 0;
	double		 bw, secs, curve = 0;
	int		 code, id, rows = CEIL_COUNT + LOAD_LEVELS;
	size_t		 series, level;
	struct curve_point c;

	if (no_gpu != NULL || b->opts.chip != NULL) {
		if (chips_plan_facts(b->opts.chip, no_gpu, &b->dev, &cupti,
		    &cause) != 0) {
			fprintf(stderr, "ewbench ceilings: %s\n", cause);
			free(cause);
			return EWB_EXIT_USAGE;
		}
		free_bytes = b->dev.memory_bytes;
	} else if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess)
		free_bytes = b->dev.memory_bytes;
	if (size_arrays(b, free_bytes, &code, &cause) != 0) {
		fprintf(stderr, "ewbench ceilings: %s\n", cause);
		free(cause);
		return code;
	}
	/* Every row ceilings.csv will hold, with its unit. */
	printf("plan: ewbench ceilings on %s\n", b->dev.name);
	for (id = 0; id < CEIL_COUNT; id++) {
		ceil_describe(b, (enum ceiling_id)id, what, sizeof what);
		printf("%-31s %-7s %s\n", ceiling_kinds[id].name,
		    ceiling_kinds[id].unit, what);
		if (!ceil_is_loaded((enum ceiling_id)id))
			continue;
		ceil_describe_bandwidth(b, (enum ceiling_id)id, what, sizeof what);
		printf("%-31s %-7s %s\n", ceiling_kinds[id].bandwidth,
		    "byte/s", what);
	}
	/* The curve's rows that fit this GPU (without one, by its block and
	 * thread limits; the occupancy calculator may leave out more). */
	for (series = 0; series < CURVE_SERIES; series++) {
		for (level = 0; level < CURVE_LEVELS; level++) {
			if (!ceil_curve_point(b, series, level, no_gpu == NULL &&
			    b->opts.chip == NULL, &c))
				continue;
			ceil_curve_name(&c, mem, sizeof mem);
			ceil_describe_curve(b, &c, what, sizeof what);
			printf("%-31s %-7s %s\n", mem, "byte/s", what);
			ceil_describe_curve_fixed(b, mem, what, sizeof what);
			ceil_curve_fixed_name(&c, fixed, sizeof fixed);
			printf("%-31s %-7s %s\n", fixed, "ns", what);
			curve += (c.inputs + 1.0) * b->curve_bytes;
			rows += 2;
		}
	}
	/* Rough: the DRAM samples move 7 arrays (read, write, copy 2, add
	 * 3) and the fixed cost's 3 x FIXED_LAUNCHES / FIXED_SHARE more at
	 * 90 % of the spec, L2 reads go about 2.5x faster, a launch
	 * costs about 3 us, an FMA sample a few ms, a DRAM load about 0.5 us
	 * alone and 1 us loaded, and ~1.5 blocks launch per ns. */
	bw = 0.9 * b->dev.dram_bandwidth;
	secs = (b->opts.iters + CEIL_WARMUP) * ((7.0 + 3.0 * FIXED_LAUNCHES /
	    FIXED_SHARE) * b->array_bytes / bw +
	    L2_TRAFFIC / (2.5 * bw) + 2 * LAUNCH_BATCH * 3e-6 + 2 * 5e-3 +
	    CHASE_HOPS * (0.5e-6 + LOAD_LEVELS * 1e-6) +
	    (CEIL_BLOCK_RATE_1024 - CEIL_BLOCK_RATE_32 + 1) * RATE_BLOCKS / 1.5e9);
	/* The curve's points average about half the ceiling; each point's
	 * fixed cost moves as much a sample as the point. */
	secs += (ceil_curve_iters(b) + ceil_curve_fixed_iters(b) +
	    2 * CEIL_WARMUP) * curve / (0.45 * bw);
	bytes_format(3.0 * b->array_bytes, mem, sizeof mem);
	printf("%d ceilings, %u samples each after %u warm-up (the "
	    "concurrency curve's %u); GPU memory %s; about %.0f s\n", rows,
	    b->opts.iters, CEIL_WARMUP, ceil_curve_iters(b), mem,
	    secs < 1 ? 1 : ceil(secs));
	return EWB_EXIT_OK;
}

/* The arrays, a sink, events and the graph. */
int
ceilings_allocate(struct ceil_bench *b, int *code, char **cause)
{
	size_t	free_bytes = 0, total = 0;
	size_t	sink_bytes = EWB_CEIL_SINK_WORDS * sizeof *b->sink;

	*code = EWB_EXIT_ERROR;
	CUDA_TRY(cudaMemGetInfo(&free_bytes, &total), cause);
	if (size_arrays(b, free_bytes, code, cause) != 0)
		return -1;
	*code = EWB_EXIT_ERROR;
	CUDA_TRY(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking),
	    cause);
	CUDA_TRY(cudaMalloc(&b->a, b->array_bytes), cause);
	CUDA_TRY(cudaMalloc(&b->b, b->array_bytes), cause);
	CUDA_TRY(cudaMalloc(&b->c, b->array_bytes), cause);
	CUDA_TRY(cudaMalloc((void **)&b->sink, sink_bytes), cause);
	CUDA_TRY(cudaMalloc((void **)&b->chase, sizeof *b->chase), cause);
	CUDA_TRY(cudaMalloc((void **)&b->per_sm, EWB_CEIL_SMIDS *
	    sizeof *b->per_sm), cause);
	CUDA_TRY(cudaMalloc((void **)&b->counts, (b->opts.iters + 1) *
	    sizeof *b->counts), cause);
	CUDA_TRY(ewb_ceil_chase_wave(b->dev.sm_count, &b->chase_wave), cause);
	CUDA_TRY(cudaMemsetAsync(b->a, 0, b->array_bytes, b->stream), cause);
	CUDA_TRY(cudaMemsetAsync(b->b, 0, b->array_bytes, b->stream), cause);
	CUDA_TRY(cudaMemsetAsync(b->c, 0, b->array_bytes, b->stream), cause);
	CUDA_TRY(cudaMemsetAsync(b->sink, 0, sink_bytes, b->stream), cause);
	b->samples = xcalloc(b->opts.iters, sizeof *b->samples);
	if (events_create(&b->events, b->opts.iters, cause) != 0)
		return -1;
	CUDA_TRY(cudaStreamSynchronize(b->stream), cause);
	if (ceil_capture(b, launch_empty, NULL, LAUNCH_BATCH, &b->graph,
	    "ewb_ceil_empty", cause) != 0)
		return -1;
	return ceil_capture(b, launch_fixed_add, NULL, FIXED_LAUNCHES,
	    &b->fixed_graph, "ewb_ceil_add", cause);
}

void
ceilings_release(struct ceil_bench *b)
{
	events_destroy(b->events, b->opts.iters);
	free(b->samples);
	if (b->graph != NULL)
		cudaGraphExecDestroy(b->graph);
	if (b->fixed_graph != NULL)
		cudaGraphExecDestroy(b->fixed_graph);
	cudaFree(b->a);
	cudaFree(b->b);
	cudaFree(b->c);
	cudaFree(b->sink);
	cudaFree(b->chase);
	cudaFree(b->per_sm);
	cudaFree(b->counts);
	if (b->stream != NULL)
		cudaStreamDestroy(b->stream);
}

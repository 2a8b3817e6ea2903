/*
 * curve.c - the concurrency curve's rows of `ewbench ceilings`: each
 * point's shape on this GPU, its bandwidth (its blocks counted per SM
 * first) and its fixed cost.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "ceilings/internal.h"

/*
 * Curve point (series, level) as it will run: the fewest loads per thread
 * per input (curve_loads) that make requests in flight per SM = warps x
 * loads with a whole number of EWB_CEIL_INFLIGHT_BLOCK-thread blocks per
 * SM, all of which one SM holds at once (fit: ewb_ceil_inflight_fit, or
 * the device's block and thread limits without a GPU).  0 when no such
 * shape exists on this GPU: the row is left out.
 */
int
ceil_curve_point(const struct ceil_bench *b, size_t series, size_t level,
    bool ask_gpu, struct curve_point *c)
{
	unsigned	warp_threads = 32, per_block = EWB_CEIL_INFLIGHT_BLOCK / 32;
	unsigned	most, fit, requests, warps;
	size_t		k;

	c->shape = curve_series[series].shape;
	c->inputs = strcmp(c->shape, "add") == 0 ? 2 : 1;
	c->request = curve_series[series].request;
	c->kib = curve_kib[level];
	requests = c->kib * 1024 / (c->inputs * c->request);
	most = b->dev.max_threads_per_sm > 0 ?
	    (unsigned)b->dev.max_threads_per_sm / EWB_CEIL_INFLIGHT_BLOCK : 0;
	if (b->dev.max_blocks_per_sm > 0 &&
	    (unsigned)b->dev.max_blocks_per_sm < most)
		most = (unsigned)b->dev.max_blocks_per_sm;
	for (k = 0; k < sizeof curve_loads / sizeof curve_loads[0]; k++) {
		c->loads = curve_loads[k];
		if (requests % c->loads != 0)
			continue;
		warps = requests / c->loads;
		if (warps % per_block != 0 || warps < per_block)
			continue;
		c->blocks_per_sm = warps / per_block;
		fit = most;
		if (ask_gpu && ewb_ceil_inflight_fit(c->inputs,
		    c->request / warp_threads, c->loads, &fit) != cudaSuccess)
			fit = 0;
		if (c->blocks_per_sm <= fit && c->blocks_per_sm <= most)
			return 1;
	}
	return 0;
}

void
ceil_curve_name(const struct curve_point *c, char *buf, size_t len)
{
	snprintf(buf, len, "dram_%s_inflight%uk_r%u", c->shape, c->kib,
	    c->request);
}

/* The name of a curve point's fixed-cost row: the point's, _fixed_cost. */
void
ceil_curve_fixed_name(const struct curve_point *c, char *buf, size_t len)
{
	char	point[CEIL_CURVE_NAME];

	ceil_curve_name(c, point, sizeof point);
	snprintf(buf, len, "%s_fixed_cost", point);
}

/*
 * One curve point: a counted launch first (is every SM holding
 * blocks_per_sm blocks?), then the samples.  A point whose blocks did not
 * spread evenly is left out, with a warning: its bytes in flight per SM
 * are not what its name says.
 */
static int
measure_curve_point(struct ceil_bench *b, const struct curve_point *c,
    char *name, size_t len, char **cause)
{
	struct sample	 s = { CEIL_COUNT, c, NULL, 0 };
	struct ceiling	 row;
	struct stats	 st;
	unsigned	*counts, lo = UINT_MAX, hi = 0, sms = 0, i;
	double		 work = 0;
	cudaError_t	 e;

	CUDA_TRY(cudaMemsetAsync(b->per_sm, 0, EWB_CEIL_SMIDS *
	    sizeof *b->per_sm, b->stream), cause);
	if (ceil_enqueue_curve(b, c, true, &work, cause) != 0)
		return -1;
	if (ceil_sample_times(b, &s, CEIL_WARMUP - 1, ceil_curve_iters(b), &st, &work,
	    cause) != 0)
		return -1;
	counts = xcalloc(EWB_CEIL_SMIDS, sizeof *counts);
	e = cudaMemcpy(counts, b->per_sm, EWB_CEIL_SMIDS * sizeof *counts,
	    cudaMemcpyDeviceToHost);
	for (i = 0; e == cudaSuccess && i < EWB_CEIL_SMIDS; i++) {
		if (counts[i] == 0)
			continue;
		sms++;
		lo = counts[i] < lo ? counts[i] : lo;
		hi = counts[i] > hi ? counts[i] : hi;
	}
	free(counts);
	if (e != cudaSuccess)
		return cuda_fail(e, "cudaMemcpy (the curve's blocks per SM)",
		    cause);
	ceil_curve_name(c, name, len);
	if (sms != (unsigned)b->dev.sm_count || lo != c->blocks_per_sm ||
	    hi != c->blocks_per_sm) {
		fprintf(stderr, "ewbench ceilings: %s left out: its blocks "
		    "ran %u-%u to an SM on %u SMs, not %u on each of %d\n",
		    name, lo == UINT_MAX ? 0 : lo, hi, sms, c->blocks_per_sm,
		    b->dev.sm_count);
		return 0;
	}
	memset(&row, 0, sizeof row);
	row.name = name;
	row.unit = "byte/s";
	row.value = work / (st.median * 1e-9);
	row.spec = ceil_dram_spec(&b->dev);
	row.spread_pct = ceil_spread(&st);
	ceil_describe_curve(b, c, row.method, sizeof row.method);
	return ceil_write_row(b, &row, cause);
}

/* One launch of a curve point over the first 1/FIXED_SHARE of each
 * array, for its fixed cost. */
static cudaError_t
launch_fixed_curve(struct ceil_bench *b, const void *arg)
{
	const struct curve_point	*c = arg;

	return ewb_ceil_inflight(b->a, b->b, b->c, b->curve_bytes /
	    FIXED_SHARE, c->inputs, c->request / 32, c->loads,
	    c->blocks_per_sm, b->dev.sm_count, NULL, b->stream);
}

/*
 * A curve point's fixed cost, its row `rate` (written before, its value
 * the point's bandwidth) and name given: FIXED_LAUNCHES launches over the
 * first 1/FIXED_SHARE of each array, back to back in a graph, less their
 * bytes at the point's rate, as dram_add_fixed_cost is of dram_add's
 * (rows.c, ceil_fixed_cost): a persistent grid's start, and its end, where its warps
 * finish their last iterations apart.  Left out, with a warning, where
 * nothing is left.
 */
static int
measure_curve_fixed(struct ceil_bench *b, const struct curve_point *c,
    const struct ceiling *rate, char *name, size_t len, char **cause)
{
	struct sample	s = { CEIL_COUNT, NULL, NULL, FIXED_LAUNCHES };
	struct ceiling	row;
	struct stats	st;
	double		work = 0;
	int		rc;

	ceil_curve_fixed_name(c, name, len);
	if (ceil_capture(b, launch_fixed_curve, c, FIXED_LAUNCHES, &s.graph,
	    "ewb_ceil_inflight", cause) != 0)
		return -1;
	rc = ceil_sample_times(b, &s, CEIL_WARMUP, ceil_curve_fixed_iters(b),
	    &st, &work, cause);
	cudaGraphExecDestroy(s.graph);
	if (rc != 0)
		return -1;
	memset(&row, 0, sizeof row);
	row.name = name;
	row.unit = "ns";
	row.spec = NAN;
	if (!ceil_fixed_cost(&st, (c->inputs + 1.0) * (b->curve_bytes /
	    FIXED_SHARE), rate->value, rate->name, &row))
		return 0;
	ceil_describe_curve_fixed(b, rate->name, row.method,
	    sizeof row.method);
	return ceil_write_row(b, &row, cause);
}

/* Every point of the curve that this GPU can run, with its fixed cost. */
int
ceilings_measure_curve(struct ceil_bench *b, char **cause)
{
	struct curve_point	c;
	size_t			series, level, k = 0, rows;

	for (series = 0; series < CURVE_SERIES; series++) {
		for (level = 0; level < CURVE_LEVELS &&
		    !interrupt_pending(); level++, k++) {
			if (!ceil_curve_point(b, series, level, true, &c))
				continue;
			rows = b->nrows;
			if (measure_curve_point(b, &c, b->curve_names[k],
			    sizeof b->curve_names[k], cause) != 0)
				return -1;
			if (b->nrows > rows && measure_curve_fixed(b, &c,
			    &b->rows[b->nrows - 1], b->curve_fixed_names[k],
			    sizeof b->curve_fixed_names[k], cause) != 0)
				return -1;
		}
	}
	return 0;
}

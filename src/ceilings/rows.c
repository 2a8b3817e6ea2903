/*
 * rows.c - the rows of `ewbench ceilings`: each ceiling measured, its
 * spec and spread, written to ceilings.csv, run.json and the terminal; the
 * run directory's files.  The concurrency curve's rows: curve.c.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "ceilings/internal.h"

/* columns.def's ceilings.csv columns. */
static const char *const ceilings_header[] = {
#define CEILINGS(name, ...)	#name,
#include "run/columns.def"
};


double
ceil_dram_spec(const struct device_facts *d)
{
	return d->dram_bandwidth > 0 ? d->dram_bandwidth : NAN;
}

static double
spec_value(const struct device_facts *d, enum ceiling_id id)
{
	int	lanes;

	switch (id) {
	case CEIL_DRAM_READ:
	case CEIL_DRAM_WRITE:
	case CEIL_DRAM_COPY:
	case CEIL_DRAM_ADD:
		return ceil_dram_spec(d);
	case CEIL_FP32_FMA:
		lanes = device_fp32_lanes_per_sm(d);
		if (lanes == 0 || d->sm_clock_khz <= 0)
			return NAN;
		/* Each lane: one FMA (2 flops) per clock, at the SM clock. */
		return (double)d->sm_count * lanes * 2 * d->sm_clock_khz * 1e3;
	default:
		return NAN;	/* no device attribute states it */
	}
}

/* "3210.4 GB/s", "2.25 us", "62.04 TFLOP/s", "1.660 blocks/ns". */
static void
format_value(const char *unit, double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (strcmp(unit, "byte/s") == 0)
		snprintf(buf, len, "%.1f GB/s", v / 1e9);
	else if (strcmp(unit, "flop/s") == 0)
		snprintf(buf, len, "%.2f TFLOP/s", v / 1e12);
	else if (strcmp(unit, "block/s") == 0)
		snprintf(buf, len, "%.3f blocks/ns", v / 1e9);
	else
		snprintf(buf, len, "%.2f us", v / 1e3);
}

static void
print_row(const struct ceiling *c)
{
	char	value[32], spec[32], pct[16] = "-", spread[16] = "-";

	format_value(c->unit, c->value, value, sizeof value);
	format_value(c->unit, c->spec, spec, sizeof spec);
	if (!isnan(c->spec))
		snprintf(pct, sizeof pct, "%.1f%%", 100.0 * c->value / c->spec);
	if (!isnan(c->spread_pct))
		snprintf(spread, sizeof spread, "%.2f%%", c->spread_pct);
	printf("%-31s %15s %7s %15s %7s  %s\n", c->name, value, spread, spec,
	    pct, c->method);
	fflush(stdout);
}

/* c's spread_pct from the samples' statistics. */
double
ceil_spread(const struct stats *st)
{
	/* The samples' scatter, so that a comparison of ceilings (the fleet
	 * report) can tell a difference from noise. */
	return st->count >= 2 && st->median > 0 ?
	    100.0 * st->stddev / st->median : NAN;
}

/* One row into ceilings.csv, run.json's list and the printed table. */
int
ceil_write_row(struct ceil_bench *b, const struct ceiling *c, char **cause)
{
	csv_str(b->csv, b->man.run_id);
	csv_str(b->csv, c->name);
	csv_f64(b->csv, c->value);
	csv_str(b->csv, c->unit);
	csv_f64(b->csv, c->spec);
	csv_str(b->csv, c->method);
	csv_f64(b->csv, c->spread_pct);
	if (csv_end_row(b->csv, cause) != 0)
		return -1;
	b->rows[b->nrows++] = *c;
	if (!b->opts.quiet)
		print_row(c);
	return 0;
}

/*
 * The bandwidth of the stream beside a loaded chase: each timed sample's
 * bytes read + written over its time (b->samples, as measure left them).
 * Refused when the stream did not run beside the whole chase: a block that
 * started after it ended, or a warp that stopped at the cap before.
 */
static int
loaded_bandwidth(struct ceil_bench *b, enum ceiling_id id, struct ceiling *c,
    char **cause)
{
	struct ewb_ceil_stream_count	*count;
	unsigned			 i, iters = b->opts.iters;
	unsigned long long		 late = 0, capped = 0;
	double				*bw;
	struct stats			 st;
	cudaError_t			 e;

	count = xcalloc(iters + 1, sizeof *count);
	e = cudaMemcpy(count, b->counts, (iters + 1) * sizeof *count,
	    cudaMemcpyDeviceToHost);
	if (e != cudaSuccess) {
		free(count);
		return cuda_fail(e, "cudaMemcpy (the stream's counts)", cause);
	}
	bw = xcalloc(iters, sizeof *bw);
	for (i = 0; i < iters; i++) {
		late += count[1 + i].late;
		capped += count[1 + i].capped;
		bw[i] = (double)count[1 + i].bytes / (b->samples[i] * 1e-9);
	}
	free(count);
	if (late > 0 || capped > 0) {
		free(bw);
		*cause = xasprintf("%s: the stream did not run beside the "
		    "whole pointer chase (%llu block(s) started after it had "
		    "ended, %llu warp(s) stopped at the cap before it ended): "
		    "is another process using this GPU?", ceiling_kinds[id].name,
		    late, capped);
		return -1;
	}
	stats_compute(bw, iters, &st);
	free(bw);
	c->name = ceiling_kinds[id].bandwidth;
	c->unit = "byte/s";
	c->value = st.median;
	c->spec = ceil_dram_spec(&b->dev);
	c->spread_pct = ceil_spread(&st);
	ceil_describe_bandwidth(b, id, c->method, sizeof c->method);
	return 0;
}

/*
 * A fixed cost from the median time of a sample of FIXED_LAUNCHES launches
 * (st, ns) that each move `bytes`: less the time those take at the `rate`
 * of the row named `of`, what is left of a launch is the fixed cost t0 of
 * t = t0 + bytes / rate (report/model/fit.py's model of a series), into
 * c->value; its spread, that of the launches' times against t0 itself.
 * False, with a warning, where nothing is left (the row is then left out:
 * a ceiling is positive).
 */
bool
ceil_fixed_cost(const struct stats *st, double bytes, double rate,
    const char *of, struct ceiling *c)
{
	double	launch = st->median / FIXED_LAUNCHES;

	c->value = launch - bytes / rate * 1e9;
	if (!(c->value > 0)) {
		fprintf(stderr, "ewbench ceilings: %s left out: a launch over "
		    "the smaller arrays took %.0f ns, no more than their bytes "
		    "at %s's rate\n", c->name, launch, of);
		return false;
	}
	c->spread_pct = st->count >= 2 ?
	    100.0 * st->stddev / FIXED_LAUNCHES / c->value : NAN;
	return true;
}

int
ceilings_measure(struct ceil_bench *b, enum ceiling_id id, char **cause)
{
	struct ceiling	c, bandwidth;
	struct stats	st;
	double		work = 0;

	memset(&c, 0, sizeof c);
	if (ceil_measure(b, id, &st, &work, cause) != 0)
		return -1;
	c.name = ceiling_kinds[id].name;
	c.unit = ceiling_kinds[id].unit;
	if (strcmp(c.unit, "ns") == 0)
		c.value = st.median / work;	/* per launch or load */
	else
		c.value = work / (st.median * 1e-9);
	c.spec = spec_value(&b->dev, id);
	c.spread_pct = ceil_spread(&st);
	if (id == CEIL_DRAM_ADD_FIXED) {
		if (b->row_of[CEIL_DRAM_ADD] == NULL)
			fatalx("dram_add_fixed_cost measured before dram_add");
		if (!ceil_fixed_cost(&st, 3.0 * b->fixed_bytes,
		    b->row_of[CEIL_DRAM_ADD]->value, "dram_add", &c))
			return 0;
	}
	ceil_describe(b, id, c.method, sizeof c.method);
	/* A loaded latency and its stream's bandwidth: both rows or none. */
	if (ceil_is_loaded(id) && loaded_bandwidth(b, id, &bandwidth, cause) != 0)
		return -1;
	if (ceil_write_row(b, &c, cause) != 0)
		return -1;
	b->row_of[id] = &b->rows[b->nrows - 1];
	return ceil_is_loaded(id) ? ceil_write_row(b, &bandwidth, cause) : 0;
}

/* run.json carries the measured ceilings too. */
void
ceilings_rows_json(struct json *j, const void *ctx)
{
	const struct ceil_bench	*b = ctx;

	ceilings_json(b->rows, b->nrows, j);
}

/* The run directory (claimed already when --out names it): run.json,
 * ceilings.csv, and timing.csv, which every run directory holds (here
 * with its header only).  On failure *code says why; the caller releases
 * the claim (*created: what it made). */
int
ceilings_open_output(struct ceil_bench *b, char *dir, size_t len,
    char **created, int *code, char **cause)
{
	struct csv	*timing;
	char		*path;

	if (b->dir == NULL) {
		output_default_dir(&b->dev, "ewbench-ceilings", dir, len);
		if ((*code = output_claim_dir(dir, created, cause)) != 0)
			return -1;
		b->dir = dir;
	}
	*code = EWB_EXIT_ERROR;
	if ((timing = timing_csv_open(b->dir, cause)) == NULL ||
	    csv_close(timing, cause) != 0)
		return -1;
	path = xasprintf("%s/ceilings.csv", b->dir);
	b->csv = csv_open(path, ceilings_header,
	    sizeof ceilings_header / sizeof ceilings_header[0], cause);
	free(path);
	if (b->csv == NULL)
		return -1;
	return manifest_update(b->dir, &b->man, "running", cause);
}

void
ceilings_json(const struct ceiling *rows, size_t count, struct json *j)
{
	size_t	i;

	json_begin_object(j, "ceilings");
	for (i = 0; i < count; i++) {
		json_begin_object(j, rows[i].name);
		json_f64(j, "value", rows[i].value);
		json_str(j, "unit", rows[i].unit);
		json_f64(j, "spec_value", rows[i].spec);
		json_str(j, "method", rows[i].method);
		json_f64(j, "spread_pct", rows[i].spread_pct);
		json_end_object(j);
	}
	json_end_object(j);
}

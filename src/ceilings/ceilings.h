/*
 * ceilings.h - `ewbench ceilings`: what this GPU reaches at best (DRAM and
 * L2 bandwidth, DRAM latency alone and under load, launch cost, block
 * launch rate, FMA throughput), measured with the kernels of
 * kernels/ceilings.h and written to ceilings.csv (docs/ceilings.md).
 *
 * Each ceiling is one kind of sample (kernels/ceilings.h), enqueued
 * CEIL_WARMUP times untimed and then `iters` times, each timed sample
 * between its own pair of CUDA events; the ceiling is the work of a sample
 * over the median time (bytes read + written, flops, or blocks), or for
 * launch cost and latency the median time over the launches or loads in a
 * sample.  DRAM arrays are max(16 x L2, 1 GiB) each (capped by free
 * memory), so L2 holds at most a sixteenth of them; the L2 working set is
 * a quarter of L2, read many times in one launch so that the launch costs
 * nothing next to the reads.  A loaded latency also writes the bandwidth
 * of the stream beside its chase, a row of its own.  The concurrency
 * curve (kernels/inflight.def) follows the ceilings above: one row per
 * series and level, each a copy or an add with a set number of bytes of
 * loads in flight per SM, CURVE_ITERS samples each.  The method column of
 * ceilings.csv says what ran, with its sizes.
 *
 * The folder: sample.c (one sample, the timing loop), describe.c (the
 * method column), rows.c (each row measured and written), plan.c (sizes,
 * --dry-run, device memory); internal.h what they share.  The command
 * (options, the run directory's claim, run.json) is src/cmd/cmd-ceilings.c.
 */
#ifndef EWB_CEILINGS_H
#define EWB_CEILINGS_H

#include <cuda_runtime_api.h>

#include "kernels/ceilings.h"
#include "device/hostfacts.h"
#include "run/output.h"

#define CEIL_WARMUP		3u
#define CEIL_DEFAULT_ITERS	50u

/* The longest method a row holds, its NUL included: room for the longest
 * description (describe.c), the concurrency curve's at any --iters, whole
 * in the CSV and in the plan alike. */
#define CEIL_METHOD_SIZE	512

/* One row of ceilings.csv. */
struct ceiling {
	const char	*name;		/* dram_read, ..., fp16_fma */
	const char	*unit;		/* byte/s, ns, flop/s or block/s */
	double		 value;
	double		 spec;		/* from device attributes; NaN: none */
	double		 spread_pct;	/* 100 x sample stddev / median; NaN
					 * with fewer than 2 samples */
	char		 method[CEIL_METHOD_SIZE];	/* one line: what
							   was run */
};

enum ceiling_id {
	CEIL_DRAM_READ,
	CEIL_DRAM_WRITE,
	CEIL_DRAM_COPY,
	CEIL_DRAM_ADD,
	CEIL_DRAM_ADD_FIXED,	/* after dram_add: its rate */
	CEIL_L2_READ,
	CEIL_DRAM_LATENCY,
	CEIL_LOADED_25,		/* after dram_copy and dram_latency: */
	CEIL_LOADED_50,		/* their values size the stream */
	CEIL_LOADED_100,	/* the latency rises under load: offered */
	CEIL_LOADED_200,	/* 100 % reaches about half of dram_copy, */
	CEIL_LOADED_400,	/* 200 % and 400 % the knee below full */
	CEIL_LOADED_FULL,
	CEIL_LAUNCH_STREAM,
	CEIL_LAUNCH_GRAPH,
	CEIL_BLOCK_RATE_32,	/* the block sizes of the study's variants */
	CEIL_BLOCK_RATE_64,	/* and of tune's sweep, by powers of 2 */
	CEIL_BLOCK_RATE_128,
	CEIL_BLOCK_RATE_256,
	CEIL_BLOCK_RATE_512,
	CEIL_BLOCK_RATE_1024,
	CEIL_FP32_FMA,
	CEIL_FP16_FMA,
	CEIL_COUNT
};
#define LOAD_LEVELS	6	/* CEIL_LOADED_*: a second row each */

/* The concurrency curve's series and levels (kernels/inflight.def),
 * counted. */
enum {
	CEIL_CURVE_SERIES = 0
#define INFLIGHT_SERIES(shape, request)	+ 1
#define INFLIGHT_LEVEL(kib)
#include "kernels/inflight.def"
#undef INFLIGHT_SERIES
#undef INFLIGHT_LEVEL
	,
	CEIL_CURVE_LEVELS = 0
#define INFLIGHT_SERIES(shape, request)
#define INFLIGHT_LEVEL(kib)	+ 1
#include "kernels/inflight.def"
#undef INFLIGHT_SERIES
#undef INFLIGHT_LEVEL
};
#define CEIL_CURVE_ROWS	(CEIL_CURVE_SERIES * CEIL_CURVE_LEVELS)
/* A curve point's row name, and its fixed cost's (_fixed_cost after it). */
#define CEIL_CURVE_NAME	48
/* Each curve point: its bandwidth and its fixed cost. */
#define CEIL_ROWS	(CEIL_COUNT + LOAD_LEVELS + 2 * CEIL_CURVE_ROWS)

/* A ceilings run: its settings and files, the device memory it measures
 * with, the rows measured so far. */
struct ceil_bench {
	struct run_options	 opts;	/* what run.json's settings record */
	struct device_facts	 dev;
	struct host_facts	 host;		/* run.json "placement" */
	struct manifest		 man;
	const char		*dir;
	struct csv		*csv;

	cudaStream_t		 stream;
	cudaEvent_t		*events;	/* 2 per timed sample */
	double			*samples;
	void			*a, *b, *c;	/* DRAM arrays */
	unsigned		*sink;
	struct ewb_ceil_chase_state *chase;	/* device memory */
	/* What the stream beside a loaded chase did in each sample: [0]
	 * for the warm-up, [1 + i] for timed sample i; device memory. */
	struct ewb_ceil_stream_count *counts;
	unsigned		 slot;		/* of the sample being enqueued */
	unsigned		 chase_wave;	/* chase kernel's resident blocks */
	unsigned		 load_blocks[CEIL_COUNT];  /* streaming blocks */
	size_t			 array_bytes;
	size_t			 l2_set_bytes;	/* L2 kernel's working set */
	unsigned		 l2_passes;
	cudaGraphExec_t		 graph;		/* LAUNCH_BATCH empty kernels */
	cudaGraphExec_t		 fixed_graph;	/* FIXED_LAUNCHES of dram_add */
	size_t			 fixed_bytes;	/* of each array, per launch */
	unsigned		*per_sm;	/* the curve's blocks by SM */
	size_t			 curve_bytes;	/* of each array, per sample */
	char			 curve_names[CEIL_CURVE_ROWS][CEIL_CURVE_NAME];
	char			 curve_fixed_names[CEIL_CURVE_ROWS]
				    [CEIL_CURVE_NAME + sizeof "_fixed_cost"];
	struct ceiling		 rows[CEIL_ROWS];	/* measured so far */
	size_t			 nrows;
	const struct ceiling	*row_of[CEIL_COUNT];
};

/* cache.c: copies a complete ceilings run (run_dir's ceilings.csv and
 * run.json) into the private cache as the entry of this GPU (uuid) and
 * build (docs/ceilings.md, "The ceilings cache"); a cache that cannot be
 * used or written is said on stderr, never fatal. */
void	 ceilings_cache_store(const char *run_dir, const char *uuid,
	    bool quiet);

/* --dry-run: what would be measured, with its sizes, and about how long,
 * on the GPU or, with --chip or without a usable GPU (no_gpu: why), for a
 * GPU's facts by name (chips.h).  Returns an exit code. */
int	 ceilings_plan(struct ceil_bench *, const char *no_gpu);
/* The arrays, a sink, events and the graph; ceilings_release gives them
 * back (and what a failed ceilings_allocate took). */
int	 ceilings_allocate(struct ceil_bench *, int *code, char **cause);
void	 ceilings_release(struct ceil_bench *);
/* The run directory (claimed already when --out names it, else named
 * into dir): run.json, ceilings.csv, and timing.csv, which every run
 * directory holds (here with its header only).  On failure *code says
 * why; the caller releases the claim (*created: what it made). */
int	 ceilings_open_output(struct ceil_bench *, char *dir, size_t len,
	    char **created, int *code, char **cause);
/* One ceiling (and, for a loaded latency, its bandwidth row), measured
 * and written; then the concurrency curve's rows. */
int	 ceilings_measure(struct ceil_bench *, enum ceiling_id, char **cause);
int	 ceilings_measure_curve(struct ceil_bench *, char **cause);

/* The rows as a run.json member: "ceilings": {"dram_read": {"value": ...,
 * "unit": "byte/s", "spec_value": ... or null, "method": "..."}, ...};
 * ceilings_rows_json: a run's, as struct manifest's extra_json. */
void	 ceilings_json(const struct ceiling *, size_t count, struct json *);
void	 ceilings_rows_json(struct json *, const void *ceil_bench);

#endif

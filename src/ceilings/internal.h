/*
 * internal.h - what the files of src/ceilings/ share among themselves
 * (ceilings.h is the folder's public header).
 */
#ifndef EWB_CEILINGS_INTERNAL_H
#define EWB_CEILINGS_INTERNAL_H

#include "ceilings/ceilings.h"

/* Empty kernels per launch-cost sample, in the stream and in the graph. */
#define LAUNCH_BATCH		1000u
/* Rounds of EWB_CEIL_FMA_PER_ROUND FMAs per thread: a few ms per launch
 * on anything from a T4 to an H200. */
#define FMA_ROUNDS		2048u
/* Bytes the L2 kernel reads per launch (in passes over its working set). */
#define L2_TRAFFIC		(4ULL << 30)
/* Dependent loads per DRAM-latency sample: a few ms at ~0.5-1 us each,
 * against which the launch cost is a fraction of a percent. */
#define CHASE_HOPS		4096u
/* Blocks per block-rate sample: the grid of the study's add_f16x2 (128
 * threads), add_f16x8, add_f16x8_pack (32) and add_f32x4 (64) at 2^28
 * elements, so that blocks / time compare one to one; at ~1.7 blocks per
 * ns (an H100) about 0.6 ms, against which one launch's fixed cost (a few
 * us) is under 1 %, and hundreds of waves of resident blocks, so that the
 * first wave's ramp and the last one's tail are a fraction of 1 %. */
#define RATE_BLOCKS		(1u << 20)
/* Samples of a concurrency-curve row: its 50 rows would take seconds at
 * the other ceilings' 50 each, and ten already put the median within a
 * fraction of a percent of a kernel that streams for a millisecond. */
#define CURVE_ITERS		10u
/* dram_add_fixed_cost: launches of dram_add over arrays of 1/FIXED_SHARE
 * of its size (128 MiB of 1 GiB: twice the L2 of an H100 or H200, so
 * that the stream still comes from DRAM), back to back in a graph; about
 * 90 us each on an H200, a fixed cost of ~2 us is 2 % of that. */
#define FIXED_LAUNCHES		8u
#define FIXED_SHARE		8u
/* Samples of a curve point's fixed cost: each replays 8 launches (0.4-2 ms
 * on an H200), and the 60 points' together stay under half a second. */
#define CURVE_FIXED_ITERS	5u


/* The concurrency curve: its series and levels (kernels/inflight.def). */
static const struct {
	const char	*shape;		/* "copy" or "add" */
	unsigned	 request;	/* bytes per warp load instruction */
} curve_series[] = {
#define INFLIGHT_SERIES(shape, request)	{ #shape, request },
#define INFLIGHT_LEVEL(kib)
#include "kernels/inflight.def"
#undef INFLIGHT_SERIES
#undef INFLIGHT_LEVEL
};
static const unsigned curve_kib[] = {
#define INFLIGHT_SERIES(shape, request)
#define INFLIGHT_LEVEL(kib)	kib,
#include "kernels/inflight.def"
#undef INFLIGHT_SERIES
#undef INFLIGHT_LEVEL
};
#define CURVE_SERIES	(sizeof curve_series / sizeof curve_series[0])
#define CURVE_LEVELS	(sizeof curve_kib / sizeof curve_kib[0])
#define CURVE_ROWS	(CURVE_SERIES * CURVE_LEVELS)
/* Loads per thread per input the curve's kernel is built for, fewest
 * first (kernels/ceilings_inflight.cu's INFLIGHT_LOADS). */
static const unsigned curve_loads[] = { 1, 2, 3, 4, 6, 8, 12, 16 };

/*
 * param: for a block rate, threads per block; for a loaded latency, the
 * load offered beside the chase in % of dram_copy (0: a block in every
 * free block slot, far more than DRAM serves), and bandwidth names the
 * row that gets the stream's bandwidth.
 */
static const struct {
	const char	*name;
	const char	*unit;
	unsigned	 param;
	const char	*bandwidth;
} ceiling_kinds[CEIL_COUNT] = {
	[CEIL_DRAM_READ] = { "dram_read", "byte/s" },
	[CEIL_DRAM_WRITE] = { "dram_write", "byte/s" },
	[CEIL_DRAM_COPY] = { "dram_copy", "byte/s" },
	[CEIL_DRAM_ADD] = { "dram_add", "byte/s" },
	[CEIL_DRAM_ADD_FIXED] = { "dram_add_fixed_cost", "ns" },
	[CEIL_L2_READ] = { "l2_read", "byte/s" },
	[CEIL_DRAM_LATENCY] = { "dram_latency", "ns" },
	[CEIL_LOADED_25] = { "dram_latency_load25", "ns", 25,
	    "dram_latency_load25_bandwidth" },
	[CEIL_LOADED_50] = { "dram_latency_load50", "ns", 50,
	    "dram_latency_load50_bandwidth" },
	[CEIL_LOADED_100] = { "dram_latency_load100", "ns", 100,
	    "dram_latency_load100_bandwidth" },
	[CEIL_LOADED_200] = { "dram_latency_load200", "ns", 200,
	    "dram_latency_load200_bandwidth" },
	[CEIL_LOADED_400] = { "dram_latency_load400", "ns", 400,
	    "dram_latency_load400_bandwidth" },
	[CEIL_LOADED_FULL] = { "dram_latency_loadfull", "ns", 0,
	    "dram_latency_loadfull_bandwidth" },
	[CEIL_LAUNCH_STREAM] = { "launch_stream", "ns" },
	[CEIL_LAUNCH_GRAPH] = { "launch_graph", "ns" },
	[CEIL_BLOCK_RATE_32] = { "block_rate_b32", "block/s", 32 },
	[CEIL_BLOCK_RATE_64] = { "block_rate_b64", "block/s", 64 },
	[CEIL_BLOCK_RATE_128] = { "block_rate_b128", "block/s", 128 },
	[CEIL_BLOCK_RATE_256] = { "block_rate_b256", "block/s", 256 },
	[CEIL_BLOCK_RATE_512] = { "block_rate_b512", "block/s", 512 },
	[CEIL_BLOCK_RATE_1024] = { "block_rate_b1024", "block/s", 1024 },
	[CEIL_FP32_FMA] = { "fp32_fma", "flop/s" },
	[CEIL_FP16_FMA] = { "fp16_fma", "flop/s" },
};

/* One point of the concurrency curve as it will run. */
struct curve_point {
	const char	*shape;
	unsigned	 inputs;	/* arrays read: 1 (copy) or 2 (add) */
	unsigned	 request;	/* bytes per warp load instruction */
	unsigned	 kib;		/* loads in flight per SM */
	unsigned	 loads;		/* per thread per input */
	unsigned	 blocks_per_sm;
};

/* What a sample is: a ceiling of ceiling_kinds, a curve point, or a
 * replay of a captured graph of `launches` launches. */
struct sample {
	enum ceiling_id			 id;
	const struct curve_point	*point;		/* NULL: id */
	cudaGraphExec_t			 graph;		/* non-NULL: this */
	unsigned			 launches;
};

/* One launch on b's stream, for ceil_capture. */
typedef cudaError_t (*ceil_launch_fn)(struct ceil_bench *, const void *arg);

/* sample.c */
enum ceiling_id	 ceil_family(enum ceiling_id id);
/* The curve's samples: CURVE_ITERS, fewer when --iters asks for fewer. */
unsigned	 ceil_curve_iters(const struct ceil_bench *);
unsigned	 ceil_curve_fixed_iters(const struct ceil_bench *);
bool		 ceil_is_loaded(enum ceiling_id id);
int		 ceil_enqueue_curve(struct ceil_bench *,
		    const struct curve_point *, bool counted, double *work,
		    char **cause);
int		 ceil_sample_times(struct ceil_bench *, const struct sample *,
		    unsigned warmup, unsigned iters, struct stats *,
		    double *work, char **cause);
int		 ceil_measure(struct ceil_bench *, enum ceiling_id,
		    struct stats *, double *work, char **cause);
int		 ceil_capture(struct ceil_bench *, ceil_launch_fn, const void *arg,
		    unsigned launches, cudaGraphExec_t *, const char *what,
		    char **cause);

/* describe.c */
void		 ceil_describe(const struct ceil_bench *, enum ceiling_id,
		    char *buf, size_t len);
void		 ceil_describe_bandwidth(const struct ceil_bench *,
		    enum ceiling_id, char *buf, size_t len);
void		 ceil_describe_curve(const struct ceil_bench *,
		    const struct curve_point *, char *buf, size_t len);
void		 ceil_describe_curve_fixed(const struct ceil_bench *,
		    const char *point, char *buf, size_t len);

/* rows.c */
double		 ceil_dram_spec(const struct device_facts *);
double		 ceil_spread(const struct stats *);
int		 ceil_write_row(struct ceil_bench *, const struct ceiling *,
		    char **cause);
bool		 ceil_fixed_cost(const struct stats *, double bytes,
		    double rate, const char *of, struct ceiling *);

/* curve.c */
int		 ceil_curve_point(const struct ceil_bench *, size_t series,
		    size_t level, bool ask_gpu, struct curve_point *);
void		 ceil_curve_name(const struct curve_point *, char *buf,
		    size_t len);
void		 ceil_curve_fixed_name(const struct curve_point *, char *buf,
		    size_t len);

#endif

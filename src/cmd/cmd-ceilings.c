/*
 * cmd-ceilings.c - `ewbench ceilings`: the machine's measured ceilings.
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
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "kernels/ceilings.h"
#include "ceilings/ceilings.h"
#include "device/chips.h"
#include "cmd/cli.h"
#include "cmd/fleet.h"
#include "device/hostfacts.h"
#include "run/tiers.h"

#define CEIL_WARMUP		3u
#define CEIL_DEFAULT_ITERS	50u
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

enum ceiling_id {
	CEIL_DRAM_READ,
	CEIL_DRAM_WRITE,
	CEIL_DRAM_COPY,
	CEIL_DRAM_ADD,
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
 * first (kernels/ceilings.cu's INFLIGHT_LOADS). */
static const unsigned curve_loads[] = { 1, 2, 3, 4, 6, 8, 12, 16 };
#define CEIL_ROWS	(CEIL_COUNT + LOAD_LEVELS + CURVE_ROWS)

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

/* The first id of id's family: the load levels and the block sizes are
 * one kind of sample each, told apart by their param. */
static enum ceiling_id
family(enum ceiling_id id)
{
	if (id >= CEIL_LOADED_25 && id <= CEIL_LOADED_FULL)
		return CEIL_LOADED_25;
	if (id >= CEIL_BLOCK_RATE_32 && id <= CEIL_BLOCK_RATE_1024)
		return CEIL_BLOCK_RATE_32;
	return id;
}

/* columns.def's ceilings.csv columns. */
static const char *const ceilings_header[] = {
#define KEY(...)
#define TIMING(...)
#define METRICS(...)
#define CEILINGS(name, ...)	#name,
#define SASS(...)
#define ENERGY(...)
#include "run/columns.def"
#undef KEY
#undef TIMING
#undef METRICS
#undef CEILINGS
#undef SASS
#undef ENERGY
};

static const struct option ceilings_longopts[] = {
	{ "device",	required_argument, NULL, 'd' },
	{ "out",	required_argument, NULL, 'o' },
	{ "iters",	required_argument, NULL, 'i' },
	{ "quiet",	no_argument,	   NULL, 'q' },
	{ "dry-run",	no_argument,	   NULL, 'n' },
	{ "chip",	required_argument, NULL, 'c' },
	{ NULL, 0, NULL, 0 }
};

struct bench {
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
	unsigned		*per_sm;	/* the curve's blocks by SM */
	size_t			 curve_bytes;	/* of each array, per sample */
	char			 curve_names[CURVE_ROWS][48];
	struct ceiling		 rows[CEIL_ROWS];	/* measured so far */
	size_t			 nrows;
	const struct ceiling	*row_of[CEIL_COUNT];
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

static int
parse_options(int argc, char **argv, struct run_options *o, char **cause)
{
	const char	*given[CLI_OPTION_VALUES] = { NULL };
	int		 ch, first;

	memset(o, 0, sizeof *o);
	o->iters = CEIL_DEFAULT_ITERS;
	o->warmup = CEIL_WARMUP;
	o->cache = CACHE_WARM;
	o->no_cupti = true;
	o->no_counters = true;
	/* No variant runs; the flags exist for run.json's settings. */
	o->selected = xcalloc(ewb_variant_count, sizeof *o->selected);

	optind = 1;
	opterr = 0;
	for (first = optind; (ch = getopt_long(argc, argv, "+:o:q",
	    ceilings_longopts, NULL)) != -1; first = optind) {
		if (cli_given_once(ceilings_longopts, given, ch, optarg,
		    ch == 'd' ? "give one list, e.g. --device 0,2" : NULL,
		    cause) != 0)
			return -1;
		switch (ch) {
		case 'd':
			if (cli_parse_device(o, optarg, cause) != 0)
				return -1;
			cli_mark_replaced(o, argc, argv, first);
			break;
		case 'o':
			o->out = optarg;
			cli_mark_replaced(o, argc, argv, first);
			break;
		case 'i':
			if (cli_parse_uint(optarg, "--iters", 1, 100000,
			    &o->iters, cause) != 0)
				return -1;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'c':
			o->chip = optarg;
			break;
		case ':':
			*cause = cli_option_error(argv, first, ch, "");
			return -1;
		default:
			*cause = cli_option_error(argv, first, ch, " for "
			    "'ceilings' (it takes --device, --out, --iters, "
			    "--quiet, --dry-run, --chip)");
			return -1;
		}
	}
	if (optind < argc) {
		*cause = xasprintf("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (o->chip != NULL && !o->dry_run) {
		*cause = xstrdup("--chip plans for a GPU by name: it needs "
		    "--dry-run");
		return -1;
	}
	return 0;
}

static double
dram_spec(const struct device_facts *d)
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
		return dram_spec(d);
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

/* One sample of ceiling id on the stream; *work gets what it does: bytes
 * read + written, flops, kernel launches, dependent loads or blocks. */
static int
enqueue(struct bench *b, enum ceiling_id id, double *work, char **cause)
{
	size_t			words = b->array_bytes / 16;
	int			sm = b->dev.sm_count;
	unsigned		i;
	struct ewb_ceil_load	load;

	switch (family(id)) {
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

static bool
is_loaded(enum ceiling_id id)
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
size_load(struct bench *b, enum ceiling_id id, char **cause)
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
static int
enqueue_curve(struct bench *b, const struct curve_point *c, bool count,
    double *work, char **cause)
{
	CUDA_TRY(ewb_ceil_inflight(b->a, b->b, b->c, b->curve_bytes, c->inputs,
	    c->request / 32, c->loads, c->blocks_per_sm, b->dev.sm_count,
	    count ? b->per_sm : NULL, b->stream), cause);
	*work = (c->inputs + 1.0) * b->curve_bytes;
	return 0;
}

/* What a sample is: a ceiling of ceiling_kinds, or a curve point. */
struct sample {
	enum ceiling_id			 id;
	const struct curve_point	*point;		/* NULL: id */
};

static int
enqueue_sample(struct bench *b, const struct sample *s, double *work,
    char **cause)
{
	return s->point != NULL ? enqueue_curve(b, s->point, false, work,
	    cause) : enqueue(b, s->id, work, cause);
}

/* `warmup` untimed samples, then `iters` timed ones, each between its own
 * pair of events, into st; *work is one sample's work. */
static int
sample_times(struct bench *b, const struct sample *s, unsigned warmup,
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
static int
measure(struct bench *b, enum ceiling_id id, struct stats *st, double *work,
    char **cause)
{
	struct sample	s = { id, NULL };

	/* The chain lives in array b (dram_add, measured before, is done
	 * with it); the loaded chases walk on where the last one stopped. */
	if (id == CEIL_DRAM_LATENCY)
		CUDA_TRY(ewb_ceil_chase_init(b->b, b->array_bytes / 16,
		    b->chase, b->stream), cause);
	if (is_loaded(id)) {
		if (size_load(b, id, cause) != 0)
			return -1;
		CUDA_TRY(cudaMemsetAsync(b->counts, 0, (b->opts.iters + 1) *
		    sizeof *b->counts, b->stream), cause);
	}
	return sample_times(b, &s, CEIL_WARMUP, b->opts.iters, st, work,
	    cause);
}

/* "; median of N after M warm-up" after the `used` bytes of buf. */
static void
describe_samples(unsigned iters, int used, char *buf, size_t len)
{
	if (used >= 0 && (size_t)used < len)
		snprintf(buf + used, len - used, "; median of %u after %u "
		    "warm-up", iters, CEIL_WARMUP);
}

static void
describe(const struct bench *b, enum ceiling_id id, char *buf, size_t len)
{
	char		array[32], set[32], blocks[32] = "N";
	char		offered[80] = "every free block slot, far over "
			    "dram_copy";
	unsigned	param = ceiling_kinds[id].param;
	int		used = 0;

	bytes_format((double)b->array_bytes, array, sizeof array);
	bytes_format((double)b->l2_set_bytes, set, sizeof set);
	switch (family(id)) {
	case CEIL_DRAM_READ:
		used = snprintf(buf, len, "read-only sum over %s, 16-byte "
		    "loads; bytes read", array);
		break;
	case CEIL_DRAM_WRITE:
		used = snprintf(buf, len, "write-only stream over %s, 16-byte "
		    "stores; bytes written", array);
		break;
	case CEIL_DRAM_COPY:
		used = snprintf(buf, len, "copy %s to a second array, 16-byte "
		    "accesses; bytes read + written", array);
		break;
	case CEIL_DRAM_ADD:
		used = snprintf(buf, len, "c = a + b, float4, 3 arrays of %s; "
		    "bytes read + written", array);
		break;
	case CEIL_L2_READ:
		used = snprintf(buf, len, "%u passes over %s (1/4 of L2) in "
		    "one launch, 16-byte ld.global.cg loads; bytes read",
		    b->l2_passes, set);
		break;
	case CEIL_DRAM_LATENCY:
		used = snprintf(buf, len, "pointer chase over %s, one thread, "
		    "%u dependent 16-byte ld.global.cg loads %u B apart; time / "
		    "%u", array, CHASE_HOPS, EWB_CEIL_CHASE_STRIDE * 16,
		    CHASE_HOPS);
		break;
	case CEIL_LOADED_25:		/* every load level */
		if (b->load_blocks[id] > 0)
			snprintf(blocks, sizeof blocks, "%u",
			    b->load_blocks[id]);
		if (param > 0)
			snprintf(offered, sizeof offered, "%u %% of dram_copy "
			    "offered by Little's law at dram_latency", param);
		used = snprintf(buf, len, "dram_latency's chase (block 0) "
		    "beside %s blocks copying between two %s arrays until it "
		    "ends, 16-byte accesses, %u in flight per thread: %s; "
		    "time / %u", blocks, array, EWB_CEIL_LOAD_WIDTH, offered,
		    CHASE_HOPS);
		break;
	case CEIL_BLOCK_RATE_32:	/* every block size */
		used = snprintf(buf, len, "one launch of %u blocks of %u "
		    "threads, thread 0 of each testing a condition none meets; "
		    "blocks / time", RATE_BLOCKS, param);
		break;
	case CEIL_LAUNCH_STREAM:
		used = snprintf(buf, len, "%u empty kernels back to back on a "
		    "stream; time / %u", LAUNCH_BATCH, LAUNCH_BATCH);
		break;
	case CEIL_LAUNCH_GRAPH:
		used = snprintf(buf, len, "CUDA graph of %u empty kernels, "
		    "replayed; time / %u", LAUNCH_BATCH, LAUNCH_BATCH);
		break;
	case CEIL_FP32_FMA:
		used = snprintf(buf, len, "8 independent fmaf chains per "
		    "thread, %u FMAs each; 2 flops per FMA", FMA_ROUNDS *
		    EWB_CEIL_FMA_PER_ROUND);
		break;
	case CEIL_FP16_FMA:
		used = snprintf(buf, len, "8 independent __hfma2 chains per "
		    "thread, %u FMAs each; 4 flops per half2 FMA", FMA_ROUNDS *
		    EWB_CEIL_FMA_PER_ROUND);
		break;
	default:
		break;
	}
	describe_samples(b->opts.iters, used, buf, len);
}

/* The method of a loaded latency's bandwidth row. */
static void
describe_bandwidth(const struct bench *b, enum ceiling_id id, char *buf,
    size_t len)
{
	describe_samples(b->opts.iters, snprintf(buf, len, "bytes read + written by the "
	    "streaming blocks of %s's launches / each one's time",
	    ceiling_kinds[id].name), buf, len);
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
static double
spread_of(const struct stats *st)
{
	/* The samples' scatter, so that a comparison of ceilings (the fleet
	 * report) can tell a difference from noise. */
	return st->count >= 2 && st->median > 0 ?
	    100.0 * st->stddev / st->median : NAN;
}

/* One row into ceilings.csv, run.json's list and the printed table. */
static int
write_row(struct bench *b, const struct ceiling *c, char **cause)
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
loaded_bandwidth(struct bench *b, enum ceiling_id id, struct ceiling *c,
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
	c->spec = dram_spec(&b->dev);
	c->spread_pct = spread_of(&st);
	describe_bandwidth(b, id, c->method, sizeof c->method);
	return 0;
}

static int
measure_ceiling(struct bench *b, enum ceiling_id id, char **cause)
{
	struct ceiling	c, bandwidth;
	struct stats	st;
	double		work = 0;

	memset(&c, 0, sizeof c);
	if (measure(b, id, &st, &work, cause) != 0)
		return -1;
	c.name = ceiling_kinds[id].name;
	c.unit = ceiling_kinds[id].unit;
	if (strcmp(c.unit, "ns") == 0)
		c.value = st.median / work;	/* per launch or load */
	else
		c.value = work / (st.median * 1e-9);
	c.spec = spec_value(&b->dev, id);
	c.spread_pct = spread_of(&st);
	describe(b, id, c.method, sizeof c.method);
	/* A loaded latency and its stream's bandwidth: both rows or none. */
	if (is_loaded(id) && loaded_bandwidth(b, id, &bandwidth, cause) != 0)
		return -1;
	if (write_row(b, &c, cause) != 0)
		return -1;
	b->row_of[id] = &b->rows[b->nrows - 1];
	return is_loaded(id) ? write_row(b, &bandwidth, cause) : 0;
}

/* The curve's samples: CURVE_ITERS, fewer when --iters asks for fewer. */
static unsigned
curve_iters(const struct bench *b)
{
	return b->opts.iters < CURVE_ITERS ? b->opts.iters : CURVE_ITERS;
}

/*
 * Curve point (series, level) as it will run: the fewest loads per thread
 * per input (curve_loads) that make requests in flight per SM = warps x
 * loads with a whole number of EWB_CEIL_INFLIGHT_BLOCK-thread blocks per
 * SM, all of which one SM holds at once (fit: ewb_ceil_inflight_fit, or
 * the device's block and thread limits without a GPU).  0 when no such
 * shape exists on this GPU: the row is left out.
 */
static int
curve_point(const struct bench *b, size_t series, size_t level, bool ask_gpu,
    struct curve_point *c)
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

static void
curve_name(const struct curve_point *c, char *buf, size_t len)
{
	snprintf(buf, len, "dram_%s_inflight%uk_r%u", c->shape, c->kib,
	    c->request);
}

static void
describe_curve(const struct bench *b, const struct curve_point *c,
    char *buf, size_t len)
{
	char	region[32];

	bytes_format((double)b->curve_bytes, region, sizeof region);
	describe_samples(curve_iters(b), snprintf(buf, len, "%s over %s "
	    "(%s), %u blocks of %u threads on each SM, %u load(s) of %u B "
	    "per thread per input, all issued before the first store: %u "
	    "KiB of loads in flight per SM, %u B per warp load instruction; "
	    "bytes read + written", c->inputs == 2 ? "c = a + b" : "a copy",
	    region, c->inputs == 2 ? "3 arrays" : "2 arrays",
	    c->blocks_per_sm, EWB_CEIL_INFLIGHT_BLOCK, c->loads,
	    c->request / 32, c->kib, c->request), buf, len);
}

/*
 * One curve point: a counted launch first (is every SM holding
 * blocks_per_sm blocks?), then the samples.  A point whose blocks did not
 * spread evenly is left out, with a warning: its bytes in flight per SM
 * are not what its name says.
 */
static int
measure_curve_point(struct bench *b, const struct curve_point *c,
    char *name, size_t len, char **cause)
{
	struct sample	 s = { CEIL_COUNT, c };
	struct ceiling	 row;
	struct stats	 st;
	unsigned	*counts, lo = UINT_MAX, hi = 0, sms = 0, i;
	double		 work = 0;
	cudaError_t	 e;

	CUDA_TRY(cudaMemsetAsync(b->per_sm, 0, EWB_CEIL_SMIDS *
	    sizeof *b->per_sm, b->stream), cause);
	if (enqueue_curve(b, c, true, &work, cause) != 0)
		return -1;
	if (sample_times(b, &s, CEIL_WARMUP - 1, curve_iters(b), &st, &work,
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
	curve_name(c, name, len);
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
	row.spec = dram_spec(&b->dev);
	row.spread_pct = spread_of(&st);
	describe_curve(b, c, row.method, sizeof row.method);
	return write_row(b, &row, cause);
}

/* Every point of the curve that this GPU can run. */
static int
measure_curve(struct bench *b, char **cause)
{
	struct curve_point	c;
	size_t			series, level, k = 0;

	for (series = 0; series < CURVE_SERIES; series++) {
		for (level = 0; level < CURVE_LEVELS &&
		    !interrupt_pending(); level++, k++) {
			if (!curve_point(b, series, level, true, &c))
				continue;
			if (measure_curve_point(b, &c, b->curve_names[k],
			    sizeof b->curve_names[k], cause) != 0)
				return -1;
		}
	}
	return 0;
}

/* The graph of LAUNCH_BATCH empty kernels, captured from the stream. */
static int
build_graph(struct bench *b, char **cause)
{
	cudaGraph_t	graph = NULL;
	cudaError_t	e = cudaSuccess;
	unsigned	i;

	CUDA_TRY(cudaStreamBeginCapture(b->stream,
	    cudaStreamCaptureModeThreadLocal), cause);
	for (i = 0; i < LAUNCH_BATCH && e == cudaSuccess; i++)
		e = ewb_ceil_empty(b->stream);
	if (e != cudaSuccess) {
		cudaStreamEndCapture(b->stream, &graph);
		if (graph != NULL)
			cudaGraphDestroy(graph);
		return cuda_fail(e, "ewb_ceil_empty (graph capture)", cause);
	}
	CUDA_TRY(cudaStreamEndCapture(b->stream, &graph), cause);
	e = cudaGraphInstantiate(&b->graph, graph, 0);
	cudaGraphDestroy(graph);
	if (e != cudaSuccess)
		return cuda_fail(e, "cudaGraphInstantiate", cause);
	return 0;
}

/* The sizes: three DRAM arrays of max(16 x L2, 1 GiB), or as large as
 * 3/4 of free memory allows but at least 4 x L2; the L2 working set. */
static int
size_arrays(struct bench *b, size_t free_bytes, int *code, char **cause)
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
static int
plan_ceilings(struct bench *b, const char *no_gpu)
{
	const char	*cupti;
	char		*cause = NULL, what[256], mem[32];
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
		describe(b, (enum ceiling_id)id, what, sizeof what);
		printf("%-31s %-7s %s\n", ceiling_kinds[id].name,
		    ceiling_kinds[id].unit, what);
		if (!is_loaded((enum ceiling_id)id))
			continue;
		describe_bandwidth(b, (enum ceiling_id)id, what, sizeof what);
		printf("%-31s %-7s %s\n", ceiling_kinds[id].bandwidth,
		    "byte/s", what);
	}
	/* The curve's rows that fit this GPU (without one, by its block and
	 * thread limits; the occupancy calculator may leave out more). */
	for (series = 0; series < CURVE_SERIES; series++) {
		for (level = 0; level < CURVE_LEVELS; level++) {
			if (!curve_point(b, series, level, no_gpu == NULL &&
			    b->opts.chip == NULL, &c))
				continue;
			curve_name(&c, mem, sizeof mem);
			describe_curve(b, &c, what, sizeof what);
			printf("%-31s %-7s %s\n", mem, "byte/s", what);
			curve += (c.inputs + 1.0) * b->curve_bytes;
			rows++;
		}
	}
	/* Rough: the DRAM samples move 7 arrays (read, write, copy 2, add
	 * 3) at 90 % of the spec, L2 reads go about 2.5x faster, a launch
	 * costs about 3 us, an FMA sample a few ms, a DRAM load about 0.5 us
	 * alone and 1 us loaded, and ~1.5 blocks launch per ns. */
	bw = 0.9 * b->dev.dram_bandwidth;
	secs = (b->opts.iters + CEIL_WARMUP) * (7.0 * b->array_bytes / bw +
	    L2_TRAFFIC / (2.5 * bw) + 2 * LAUNCH_BATCH * 3e-6 + 2 * 5e-3 +
	    CHASE_HOPS * (0.5e-6 + LOAD_LEVELS * 1e-6) +
	    (CEIL_BLOCK_RATE_1024 - CEIL_BLOCK_RATE_32 + 1) * RATE_BLOCKS / 1.5e9);
	/* The curve's points average about half the ceiling. */
	secs += (curve_iters(b) + CEIL_WARMUP) * curve / (0.45 * bw);
	bytes_format(3.0 * b->array_bytes, mem, sizeof mem);
	printf("%d ceilings, %u samples each after %u warm-up (the "
	    "concurrency curve's %u); GPU memory %s; about %.0f s\n", rows,
	    b->opts.iters, CEIL_WARMUP, curve_iters(b), mem,
	    secs < 1 ? 1 : ceil(secs));
	return EWB_EXIT_OK;
}

/* The arrays, a sink, events and the graph. */
static int
allocate(struct bench *b, int *code, char **cause)
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
	return build_graph(b, cause);
}

static void
release(struct bench *b)
{
	events_destroy(b->events, b->opts.iters);
	free(b->samples);
	if (b->graph != NULL)
		cudaGraphExecDestroy(b->graph);
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

/* run.json carries the measured ceilings too. */
static void
rows_json(struct json *j, const void *ctx)
{
	const struct bench	*b = ctx;

	ceilings_json(b->rows, b->nrows, j);
}

/* The run directory (claimed already when --out names it): run.json,
 * ceilings.csv, and timing.csv, which every run directory holds (here
 * with its header only).  On failure *code says why; the caller releases
 * the claim (*created: what it made). */
static int
open_output(struct bench *b, char *dir, size_t len, char **created,
    int *code, char **cause)
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

int
ceilings_command(int argc, char **argv)
{
	struct bench		 b;
	char			*cause = NULL, dir[256];
	const char		*status = "failed";
	int			 code, id;
	char			*created = NULL;

	memset(&b, 0, sizeof b);
	/* From the start: a signal never leaves a bare claim behind. */
	interrupt_catch();
	if (parse_options(argc, argv, &b.opts, &cause) != 0) {
		fprintf(stderr, "ewbench %s: %s\n", argv[0], cause);
		free(cause);
		cli_free_run(&b.opts);
		return EWB_EXIT_USAGE;
	}
	/* Many GPUs (--device all, a list), or one task of a scheduler's. */
	if (fleet_dispatch(argc, argv, &b.opts, &b.host, &code) != 0) {
		host_facts_free(&b.host);
		cli_free_run(&b.opts);
		return code;
	}
	if (b.opts.dry_run) {
		code = b.opts.chip != NULL ? EWB_EXIT_OK :
		    device_open(b.opts.device, &b.dev, &cause);
		if (code == EWB_EXIT_OK || code == EWB_EXIT_NODEV)
			code = plan_ceilings(&b, code == EWB_EXIT_OK ?
			    NULL : cause);
		else
			fprintf(stderr, "ewbench: %s\n", cause);
		free(cause);
		host_facts_free(&b.host);
		cli_free_run(&b.opts);
		return code;
	}
	/* A refused --out is refused before the device is opened, and
	 * never written to. */
	if (b.opts.out != NULL) {
		if ((code = output_claim_dir(b.opts.out, &created,
		    &cause)) != 0) {
			fprintf(stderr, "ewbench %s: %s\n", argv[0], cause);
			free(cause);
			host_facts_free(&b.host);
			cli_free_run(&b.opts);
			return code;
		}
		b.dir = b.opts.out;
	}
	if ((code = device_open(b.opts.device, &b.dev, &cause)) != 0) {
		fprintf(stderr, "ewbench: %s\n", cause);
		free(cause);
		if (b.dir != NULL)
			output_release_claim(b.dir, created);
		else
			free(created);
		host_facts_free(&b.host);
		cli_free_run(&b.opts);
		return code;
	}
	host_facts_begin(&b.host, &b.dev);
	b.man.host_facts = &b.host;
	b.man.command = "ceilings";
	b.man.argc = argc;
	b.man.argv = argv;
	b.man.device = &b.dev;
	b.man.opts = &b.opts;
	b.man.counters_status = "off";
	b.man.extra_json = rows_json;
	b.man.extra_ctx = &b;
	output_utc_now(b.man.started_utc, sizeof b.man.started_utc);
	output_run_id(&b.dev, b.man.run_id, sizeof b.man.run_id);

	if (allocate(&b, &code, &cause) != 0)
		goto refuse;
	if (interrupt_pending()) {
		code = EWB_EXIT_INTERRUPTED;
		cause = xasprintf("interrupted before the first ceiling%s",
		    b.dir != NULL ? "; --out released" : "");
		goto refuse;
	}
	if (open_output(&b, dir, sizeof dir, &created, &code, &cause) != 0)
		goto refuse;
	free(created);
	created = NULL;
	code = EWB_EXIT_ERROR;
	if (!b.opts.quiet) {
		device_print(&b.dev, stdout);
		printf("%-31s %15s %7s %15s %7s  %s\n", "ceiling", "measured",
		    "spread", "spec", "of spec", "method");
	}

	for (id = 0; id < CEIL_COUNT && !interrupt_pending(); id++) {
		if (measure_ceiling(&b, (enum ceiling_id)id, &cause) != 0)
			goto fail;
	}
	if (!interrupt_pending() && measure_curve(&b, &cause) != 0)
		goto fail;
	if (interrupt_pending()) {
		status = "interrupted";
		code = EWB_EXIT_INTERRUPTED;
	} else {
		status = "complete";
		code = EWB_EXIT_OK;
	}
	/* The rows are on disk before run.json says they are whole. */
	if (csv_close(b.csv, &cause) != 0) {
		b.csv = NULL;
		code = EWB_EXIT_ERROR;
		goto fail;
	}
	b.csv = NULL;
	host_facts_end(&b.host);
	if (manifest_update(b.dir, &b.man, status, &cause) != 0) {
		fprintf(stderr, "ewbench: %s\n", cause);
		free(cause);
		code = EWB_EXIT_ERROR;
		goto out;
	}
	if (!b.opts.quiet)
		printf("ewbench: ceilings in %s\n", b.dir);
	goto out;

refuse:
	/* Nothing measured: the claim is released, not kept as a failed
	 * run. */
	fprintf(stderr, "ewbench: %s\n", cause);
	free(cause);
	host_facts_end(&b.host);
	if (b.csv != NULL)
		csv_close(b.csv, NULL);
	b.csv = NULL;
	if (b.dir != NULL)
		output_release_claim(b.dir, created);
	else
		free(created);
	goto out;
fail:
	fprintf(stderr, "ewbench: %s\n", cause);
	free(cause);
	cause = NULL;
	host_facts_end(&b.host);
	if (manifest_update(b.dir, &b.man, "failed", &cause) != 0) {
		fprintf(stderr, "ewbench: %s\n", cause);
		free(cause);
	}
out:
	if (b.csv != NULL)
		csv_close(b.csv, NULL);
	release(&b);
	host_facts_free(&b.host);
	cli_free_run(&b.opts);
	return code;
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

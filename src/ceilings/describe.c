/*
 * describe.c - the method column of ceilings.csv: what each row ran, with
 * its sizes, one line.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "ceilings/internal.h"

/* "; median of N after M warm-up" after the `used` bytes of buf. */
static void
describe_samples(unsigned iters, int used, char *buf, size_t len)
{
	if (used >= 0 && (size_t)used < len)
		snprintf(buf + used, len - used, "; median of %u after %u "
		    "warm-up", iters, CEIL_WARMUP);
}

void
ceil_describe(const struct ceil_bench *b, enum ceiling_id id, char *buf,
    size_t len)
{
	char		array[32], set[32], blocks[32] = "N";
	char		offered[80] = "every free block slot, far over "
			    "dram_copy";
	unsigned	param = ceiling_kinds[id].param;
	int		used = 0;

	bytes_format((double)b->array_bytes, array, sizeof array);
	bytes_format((double)b->l2_set_bytes, set, sizeof set);
	switch (ceil_family(id)) {
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
	case CEIL_DRAM_ADD_FIXED:
		bytes_format((double)b->fixed_bytes, set, sizeof set);
		used = snprintf(buf, len, "dram_add over 3 arrays of %s, a CUDA "
		    "graph of %u launches back to back, replayed: time / %u - "
		    "bytes read + written / dram_add, the fixed cost t0 of one "
		    "launch in t = t0 + bytes / dram_add", set, FIXED_LAUNCHES,
		    FIXED_LAUNCHES);
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
void
ceil_describe_bandwidth(const struct ceil_bench *b, enum ceiling_id id,
    char *buf, size_t len)
{
	describe_samples(b->opts.iters, snprintf(buf, len, "bytes read + written by the "
	    "streaming blocks of %s's launches / each one's time",
	    ceiling_kinds[id].name), buf, len);
}

/* The method of a curve point's fixed cost (measure_curve_fixed). */
void
ceil_describe_curve_fixed(const struct ceil_bench *b, const char *point,
    char *buf, size_t len)
{
	char	region[32];

	bytes_format((double)(b->curve_bytes / FIXED_SHARE), region,
	    sizeof region);
	describe_samples(ceil_curve_fixed_iters(b), snprintf(buf, len, "%s's "
	    "kernel over %s of each array, a CUDA graph of %u launches back "
	    "to back, replayed: time / %u - bytes read + written / %s, the "
	    "fixed cost t0 of one launch in t = t0 + bytes / %s", point,
	    region, FIXED_LAUNCHES, FIXED_LAUNCHES, point, point), buf, len);
}

void
ceil_describe_curve(const struct ceil_bench *b, const struct curve_point *c,
    char *buf, size_t len)
{
	char	region[32];

	bytes_format((double)b->curve_bytes, region, sizeof region);
	describe_samples(ceil_curve_iters(b), snprintf(buf, len, "%s over %s "
	    "(%s), %u blocks of %u threads on each SM, %u load(s) of %u B "
	    "per thread per input, all issued before the first store: %u "
	    "KiB of loads in flight per SM, %u B per warp load instruction; "
	    "bytes read + written", c->inputs == 2 ? "c = a + b" : "a copy",
	    region, c->inputs == 2 ? "3 arrays" : "2 arrays",
	    c->blocks_per_sm, EWB_CEIL_INFLIGHT_BLOCK, c->loads,
	    c->request / 32, c->kib, c->request), buf, len);
}

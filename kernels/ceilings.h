/*
 * ceilings.h - helper kernels of `ewbench ceilings`: what the machine can
 * do at best (DRAM and L2 bandwidth, DRAM latency unloaded and under load,
 * launch cost, block launch rate, FMA throughput), to set the study's
 * results against.  Not variants: the registry never sees them.  The
 * kernels: ceilings_*.cu, one file a kind of ceiling (ceilings.cuh).
 *
 * Every launcher is C-callable, launches one kernel asynchronously on the
 * given stream and returns cudaGetLastError(); none synchronises.  Buffers
 * come from cudaMalloc (16-byte aligned); sizes are in 16-byte words.
 * sm_count 0 means the current device's.  The DRAM kernels launch one
 * 256-thread block per tile of the data, with no loop (dram_read: 4 words
 * per thread, the others 1); the L2 and FMA kernels one wave of resident
 * 256-thread blocks (from the occupancy calculator) that loops; the
 * pointer chase one block, or one block and a stream of 256-thread blocks
 * beside it.
 */
#ifndef EWB_CEILINGS_KERNELS_H
#define EWB_CEILINGS_KERNELS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reducing kernels add one word per block into a sink of this many
 * unsigned words (block b into word b mod EWB_CEIL_SINK_WORDS), so nothing
 * they read or compute can be elided. */
#define EWB_CEIL_SINK_WORDS	65536u

/* Reads `words` 16-byte words of src once and sums them. */
cudaError_t	 ewb_ceil_read(const void *src, size_t words, unsigned *sink,
		    cudaStream_t);
/* Writes `words` 16-byte words of dst (a new value each call). */
cudaError_t	 ewb_ceil_write(void *dst, size_t words, cudaStream_t);
/* dst = src over `words` 16-byte words. */
cudaError_t	 ewb_ceil_copy(const void *src, void *dst, size_t words,
		    cudaStream_t);
/* c = a + b as float4 over `words` 16-byte words: the study's add. */
cudaError_t	 ewb_ceil_add(const void *a, const void *b, void *c,
		    size_t words, cudaStream_t);
/* Reads the first `words` 16-byte words of src `passes` times over, in one
 * launch, with loads that bypass L1 (ld.global.cg): when words x 16 is well
 * inside L2, every pass after the first is served by L2.  Reads
 * passes x words x 16 bytes. */
cudaError_t	 ewb_ceil_l2_read(const void *src, size_t words,
		    unsigned passes, unsigned *sink, int sm_count, cudaStream_t);
/* DRAM latency: ewb_ceil_chase_init writes a chain into `words` 16-byte
 * words of chain (word w links to w + EWB_CEIL_CHASE_STRIDE modulo words,
 * 64 KiB + 16 B on; odd, so the chain covers the array) and zeroes *state,
 * device memory; ewb_ceil_chase follows `hops` links from state->pos with
 * one thread of block 0, every load depending on the one before
 * (ld.global.cg: not cached in L1), and leaves the position in state->pos
 * for the next launch.  words must exceed the stride; time / hops is the
 * latency of one load.
 *
 * Loaded latency: with load non-NULL, load->blocks more blocks of the same
 * launch copy load->src to load->dst (`words` 16-byte words each, a
 * grid-stride walk that wraps around, EWB_CEIL_LOAD_WIDTH words in flight
 * per thread) until the chase has ended, so the chase's loads wait behind
 * their traffic.  What they did is added into *load->count (zero it
 * first): bytes read + written, blocks that started only after the chase
 * had ended, and warps that stopped at a safety cap (64 passes over the
 * array) before it ended; either count above 0 means the stream did not
 * run beside the whole chase.  Every block of the launch must be resident
 * at once: load->blocks < ewb_ceil_chase_wave(). */
#define EWB_CEIL_CHASE_STRIDE	4097u
#define EWB_CEIL_LOAD_WIDTH	4u
/* Bytes one streaming block (256 threads) reads per round trip. */
#define EWB_CEIL_LOAD_BLOCK_BYTES	(256u * EWB_CEIL_LOAD_WIDTH * 16u)
struct ewb_ceil_chase_state {
	unsigned long long	pos;	/* the chase's place in the chain */
	unsigned		done;	/* the last launch whose chase ended */
	unsigned		unused;
};
struct ewb_ceil_stream_count {
	unsigned long long	bytes;	/* read + written */
	unsigned		late;	/* blocks started after the chase */
	unsigned		capped;	/* warps stopped by the cap */
};
struct ewb_ceil_load {
	const void			*src;
	void				*dst;
	size_t				 words;
	unsigned			 blocks;	/* streaming blocks */
	struct ewb_ceil_stream_count	*count;		/* device memory */
};
cudaError_t	 ewb_ceil_chase_init(void *chain, size_t words,
		    struct ewb_ceil_chase_state *state, cudaStream_t);
cudaError_t	 ewb_ceil_chase(const void *chain, unsigned hops,
		    struct ewb_ceil_chase_state *state,
		    const struct ewb_ceil_load *load, cudaStream_t);
/* How many blocks of the chase kernel are resident at once on the whole
 * GPU (the occupancy calculator's blocks per SM x SMs). */
cudaError_t	 ewb_ceil_chase_wave(int sm_count, unsigned *blocks);
/* Block launch rate: `blocks` blocks of `threads` threads (1-1024) that do
 * nothing but a test no block passes (thread 0 compares its block index
 * with one past any index), so the compiler keeps every thread's work and
 * the time is what the GPU takes to launch and retire the blocks. */
cudaError_t	 ewb_ceil_blocks(unsigned blocks, unsigned threads,
		    unsigned *sink, cudaStream_t);
/*
 * The memory-concurrency curve (inflight.def): `blocks_per_sm` x SMs
 * blocks of EWB_CEIL_INFLIGHT_BLOCK threads, all resident at once, each
 * thread taking `loads` words of `word_bytes` (2, 4 or 16) a tile from
 * each of `inputs` arrays (1: dst = a, a copy; 2: dst = a + b, as
 * integers), every load of a tile issued before its first store; a
 * block's tiles (loads x block words each) are blockIdx.x, blockIdx.x +
 * gridDim.x, ..., thread t taking words t, t + block, ... of a tile, so
 * that a warp's load instruction asks for 32 x word_bytes contiguous
 * bytes.  So
 * each SM keeps blocks_per_sm x EWB_CEIL_INFLIGHT_BLOCK x inputs x loads x
 * word_bytes bytes of loads in flight at most.  Covers `bytes` of each
 * array once.  per_sm (device memory, EWB_CEIL_SMIDS words, zeroed; or
 * NULL) gets one count per block on the SM (%smid mod EWB_CEIL_SMIDS) it
 * ran on.  ewb_ceil_inflight_fit gives how many of its blocks one SM
 * holds at once (0 when that word size and load count are not built).
 */
#define EWB_CEIL_INFLIGHT_BLOCK	64u
#define EWB_CEIL_SMIDS		1024u
cudaError_t	 ewb_ceil_inflight(const void *a, const void *b, void *dst,
		    size_t bytes, unsigned inputs, unsigned word_bytes,
		    unsigned loads, unsigned blocks_per_sm, int sm_count,
		    unsigned *per_sm, cudaStream_t);
cudaError_t	 ewb_ceil_inflight_fit(unsigned inputs, unsigned word_bytes,
		    unsigned loads, unsigned *blocks_per_sm);

/* One block of one thread that does nothing: launch cost alone. */
cudaError_t	 ewb_ceil_empty(cudaStream_t);
/* Independent chains of dependent fmaf (f32) or __hfma2 (f16x2) in
 * registers, `iters` rounds of EWB_CEIL_FMA_PER_ROUND FMA instructions per
 * thread; *flops gets the floating-point operations of the launch (2 per
 * FMA lane: 2 per fmaf, 4 per __hfma2). */
#define EWB_CEIL_FMA_PER_ROUND	256u
cudaError_t	 ewb_ceil_fma_f32(unsigned iters, unsigned *sink, int sm_count,
		    double *flops, cudaStream_t);
cudaError_t	 ewb_ceil_fma_f16(unsigned iters, unsigned *sink, int sm_count,
		    double *flops, cudaStream_t);

#ifdef __cplusplus
}
#endif
#endif

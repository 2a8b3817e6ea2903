/*
 * ceilings.h - helper kernels of `ewbench ceilings`: what the machine can
 * do at best (DRAM and L2 bandwidth, DRAM latency, launch cost, FMA
 * throughput), to set the study's results against.  Not variants: the
 * registry never sees them.
 *
 * Every launcher is C-callable, launches one kernel asynchronously on the
 * given stream and returns cudaGetLastError(); none synchronises.  Buffers
 * come from cudaMalloc (16-byte aligned); sizes are in 16-byte words.
 * sm_count 0 means the current device's.  The DRAM kernels launch one
 * 256-thread block per tile of the data, with no loop (dram_read: 4 words
 * per thread, the others 1); the L2 and FMA kernels one wave of resident
 * 256-thread blocks (from the occupancy calculator) that loops.
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
 * 64 KiB + 16 B on; odd, so the chain covers the array) and sets *pos, a
 * device word, to 0; ewb_ceil_chase follows `hops` links from *pos with one
 * thread, every load depending on the one before (ld.global.cg: not
 * cached in L1), and leaves the position in *pos for the next launch.
 * words must exceed the stride; time / hops is the latency of one load. */
#define EWB_CEIL_CHASE_STRIDE	4097u
cudaError_t	 ewb_ceil_chase_init(void *chain, size_t words,
		    unsigned long long *pos, cudaStream_t);
cudaError_t	 ewb_ceil_chase(const void *chain, unsigned hops,
		    unsigned long long *pos, cudaStream_t);
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

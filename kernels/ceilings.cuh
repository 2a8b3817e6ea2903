/*
 * ceilings.cuh - what the kernel files of `ewbench ceilings` share (their
 * launchers: ceilings.h; one file a kind of ceiling: ceilings_memory.cu
 * DRAM and L2 bandwidth, ceilings_latency.cu DRAM latency alone and under
 * load, ceilings_inflight.cu the memory-concurrency curve,
 * ceilings_launch.cu launch cost and block rate, ceilings_fma.cu FMA
 * peaks).
 *
 * Each memory kernel is an operation on 16-byte words, handed word indices
 * Width at a time so that it issues all its loads before it uses any.  Two
 * walks hand them out: ceil_tile (ceilings_memory.cu), one tile of Width x
 * CEIL_BLOCK words per block and no loop (the DRAM kernels), and
 * ceil_visit, a grid-stride walk of one resident wave that wraps around an
 * array many times (the L2 kernel; the stream beside a loaded pointer
 * chase, until the chase ends).
 */
#ifndef EWB_CEILINGS_CUH
#define EWB_CEILINGS_CUH

#include "ceilings.h"
#include "common.cuh"

#define CEIL_BLOCK	256u

/* w + step modulo words, for w and step below words. */
static __device__ __forceinline__ size_t
ceil_wrap_add(size_t w, size_t step, size_t words)
{
	w += step;
	return w >= words ? w - words : w;
}

/*
 * Visits `total` word indices of an array of `words` words: thread t takes
 * visits t, t + stride, t + 2 stride, ..., each reduced modulo words, so
 * every word is visited total / words times when words divides total.  A
 * thread stops early once op.more() says so.
 */
template <unsigned Width, typename Op>
static __device__ __forceinline__ void
ceil_visit(size_t words, size_t total, Op &op)
{
	size_t		stride = ewb_thread_count(), i = ewb_thread_index();
	size_t		step = stride % words, w = i % words;
	size_t		at[Width];
	unsigned	k;

	for (; i + (Width - 1) * stride < total && op.more();
	    i += Width * stride) {
#pragma unroll
		for (k = 0; k < Width; k++) {
			at[k] = w;
			w = ceil_wrap_add(w, step, words);
		}
		op.template group<Width>(at);
	}
	for (; i < total && op.more(); i += stride) {
		at[0] = w;
		w = ceil_wrap_add(w, step, words);
		op.template group<1>(at);
	}
}

/* The block's sum of v, added into one sink word (block b into word b mod
 * EWB_CEIL_SINK_WORDS): what keeps the compiler from dropping the loads or
 * the arithmetic behind v. */
static __device__ void
ceil_block_sink(unsigned v, unsigned *sink)
{
	__shared__ unsigned	warp_sum[CEIL_BLOCK / 32];
	unsigned		offset, w;

	for (offset = 16; offset > 0; offset /= 2)
		v += __shfl_xor_sync(0xffffffffu, v, offset);
	if (threadIdx.x % 32 == 0)
		warp_sum[threadIdx.x / 32] = v;
	__syncthreads();
	if (threadIdx.x == 0) {
		for (w = 1; w < blockDim.x / 32; w++)
			v += warp_sum[w];
		atomicAdd(&sink[blockIdx.x % EWB_CEIL_SINK_WORDS], v);
	}
}

struct ceil_copy_op {
	const uint4	*src;
	uint4		*dst;

	template <unsigned K>
	__device__ __forceinline__ void
	group(const size_t *at)
	{
		uint4	v[K];

#pragma unroll
		for (unsigned k = 0; k < K; k++)
			v[k] = src[at[k]];
#pragma unroll
		for (unsigned k = 0; k < K; k++)
			dst[at[k]] = v[k];
	}
};

/* One wave of resident CEIL_BLOCK-thread blocks of kernel (no tail wave),
 * at most one block per sink word: the grid of the looping kernels. */
template <typename Kernel>
static cudaError_t
ceil_grid(Kernel kernel, int sm_count, unsigned *grid)
{
	unsigned long long	blocks;
	int			per_sm = 0;
	cudaError_t		e;

	e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel,
	    CEIL_BLOCK, 0);
	if (e != cudaSuccess)
		return e;
	if (per_sm < 1)
		per_sm = 1;
	blocks = (unsigned long long)per_sm * ewb_sm_count(sm_count);
	*grid = (unsigned)(blocks < EWB_CEIL_SINK_WORDS ? blocks :
	    EWB_CEIL_SINK_WORDS);
	return cudaSuccess;
}
#endif

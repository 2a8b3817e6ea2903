/*
 * ceilings.cu - the kernels of `ewbench ceilings` (see ceilings.h).
 *
 * Each memory kernel is an operation on 16-byte words, handed word indices
 * Width at a time so that it issues all its loads before it uses any.  Two
 * walks hand them out: ceil_tile, one tile of Width x CEIL_BLOCK words per
 * block and no loop (the DRAM kernels), and ceil_visit, a grid-stride walk
 * of one resident wave that wraps around an array many times (the L2
 * kernel; the stream beside a loaded pointer chase, until the chase ends).  The widths are the fastest of those measured on an H200
 * (docs/ceilings.md): for the DRAM kernels, tiles beat a grid-stride wave
 * by 1-7 %, and plain stores and copies are fastest at one word per thread.
 */
#include <climits>

#include "ceilings.h"
#include "common.cuh"

#define CEIL_BLOCK	256u
#define READ_WIDTH	4u	/* dram_read: amortises the block's reduction */
#define STREAM_WIDTH	1u	/* dram_write, dram_copy, dram_add */
#define L2_WIDTH	2u
#define FMA_CHAINS	8u
#define FMA_STEPS	(EWB_CEIL_FMA_PER_ROUND / FMA_CHAINS)

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

/* Block b owns words [b Width B, (b + 1) Width B) (B threads per block),
 * thread t its words t, t + B, ...: each access instruction of a warp
 * covers 512 contiguous bytes.  The last tile may be partial. */
template <unsigned Width, typename Op>
static __device__ __forceinline__ void
ceil_tile(size_t words, Op &op)
{
	size_t		first = (size_t)blockIdx.x * blockDim.x * Width +
			    threadIdx.x;
	size_t		at[Width];
	unsigned	k;

	if (first + (size_t)(Width - 1) * blockDim.x < words) {
#pragma unroll
		for (k = 0; k < Width; k++)
			at[k] = first + (size_t)k * blockDim.x;
		op.template group<Width>(at);
		return;
	}
	for (k = 0; k < Width; k++) {
		at[0] = first + (size_t)k * blockDim.x;
		if (at[0] < words)
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

template <bool L2Only>
struct ceil_read_op {
	const uint4	*src;
	unsigned	 sum;

	__device__ __forceinline__ bool
	more(void) const
	{
		return true;
	}

	template <unsigned K>
	__device__ __forceinline__ void
	group(const size_t *at)
	{
		uint4		v[K];
		unsigned	k;

#pragma unroll
		for (k = 0; k < K; k++) {
			if constexpr (L2Only)
				v[k] = __ldcg(src + at[k]);
			else
				v[k] = src[at[k]];
		}
#pragma unroll
		for (k = 0; k < K; k++)
			sum += v[k].x + v[k].y + v[k].z + v[k].w;
	}
};

struct ceil_write_op {
	uint4	*dst;
	uint4	 value;

	template <unsigned K>
	__device__ __forceinline__ void
	group(const size_t *at)
	{
#pragma unroll
		for (unsigned k = 0; k < K; k++)
			dst[at[k]] = value;
	}
};

struct ceil_copy_op {
	const uint4	*src;
	uint4		*dst;

	template <unsigned K>
	__device__ __forceinline__ void
	group(const size_t *at)
	{
		uint4		v[K];
		unsigned	k;

#pragma unroll
		for (k = 0; k < K; k++)
			v[k] = src[at[k]];
#pragma unroll
		for (k = 0; k < K; k++)
			dst[at[k]] = v[k];
	}
};

struct ceil_add_op {
	const float4	*a, *b;
	float4		*c;

	template <unsigned K>
	__device__ __forceinline__ void
	group(const size_t *at)
	{
		float4		x[K], y[K];
		unsigned	k;

#pragma unroll
		for (k = 0; k < K; k++) {
			x[k] = a[at[k]];
			y[k] = b[at[k]];
		}
#pragma unroll
		for (k = 0; k < K; k++)
			c[at[k]] = make_float4(x[k].x + y[k].x, x[k].y + y[k].y,
			    x[k].z + y[k].z, x[k].w + y[k].w);
	}
};

__global__ void __launch_bounds__(CEIL_BLOCK)
ewb_ceil_read_kernel(const uint4 *src, size_t words, unsigned *sink)
{
	ceil_read_op<false>	op = { src, 0 };

	ceil_tile<READ_WIDTH>(words, op);
	ceil_block_sink(op.sum, sink);
}

__global__ void __launch_bounds__(CEIL_BLOCK)
ewb_ceil_l2_read_kernel(const uint4 *src, size_t words, size_t total,
    unsigned *sink)
{
	ceil_read_op<true>	op = { src, 0 };

	ceil_visit<L2_WIDTH>(words, total, op);
	ceil_block_sink(op.sum, sink);
}

__global__ void __launch_bounds__(CEIL_BLOCK)
ewb_ceil_write_kernel(uint4 *dst, size_t words, unsigned value)
{
	ceil_write_op	op = { dst, make_uint4(value, value, value, value) };

	ceil_tile<STREAM_WIDTH>(words, op);
}

__global__ void __launch_bounds__(CEIL_BLOCK)
ewb_ceil_copy_kernel(const uint4 *src, uint4 *dst, size_t words)
{
	ceil_copy_op	op = { src, dst };

	ceil_tile<STREAM_WIDTH>(words, op);
}

__global__ void __launch_bounds__(CEIL_BLOCK)
ewb_ceil_add_kernel(const float4 *a, const float4 *b, float4 *c, size_t words)
{
	ceil_add_op	op = { a, b, c };

	ceil_tile<STREAM_WIDTH>(words, op);
}

__global__ void
ewb_ceil_empty_kernel(void)
{
}

/*
 * A pointer chase for DRAM latency: word w of the chain holds the index of
 * the next word, w + stride modulo words (stride odd, so the chain visits
 * every word before it repeats).  One thread follows `hops` links, each load
 * waiting on the one before; ld.global.cg keeps the links out of L1, and a
 * stride of 64 KiB + 16 B puts every link on a new line, far from the last,
 * so L2 misses and DRAM answers.  The position persists in state->pos from
 * one launch to the next, so later samples walk lines no earlier one
 * touched.
 */
__global__ void
ewb_ceil_chase_init_kernel(uint4 *chain, size_t words, size_t stride)
{
	size_t	w, n = ewb_thread_count();

	for (w = ewb_thread_index(); w < words; w += n) {
		size_t	next = (w + stride) % words;

		chain[w] = make_uint4((unsigned)next, (unsigned)(next >> 32),
		    0u, 0u);
	}
}

/* The chase itself; then state->done = epoch tells the streaming blocks
 * of this launch to stop. */
static __device__ void
ceil_chase(const uint4 *chain, unsigned hops,
    struct ewb_ceil_chase_state *state, unsigned epoch)
{
	unsigned long long	w = state->pos;
	unsigned		h;

	for (h = 0; h < hops; h++) {
		uint4	link = __ldcg(chain + w);

		w = (unsigned long long)link.x |
		    ((unsigned long long)link.y << 32);
	}
	state->pos = w;
	__threadfence();
	*(volatile unsigned *)&state->done = epoch;
}

/*
 * The stream of a loaded chase: copy rounds of EWB_CEIL_LOAD_WIDTH words
 * per thread, as dram_copy does, until the chase's flag says that this
 * launch's chase ended.  The flag is read at the start of a round and
 * tested at its end, so that its read overlaps the round's loads.
 */
struct ceil_stream_op {
	ceil_copy_op		 copy;
	const volatile unsigned	*done;
	unsigned		 epoch;
	bool			 stopped;
	unsigned long long	 words;		/* copied */

	__device__ __forceinline__ bool
	more(void) const
	{
		return !stopped;
	}

	template <unsigned K>
	__device__ __forceinline__ void
	group(const size_t *at)
	{
		unsigned	seen = *done;

		copy.template group<K>(at);
		words += K;
		stopped = seen == epoch;
	}
};

/* What the streaming blocks of a loaded chase get (device pointers). */
struct ceil_stream_args {
	const uint4			*src;
	uint4				*dst;
	size_t				 words;
	unsigned long long		 rounds;	/* the safety cap */
	struct ewb_ceil_stream_count	*count;
};

/*
 * A streaming block (blocks 1, 2, ... of the launch) walks the array with
 * ceil_visit over the whole grid (the indices of block 0's threads are
 * skipped: nothing is counted for them), at most a.rounds rounds per
 * thread.  The lanes of a warp read the flag in one instruction and leave
 * together; lane 0 then adds the warp's bytes.
 */
static __device__ void
ceil_stream(const struct ceil_stream_args &a,
    const struct ewb_ceil_chase_state *state, unsigned epoch)
{
	ceil_stream_op		op = { { a.src, a.dst }, &state->done, epoch,
				    false, 0 };
	unsigned long long	bytes;
	unsigned		offset;

	if (threadIdx.x == 0 && *op.done == epoch)
		atomicAdd(&a.count->late, 1u);
	ceil_visit<EWB_CEIL_LOAD_WIDTH>(a.words, a.rounds *
	    EWB_CEIL_LOAD_WIDTH * ewb_thread_count(), op);
	bytes = op.words * sizeof(uint4) * 2;	/* read + written */
	for (offset = 16; offset > 0; offset /= 2)
		bytes += __shfl_xor_sync(0xffffffffu, bytes, offset);
	if (__any_sync(0xffffffffu, !op.stopped) && threadIdx.x % 32 == 0)
		atomicAdd(&a.count->capped, 1u);
	if (threadIdx.x % 32 == 0)
		atomicAdd(&a.count->bytes, bytes);
}

/* Block 0's thread 0 chases; blocks 1, 2, ... (if any) stream beside it. */
__global__ void __launch_bounds__(CEIL_BLOCK)
ewb_ceil_chase_kernel(const uint4 *chain, unsigned hops,
    struct ewb_ceil_chase_state *state, unsigned epoch,
    struct ceil_stream_args stream)
{
	if (blockIdx.x == 0) {
		if (threadIdx.x == 0)
			ceil_chase(chain, hops, state, epoch);
		return;
	}
	ceil_stream(stream, state, epoch);
}

static_assert(EWB_CEIL_LOAD_BLOCK_BYTES ==
    CEIL_BLOCK * EWB_CEIL_LOAD_WIDTH * sizeof(uint4),
    "EWB_CEIL_LOAD_BLOCK_BYTES: one streaming block's loads in flight");

/* The concurrency curve's sum: per 32-bit lane, as integers (what is
 * stored does not matter, only that it depends on both loads). */
static __device__ __forceinline__ uint4
ceil_combine(uint4 x, uint4 y)
{
	return make_uint4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

static __device__ __forceinline__ unsigned
ceil_combine(unsigned x, unsigned y)
{
	return x + y;
}

static __device__ __forceinline__ unsigned short
ceil_combine(unsigned short x, unsigned short y)
{
	return (unsigned short)(x + y);
}

/*
 * The memory-concurrency curve's kernel (ceilings.h): tiles of Loads x
 * blockDim words per input, tile blockIdx.x, blockIdx.x + gridDim.x, ...
 * of a fixed grid, as the study's one-tile-per-block kernels lay them
 * out (thread t takes words t, t + blockDim, ... of its tile, each load
 * of a warp one request of contiguous bytes); all of a thread's loads of a
 * tile are issued before its first store (dst may alias a source, so the
 * compiler keeps that order); the words past the last whole tile one at
 * a time.
 */
template <typename Word, unsigned Loads, unsigned Inputs>
__global__ void __launch_bounds__(EWB_CEIL_INFLIGHT_BLOCK)
ewb_ceil_inflight_kernel(const Word *a, const Word *b, Word *dst,
    size_t words, unsigned *per_sm)
{
	size_t		per_tile = (size_t)Loads * blockDim.x;
	size_t		tiles = words / per_tile, tile, at, i;
	Word		x[Loads], y[Loads];
	unsigned	k, sm;

	if (per_sm != NULL && threadIdx.x == 0) {
		asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
		atomicAdd(&per_sm[sm % EWB_CEIL_SMIDS], 1u);
	}
	for (tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
		at = tile * per_tile + threadIdx.x;
#pragma unroll
		for (k = 0; k < Loads; k++)
			x[k] = a[at + k * blockDim.x];
		if constexpr (Inputs == 2) {
#pragma unroll
			for (k = 0; k < Loads; k++)
				y[k] = b[at + k * blockDim.x];
		}
#pragma unroll
		for (k = 0; k < Loads; k++) {
			if constexpr (Inputs == 2)
				dst[at + k * blockDim.x] =
				    ceil_combine(x[k], y[k]);
			else
				dst[at + k * blockDim.x] = x[k];
		}
	}
	for (i = tiles * per_tile + ewb_thread_index(); i < words;
	    i += ewb_thread_count()) {
		if constexpr (Inputs == 2)
			dst[i] = ceil_combine(a[i], b[i]);
		else
			dst[i] = a[i];
	}
}

/* Every thread tests what no block passes (never is past the last block
 * index): work the compiler cannot remove that costs almost nothing. */
__global__ void
ewb_ceil_blocks_kernel(unsigned *sink, unsigned never)
{
	if (threadIdx.x == 0 && blockIdx.x == never)
		sink[0] = never;
}

/*
 * FMA_CHAINS independent chains per thread, each a dependent series of
 * FMAs: enough independent work per warp, with a full SM of warps, to keep
 * the FMA pipes busy.  Chains start from distinct values so the compiler
 * cannot merge them; mul and add are arguments so it cannot fold them.
 */
__global__ void __launch_bounds__(CEIL_BLOCK)
ewb_ceil_fma_f32_kernel(unsigned iters, float mul, float add, unsigned *sink)
{
	float		acc[FMA_CHAINS], total = 0;
	unsigned	it, s, k;

#pragma unroll
	for (k = 0; k < FMA_CHAINS; k++)
		acc[k] = (float)(threadIdx.x + k * CEIL_BLOCK);
	for (it = 0; it < iters; it++) {
#pragma unroll
		for (s = 0; s < FMA_STEPS; s++) {
#pragma unroll
			for (k = 0; k < FMA_CHAINS; k++)
				acc[k] = fmaf(acc[k], mul, add);
		}
	}
#pragma unroll
	for (k = 0; k < FMA_CHAINS; k++)
		total += acc[k];
	ceil_block_sink(__float_as_uint(total), sink);
}

__global__ void __launch_bounds__(CEIL_BLOCK)
ewb_ceil_fma_f16_kernel(unsigned iters, float mul, float add, unsigned *sink)
{
	__half2		acc[FMA_CHAINS];
	__half2		mul2 = __float2half2_rn(mul), add2 = __float2half2_rn(add);
	float		total = 0;
	unsigned	it, s, k;

#pragma unroll
	for (k = 0; k < FMA_CHAINS; k++)
		acc[k] = __floats2half2_rn(threadIdx.x / 256.0f + k,
		    threadIdx.x / 512.0f - k);
	for (it = 0; it < iters; it++) {
#pragma unroll
		for (s = 0; s < FMA_STEPS; s++) {
#pragma unroll
			for (k = 0; k < FMA_CHAINS; k++)
				acc[k] = __hfma2(acc[k], mul2, add2);
		}
	}
#pragma unroll
	for (k = 0; k < FMA_CHAINS; k++)
		total += __low2float(acc[k]) + __high2float(acc[k]);
	ceil_block_sink(__float_as_uint(total), sink);
}

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

/* Tiles of width x CEIL_BLOCK words covering `words`. */
static cudaError_t
ceil_tiles(size_t words, unsigned width, unsigned *grid)
{
	unsigned long long	tiles = ewb_div_up(words,
				    (unsigned long long)width * CEIL_BLOCK);

	if (tiles > EWB_MAX_GRID)
		return cudaErrorInvalidConfiguration;
	*grid = (unsigned)tiles;
	return cudaSuccess;
}

extern "C" cudaError_t
ewb_ceil_read(const void *src, size_t words, unsigned *sink,
    cudaStream_t stream)
{
	unsigned	grid;
	cudaError_t	e;

	if (src == NULL || sink == NULL || words == 0)
		return cudaErrorInvalidValue;
	if ((e = ceil_tiles(words, READ_WIDTH, &grid)) != cudaSuccess)
		return e;
	ewb_ceil_read_kernel<<<grid, CEIL_BLOCK, 0, stream>>>(
	    (const uint4 *)src, words, sink);
	return cudaGetLastError();
}

extern "C" cudaError_t
ewb_ceil_write(void *dst, size_t words, cudaStream_t stream)
{
	/* A new value each call, so no store repeats what memory holds. */
	static unsigned	calls;
	unsigned	grid;
	cudaError_t	e;

	if (dst == NULL || words == 0)
		return cudaErrorInvalidValue;
	if ((e = ceil_tiles(words, STREAM_WIDTH, &grid)) != cudaSuccess)
		return e;
	ewb_ceil_write_kernel<<<grid, CEIL_BLOCK, 0, stream>>>((uint4 *)dst,
	    words, ++calls);
	return cudaGetLastError();
}

extern "C" cudaError_t
ewb_ceil_copy(const void *src, void *dst, size_t words,
    cudaStream_t stream)
{
	unsigned	grid;
	cudaError_t	e;

	if (src == NULL || dst == NULL || words == 0)
		return cudaErrorInvalidValue;
	if ((e = ceil_tiles(words, STREAM_WIDTH, &grid)) != cudaSuccess)
		return e;
	ewb_ceil_copy_kernel<<<grid, CEIL_BLOCK, 0, stream>>>((const uint4 *)src,
	    (uint4 *)dst, words);
	return cudaGetLastError();
}

extern "C" cudaError_t
ewb_ceil_add(const void *a, const void *b, void *c, size_t words,
    cudaStream_t stream)
{
	unsigned	grid;
	cudaError_t	e;

	if (a == NULL || b == NULL || c == NULL || words == 0)
		return cudaErrorInvalidValue;
	if ((e = ceil_tiles(words, STREAM_WIDTH, &grid)) != cudaSuccess)
		return e;
	ewb_ceil_add_kernel<<<grid, CEIL_BLOCK, 0, stream>>>((const float4 *)a,
	    (const float4 *)b, (float4 *)c, words);
	return cudaGetLastError();
}

extern "C" cudaError_t
ewb_ceil_l2_read(const void *src, size_t words, unsigned passes,
    unsigned *sink, int sm_count, cudaStream_t stream)
{
	unsigned	grid;
	cudaError_t	e;

	if (src == NULL || sink == NULL || words == 0 || passes == 0)
		return cudaErrorInvalidValue;
	if ((e = ceil_grid(ewb_ceil_l2_read_kernel, sm_count, &grid)) !=
	    cudaSuccess)
		return e;
	ewb_ceil_l2_read_kernel<<<grid, CEIL_BLOCK, 0, stream>>>(
	    (const uint4 *)src, words, (size_t)passes * words, sink);
	return cudaGetLastError();
}

extern "C" cudaError_t
ewb_ceil_empty(cudaStream_t stream)
{
	ewb_ceil_empty_kernel<<<1, 1, 0, stream>>>();
	return cudaGetLastError();
}

/* The FMA launchers differ only in kernel and lanes per instruction. */
static cudaError_t
ceil_fma(void (*kernel)(unsigned, float, float, unsigned *),
    unsigned lanes, unsigned iters, unsigned *sink, int sm_count,
    double *flops, cudaStream_t stream)
{
	unsigned	grid;
	cudaError_t	e;

	if (sink == NULL || flops == NULL || iters == 0)
		return cudaErrorInvalidValue;
	if ((e = ceil_grid(kernel, sm_count, &grid)) != cudaSuccess)
		return e;
	/* Converges to 1 from any start: finite whatever iters is. */
	kernel<<<grid, CEIL_BLOCK, 0, stream>>>(iters, 0.5f, 0.5f, sink);
	*flops = 2.0 * lanes * (double)grid * CEIL_BLOCK * iters *
	    EWB_CEIL_FMA_PER_ROUND;
	return cudaGetLastError();
}

extern "C" cudaError_t
ewb_ceil_fma_f32(unsigned iters, unsigned *sink, int sm_count, double *flops,
    cudaStream_t stream)
{
	return ceil_fma(ewb_ceil_fma_f32_kernel, 1, iters, sink, sm_count, flops,
	    stream);
}

extern "C" cudaError_t
ewb_ceil_fma_f16(unsigned iters, unsigned *sink, int sm_count, double *flops,
    cudaStream_t stream)
{
	return ceil_fma(ewb_ceil_fma_f16_kernel, 2, iters, sink, sm_count, flops,
	    stream);
}

extern "C" cudaError_t
ewb_ceil_chase_init(void *chain, size_t words,
    struct ewb_ceil_chase_state *state, cudaStream_t stream)
{
	cudaError_t	e;

	if (chain == NULL || state == NULL || words <= EWB_CEIL_CHASE_STRIDE)
		return cudaErrorInvalidValue;
	ewb_ceil_chase_init_kernel<<<1024, CEIL_BLOCK, 0, stream>>>(
	    (uint4 *)chain, words, EWB_CEIL_CHASE_STRIDE);
	if ((e = cudaGetLastError()) != cudaSuccess)
		return e;
	return cudaMemsetAsync(state, 0, sizeof *state, stream);
}

extern "C" cudaError_t
ewb_ceil_chase_wave(int sm_count, unsigned *blocks)
{
	int		per_sm = 0;
	cudaError_t	e;

	if (blocks == NULL)
		return cudaErrorInvalidValue;
	e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm,
	    ewb_ceil_chase_kernel, CEIL_BLOCK, 0);
	if (e != cudaSuccess)
		return e;
	*blocks = (unsigned)per_sm * ewb_sm_count(sm_count);
	return cudaSuccess;
}

extern "C" cudaError_t
ewb_ceil_chase(const void *chain, unsigned hops,
    struct ewb_ceil_chase_state *state, const struct ewb_ceil_load *load,
    cudaStream_t stream)
{
	/* Which launch this is: the streaming blocks stop when state->done
	 * says this one's chase ended, with no reset between launches. */
	static unsigned		epoch;
	struct ceil_stream_args	args = { NULL, NULL, 0, 0, NULL };
	unsigned		blocks = 0;

	if (chain == NULL || state == NULL || hops == 0)
		return cudaErrorInvalidValue;
	if (load != NULL) {
		unsigned long long	threads;

		if (load->src == NULL || load->dst == NULL ||
		    load->count == NULL || load->words == 0 ||
		    load->blocks == 0 || load->blocks >= EWB_MAX_GRID)
			return cudaErrorInvalidValue;
		blocks = load->blocks;
		threads = (unsigned long long)(1 + blocks) * CEIL_BLOCK;
		args.src = (const uint4 *)load->src;
		args.dst = (uint4 *)load->dst;
		args.words = load->words;
		args.count = load->count;
		/* 64 passes over the array: far longer than any chase, so
		 * only a stream left running alone ever reaches it. */
		args.rounds = ewb_div_up(64ULL * load->words,
		    threads * EWB_CEIL_LOAD_WIDTH);
	}
	if (++epoch == 0)
		epoch = 1;	/* 0 is what ewb_ceil_chase_init leaves */
	ewb_ceil_chase_kernel<<<1 + blocks, CEIL_BLOCK, 0, stream>>>(
	    (const uint4 *)chain, hops, state, epoch, args);
	return cudaGetLastError();
}

/* The loads per thread per input the curve's kernel is built for. */
#define INFLIGHT_LOADS(X) X(1) X(2) X(3) X(4) X(6) X(8) X(12) X(16)

/* The curve's kernel for (Word, loads, inputs), or NULL. */
template <typename Word, unsigned Inputs>
static void (*inflight_kernel(unsigned loads))(const Word *, const Word *,
    Word *, size_t, unsigned *)
{
	switch (loads) {
#define INFLIGHT_CASE(L) \
	case L: \
		return ewb_ceil_inflight_kernel<Word, L, Inputs>;
	INFLIGHT_LOADS(INFLIGHT_CASE)
#undef INFLIGHT_CASE
	}
	return NULL;
}

/* fit: blocks per SM; else launch on the stream. */
template <typename Word, unsigned Inputs>
static cudaError_t
inflight_word(const void *a, const void *b, void *dst, size_t bytes,
    unsigned loads, unsigned blocks_per_sm, int sm_count, unsigned *per_sm,
    unsigned *fit, cudaStream_t stream)
{
	void	(*kernel)(const Word *, const Word *, Word *, size_t,
		    unsigned *) = inflight_kernel<Word, Inputs>(loads);
	int	per = 0;
	unsigned long long grid;

	if (fit != NULL) {
		*fit = 0;
		if (kernel == NULL)
			return cudaSuccess;
		cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		    &per, kernel, EWB_CEIL_INFLIGHT_BLOCK, 0);
		*fit = e == cudaSuccess && per > 0 ? (unsigned)per : 0;
		return e;
	}
	grid = (unsigned long long)blocks_per_sm * ewb_sm_count(sm_count);
	if (kernel == NULL || a == NULL || dst == NULL ||
	    (Inputs == 2 && b == NULL) || bytes < sizeof(Word) ||
	    grid == 0 || grid > EWB_MAX_GRID)
		return cudaErrorInvalidValue;
	kernel<<<(unsigned)grid, EWB_CEIL_INFLIGHT_BLOCK, 0, stream>>>(
	    (const Word *)a, (const Word *)b, (Word *)dst,
	    bytes / sizeof(Word), per_sm);
	return cudaGetLastError();
}

template <unsigned Inputs>
static cudaError_t
inflight_inputs(const void *a, const void *b, void *dst, size_t bytes,
    unsigned word_bytes, unsigned loads, unsigned blocks_per_sm,
    int sm_count, unsigned *per_sm, unsigned *fit, cudaStream_t stream)
{
	switch (word_bytes) {
	case 2:
		return inflight_word<unsigned short, Inputs>(a, b, dst, bytes,
		    loads, blocks_per_sm, sm_count, per_sm, fit, stream);
	case 4:
		return inflight_word<unsigned, Inputs>(a, b, dst, bytes, loads,
		    blocks_per_sm, sm_count, per_sm, fit, stream);
	case 16:
		return inflight_word<uint4, Inputs>(a, b, dst, bytes, loads,
		    blocks_per_sm, sm_count, per_sm, fit, stream);
	}
	if (fit != NULL)
		*fit = 0;
	return fit != NULL ? cudaSuccess : cudaErrorInvalidValue;
}

static cudaError_t
inflight(const void *a, const void *b, void *dst, size_t bytes,
    unsigned inputs, unsigned word_bytes, unsigned loads,
    unsigned blocks_per_sm, int sm_count, unsigned *per_sm, unsigned *fit,
    cudaStream_t stream)
{
	if (inputs == 1)
		return inflight_inputs<1>(a, b, dst, bytes, word_bytes, loads,
		    blocks_per_sm, sm_count, per_sm, fit, stream);
	if (inputs == 2)
		return inflight_inputs<2>(a, b, dst, bytes, word_bytes, loads,
		    blocks_per_sm, sm_count, per_sm, fit, stream);
	if (fit != NULL)
		*fit = 0;
	return fit != NULL ? cudaSuccess : cudaErrorInvalidValue;
}

extern "C" cudaError_t
ewb_ceil_inflight(const void *a, const void *b, void *dst, size_t bytes,
    unsigned inputs, unsigned word_bytes, unsigned loads,
    unsigned blocks_per_sm, int sm_count, unsigned *per_sm,
    cudaStream_t stream)
{
	return inflight(a, b, dst, bytes, inputs, word_bytes, loads,
	    blocks_per_sm, sm_count, per_sm, NULL, stream);
}

extern "C" cudaError_t
ewb_ceil_inflight_fit(unsigned inputs, unsigned word_bytes, unsigned loads,
    unsigned *blocks_per_sm)
{
	if (blocks_per_sm == NULL)
		return cudaErrorInvalidValue;
	return inflight(NULL, NULL, NULL, 0, inputs, word_bytes, loads, 0, 0,
	    NULL, blocks_per_sm, NULL);
}

extern "C" cudaError_t
ewb_ceil_blocks(unsigned blocks, unsigned threads, unsigned *sink,
    cudaStream_t stream)
{
	if (sink == NULL || blocks == 0 || blocks > EWB_MAX_GRID ||
	    threads == 0 || threads > 1024)
		return cudaErrorInvalidValue;
	ewb_ceil_blocks_kernel<<<blocks, threads, 0, stream>>>(sink,
	    UINT_MAX);
	return cudaGetLastError();
}

/*
 * ceilings_memory.cu - DRAM and L2 bandwidth: read, write, copy and the
 * study's add over arrays far past the L2 (one tile per block), and reads
 * that stay inside the L2 (a resident wave that loops).  The widths are
 * the fastest of those measured on an H200 (docs/ceilings.md): for the
 * DRAM kernels, tiles beat a grid-stride wave by 1-7 %, and plain stores
 * and copies are fastest at one word per thread.
 */
#include "ceilings.cuh"

#define READ_WIDTH	4u	/* dram_read: amortises the block's reduction */
#define STREAM_WIDTH	1u	/* dram_write, dram_copy, dram_add */
#define L2_WIDTH	2u

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

/* One launch of a DRAM kernel with args: tiles of width x CEIL_BLOCK
 * words covering `words`, one block a tile. */
template <typename... Params, typename... Args>
static cudaError_t
ceil_tile_launch(void (*kernel)(Params...), unsigned width, size_t words,
    cudaStream_t stream, Args... args)
{
	unsigned long long	tiles = ewb_div_up(words,
				    (unsigned long long)width * CEIL_BLOCK);

	if (tiles > EWB_MAX_GRID)
		return cudaErrorInvalidConfiguration;
	kernel<<<(unsigned)tiles, CEIL_BLOCK, 0, stream>>>(args...);
	return cudaGetLastError();
}

extern "C" cudaError_t
ewb_ceil_read(const void *src, size_t words, unsigned *sink,
    cudaStream_t stream)
{
	if (src == NULL || sink == NULL || words == 0)
		return cudaErrorInvalidValue;
	return ceil_tile_launch(ewb_ceil_read_kernel, READ_WIDTH, words,
	    stream, (const uint4 *)src, words, sink);
}

extern "C" cudaError_t
ewb_ceil_write(void *dst, size_t words, cudaStream_t stream)
{
	/* A new value each call, so no store repeats what memory holds. */
	static unsigned	calls;

	if (dst == NULL || words == 0)
		return cudaErrorInvalidValue;
	return ceil_tile_launch(ewb_ceil_write_kernel, STREAM_WIDTH, words,
	    stream, (uint4 *)dst, words, ++calls);
}

extern "C" cudaError_t
ewb_ceil_copy(const void *src, void *dst, size_t words,
    cudaStream_t stream)
{
	if (src == NULL || dst == NULL || words == 0)
		return cudaErrorInvalidValue;
	return ceil_tile_launch(ewb_ceil_copy_kernel, STREAM_WIDTH, words,
	    stream, (const uint4 *)src, (uint4 *)dst, words);
}

extern "C" cudaError_t
ewb_ceil_add(const void *a, const void *b, void *c, size_t words,
    cudaStream_t stream)
{
	if (a == NULL || b == NULL || c == NULL || words == 0)
		return cudaErrorInvalidValue;
	return ceil_tile_launch(ewb_ceil_add_kernel, STREAM_WIDTH, words,
	    stream, (const float4 *)a, (const float4 *)b, (float4 *)c, words);
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

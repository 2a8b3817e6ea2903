/*
 * ceilings_inflight.cu - the memory-concurrency curve: bandwidth against
 * the bytes of loads each SM keeps in flight (inflight.def), one kernel
 * per word size, loads per thread and inputs.
 */
#include "ceilings.cuh"

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

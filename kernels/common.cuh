/*
 * common.cuh - what the kernel files and the registry share: thread
 * indexing, launch-shape arithmetic, the declarations of the study's
 * kernels, and the one generic launcher every study variant goes through.
 *
 * Kernel signatures follow three operand conventions, named after the
 * fields of struct ewb_launch_args they use:
 *   binary   (const T *a, const T *b, T *c, size_t n)	c = op(a, b)
 *   unary    (const T *a, T *c, size_t n)		c = op(a)
 *   in place (T *c, size_t n)				c = op(c)
 */
#ifndef EWB_COMMON_CUH
#define EWB_COMMON_CUH

#include <stddef.h>
#include <stdint.h>

#include <atomic>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "ops.cuh"
#include "registry.h"
#include "tiles.cuh"

/* EWB_MAX_GRID, the largest gridDim.x: registry.h. */


static inline bool
ewb_is_aligned(const void *p, size_t bytes)
{
	return (uintptr_t)p % bytes == 0;
}

static inline unsigned long long
ewb_div_up(unsigned long long x, unsigned long long y)
{
	return x / y + (x % y != 0);
}

/*
 * One thread per group of `per_thread` consecutive elements, the last group
 * possibly partial.  The grid is not capped: a kernel without a loop cannot
 * cover more than EWB_MAX_GRID blocks, and the launcher refuses that shape.
 */
static inline struct ewb_shape
ewb_shape_cover(size_t n, unsigned per_thread, unsigned block)
{
	struct ewb_shape s;

	s.block = block;
	s.grid = ewb_div_up(ewb_div_up(n, per_thread), block);
	return s;
}

/* The SM count the caller gave, or the current device's. */
static inline unsigned
ewb_sm_count(int given)
{
	int	device, count;

	if (given > 0)
		return (unsigned)given;
	if (cudaGetDevice(&device) != cudaSuccess ||
	    cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount,
	    device) != cudaSuccess || count <= 0)
		return 1;
	return (unsigned)count;
}

/* A limit of one SM the caller gave, else the current device's (1 when
 * the runtime cannot tell). */
static inline unsigned
ewb_sm_limit(int given, cudaDeviceAttr attr)
{
	int	device, value;

	if (given > 0)
		return (unsigned)given;
	if (cudaGetDevice(&device) != cudaSuccess ||
	    cudaDeviceGetAttribute(&value, attr, device) != cudaSuccess ||
	    value <= 0) {
		(void)cudaGetLastError();
		return 1;
	}
	return (unsigned)value;
}

/* Blocks of `block` threads one SM of the device holds by thread count
 * alone: min(its max threads / block, its max blocks), at least 1 (2048
 * threads and 32 blocks on Hopper, 1536 and 24 on Ada, 1024 and 16 on
 * Turing). */
static inline unsigned
ewb_resident_estimate(const struct ewb_launch_args *args, unsigned block)
{
	unsigned threads = ewb_sm_limit(args->max_threads_per_sm,
	    cudaDevAttrMaxThreadsPerMultiProcessor);
	unsigned blocks = ewb_sm_limit(args->max_blocks_per_sm,
	    cudaDevAttrMaxBlocksPerMultiprocessor);
	unsigned resident = threads / block;

	if (resident > blocks)
		resident = blocks;
	if (resident == 0)
		resident = 1;
	return resident;
}

/*
 * A fixed grid of one wave, `per_sm` resident blocks on each SM, for a
 * kernel that loops over the data `per_block` elements per block at a
 * time; but no more blocks than have work.
 */
static inline struct ewb_shape
ewb_shape_resident(size_t n, unsigned long long per_block, unsigned block,
    unsigned per_sm, int sm_count)
{
	struct ewb_shape	s;
	unsigned long long	resident;

	s.block = block;
	s.grid = ewb_div_up(n, per_block);
	resident = (unsigned long long)per_sm * ewb_sm_count(sm_count);
	if (s.grid > resident)
		s.grid = resident;
	if (s.grid > EWB_MAX_GRID)
		s.grid = EWB_MAX_GRID;
	return s;
}

/*
 * Grid-stride loops: a fixed grid of one wave of resident blocks, sm_count
 * * ewb_resident_estimate, but no more blocks than have work.
 */
static inline struct ewb_shape
ewb_shape_stride(const struct ewb_launch_args *args, unsigned per_thread,
    unsigned block)
{
	return ewb_shape_resident(args->n,
	    (unsigned long long)per_thread * block, block,
	    ewb_resident_estimate(args, block), args->sm_count);
}

/*
 * Blocks of Kernel (no dynamic shared memory) that one SM holds at `block`
 * threads, from the occupancy calculator: registers and shared memory
 * count, not only threads.  Asked once per kernel and block size and
 * remembered; when the runtime cannot tell (no device), the thread-count
 * estimate, not remembered.
 */
template <auto Kernel>
static unsigned
ewb_blocks_per_sm(const struct ewb_launch_args *args, unsigned block)
{
	static std::atomic<int>	known[1025];	/* by block; 0: not asked */
	int			blocks;

	if (block == 0 || block > 1024)
		return ewb_resident_estimate(args, block);
	blocks = known[block].load(std::memory_order_relaxed);
	if (blocks > 0)
		return (unsigned)blocks;
	if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel,
	    (int)block, 0) != cudaSuccess || blocks <= 0) {
		(void)cudaGetLastError();	/* not the next launch's error */
		return ewb_resident_estimate(args, block);
	}
	known[block].store(blocks, std::memory_order_relaxed);
	return (unsigned)blocks;
}

/* Consecutive elements per thread of ewb_abs_f32_unroll. */
#define EWB_ABS_UNROLL	4u

/*
 * Every variant's kernel, ewb_<id>, declared from its row: the study's
 * (study.def; written in add.cu, relu.cu, abs.cu) and ewbench's own
 * (fast.def; instantiated in fast.cu, see docs/kernels.md).  A kernel
 * defined in one file and launched from the registry in another must be a
 * plain __global__ function: CUDA 13 gives template kernels file-local
 * stubs.
 */
#define STUDY(id, op, ...)		__global__ void ewb_##id(EWB_PARAMS_##op);
#define TILE(id, op, ...)		__global__ void ewb_##id(EWB_PARAMS_##op);
#define STRIDE				TILE
#define BULK				TILE
#define BULK_STORE			TILE
#define PROBE				TILE
#include "study.def"
#include "fast.def"
#include "probe.def"
#undef STUDY
#undef TILE
#undef STRIDE
#undef BULK
#undef BULK_STORE
#undef PROBE

/*
 * Operand conventions: which pointers of the launch arguments a kernel of
 * each signature uses (only those are tested for alignment), how many it
 * reads, and how it is launched (with `smem` bytes of dynamic shared
 * memory).
 */
template <typename Kernel>
struct ewb_operands;

template <typename T>
struct ewb_operands<void (*)(const T *, const T *, T *, size_t)> {
	typedef T elem;
	static constexpr unsigned inputs = 2;
	static bool
	aligned(const struct ewb_launch_args *args, size_t bytes)
	{
		return ewb_is_aligned(args->a, bytes) &&
		    ewb_is_aligned(args->b, bytes) &&
		    ewb_is_aligned(args->c, bytes);
	}
	static void
	launch(void (*kernel)(const T *, const T *, T *, size_t),
	    struct ewb_shape s, const struct ewb_launch_args *args,
	    size_t smem = 0)
	{
		kernel<<<(unsigned)s.grid, s.block, smem, args->stream>>>(
		    (const T *)args->a, (const T *)args->b, (T *)args->c,
		    args->n);
	}
};

template <typename T>
struct ewb_operands<void (*)(const T *, T *, size_t)> {
	typedef T elem;
	static constexpr unsigned inputs = 1;
	static bool
	aligned(const struct ewb_launch_args *args, size_t bytes)
	{
		return ewb_is_aligned(args->a, bytes) &&
		    ewb_is_aligned(args->c, bytes);
	}
	static void
	launch(void (*kernel)(const T *, T *, size_t), struct ewb_shape s,
	    const struct ewb_launch_args *args, size_t smem = 0)
	{
		kernel<<<(unsigned)s.grid, s.block, smem, args->stream>>>(
		    (const T *)args->a, (T *)args->c, args->n);
	}
};

template <typename T>
struct ewb_operands<void (*)(T *, size_t)> {
	typedef T elem;
	static constexpr unsigned inputs = 1;
	static bool
	aligned(const struct ewb_launch_args *args, size_t bytes)
	{
		return ewb_is_aligned(args->c, bytes);
	}
	static void
	launch(void (*kernel)(T *, size_t), struct ewb_shape s,
	    const struct ewb_launch_args *args, size_t smem = 0)
	{
		kernel<<<(unsigned)s.grid, s.block, smem, args->stream>>>(
		    (T *)args->c, args->n);
	}
};

/*
 * The launcher and shaper of a study variant, from the numbers of its
 * registry row.  Kernel covers PerThread elements per thread, a block's
 * share being block * PerThread (per loop iteration when GridStride),
 * and moves VectorWidth elements per memory instruction.  When an operand is not aligned to VectorWidth elements,
 * Scalar (one element per thread, same signature) runs instead, in the same
 * single launch.  A GridStride kernel's fixed grid holds as many blocks per
 * SM as fit by thread count, or with Occupancy as many as the occupancy
 * calculator says fit.
 */
template <auto Kernel, auto Scalar,
    unsigned PerThread, unsigned VectorWidth, bool GridStride,
    bool Occupancy = false>
struct ewb_study_launch {
	typedef ewb_operands<decltype(Kernel)> operands;
	static constexpr unsigned min_cc = 0;	/* plain CUDA: runs anywhere */

	static bool
	vector_ok(const struct ewb_launch_args *args)
	{
		return operands::aligned(args,
		    VectorWidth * sizeof(typename operands::elem));
	}

	static struct ewb_shape
	shape(const struct ewb_launch_args *args)
	{
		unsigned block = args->block;

		if (!vector_ok(args))
			return ewb_shape_cover(args->n, 1, block);
		if (GridStride && Occupancy)
			return ewb_shape_resident(args->n,
			    (unsigned long long)PerThread * block, block,
			    ewb_blocks_per_sm<Kernel>(args, block),
			    args->sm_count);
		if (GridStride)
			return ewb_shape_stride(args, PerThread, block);
		return ewb_shape_cover(args->n, PerThread, block);
	}

	static cudaError_t
	launch(const struct ewb_launch_args *args)
	{
		struct ewb_shape s = shape(args);

		if (args->n == 0)
			return cudaErrorInvalidValue;
		if (s.grid > EWB_MAX_GRID)
			return cudaErrorInvalidConfiguration;
		operands::launch(vector_ok(args) ? Kernel : Scalar, s, args,
		    args->shared_pad);
		return cudaGetLastError();
	}
};

/*
 * The launcher and shaper of a bulk-copy (TMA) variant.  Kernel has the
 * shape of Fallback, a study-style kernel of one tile per block,
 * PerThread elements in 16-byte packets per thread, and brings each
 * operand's tile into dynamic shared memory (PerThread elements per thread
 * per input).  It needs sm_90 and 16-byte aligned operands; otherwise
 * Fallback (or its Scalar) runs.  The launch shape is the same either way,
 * and one kernel is launched.
 */
template <auto Kernel, auto Fallback, auto Scalar,
    unsigned PerThread, unsigned VectorWidth>
struct ewb_bulk_launch {
	typedef ewb_operands<decltype(Kernel)> operands;
	typedef ewb_study_launch<Fallback, Scalar, PerThread, VectorWidth,
	    false> fallback;
	static constexpr size_t per_thread_bytes =
	    operands::inputs * PerThread * sizeof(typename operands::elem);

	static_assert(VectorWidth * sizeof(typename operands::elem) == 16,
	    "bulk copies need 16-byte aligned operands, what vector_ok tests");
	/* Below sm_90 there are no bulk copies: the fallback runs.  What
	 * counts is the code loaded, not the GPU: compute_80 PTX that the
	 * driver JIT-compiles for a 9.0 GPU has an empty bulk-copy body. */
	static constexpr unsigned min_cc = 90;

	static bool
	bulk_ok(const struct ewb_launch_args *args)
	{
		static std::atomic<unsigned>	code;	/* 0: not asked */
		unsigned			arch;

		if (!fallback::vector_ok(args))
			return false;
		if ((arch = code.load(std::memory_order_relaxed)) == 0) {
			arch = ewb_code_arch((const void *)Kernel);
			if (arch == 0)
				return false;
			code.store(arch, std::memory_order_relaxed);
		}
		return arch >= min_cc;
	}

	static struct ewb_shape
	shape(const struct ewb_launch_args *args)
	{
		return fallback::shape(args);
	}

	/* Above 48 KiB a block's dynamic shared memory must be allowed
	 * first: allow what the largest block (1024 threads) needs, once. */
	static cudaError_t
	allow_shared(void)
	{
		static std::atomic<bool>	allowed;
		cudaError_t			e;

		if (allowed.load(std::memory_order_relaxed))
			return cudaSuccess;
		e = cudaFuncSetAttribute(Kernel,
		    cudaFuncAttributeMaxDynamicSharedMemorySize,
		    (int)(1024 * per_thread_bytes));
		if (e == cudaSuccess)
			allowed.store(true, std::memory_order_relaxed);
		return e;
	}

	static cudaError_t
	launch(const struct ewb_launch_args *args)
	{
		struct ewb_shape	s = shape(args);
		cudaError_t		e;

		if (!bulk_ok(args))
			return fallback::launch(args);
		if (args->n == 0)
			return cudaErrorInvalidValue;
		if (s.grid > EWB_MAX_GRID)
			return cudaErrorInvalidConfiguration;
		if ((e = allow_shared()) != cudaSuccess)
			return e;
		operands::launch(Kernel, s, args, s.block * per_thread_bytes);
		return cudaGetLastError();
	}
};

#endif

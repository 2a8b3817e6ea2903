/*
 * family.cuh - the kernels ewbench generates for a user's per-element op
 * (`--elementwise`, src/opgen/): tiles.cuh's templates, the ones fast.cu's
 * built-in variants are made of, as template __global__ functions.  Only
 * NVRTC compiles this file, at run time, after the user's function and the
 * operation struct src/opgen/ wraps it in (tiles.cuh says what one is).
 *
 * Why the built-ins do not use these kernels themselves: nvcc's variants
 * must be plain __global__ functions, because the registry (another file)
 * needs their addresses and CUDA 13 gives template kernels file-local
 * stubs (common.cuh); so fast.cu wraps the same device templates in one
 * plain function per row of fast.def.  NVRTC has no such limit (the host
 * finds each instance by its lowered name), and the device code both run
 * is tiles.cuh's.
 *
 * Each kernel takes its operands as one struct: the H = max(inputs, 2)
 * operands one() takes (a unary op's input twice), the output, the count.
 */
#ifndef EWB_FAMILY_CUH
#define EWB_FAMILY_CUH

#include "tiles.cuh"

template <typename T, unsigned H>
struct ewb_family_args {
	const T		*in[H];
	T		*out;
	size_t		 n;
};

#define EWB_FAMILY_ARGS(Op) \
	ewb_family_args<typename Op::elem, ewb_handed<Op>()>

/*
 * The three shapes of the study, P the memory word (bits16, bits32,
 * packet64, packet), K words per thread per input:
 *   tile    one tile of K * blockDim.x words per block (ilp_tile; the
 *           grid covers the array)
 *   stride  tiles in a grid-stride loop (ilp_stride; a one-wave grid)
 *   runs    a run of consecutive tiles per block (ilp_runs; the
 *           persistent shape, a one-wave grid)
 *   bulk    one tile per block brought into shared memory by bulk
 *           copies in two stages on two mbarriers (bulk_tile; 16-byte
 *           packets, K 1 or 2; sm_90 on)
 *   bulkone one tile per block by bulk copies in one stage on one
 *           mbarrier (bulk_whole_tile; the element or 16-byte packets,
 *           K 2, 3, 4, 6 and 1, 2: CCCL's DeviceTransform's design on
 *           sm_90; sm_90 on)
 * Each under fast.cu's register cap, ILP_REGS (64), which also lets
 * every block size up to 1024 launch (64 x 1024 registers fill an SM's
 * file): a member whose loads would need more has ptxas use the first
 * words before the last are loaded, as the built-ins would.
 */
template <typename Op, unsigned K, typename P>
__global__ void ILP_REGS
ewb_family_tile(EWB_FAMILY_ARGS(Op) a)
{
	ilp_tile<Op, K, plain_access, P>(a.in, a.out, a.n, blockIdx.x);
}

template <typename Op, unsigned K, typename P>
__global__ void ILP_REGS
ewb_family_stride(EWB_FAMILY_ARGS(Op) a)
{
	ilp_stride<Op, K, plain_access, P>(a.in, a.out, a.n);
}

template <typename Op, unsigned K, typename P>
__global__ void ILP_REGS
ewb_family_runs(EWB_FAMILY_ARGS(Op) a)
{
	ilp_runs<Op, K, plain_access, P>(a.in, a.out, a.n);
}

/* The bulk-copy (TMA) shape: tile's tile of K packets per thread per
 * input, brought into dynamic shared memory by sm_90's 1-D bulk copies
 * (bulk_tile, the one fast.cu's *_tma variants are made of; the launcher
 * gives it inputs x K x blockDim.x x 16 bytes).  Under the cap like every
 * member, so that it launches at every block up to 1024. */
template <typename Op, unsigned K, typename P>
__global__ void ILP_REGS
ewb_family_bulk(EWB_FAMILY_ARGS(Op) a)
{
	static_assert(sizeof(P) == sizeof(packet),
	    "bulk copies move 16-byte packets");
	bulk_tile<Op, K>(a.in, a.out, a.n);
}

/* The one-stage bulk-copy shape: tile's tile of K words P per thread per
 * input on one mbarrier (bulk_whole_tile; the launcher gives it inputs x
 * K x blockDim.x x sizeof(P) bytes on sm_90 and later, where it copies;
 * built below sm_90 it is the tile member of the same word and K). */
template <typename Op, unsigned K, typename P>
__global__ void ILP_REGS
ewb_family_bulkone(EWB_FAMILY_ARGS(Op) a)
{
	bulk_whole_tile<Op, K, P>(a.in, a.out, a.n);
}

/* The expected output, one element per thread, the way the op's
 * definition reads: what every candidate is checked against when no
 * --reference kernel is given. */
template <typename Op>
__global__ void
ewb_family_reference(EWB_FAMILY_ARGS(Op) a)
{
	size_t i = ewb_thread_index();

	if (i < a.n)
		apply_element<Op>(a.in, a.out, i);
}

/* A kernel whose lowered name tells the host the op's inputs and dtype
 * (0 f32, 1 f16, 2 bf16). */
template <unsigned Inputs, unsigned Dtype>
__global__ void
ewb_family_probe(void)
{
}

/* The signature of a user's per-element function, T f(T, ...), 1 to 4
 * operands of one type T, float, __half or __nv_bfloat16. */
template <typename T>
struct ewb_family_dtype {
	static constexpr unsigned code = 99;
};
template <>
struct ewb_family_dtype<float> {
	static constexpr unsigned code = 0;
};
template <>
struct ewb_family_dtype<__half> {
	static constexpr unsigned code = 1;
};
template <>
struct ewb_family_dtype<__nv_bfloat16> {
	static constexpr unsigned code = 2;
};

template <typename A, typename B>
struct ewb_family_same {
	static constexpr bool value = false;
};
template <typename A>
struct ewb_family_same<A, A> {
	static constexpr bool value = true;
};

template <typename F>
struct ewb_family_signature {
	static constexpr bool ok = false;
	static constexpr unsigned inputs = 1;
	typedef float elem;
};
template <typename R, typename... A>
struct ewb_family_signature<R(A...)> {
	static constexpr bool ok = sizeof...(A) >= 1 && sizeof...(A) <= 4 &&
	    (ewb_family_same<R, A>::value && ...) &&
	    ewb_family_dtype<R>::code != 99;
	static constexpr unsigned inputs = sizeof...(A);
	typedef R elem;
};

#endif

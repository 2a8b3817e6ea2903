/*
 * abs.cu - x[i] = |x[i]| in fp32, in place, five ways.
 *
 * fabsf clears the sign bit and nothing else, so results match the CPU's
 * bit for bit (NaN stays NaN).
 */
#include "common.cuh"

__global__ void
ewb_abs_f32(float *x, size_t n)
{
	size_t i = ewb_thread_index();

	if (i < n)
		x[i] = fabsf(x[i]);
}

/* EWB_ABS_UNROLL consecutive elements per thread, a compile-time count:
 * the loads of a full group are independent and issued back to back. */
__global__ void
ewb_abs_f32_unroll(float *x, size_t n)
{
	size_t i = ewb_thread_index() * EWB_ABS_UNROLL;

	if (i + EWB_ABS_UNROLL <= n) {
#pragma unroll
		for (unsigned k = 0; k < EWB_ABS_UNROLL; k++)
			x[i + k] = fabsf(x[i + k]);
	} else
		ewb_partial_group<EWB_ABS_UNROLL>(i, n,
		    [=](size_t j) { x[j] = fabsf(x[j]); });
}

/* The loop tests the element index against n (the tutorial tested its
 * counter, which overruns the array). */
__global__ void
ewb_abs_f32_grid(float *x, size_t n)
{
	size_t stride = ewb_thread_count();

	for (size_t i = ewb_thread_index(); i < n; i += stride)
		x[i] = fabsf(x[i]);
}

__global__ void
ewb_abs_f32x4(float *x, size_t n)
{
	size_t i = ewb_thread_index() * 4;

	if (i + 4 <= n) {
		float4 v = *(const float4 *)(x + i);

		*(float4 *)(x + i) =
		    make_float4(fabsf(v.x), fabsf(v.y), fabsf(v.z), fabsf(v.w));
	} else
		ewb_partial_group<4>(i, n,
		    [=](size_t j) { x[j] = fabsf(x[j]); });
}

/* The generic form: Op is a functor type with a __device__ float
 * operator()(float) const, so the compiler inlines it; a host function
 * pointer could not be called from device code at all. */
template <typename Op>
static __device__ __forceinline__ void
map_inplace(float *x, size_t n)
{
	size_t i = ewb_thread_index();

	if (i < n)
		x[i] = Op()(x[i]);
}

struct abs_op {
	__device__ float operator()(float v) const { return fabsf(v); }
};

__global__ void
ewb_abs_f32_functor(float *x, size_t n)
{
	map_inplace<abs_op>(x, n);
}

/*
 * add.cu - c[i] = a[i] + b[i] in fp32 and fp16, one kernel per technique.
 *
 * Each thread of a non-looping kernel owns a group of consecutive elements
 * (1, 2, 4 or 8).  A full group goes through the variant's wide loads; the
 * one partial group at the end of the array, if any, is done an element at
 * a time by the thread that owns it, so any n works in one launch.
 */
#include "common.cuh"

static __device__ __forceinline__ float
add1(float x, float y)
{
	return x + y;
}

static __device__ __forceinline__ __half
add1(__half x, __half y)
{
	return __hadd(x, y);
}

/* The partial last group of a thread owning Width elements from i. */
template <unsigned Width, typename T>
static __device__ __forceinline__ void
add_tail(const T *a, const T *b, T *c, size_t i, size_t n)
{
	ewb_partial_group<Width>(i, n,
	    [=](size_t j) { c[j] = add1(a[j], b[j]); });
}

__global__ void
ewb_add_f32(const float *a, const float *b, float *c, size_t n)
{
	size_t i = ewb_thread_index();

	if (i < n)
		c[i] = a[i] + b[i];
}

__global__ void
ewb_add_f32x4(const float *a, const float *b, float *c, size_t n)
{
	size_t i = ewb_thread_index() * 4;

	if (i + 4 <= n) {
		float4 x = *(const float4 *)(a + i);
		float4 y = *(const float4 *)(b + i);

		*(float4 *)(c + i) =
		    make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
	} else
		add_tail<4>(a, b, c, i, n);
}

__global__ void
ewb_add_f32x4_grid(const float *a, const float *b, float *c, size_t n)
{
	size_t vectors = n / 4, stride = ewb_thread_count();

	for (size_t v = ewb_thread_index(); v < vectors; v += stride) {
		float4 x = ((const float4 *)a)[v];
		float4 y = ((const float4 *)b)[v];

		((float4 *)c)[v] =
		    make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
	}
	/* The n % 4 elements past the last float4, one per thread. */
	for (size_t i = vectors * 4 + ewb_thread_index(); i < n; i += stride)
		c[i] = a[i] + b[i];
}

__global__ void
ewb_add_f16(const __half *a, const __half *b, __half *c, size_t n)
{
	size_t i = ewb_thread_index();

	if (i < n)
		c[i] = __hadd(a[i], b[i]);
}

__global__ void
ewb_add_f16x2(const __half *a, const __half *b, __half *c, size_t n)
{
	size_t i = ewb_thread_index() * 2;

	if (i + 2 <= n) {
		*(__half2 *)(c + i) =
		    __hadd2(*(const __half2 *)(a + i), *(const __half2 *)(b + i));
	} else
		add_tail<2>(a, b, c, i, n);
}

/* Eight halves as four independent 32-bit half2 loads per operand, all
 * issued before the first add. */
__global__ void
ewb_add_f16x8(const __half *a, const __half *b, __half *c, size_t n)
{
	size_t i = ewb_thread_index() * 8;

	if (i + 8 <= n) {
		const __half2	*a2 = (const __half2 *)(a + i);
		const __half2	*b2 = (const __half2 *)(b + i);
		__half2		*c2 = (__half2 *)(c + i);
		__half2		 x[4], y[4];

#pragma unroll
		for (int k = 0; k < 4; k++) {
			x[k] = a2[k];
			y[k] = b2[k];
		}
#pragma unroll
		for (int k = 0; k < 4; k++)
			c2[k] = __hadd2(x[k], y[k]);
	} else
		add_tail<8>(a, b, c, i, n);
}

/* Eight halves as one 128-bit load per operand into a register array, four
 * half2 adds, one 128-bit store. */
__global__ void
ewb_add_f16x8_pack(const __half *a, const __half *b, __half *c, size_t n)
{
	size_t i = ewb_thread_index() * 8;

	if (i + 8 <= n) {
		alignas(16) __half2	x[4], y[4], z[4];

		*(uint4 *)x = *(const uint4 *)(a + i);
		*(uint4 *)y = *(const uint4 *)(b + i);
#pragma unroll
		for (int k = 0; k < 4; k++)
			z[k] = __hadd2(x[k], y[k]);
		*(uint4 *)(c + i) = *(const uint4 *)z;
	} else
		add_tail<8>(a, b, c, i, n);
}

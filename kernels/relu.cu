/*
 * relu.cu - c[i] = max(a[i], 0) in fp32, out of place.
 *
 * Negative inputs, -0.0f and NaN give +0.0f: the comparison form, not
 * fmaxf, whose sign of zero is not specified.
 */
#include "common.cuh"

static __device__ __forceinline__ float
relu1(float x)
{
	return x > 0.0f ? x : 0.0f;
}

__global__ void
ewb_relu_f32(const float *a, float *c, size_t n)
{
	size_t i = ewb_thread_index();

	if (i < n)
		c[i] = relu1(a[i]);
}

/* One float4 per thread; the thread owning the partial last group does it
 * an element at a time. */
__global__ void
ewb_relu_f32x4(const float *a, float *c, size_t n)
{
	size_t i = ewb_thread_index() * 4;

	if (i + 4 <= n) {
		float4 x = *(const float4 *)(a + i);

		*(float4 *)(c + i) =
		    make_float4(relu1(x.x), relu1(x.y), relu1(x.z), relu1(x.w));
	} else
		ewb_partial_group<4>(i, n,
		    [=](size_t j) { c[j] = relu1(a[j]); });
}

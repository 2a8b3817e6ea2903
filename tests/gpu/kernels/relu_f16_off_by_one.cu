/*
 * relu_f16_off_by_one.cu - relu_f32_off_by_one.cu in fp16: `i <= n`
 * stores element n, past the end.
 */
#include <cuda_fp16.h>

extern "C" __global__ void
relu_f16_off_by_one(const __half *a, __half *c, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i <= n)				/* the bug: <= */
		c[i] = __hgt(a[i], __float2half(0.0f)) ? a[i] :
		    __float2half(0.0f);
}

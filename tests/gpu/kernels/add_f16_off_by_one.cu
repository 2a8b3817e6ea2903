/*
 * add_f16_off_by_one.cu - add_f32_off_by_one.cu in fp16: `i <= n` stores
 * element n, past the end.
 */
#include <cuda_fp16.h>

extern "C" __global__ void
add_f16_off_by_one(const __half *a, const __half *b, __half *c, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i <= n)				/* the bug: <= */
		c[i] = __hadd(a[i], b[i]);
}

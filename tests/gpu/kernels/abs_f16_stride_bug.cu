/*
 * abs_f16_stride_bug.cu - abs_f32_stride_bug.cu in fp16: the loop tests
 * its counter, not the element index, against n, and writes |x| over up
 * to block - 1 elements past the end (the guard).
 */
#include <cuda_fp16.h>

extern "C" __global__ void
abs_f16_stride_bug(__half *x, size_t n)
{
	size_t start = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t k = 0; k < n; k += stride)	/* the bug: k, not start + k */
		x[start + k] = __habs(x[start + k]);
}

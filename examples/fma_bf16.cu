/*
 * fma_bf16.cu - a fused op of your own: out = a * b + c over three bf16
 * inputs, two elements per thread through __nv_bfloat162 and __hfma2 (one
 * rounding), the odd last element alone.  What it should compute is
 * examples/fma_bf16_ref.cu's kernel, which rounds twice (the float sum,
 * then bf16): the two may differ by one unit in the last place, which
 * --ulps 1 allows.
 *
 *   ewbench check --kernel examples/fma_bf16.cu \
 *       --reference examples/fma_bf16_ref.cu --ulps 1 --elems-per-thread 2
 *
 * Bytes per element: three inputs read and one output written, 4 x 2 = 8
 * (as relu_f32 and abs_f32 move).
 */
#include <cuda_bf16.h>

extern "C" __global__ void
fma_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
    const __nv_bfloat16 *c, __nv_bfloat16 *out, size_t n)
{
	size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 2;

	if (i + 2 <= n) {
		__nv_bfloat162 x = *(const __nv_bfloat162 *)(a + i);
		__nv_bfloat162 y = *(const __nv_bfloat162 *)(b + i);
		__nv_bfloat162 z = *(const __nv_bfloat162 *)(c + i);

		*(__nv_bfloat162 *)(out + i) = __hfma2(x, y, z);
	} else if (i < n)
		out[i] = __hfma(a[i], b[i], c[i]);
}

/*
 * fma_bf16_overrun.cu - examples/fma_bf16.cu with a published kind of
 * bug: the pair is stored whenever its first element is inside, so at an
 * odd n the second half of the last pair lands past the end of the
 * output.  The check names the guard it wrote into:
 *
 *   ewbench check --kernel examples/fma_bf16_overrun.cu \
 *       --reference examples/fma_bf16_ref.cu --ulps 1 \
 *       --elems-per-thread 2 -s 1000003
 */
#include <cuda_bf16.h>

extern "C" __global__ void
fma_bf16_overrun(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
    const __nv_bfloat16 *c, __nv_bfloat16 *out, size_t n)
{
	size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 2;

	if (i < n) {		/* BUG: i + 1 may be n */
		__nv_bfloat162 x = __halves2bfloat162(a[i],
		    i + 1 < n ? a[i + 1] : a[i]);
		__nv_bfloat162 y = __halves2bfloat162(b[i],
		    i + 1 < n ? b[i + 1] : b[i]);
		__nv_bfloat162 z = __halves2bfloat162(c[i],
		    i + 1 < n ? c[i + 1] : c[i]);

		*(__nv_bfloat162 *)(out + i) = __hfma2(x, y, z);
	}
}

/* a * b + c in bf16, three inputs (--elementwise): one rounding, as
 * examples/fma_bf16.cu's __hfma2, so its reference,
 * examples/fma_bf16_ref.cu (float, then bf16: two roundings), checks it
 * with --ulps 1, as it checks that kernel.  bf16 arithmetic needs sm_80
 * or newer. */
#include <cuda_bf16.h>

__device__ __nv_bfloat16
fma3(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c)
{
	return __hfma(a, b, c);
}

/* a * b + c in bf16, three inputs (--elementwise). */
#include <cuda_bf16.h>

__device__ __nv_bfloat16
fma3(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c)
{
	return __hfma(a, b, c);
}

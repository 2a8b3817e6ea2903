/*
 * fma_bf16_ref.cu - the reference of examples/fma_bf16.cu: what out = a *
 * b + c means, written plainly: one element per thread, in float, rounded
 * to bf16 once at the end.  ewbench runs it one thread per element on the
 * same inputs and checks the kernel's every element against its output.
 */
#include <cuda_bf16.h>

extern "C" __global__ void
fma_bf16_ref(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
    const __nv_bfloat16 *c, __nv_bfloat16 *out, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = __float2bfloat16(__bfloat162float(a[i]) *
		    __bfloat162float(b[i]) + __bfloat162float(c[i]));
}

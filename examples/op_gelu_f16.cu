/* The tanh GELU in f16, as a per-element function (--elementwise):
 * 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), computed in float
 * and rounded to f16 once.  Checked against itself, run one thread per
 * element (ewbench has no GELU of its own). */
#include <cuda_fp16.h>

__device__ __half
gelu(__half h)
{
	float x = __half2float(h);
	float inner = 0.7978845608f * (x + 0.044715f * x * x * x);

	return __float2half(0.5f * x * (1.0f + tanhf(inner)));
}

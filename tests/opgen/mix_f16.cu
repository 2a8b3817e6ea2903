/* Four f16 inputs, and a second __device__ function it calls: the op is
 * named on the command line (mix_f16.cu:mix4). */
#include <cuda_fp16.h>

__device__ __half
twice(__half x)
{
	return __hadd(x, x);
}

__device__ __half
mix4(__half a, __half b, __half c, __half d)
{
	return __hadd(__hmul(a, b), __hsub(twice(c), d));
}

/*
 * silu_f32.cu - SiLU, x / (1 + e^-x), with a relu's signature: three
 * parameters, so that without --op or --reference ewbench takes it for a
 * relu.  tests/gpu/user-kernel.sh: its check fails by value and says that
 * its op was a guess from the parameters, and to give --reference.
 */
extern "C" __global__ void
silu_f32(const float *x, float *y, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = x[i] / (1.0f + __expf(-x[i]));
}

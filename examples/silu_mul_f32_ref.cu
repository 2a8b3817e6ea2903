/*
 * silu_mul_f32_ref.cu - the reference of examples/silu_mul_f32.cu:
 * SiLU(a) * b = a / (1 + e^-a) * b, one element per thread, with expf.
 */
extern "C" __global__ void
silu_mul_f32_ref(const float *a, const float *b, float *out, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = a[i] / (1.0f + expf(-a[i])) * b[i];
}

/*
 * silu_mul_wrong.cu - a wrong formula: the sigmoid of a times b, the x
 * of SiLU(x) = x * sigmoid(x) forgotten.  Every element whose a is not 1
 * (within the tolerance) is wrong, and the
 * check against examples/silu_mul_f32_ref.cu names the first:
 *
 *   ewbench check --kernel examples/silu_mul_wrong.cu \
 *       --reference examples/silu_mul_f32_ref.cu --rel 1e-5
 */
extern "C" __global__ void
silu_mul_wrong(const float *a, const float *b, float *out, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = 1.0f / (1.0f + expf(-a[i])) * b[i];	/* BUG */
}

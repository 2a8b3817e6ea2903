/* The reference of sqrt_skip_nan.cu: sqrt, NaN for negative inputs. */
__global__ void
sqrt_out_ref(const float *a, float *out, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = sqrtf(a[i]);
}

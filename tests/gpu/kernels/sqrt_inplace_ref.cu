/* The reference of sqrt_inplace.cu: sqrt in place, NaN for negatives. */
__global__ void
sqrt_inplace_ref(float *x, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = sqrtf(x[i]);
}

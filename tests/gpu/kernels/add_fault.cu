/*
 * add_fault.cu - a correct add but for its last block, whose first
 * thread stores 2^36 elements past the end of its output: an illegal
 * address on any GPU (256 GiB past the array).  tests/gpu/user-kernel.sh:
 * the run ends naming the point, its size and block, and the
 * compute-sanitizer command that finds the store.
 */
extern "C" __global__ void
add_fault(const float *a, const float *b, float *c, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		c[i] = a[i] + b[i];
	if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0)
		c[n + ((size_t)1 << 36)] = 0.0f;
}

/*
 * relu_f32_off_by_one.cu - `i <= n`: the thread of index n, which exists
 * whenever n is not a multiple of the block, stores relu(a[n]) into
 * element n, past the end.  Whatever a[n] holds, the two-pass guard sees
 * the store (src/base/guard.c).  Scalar, so that it runs with --misalign too.
 */
extern "C" __global__ void
relu_f32_off_by_one(const float *a, float *c, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i <= n)				/* the bug: <= */
		c[i] = a[i] > 0.0f ? a[i] : 0.0f;
}

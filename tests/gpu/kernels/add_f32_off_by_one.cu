/*
 * add_f32_off_by_one.cu - `i <= n`: stores a[n] + b[n] into element n,
 * past the end, whatever the inputs past their end hold.  Scalar, so that
 * it runs with --misalign too (add_overrun.cu's float4 would fault there).
 */
extern "C" __global__ void
add_f32_off_by_one(const float *a, const float *b, float *c, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i <= n)				/* the bug: <= */
		c[i] = a[i] + b[i];
}

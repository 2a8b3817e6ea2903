/*
 * add_broken.cu - does not compile: ewbench stops with exit status 2 and
 * NVRTC's message, file and line as the compiler wrote them:
 *
 *   ewbench run --kernel examples/add_broken.cu --op add
 */
extern "C" __global__ void
add_broken(const float *a, const float *b, float *c, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		c[i] = a[i] + b[i]	/* the semicolon is missing */
}

/*
 * add_overrun.cu - writes past the end of its output: four elements per
 * thread through float4 whenever the group starts inside the array, so
 * at n = 1000003 the last group stores element 1000003 (n + 0), which
 * is not its.  tests/gpu/user-kernel.sh: the check's guard region must
 * catch it, and compute-sanitizer (with --no-guard) name the store.
 */
extern "C" __global__ void
add_overrun(const float *a, const float *b, float *c, size_t n)
{
	size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 4;

	if (i < n) {
		float4 x = *(const float4 *)(a + i);
		float4 y = *(const float4 *)(b + i);

		*(float4 *)(c + i) =
		    make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
	}
}

/*
 * add_tail_bug.cu - a classic tail bug: four elements per thread through
 * float4, and no code for the n % 4 elements past the last full group.
 * At n = 1000003 elements 1000000..1000002 are never written, and
 * ewbench's check names the first of them:
 *
 *   ewbench check --kernel examples/add_tail_bug.cu --op add \
 *       --elems-per-thread 4 -s 1000003
 */
extern "C" __global__ void
add_tail_bug(const float *a, const float *b, float *c, size_t n)
{
	size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 4;

	if (i + 4 <= n) {
		float4 x = *(const float4 *)(a + i);
		float4 y = *(const float4 *)(b + i);

		*(float4 *)(c + i) =
		    make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
	}
	/* missing: the last n % 4 elements */
}

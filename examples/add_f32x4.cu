/*
 * add_f32x4.cu - c = a + b in fp32, four elements per thread through one
 * 128-bit load per operand: the technique of ewbench's add_f32x4, written
 * as a user kernel, so the two can be compared on one GPU.
 *
 *   ewbench run --kernel examples/add_f32x4.cu --op add --dtype f32 \
 *       --elems-per-thread 4 --kernel-block 64 -v add_f32x4
 */
extern "C" __global__ void
add_f32x4_user(const float *a, const float *b, float *c, size_t n)
{
	size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 4;

	if (i + 4 <= n) {
		float4 x = *(const float4 *)(a + i);
		float4 y = *(const float4 *)(b + i);

		*(float4 *)(c + i) =
		    make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
	} else {
		/* The partial group at the end: up to three elements. */
#pragma unroll
		for (unsigned k = 0; k < 3; k++)
			if (i + k < n)
				c[i + k] = a[i + k] + b[i + k];
	}
}

/*
 * silu_mul_f32.cu - SiLU(a) * b, the gate of a SwiGLU MLP, with the fast
 * intrinsics (__expf, __fdividef: a few ulps off expf and '/'), four
 * elements per thread through float4 and a scalar tail.  Its reference,
 * examples/silu_mul_f32_ref.cu, uses expf and '/'; --rel 1e-5 is the
 * tolerance the intrinsics need over the inputs' range (|a| < 8).
 *
 *   ewbench check --kernel examples/silu_mul_f32.cu \
 *       --reference examples/silu_mul_f32_ref.cu --rel 1e-5 \
 *       --elems-per-thread 4
 *
 * Bytes per element: two inputs and one output, 3 x 4 = 12 (as add_f32).
 */
__device__ static inline float
silu_mul(float x, float y)
{
	return __fdividef(x, 1.0f + __expf(-x)) * y;
}

extern "C" __global__ void
silu_mul_f32(const float *a, const float *b, float *out, size_t n)
{
	size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 4;

	if (i + 4 <= n && ((size_t)a | (size_t)b | (size_t)out) % 16 == 0) {
		float4 x = *(const float4 *)(a + i);
		float4 y = *(const float4 *)(b + i);

		*(float4 *)(out + i) = make_float4(silu_mul(x.x, y.x),
		    silu_mul(x.y, y.y), silu_mul(x.z, y.z),
		    silu_mul(x.w, y.w));
		return;
	}
	for (size_t k = i; k < i + 4 && k < n; k++)
		out[k] = silu_mul(a[k], b[k]);
}

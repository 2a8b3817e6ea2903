/* SiLU(a) * b in f32, two inputs, as a per-element function
 * (--elementwise): the same intrinsics as examples/silu_mul_f32.cu, so
 * its reference, examples/silu_mul_f32_ref.cu (expf and '/'), checks it
 * with --rel 1e-5, as it checks that kernel. */
__device__ float
silu_mul(float a, float b)
{
	return __fdividef(a, 1.0f + __expf(-a)) * b;
}

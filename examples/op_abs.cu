/* |x| as a per-element function (--elementwise): fabsf clears the sign
 * bit and nothing else, as abs_f32. */
__device__ float
absolute(float x)
{
	return fabsf(x);
}

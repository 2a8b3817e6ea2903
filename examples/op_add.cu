/* c = a + b, as a per-element function (--elementwise). */
__device__ float
add(float a, float b)
{
	return a + b;
}

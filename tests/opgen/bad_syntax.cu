/* Does not compile: a missing semicolon. */
__device__ float
inc(float x)
{
	return x + 1.0f
}

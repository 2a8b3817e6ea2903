/* Not an op ewbench generates: an int function. */
__device__ int
twice(int x)
{
	return 2 * x;
}

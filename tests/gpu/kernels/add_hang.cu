/*
 * add_hang.cu - never returns: every thread sleeps in a loop whose exit
 * depends on a value no one writes.  tests/gpu/user-kernel.sh: the
 * watchdog must stop the run, exit 1, and keep the complete rows.
 */
extern "C" __global__ void
add_hang(const float *a, const float *b, float *c, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	/* a[0] is finite and non-zero (ewbench's inputs), so never NaN. */
	while (!(*(volatile const float *)a != *(volatile const float *)a))
		__nanosleep(1000);
	if (i < n)
		c[i] = a[i] + b[i];
}

/*
 * add_offset.cu - c = a + b in fp32, one element a thread, with the
 * threads shifted by one element (thread t takes element t + 1, thread 0
 * also element 0), as a kernel that skips a header element does: every
 * warp's 128 bytes start 4 bytes past a 32-byte sector, so a warp load
 * touches 5 sectors where 4 would do.  Correct at every size.
 *
 *   ewbench run --kernel examples/add_offset.cu -s 16Mi,256Mi --cache warm \
 *       -o offset
 *
 * What it should show (tests/gpu/user-faults.sh asserts the counters):
 * 5.0 sectors per global load and store request where 4 would do, the
 * geometry of "misaligned access".  Whether that is its verdict depends
 * on what the extra sector costs: the neighbouring warp of the same block
 * reads the same sector, which L1 may serve; when ewbench's aligned add
 * runs no faster beyond the noise and 3 %, and L2 sees no more sectors,
 * the fault is not its cause, and the verdict is the aligned add's.
 */
extern "C" __global__ void
add_offset(const float *a, const float *b, float *c, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x + 1;

	if (i < n)
		c[i] = a[i] + b[i];
	if (i == 1 && n > 0)
		c[0] = a[0] + b[0];
}

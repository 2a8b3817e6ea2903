/*
 * add_few_blocks.cu - c = a + b in fp32 by a grid-stride loop, the shape
 * of a persistent kernel, launched with far fewer blocks than the GPU
 * holds: each thread loops over the array with the grid's stride, so the
 * grid's size, not the kernel, sets how many loads are in flight.
 * ewbench sizes the grid from --elems-per-thread: 1024 elements a thread
 * at block 256 is 64 blocks at 16Mi, where an H100 or H200 holds 8 blocks
 * of 256 threads on each of its 132 SMs (1056).
 *
 *   ewbench run --kernel examples/add_few_blocks.cu --elems-per-thread 1024 \
 *       -s 16Mi --cache warm -o few
 *
 * The verdict it should get (tests/gpu/user-faults.sh asserts it):
 * "grid-limited": its grid against SMs x resident blocks, and a fix
 * (more blocks: --elems-per-thread 4, or a grid sized to the GPU)
 * predicted by Little's law, in proportion to the resident blocks, up to
 * the DRAM ceiling.
 */
extern "C" __global__ void
add_few_blocks(const float *a, const float *b, float *c, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	    i += stride)
		c[i] = a[i] + b[i];
}

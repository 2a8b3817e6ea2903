/*
 * add_low_occupancy.cu - c = a + b in fp32, one element a thread, each
 * staged through a block's 48 KiB static shared tile it does not need: the
 * tile limits a Hopper SM (228 KiB of shared memory) to 4 resident blocks,
 * 512 of its 2048 threads at block 128, so a quarter of the loads that
 * could be in flight are.
 *
 *   ewbench run --kernel examples/add_low_occupancy.cu --kernel-block 128 \
 *       --block 128,256,512 -s 256Mi --cache warm -o low
 *
 * The verdict it should get (tests/gpu/user-faults.sh asserts it):
 * "occupancy-bound" at block 128 (achieved occupancy, sm__warps_active,
 * under 50 %).  Its theoretical occupancy (25 %: 4 blocks) is below what
 * the SM's thread and block limits and its 14 registers allow (16), so
 * the model takes the tile for a per-block resource: blocks of 256 and
 * 512 threads keep 4 resident blocks of twice and four times the
 * threads, and the experiment (block xK, predicted from the concurrency
 * curve at those threads, and scored) finds the rise the verdict says:
 * on an H200 1802 and 2827 GB/s against 1025, predicted 2209 and 3231
 * (tests/python/test_low_occupancy.py).
 */
#define TILE	12288		/* floats: 48 KiB, the most a static array may */

extern "C" __global__ void
add_low_occupancy(const float *a, const float *b, float *c, size_t n)
{
	__shared__ float tile[TILE];
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned slot = threadIdx.x * (TILE / 1024);

	if (i < n)
		tile[slot] = a[i] + b[i];
	__syncthreads();
	if (i < n)
		c[i] = tile[slot];
}

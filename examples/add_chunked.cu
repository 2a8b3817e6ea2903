/*
 * add_chunked.cu - c = a + b in fp32 the way a CPU loop is split across
 * threads: each thread owns CHUNK consecutive elements and walks them.
 * Correct at every size; slow on a GPU, because the 32 threads of a warp
 * load addresses CHUNK x 4 = 128 bytes apart, so one warp load touches 32
 * sectors of 32 bytes where the 128 bytes it asks for need 4.
 *
 *   ewbench run --kernel examples/add_chunked.cu --elems-per-thread 32 \
 *       -s 16Mi,256Mi --cache warm -o chunked
 *
 * The verdict it should get (tests/gpu/user-faults.sh asserts it):
 * "uncoalesced access" at 256Mi: its counters show 32 sectors per global
 * load request where 4 would do (l1tex__t_sectors_pipe_lsu_mem_global_op_ld
 * over l1tex__t_requests_pipe_lsu_mem_global_op_ld), and ewbench's own
 * coalesced adds, run beside it, are faster; the fix (thread i takes
 * element i, a grid-stride loop over the rest: add_f32) predicts their
 * bandwidth.
 */
#define CHUNK	32

extern "C" __global__ void
add_chunked(const float *a, const float *b, float *c, size_t n)
{
	size_t first = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * CHUNK;

	for (size_t i = first; i < first + CHUNK && i < n; i++)
		c[i] = a[i] + b[i];
}

/*
 * ceilings_launch.cu - launch cost (an empty kernel) and block launch
 * rate (blocks that do almost nothing).
 */
#include <climits>

#include "ceilings.cuh"

__global__ void
ewb_ceil_empty_kernel(void)
{
}

/* Every thread tests what no block passes (never is past the last block
 * index): work the compiler cannot remove that costs almost nothing. */
__global__ void
ewb_ceil_blocks_kernel(unsigned *sink, unsigned never)
{
	if (threadIdx.x == 0 && blockIdx.x == never)
		sink[0] = never;
}

extern "C" cudaError_t
ewb_ceil_empty(cudaStream_t stream)
{
	ewb_ceil_empty_kernel<<<1, 1, 0, stream>>>();
	return cudaGetLastError();
}

extern "C" cudaError_t
ewb_ceil_blocks(unsigned blocks, unsigned threads, unsigned *sink,
    cudaStream_t stream)
{
	if (sink == NULL || blocks == 0 || blocks > EWB_MAX_GRID ||
	    threads == 0 || threads > 1024)
		return cudaErrorInvalidValue;
	ewb_ceil_blocks_kernel<<<blocks, threads, 0, stream>>>(sink,
	    UINT_MAX);
	return cudaGetLastError();
}

/*
 * compare.cu - the device half of the correctness check.
 *
 * The CPU computes the expected output (reference.c) once per op, dtype,
 * size and input; it is uploaded once and every variant's output is
 * compared with it here, element by element, by the rule reference.c
 * uses: both widened to float, equal by value (NaN never equals anything;
 * -0 equals +0).  Only the verdict comes back: how many elements differ,
 * and the first that does.
 */
#include "common.cuh"

#include <cuda_fp16.h>

#define COMPARE_BLOCK	256u

__device__ static inline float
widen(const void *p, size_t i, bool half)
{
	if (half)
		return __half2float(((const __half *)p)[i]);
	return ((const float *)p)[i];
}

__global__ void
ewb_compare_kernel(const void *got, const void *expected, size_t n, bool half,
    struct ewb_compare_result *result)
{
	size_t	stride = ewb_thread_count(), i, first = ~(size_t)0;
	unsigned long long bad = 0;

	for (i = ewb_thread_index(); i < n; i += stride) {
		if (!(widen(got, i, half) == widen(expected, i, half))) {
			if (bad++ == 0)
				first = i;
		}
	}
	if (bad == 0)
		return;
	atomicAdd(&result->bad_count, bad);
	atomicMin(&result->first_index, (unsigned long long)first);
}

extern "C" cudaError_t
ewb_compare(const void *got, const void *expected, size_t n,
    enum ewb_dtype dtype, struct ewb_compare_result *result,
    cudaStream_t stream)
{
	struct ewb_shape	s;
	cudaError_t		e;

	/* No mismatch yet: a count of 0 and the largest index. */
	if ((e = cudaMemsetAsync(&result->bad_count, 0,
	    sizeof result->bad_count, stream)) != cudaSuccess ||
	    (e = cudaMemsetAsync(&result->first_index, 0xff,
	    sizeof result->first_index, stream)) != cudaSuccess)
		return e;
	s = ewb_shape_cover(n, 1, COMPARE_BLOCK);
	if (s.grid > EWB_MAX_GRID)
		s.grid = EWB_MAX_GRID;
	ewb_compare_kernel<<<(unsigned)s.grid, s.block, 0, stream>>>(got,
	    expected, n, dtype == EWB_F16, result);
	return cudaGetLastError();
}

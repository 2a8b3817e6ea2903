/*
 * compare.cu - the device half of the correctness check.
 *
 * The expected output is computed once per op, dtype, size and input: by
 * the CPU for the built-in ops (reference.c), uploaded once; by the user's
 * reference kernel on the GPU for a user's op (checker.c).  Every
 * variant's output is compared with it here, element by element, by the
 * rule of src/base/tolerance.h (the built-in ops: both widened to float, equal
 * by value, NaN never equal, -0 equal to +0).  Only the verdict comes
 * back: how many elements differ, and the first that does.
 */
#include "common.cuh"
#include "src/base/tolerance.h"

#define COMPARE_BLOCK	256u

__device__ static inline uint32_t
bits_at(const void *p, size_t i, enum ewb_dtype dtype)
{
	if (dtype == EWB_F32)
		return ((const uint32_t *)p)[i];
	return ((const uint16_t *)p)[i];
}

__global__ void
ewb_compare_kernel(const void *got, const void *expected, size_t n,
    enum ewb_dtype dtype, struct ewb_tolerance tol, bool tolerant,
    struct ewb_compare_result *result)
{
	size_t	stride = ewb_thread_count(), i, first = ~(size_t)0;
	unsigned long long bad = 0;

	for (i = ewb_thread_index(); i < n; i += stride) {
		if (!tolerance_passes(bits_at(got, i, dtype),
		    bits_at(expected, i, dtype), dtype, tolerant ? &tol :
		    NULL)) {
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
    enum ewb_dtype dtype, const struct ewb_tolerance *tol,
    struct ewb_compare_result *result, cudaStream_t stream)
{
	struct ewb_tolerance	none = { 0, 0, false, 0, 0 };
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
	    expected, n, dtype, tol != NULL ? *tol : none, tol != NULL,
	    result);
	return cudaGetLastError();
}

/*
 * fill.cu - the GPU twin of fill_random (src/base/fill.c): the same values,
 * written on the device, so inputs need no upload.  Both take their bits
 * from src/base/fill-bits.h; tests/gpu/test-compare checks the buffers are
 * identical.
 */
#include "common.cuh"
#include "src/base/fill-bits.h"

#define FILL_BLOCK	256u

template <typename T, T (*Bits)(uint32_t)>
__global__ void
ewb_fill_kernel(T *out, size_t n, uint64_t seed)
{
	size_t	draws = (n + 1) / 2, stride = ewb_thread_count(), k;

	for (k = ewb_thread_index(); k < draws; k += stride) {
		uint64_t r = mix64(seed + (k + 1) * GOLDEN_GAMMA);

		out[2 * k] = Bits((uint32_t)r);
		if (2 * k + 1 < n)
			out[2 * k + 1] = Bits((uint32_t)(r >> 32));
	}
}

extern "C" cudaError_t
ewb_fill_random(void *buf, enum ewb_dtype dtype, size_t n, uint64_t seed,
    cudaStream_t stream)
{
	struct ewb_shape	s = ewb_shape_cover((n + 1) / 2, 1, FILL_BLOCK);

	if (n == 0)
		return cudaSuccess;
	if (s.grid > EWB_MAX_GRID)
		s.grid = EWB_MAX_GRID;
	/* Element bits as unsigned words: no float conversion on the way. */
	switch (dtype) {
	case EWB_F32:
		ewb_fill_kernel<uint32_t, fill_f32_bits><<<(unsigned)s.grid,
		    s.block, 0, stream>>>((uint32_t *)buf, n, seed);
		break;
	case EWB_F16:
		ewb_fill_kernel<uint16_t, fill_f16_bits><<<(unsigned)s.grid,
		    s.block, 0, stream>>>((uint16_t *)buf, n, seed);
		break;
	case EWB_BF16:
		ewb_fill_kernel<uint16_t, fill_bf16_bits><<<(unsigned)s.grid,
		    s.block, 0, stream>>>((uint16_t *)buf, n, seed);
		break;
	}
	return cudaGetLastError();
}

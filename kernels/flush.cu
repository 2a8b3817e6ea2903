/*
 * flush.cu - evict the benchmark's lines from L2 by writing a buffer larger
 * than it, in one launch.
 */
#include "common.cuh"

#define FLUSH_BLOCK	256u

/* 16-byte stores for the aligned body; the bytes before the first and
 * after the last 16-byte boundary one at a time. */
__global__ void
ewb_l2_flush_kernel(unsigned char *buf, size_t bytes, unsigned value)
{
	size_t	 stride = ewb_thread_count(), i;
	size_t	 head = (16 - (uintptr_t)buf % 16) % 16;
	size_t	 words, tail_from, edges;
	uint4	*body;

	if (head > bytes)
		head = bytes;
	words = (bytes - head) / 16;
	body = (uint4 *)(buf + head);
	for (i = ewb_thread_index(); i < words; i += stride)
		body[i] = make_uint4(value, value, value, value);

	tail_from = head + words * 16;
	edges = head + (bytes - tail_from);
	for (i = ewb_thread_index(); i < edges; i += stride)
		buf[i < head ? i : tail_from + (i - head)] = (unsigned char)value;
}

extern "C" cudaError_t
ewb_l2_flush(void *buf, size_t bytes, cudaStream_t stream)
{
	/* A new value each call, so no write is a no-op. */
	static unsigned		calls;
	struct ewb_shape	s;

	if (buf == NULL || bytes == 0)
		return cudaErrorInvalidValue;
	s = ewb_shape_cover(bytes / 16 + 16, 1, FLUSH_BLOCK);
	if (s.grid > EWB_MAX_GRID)
		s.grid = EWB_MAX_GRID;
	calls++;
	ewb_l2_flush_kernel<<<(unsigned)s.grid, s.block, 0, stream>>>(
	    (unsigned char *)buf, bytes, 0x01010101u * (calls & 0xff));
	return cudaGetLastError();
}

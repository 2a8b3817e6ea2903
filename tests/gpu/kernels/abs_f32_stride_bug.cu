/*
 * abs_f32_stride_bug.cu - the tutorial's grid-stride abs with its bug: the
 * loop tests its counter, not the element index, against n.  Under
 * ewbench's grid (one thread per element, rounded up to whole blocks)
 * every thread of the last block runs the first iteration, so the kernel
 * writes |x| over the elements after the end, up to block - 1 of them.
 * Past the end lies the check's guard, which it reads and writes back as
 * |guard|: a positive guard came back unchanged (issue 31); the guard's
 * negative poisons (src/base/guard.c) change.  tests/gpu/user-kernel.sh and,
 * on the GPU stand-in, tests/overrun.sh.
 */
extern "C" __global__ void
abs_f32_stride_bug(float *x, size_t n)
{
	size_t start = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t k = 0; k < n; k += stride)	/* the bug: k, not start + k */
		x[start + k] = fabsf(x[start + k]);
}

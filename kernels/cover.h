/*
 * cover.h - the grid that covers n elements, one definition for C and
 * CUDA (host and device code): one thread per group of per_thread
 * consecutive elements, the last group possibly partial, block threads a
 * block.  The launchers shape their grids with it (common.cuh, a user's
 * kernel in src/userkernel/, an --elementwise family in src/opgen/), the
 * plan judges with it which launches fit (src/run/plan.c), and the
 * device templates count their tiles with it (tiles.cuh).  NVRTC compiles
 * it too (embedded beside tiles.cuh): it includes nothing.
 */
#ifndef EWB_COVER_H
#define EWB_COVER_H

#ifdef __CUDACC__
#define EWB_HOST_DEVICE	__host__ __device__
#else
#define EWB_HOST_DEVICE
#endif

/* x / y rounded up (y not 0). */
static inline EWB_HOST_DEVICE unsigned long long
ewb_div_up(unsigned long long x, unsigned long long y)
{
	return x / y + (x % y != 0);
}

/* Blocks of block threads that cover n elements at per_thread elements a
 * thread (both not 0); 0 for no elements.  Not capped at EWB_MAX_GRID:
 * the caller judges a grid past it. */
static inline EWB_HOST_DEVICE unsigned long long
ewb_cover_grid(unsigned long long n, unsigned per_thread, unsigned block)
{
	return ewb_div_up(ewb_div_up(n, per_thread), block);
}

/* Elements that grid covers, n rounded up to a whole grid: the launch
 * forms indices 0 to this - 1. */
static inline EWB_HOST_DEVICE unsigned long long
ewb_cover_elems(unsigned long long n, unsigned per_thread, unsigned block)
{
	return ewb_cover_grid(n, per_thread, block) * block * per_thread;
}

#endif

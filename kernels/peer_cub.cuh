/*
 * peer_cub.cuh - whether this build has the cub peer: cub::DeviceTransform
 * came with CCCL 2.8 (CUDA 12.9; CUDA 12.8 bundles CCCL 2.7, and newer
 * CCCL headers put first by NVCCFLAGS=-I... serve a 12.8 nvcc).  Without
 * it the cub rows stay in the table, skipped with EWB_CUB_UNAVAILABLE as
 * the reason, and their launchers are never called.
 */
#ifndef EWB_PEER_CUB_CUH
#define EWB_PEER_CUB_CUH

#include <cuda/std/version>

#if CCCL_VERSION >= 2008000
#define EWB_HAVE_CUB_TRANSFORM	1
#define EWB_CUB_UNAVAILABLE	NULL
#else
#define EWB_HAVE_CUB_TRANSFORM	0
#define EWB_CUB_UNAVAILABLE	"cub::DeviceTransform needs CCCL 2.8 " \
	"(CUDA 12.9, or the CCCL headers)"
#endif

#endif

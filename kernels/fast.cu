/*
 * fast.cu - ewbench's own elementwise kernels, built to run at the DRAM
 * limit on Hopper (docs/kernels.md tells why each is shaped as it is).
 *
 * Every kernel moves data in packets of 16 bytes (four floats, eight
 * halves) and is written once, as a template over the operation and the
 * way memory is accessed; the __global__ functions, one per row of
 * fast.def, only instantiate it (the registry, in another file, needs
 * their addresses, which CUDA 13 does not give for template kernels).
 * ilp_tile, ilp_stride and bulk_tile, and the packet arithmetic, are
 * tiles.cuh's: the templates NVRTC also builds a user's op's family from
 * (family.cuh).
 *
 *  - ilp_tile: a block's tile of K packets per thread per operand; each
 *    thread issues all its loads before it uses any.  The experiments'
 *    probes (probe.def) use it with smaller packets, one 32-bit or 16-bit
 *    word: a study variant's own loads, K times as many per thread.
 *  - ilp_stride: the same tiles in a grid-stride loop over a fixed grid.
 *  - bulk_tile: the same tile (K = Rows), brought into shared memory by
 *    sm_90's 1-D bulk copies (TMA) in two stages, each on its own mbarrier.
 *
 * Each handles any n in the same launch: in the last tile, packets past
 * the array are skipped and the packet that straddles n is done an element
 * at a time.
 */
#include <string.h>

#include "common.cuh"

/* The kernels, one per row of fast.def. */
#define TILE(id, op, K, access, block, technique) \
	__global__ void ILP_REGS \
	ewb_##id(EWB_PARAMS_##op) \
	{ \
		ilp_tile<op##_op, K, access##_access>(EWB_OPERANDS_##op, \
		    blockIdx.x); \
	}
#define STRIDE(id, op, K, access, block, technique) \
	__global__ void ILP_REGS \
	ewb_##id(EWB_PARAMS_##op) \
	{ \
		ilp_stride<op##_op, K, access##_access>(EWB_OPERANDS_##op); \
	}
#define BULK(id, op, K, block, fallback, technique) \
	__global__ void \
	ewb_##id(EWB_PARAMS_##op) \
	{ \
		bulk_tile<op##_op, K, false>(EWB_OPERANDS_##op); \
	}
#define BULK_STORE(id, op, K, block, fallback, technique) \
	__global__ void \
	ewb_##id(EWB_PARAMS_##op) \
	{ \
		bulk_tile<op##_op, K, true>(EWB_OPERANDS_##op); \
	}
#include "fast.def"

/* The experiments' probes, one per row of probe.def. */
#define PROBE(id, op, word, K, block, of, technique) \
	__global__ void ILP_REGS \
	ewb_##id(EWB_PARAMS_##op) \
	{ \
		ilp_tile<op##_op, K, plain_access, word>(EWB_OPERANDS_##op, \
		    blockIdx.x); \
	}
#include "probe.def"

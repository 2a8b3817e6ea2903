/*
 * fast.cu - ewbench's own elementwise kernels, built to run at the DRAM
 * limit on Hopper (docs/kernels.md tells why each is shaped as it is).
 *
 * Every kernel moves data in packets of 16 bytes (four floats, eight
 * halves) and is written once, as a template over the operation and the
 * way memory is accessed; the __global__ functions, one per row of
 * fast.def, only instantiate it (the registry, in another file, needs
 * their addresses, which CUDA 13 does not give for template kernels).
 * ilp_tile and ilp_stride, and the packet arithmetic, are tiles.cuh's:
 * the templates NVRTC also builds a user's op's family from (family.cuh).
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

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/*
 * sm_90's mbarrier and bulk-copy instructions.  A stage's barrier expects
 * one arrival (the leader's) and the bytes of the stage's copies; its
 * phase 0 completes when both are in.
 */
static __device__ __forceinline__ unsigned
smem(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ void
barrier_init(uint64_t *bar)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;"
	    : : "r"(smem(bar)) : "memory");
}

/* Makes the barriers' initialisation visible to the copy engine. */
static __device__ __forceinline__ void
fence_proxy_async(void)
{
	asm volatile("fence.proxy.async.shared::cta;" : : : "memory");
}

/* The leader's arrival, announcing the bytes the copies will bring. */
static __device__ __forceinline__ void
barrier_expect(uint64_t *bar, unsigned bytes)
{
	asm volatile("{\n\t.reg .b64 state;\n\t"
	    "mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n\t}"
	    : : "r"(smem(bar)), "r"(bytes) : "memory");
}

/* Global to shared, `bytes` a multiple of 16, both addresses 16-byte
 * aligned; completes on bar. */
static __device__ __forceinline__ void
bulk_load(void *dst, const void *src, unsigned bytes, uint64_t *bar)
{
	asm volatile("cp.async.bulk.shared::cluster.global."
	    "mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
	    : : "r"(smem(dst)), "l"(__cvta_generic_to_global(src)),
	    "r"(bytes), "r"(smem(bar)) : "memory");
}

/* Shared to global, `bytes` a multiple of 16, both addresses 16-byte
 * aligned, as one bulk group; returns once the copy engine has read the
 * source, so the block may exit and give its shared memory away. */
static __device__ __forceinline__ void
bulk_store(void *dst, const void *src, unsigned bytes)
{
	asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
	    : : "l"(__cvta_generic_to_global(dst)), "r"(smem(src)), "r"(bytes)
	    : "memory");
	asm volatile("cp.async.bulk.commit_group;" : : : "memory");
	asm volatile("cp.async.bulk.wait_group.read 0;" : : : "memory");
}

/* Returns once phase 0 of bar has completed (at once if it already has). */
static __device__ __forceinline__ void
barrier_wait(uint64_t *bar)
{
	unsigned done;

	do {
		asm volatile("{\n\t.reg .pred p;\n\t"
		    "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
		    "selp.u32 %0, 1, 0, p;\n\t}"
		    : "=r"(done) : "r"(smem(bar)) : "memory");
	} while (!done);
}
#endif

/*
 * ilp_tile's tile (K = Rows packets per thread per operand, the same
 * packets per thread), brought into dynamic shared memory by 1-D bulk
 * copies: staged[k][q] is packet q of the tile of input k.  The tile is
 * two stages, its first and second half, each with its own mbarrier, so
 * the threads whose packets are in the first half start while the second
 * is still coming.  Thread 0 (the leader) initialises the barriers and,
 * for each stage wholly inside the array, arrives expecting the stage's
 * bytes and issues one copy per input; every thread waits for the stage of
 * each of its packets, computes from shared memory and stores 16 bytes
 * straight to global memory.  Every barrier is used for one phase, and no
 * buffer is refilled.  A stage not wholly inside the array (only in the
 * last tile) is done by ordinary loads, packet_or_tail.
 *
 * With BulkStore, results go back into the first input's slots instead of
 * to global memory, and once every thread has written its packets (a proxy
 * fence in each, then a block barrier) the leader stores the whole tile
 * with one shared-to-global bulk copy.
 *
 * Built only for sm_90 and later; for older targets the body is empty and
 * the launcher never runs it there.
 */
template <typename Op, unsigned Rows, bool BulkStore>
static __device__ __forceinline__ void
bulk_tile(const typename Op::elem *a, const typename Op::elem *b,
    typename Op::elem *c, size_t n)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	typedef typename Op::elem	T;
	constexpr unsigned		lanes = sizeof(packet) / sizeof(T);
	extern __shared__ __align__(128) packet staged[];
	__shared__ uint64_t		full[2];
	const T				*in[2] = { a, b };
	unsigned			 count = Rows * blockDim.x;
	unsigned			 half = count / 2;
	size_t				 first = (size_t)blockIdx.x * count;
	size_t				 packets = n / lanes;

	if (threadIdx.x == 0) {
		barrier_init(&full[0]);
		barrier_init(&full[1]);
		fence_proxy_async();
#pragma unroll
		for (unsigned s = 0; s < 2; s++) {
			unsigned lo = s == 0 ? 0 : half;
			unsigned hi = s == 0 ? half : count;

			if (lo == hi || first + hi > packets)
				continue;
			barrier_expect(&full[s], Op::inputs * (hi - lo) * 16);
			for (unsigned k = 0; k < Op::inputs; k++)
				bulk_load(staged + k * count + lo,
				    in[k] + (first + lo) * lanes, (hi - lo) * 16,
				    &full[s]);
		}
	}
	__syncthreads();
#pragma unroll
	for (unsigned j = 0; j < Rows; j++) {
		unsigned q = j * blockDim.x + threadIdx.x;
		unsigned s = q >= half;

		if (first + (s == 0 ? half : count) <= packets) {
			packet x, y;

			barrier_wait(&full[s]);
			x = y = staged[q];
			if constexpr (Op::inputs == 2)
				y = staged[count + q];
			if constexpr (BulkStore)
				staged[q] = apply_packet<Op>(x, y);
			else
				((packet *)c)[first + q] = apply_packet<Op>(x, y);
		} else
			packet_or_tail<Op, plain_access>(a, b, c, n, first + q);
	}
	if constexpr (BulkStore) {
		fence_proxy_async();
		__syncthreads();
		if (threadIdx.x == 0) {
			unsigned whole = first + count <= packets ? count :
			    first + half <= packets ? half : 0;

			if (whole != 0)
				bulk_store(c + first * lanes, staged, whole * 16);
		}
	}
#else
	(void)a;
	(void)b;
	(void)c;
	(void)n;
#endif
}

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

/*
 * fast.cu - ewbench's own elementwise kernels, built to run at the DRAM
 * limit on Hopper (docs/kernels.md tells why each is shaped as it is).
 *
 * Every kernel moves data in packets of 16 bytes (four floats, eight
 * halves) and is written once, as a template over the operation and the
 * way memory is accessed; the __global__ functions, one per row of
 * fast.def, only instantiate it (the registry, in another file, needs
 * their addresses, which CUDA 13 does not give for template kernels).
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

typedef uint4 packet;

/*
 * The operations are ops.cuh's structs.  A unary one's second operand is
 * ignored: the kernels load it only for binary operations.
 */

/* The bits of `from` as a To (__half2 is not trivially copyable, so
 * bit_cast refuses it; a 4-byte memcpy compiles to nothing). */
template <typename To, typename From>
static __device__ __forceinline__ To
bits_as(From from)
{
	To to;

	static_assert(sizeof to == sizeof from, "bits_as: sizes differ");
	memcpy(&to, &from, sizeof to);
	return to;
}

/* One 32-bit word of a packet: one float or two halves. */
template <typename Op>
static __device__ __forceinline__ unsigned
apply_word(unsigned x, unsigned y)
{
	if constexpr (sizeof(typename Op::elem) == 4)
		return __float_as_uint(Op::one(__uint_as_float(x),
		    __uint_as_float(y)));
	else
		return bits_as<unsigned>(Op::two(bits_as<__half2>(x),
		    bits_as<__half2>(y)));
}

template <typename Op>
static __device__ __forceinline__ packet
apply_packet(packet x, packet y)
{
	return make_uint4(apply_word<Op>(x.x, y.x), apply_word<Op>(x.y, y.y),
	    apply_word<Op>(x.z, y.z), apply_word<Op>(x.w, y.w));
}

/* The operation on a packet of any of the three sizes. */
template <typename Op, typename P>
static __device__ __forceinline__ P
apply_any(P x, P y)
{
	if constexpr (sizeof(P) == sizeof(packet))
		return apply_packet<Op>(x, y);
	else if constexpr (sizeof(P) == sizeof(bits32))
		return apply_word<Op>(x, y);
	else
		return bits_as<bits16>(Op::one(bits_as<__half>(x),
		    bits_as<__half>(y)));
}

/* Element i, for the part of the array no whole packet covers. */
template <typename Op>
static __device__ __forceinline__ void
apply_element(const typename Op::elem *a, const typename Op::elem *b,
    typename Op::elem *c, size_t i)
{
	if constexpr (Op::inputs == 2)
		c[i] = Op::one(a[i], b[i]);
	else
		c[i] = Op::one(a[i], a[i]);
}

/* Plain 16-byte loads and stores (LDG.E.128, STG.E.128). */
struct plain_access {
	template <typename P>
	static __device__ __forceinline__ P
	load(const P *p)
	{
		return *p;
	}
	template <typename P>
	static __device__ __forceinline__ void
	store(P *p, P v)
	{
		*p = v;
	}
};

/*
 * Data touched once: loads and stores marked streaming (__ldcs, __stcs:
 * ld/st.global.cs, LDG/STG.E.EF.128 in SASS), evict-first in L1 and L2.
 * (ptxas takes PTX's .L2::evict_first load qualifier only on 256-bit
 * loads, so 16-byte loads get their L2 priority from .cs.)  The hints
 * cannot change the bytes that must cross the DRAM interface, every
 * input read once and every output written once; they only choose which
 * lines L2 gives up first.
 */
struct stream_access {
	template <typename P>
	static __device__ __forceinline__ P
	load(const P *p)
	{
		return __ldcs(p);
	}
	template <typename P>
	static __device__ __forceinline__ void
	store(P *p, P v)
	{
		__stcs(p, v);
	}
};

/*
 * Packet p by itself, for the last tile: whole packets through Access,
 * the one that straddles n an element at a time, those past n not at all.
 */
template <typename Op, typename Access, typename P = packet>
static __device__ __forceinline__ void
packet_or_tail(const typename Op::elem *a, const typename Op::elem *b,
    typename Op::elem *c, size_t n, size_t p)
{
	constexpr unsigned lanes = sizeof(P) / sizeof(typename Op::elem);

	if (p < n / lanes) {
		P x = Access::load((const P *)a + p), y = x;

		if constexpr (Op::inputs == 2)
			y = Access::load((const P *)b + p);
		Access::store((P *)c + p, apply_any<Op>(x, y));
	} else
		ewb_partial_group<lanes>(p * lanes, n,
		    [=](size_t i) { apply_element<Op>(a, b, c, i); });
}

/*
 * Tile `tile` of K * blockDim.x packets: thread t takes packets t,
 * t + blockDim.x, ..., t + (K - 1) blockDim.x of it, so each of its loads
 * is part of one coalesced 512-byte warp access, and issues all 2K (or K)
 * loads before the first add.  Only in the last tile can a thread's
 * packets run past n; such a thread goes packet by packet.
 */
template <typename Op, unsigned K, typename Access, typename P = packet>
static __device__ __forceinline__ void
ilp_tile(const typename Op::elem *a, const typename Op::elem *b,
    typename Op::elem *c, size_t n, size_t tile)
{
	constexpr unsigned	lanes = sizeof(P) / sizeof(typename Op::elem);
	const P			*pa = (const P *)a;
	const P			*pb = (const P *)b;
	P			*pc = (P *)c;
	size_t			 step = blockDim.x;
	size_t			 first = tile * K * step + threadIdx.x;
	P			 x[K], y[K];

	if (first + (K - 1) * step < n / lanes) {
#pragma unroll
		for (unsigned k = 0; k < K; k++)
			x[k] = Access::load(pa + first + k * step);
#pragma unroll
		for (unsigned k = 0; k < K; k++) {
			if constexpr (Op::inputs == 2)
				y[k] = Access::load(pb + first + k * step);
			else
				y[k] = x[k];
		}
#pragma unroll
		for (unsigned k = 0; k < K; k++)
			Access::store(pc + first + k * step,
			    apply_any<Op>(x[k], y[k]));
		return;
	}
#pragma unroll
	for (unsigned k = 0; k < K; k++)
		packet_or_tail<Op, Access, P>(a, b, c, n, first + k * step);
}

/*
 * Left alone, ptxas holds these kernels to 32 registers (what full
 * occupancy allows) by moving the first adds ahead of the last loads, so
 * only about half of a thread's loads are in flight at once.  A cap of 64
 * lets it issue them all first (40 registers for K = 4); unlike
 * __launch_bounds__ it leaves the block size free.
 */
#define ILP_REGS	__maxnreg__(64)

/* Tiles of ilp_tile, blockIdx.x, blockIdx.x + gridDim.x, ...: a grid of
 * any size covers the array. */
template <typename Op, unsigned K, typename Access>
static __device__ __forceinline__ void
ilp_stride(const typename Op::elem *a, const typename Op::elem *b,
    typename Op::elem *c, size_t n)
{
	size_t per_tile = (size_t)K * blockDim.x *
	    (sizeof(packet) / sizeof(typename Op::elem));
	size_t tiles = n / per_tile + (n % per_tile != 0);

	for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x)
		ilp_tile<Op, K, Access>(a, b, c, n, tile);
}

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

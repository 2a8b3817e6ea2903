/*
 * tiles.cuh - the device templates of ewbench's own kernels, the one
 * source of two compilers: nvcc builds the built-in variants from them
 * (fast.cu, through common.cuh), and NVRTC, at run time, the family it
 * generates for a user's per-element op (family.cuh, src/opgen/).  So it
 * includes nothing of the host: no CUDA runtime, no registry, no <atomic>;
 * what it needs NVRTC has with the toolkit's include directory, and
 * cover.h, embedded beside it.
 *
 * An operation (ops.cuh's, or a user's as src/opgen/ wraps it) is a
 * struct with
 *   elem			its element type: float, __half, __nv_bfloat16
 *   inputs			the arrays it reads, 1 to 4
 *   one(x, y, ...)		one element from max(inputs, 2) operands:
 *				a unary one takes a second and ignores it,
 *				the templates hand it the first twice
 *   two(x, y) (optional)	two __half at once as __half2
 *
 * The templates move an element at a time, or packets of 2, 4, 8 or 16
 * bytes (bits16, bits32, packet64, packet: one per memory instruction),
 * K packets per thread per input, all loaded before the first is used.
 * Both compilers use the same word arithmetic (apply_*), accesses, tail
 * and register cap; the tiles come in two forms, the N-input one the
 * family uses (and its persistent ilp_runs) and the (a, b, c) one of the
 * built-ins, at the end, which says why it is kept apart.
 */
#ifndef EWB_TILES_CUH
#define EWB_TILES_CUH

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "cover.h"	/* ewb_div_up: how many tiles cover n */

/* Thread indexing, in 64 bits so that n > 2^31 works. */
static __device__ __forceinline__ size_t
ewb_thread_index(void)
{
	return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

static __device__ __forceinline__ size_t
ewb_thread_count(void)
{
	return (size_t)gridDim.x * blockDim.x;
}

/*
 * A thread that owns `Width` consecutive elements from i, when fewer than
 * Width remain (the end of the array): each remaining one through
 * element(index).  A bounded loop, so the compiler emits Width - 1
 * predicated accesses rather than a general loop.
 */
template <unsigned Width, typename F>
static __device__ __forceinline__ void
ewb_partial_group(size_t i, size_t n, F element)
{
#pragma unroll
	for (unsigned k = 0; k + 1 < Width; k++)
		if (i + k < n)
			element(i + k);
}

/* The memory words: 16 bytes (LDG.E.128), 8 (LDG.E.64), one 32-bit word
 * (a float or a half2), one 16-bit half. */
typedef uint4 packet;
typedef uint2 packet64;
typedef unsigned bits32;
typedef unsigned short bits16;

/* The operands an operation's one() takes: max(inputs, 2). */
template <typename Op>
__host__ __device__ constexpr unsigned
ewb_handed(void)
{
	return Op::inputs < 2 ? 2 : Op::inputs;
}

/* Whether Op has two(), for a pair of halves at once. */
template <typename Op, typename = void>
struct ewb_paired {
	static constexpr bool value = false;
};

template <typename Op>
struct ewb_paired<Op, decltype((void)&Op::two)> {
	static constexpr bool value = true;
};

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

/* One 16-bit element from its operands' bits. */
template <typename Op, typename... W>
static __device__ __forceinline__ bits16
apply_half(bits16 x, W... more)
{
	typedef typename Op::elem T;

	return bits_as<bits16>(Op::one(bits_as<T>(x), bits_as<T>(more)...));
}

/* One 32-bit word: one float, or two 16-bit elements (by two() where the
 * operation has it, else one at a time). */
template <typename Op, typename... W>
static __device__ __forceinline__ unsigned
apply_word(unsigned x, W... more)
{
	if constexpr (sizeof(typename Op::elem) == 4)
		return __float_as_uint(Op::one(__uint_as_float(x),
		    __uint_as_float(more)...));
	else if constexpr (ewb_paired<Op>::value)
		return bits_as<unsigned>(Op::two(bits_as<__half2>(x),
		    bits_as<__half2>(more)...));
	else
		return (unsigned)apply_half<Op>((bits16)x, (bits16)more...) |
		    (unsigned)apply_half<Op>((bits16)(x >> 16),
		    (bits16)(more >> 16)...) << 16;
}

template <typename Op, typename... P>
static __device__ __forceinline__ packet
apply_packet(packet x, P... more)
{
	return make_uint4(apply_word<Op>(x.x, more.x...),
	    apply_word<Op>(x.y, more.y...), apply_word<Op>(x.z, more.z...),
	    apply_word<Op>(x.w, more.w...));
}

/* The operation on a word of any of the four sizes. */
template <typename Op, typename P, typename... More>
static __device__ __forceinline__ P
apply_any(P x, More... more)
{
	if constexpr (sizeof(P) == sizeof(packet))
		return apply_packet<Op>(x, more...);
	else if constexpr (sizeof(P) == sizeof(packet64))
		return make_uint2(apply_word<Op>(x.x, more.x...),
		    apply_word<Op>(x.y, more.y...));
	else if constexpr (sizeof(P) == sizeof(bits32))
		return apply_word<Op>(x, more...);
	else
		return apply_half<Op>(x, more...);
}

/* The operation on word k of each operand's row: v[j][k], j < H. */
template <typename Op, typename P, unsigned H, unsigned K>
static __device__ __forceinline__ P
apply_column(const P (&v)[H][K], unsigned k)
{
	static_assert(H >= 2 && H <= 4, "an operation takes 2 to 4 operands");
	if constexpr (H == 2)
		return apply_any<Op>(v[0][k], v[1][k]);
	else if constexpr (H == 3)
		return apply_any<Op>(v[0][k], v[1][k], v[2][k]);
	else
		return apply_any<Op>(v[0][k], v[1][k], v[2][k], v[3][k]);
}

/* Element i, for the part of the array no whole packet covers.  in[]
 * holds the H operands one() takes (a unary one's first twice). */
template <typename Op, unsigned H>
static __device__ __forceinline__ void
apply_element(const typename Op::elem *const (&in)[H],
    typename Op::elem *c, size_t i)
{
	static_assert(H >= 2 && H <= 4, "an operation takes 2 to 4 operands");
	if constexpr (H == 2)
		c[i] = Op::one(in[0][i], in[1][i]);
	else if constexpr (H == 3)
		c[i] = Op::one(in[0][i], in[1][i], in[2][i]);
	else
		c[i] = Op::one(in[0][i], in[1][i], in[2][i], in[3][i]);
}

/* Plain loads and stores (LDG.E.128, STG.E.128 for a packet). */
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
template <typename Op, typename Access, typename P, unsigned H>
static __device__ __forceinline__ void
packet_or_tail(const typename Op::elem *const (&in)[H],
    typename Op::elem *c, size_t n, size_t p)
{
	constexpr unsigned lanes = sizeof(P) / sizeof(typename Op::elem);

	if (p < n / lanes) {
		P v[H][1];

#pragma unroll
		for (unsigned j = 0; j < H; j++)
			v[j][0] = j < Op::inputs ?
			    Access::load((const P *)in[j] + p) : v[0][0];
		Access::store((P *)c + p, apply_column<Op>(v, 0));
	} else
		ewb_partial_group<lanes>(p * lanes, n,
		    [=](size_t i) { apply_element<Op>(in, c, i); });
}

/*
 * Tile `tile` of K * blockDim.x packets: thread t takes packets t,
 * t + blockDim.x, ..., t + (K - 1) blockDim.x of it, so each of its loads
 * is part of one coalesced warp access, and issues all its K loads per
 * input before the first use.  Only in the last tile can a thread's
 * packets run past n; such a thread goes packet by packet.
 */
template <typename Op, unsigned K, typename Access, typename P, unsigned H>
static __device__ __forceinline__ void
ilp_tile(const typename Op::elem *const (&in)[H], typename Op::elem *c,
    size_t n, size_t tile)
{
	constexpr unsigned	lanes = sizeof(P) / sizeof(typename Op::elem);
	const P			*pin[H];
	P			*pc;
	size_t			 step = blockDim.x;
	size_t			 first = tile * K * step + threadIdx.x;
	P			 v[H][K];

#pragma unroll
	for (unsigned j = 0; j < H; j++)
		pin[j] = (const P *)in[j];
	pc = (P *)c;
	if (first + (K - 1) * step < n / lanes) {
#pragma unroll
		for (unsigned j = 0; j < H; j++)
#pragma unroll
			for (unsigned k = 0; k < K; k++)
				v[j][k] = j < Op::inputs ? Access::load(
				    pin[j] + first + k * step) : v[0][k];
#pragma unroll
		for (unsigned k = 0; k < K; k++)
			Access::store(pc + first + k * step,
			    apply_column<Op>(v, k));
		return;
	}
#pragma unroll
	for (unsigned k = 0; k < K; k++)
		packet_or_tail<Op, Access, P>(in, c, n, first + k * step);
}

/* Elements in one tile of ilp_tile. */
template <typename Op, unsigned K, typename P>
static __device__ __forceinline__ size_t
ilp_tile_elements(void)
{
	return (size_t)K * blockDim.x * (sizeof(P) / sizeof(typename Op::elem));
}

/* Tiles of ilp_tile, blockIdx.x, blockIdx.x + gridDim.x, ...: a grid of
 * any size covers the array. */
template <typename Op, unsigned K, typename Access, typename P, unsigned H>
static __device__ __forceinline__ void
ilp_stride(const typename Op::elem *const (&in)[H], typename Op::elem *c,
    size_t n)
{
	size_t per_tile = ilp_tile_elements<Op, K, P>();
	size_t tiles = ewb_div_up(n, per_tile);

	for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x)
		ilp_tile<Op, K, Access, P>(in, c, n, tile);
}

/* Tiles of ilp_tile in runs: block b takes the b-th of gridDim.x runs of
 * consecutive tiles, so each block streams one contiguous stretch of
 * every array (the persistent shape; a grid of any size covers the
 * array). */
template <typename Op, unsigned K, typename Access, typename P, unsigned H>
static __device__ __forceinline__ void
ilp_runs(const typename Op::elem *const (&in)[H], typename Op::elem *c,
    size_t n)
{
	size_t per_tile = ilp_tile_elements<Op, K, P>();
	size_t tiles = ewb_div_up(n, per_tile);
	size_t run = ewb_div_up(tiles, gridDim.x);
	size_t end = (blockIdx.x + 1) * run;

	if (end > tiles)
		end = tiles;
	for (size_t tile = blockIdx.x * run; tile < end; tile++)
		ilp_tile<Op, K, Access, P>(in, c, n, tile);
}

/* An mbarrier's 8 bytes in shared memory (NVRTC has no <stdint.h>). */
typedef unsigned long long ewb_barrier;

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
barrier_init(ewb_barrier *bar)
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
barrier_expect(ewb_barrier *bar, unsigned bytes)
{
	asm volatile("{\n\t.reg .b64 state;\n\t"
	    "mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n\t}"
	    : : "r"(smem(bar)), "r"(bytes) : "memory");
}

/* Global to shared, `bytes` a multiple of 16, both addresses 16-byte
 * aligned; completes on bar. */
static __device__ __forceinline__ void
bulk_load(void *dst, const void *src, unsigned bytes, ewb_barrier *bar)
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
barrier_wait(ewb_barrier *bar)
{
	unsigned done;

	do {
		asm volatile("{\n\t.reg .pred p;\n\t"
		    "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
		    "selp.u32 %0, 1, 0, p;\n\t}"
		    : "=r"(done) : "r"(smem(bar)) : "memory");
	} while (!done);
}
/*
 * The leader's part of a bulk tile of `count` packets per input from
 * packet `first` (both forms of bulk_tile): the stages' barriers
 * initialised and made visible to the copy engine; for each stage (the
 * tile's first and second half) wholly inside the array's `packets`, its
 * bytes announced on its barrier and one copy per input into
 * staged[k * count ...].
 */
template <unsigned Inputs, unsigned Lanes, typename T, unsigned H>
static __device__ __forceinline__ void
bulk_stages(ewb_barrier (&full)[2], packet *staged, const T *const (&in)[H],
    unsigned count, size_t first, size_t packets)
{
	unsigned half = count / 2;

	barrier_init(&full[0]);
	barrier_init(&full[1]);
	fence_proxy_async();
#pragma unroll
	for (unsigned s = 0; s < 2; s++) {
		unsigned lo = s == 0 ? 0 : half;
		unsigned hi = s == 0 ? half : count;

		if (lo == hi || first + hi > packets)
			continue;
		barrier_expect(&full[s], Inputs * (hi - lo) * 16);
		for (unsigned k = 0; k < Inputs; k++)
			bulk_load(staged + k * count + lo,
			    in[k] + (first + lo) * Lanes, (hi - lo) * 16,
			    &full[s]);
	}
}
#endif

/*
 * bulk_tile's tile for the N-input form (the family's bulk members,
 * family.cuh): ilp_tile's tile of Rows 16-byte packets per thread per
 * input, brought into dynamic shared memory by 1-D bulk copies in two
 * stages, each on its own mbarrier, as the built-ins' bulk_tile below
 * (which says how), for each of the op's inputs: staged[k][q] is packet
 * q of the tile of input k.  The dynamic shared memory it needs is
 * inputs x Rows x blockDim.x x 16 bytes; operands 16-byte aligned.  Built
 * only for sm_90 and later; for older targets the body is empty and the
 * launcher never runs it there (src/opgen/launch.c).
 */
template <typename Op, unsigned Rows, unsigned H>
static __device__ __forceinline__ void
bulk_tile(const typename Op::elem *const (&in)[H], typename Op::elem *c,
    size_t n)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	typedef typename Op::elem	T;
	constexpr unsigned		lanes = sizeof(packet) / sizeof(T);
	extern __shared__ __align__(128) packet staged[];
	__shared__ ewb_barrier		full[2];
	unsigned			count = Rows * blockDim.x;
	unsigned			half = count / 2;
	size_t				first = (size_t)blockIdx.x * count;
	size_t				packets = n / lanes;

	if (threadIdx.x == 0)
		bulk_stages<Op::inputs, lanes>(full, staged, in, count, first,
		    packets);
	__syncthreads();
#pragma unroll
	for (unsigned j = 0; j < Rows; j++) {
		unsigned q = j * blockDim.x + threadIdx.x;
		unsigned s = q >= half;

		if (first + (s == 0 ? half : count) <= packets) {
			packet v[H][1];

			barrier_wait(&full[s]);
#pragma unroll
			for (unsigned k = 0; k < H; k++)
				v[k][0] = staged[(k < Op::inputs ? k : 0) *
				    count + q];
			((packet *)c)[first + q] = apply_column<Op>(v, 0);
		} else
			packet_or_tail<Op, plain_access, packet>(in, c, n,
			    first + q);
	}
#else
	(void)in;
	(void)c;
	(void)n;
#endif
}

/*
 * The one-stage bulk tile (the family's bulkone members, family.cuh):
 * ilp_tile's tile of K words P per thread per input, any word from the
 * element itself to a 16-byte packet, brought into dynamic shared memory
 * by one bulk copy per input, all on one mbarrier.  The design point of
 * CCCL's cub::DeviceTransform on sm_90 (docs/user-kernels.md): thread 0
 * initialises the barrier, announces the whole tile's bytes and issues
 * the copies; after a block barrier every thread waits for the one phase
 * once, then reads its K words from shared memory (thread t word t, t +
 * blockDim.x, ...: conflict-free, each warp's stores coalesced) and stores
 * each result straight to global memory.  bulk_tile above splits the same
 * tile in two stages on two barriers, 16-byte packets only.
 *
 * A bulk copy moves a multiple of 16 bytes from a 16-byte boundary, so a
 * tile is copied only when it lies wholly inside the array and its bytes,
 * K x blockDim.x x sizeof(P), are a multiple of 16 (they are whenever
 * blockDim.x is a multiple of 8); any other tile, and every tile in
 * code built below sm_90, is ilp_tile's own, by ordinary loads.  The
 * dynamic shared memory it needs: inputs x K x blockDim.x x sizeof(P)
 * bytes; operands 16-byte aligned (the launcher's duty, src/opgen/).
 */
template <typename Op, unsigned K, typename P, unsigned H>
static __device__ __forceinline__ void
bulk_whole_tile(const typename Op::elem *const (&in)[H],
    typename Op::elem *c, size_t n)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	constexpr unsigned	lanes = sizeof(P) / sizeof(typename Op::elem);
	extern __shared__ __align__(128) packet staged[];
	__shared__ ewb_barrier	full;
	P			*words = (P *)staged;
	unsigned		 count = K * blockDim.x;
	unsigned		 bytes = count * (unsigned)sizeof(P);
	size_t			 first = (size_t)blockIdx.x * count;

	if (bytes % 16 == 0 && first + count <= n / lanes) {
		if (threadIdx.x == 0) {
			barrier_init(&full);
			fence_proxy_async();
			barrier_expect(&full, Op::inputs * bytes);
			for (unsigned k = 0; k < Op::inputs; k++)
				bulk_load(words + k * count,
				    in[k] + first * lanes, bytes, &full);
		}
		__syncthreads();
		barrier_wait(&full);
		/* Word by word, the loop kept rolled (load, compute, store,
		 * then the next), as cub's kernel does: unrolled, its K
		 * stores leave back to back, and the member streamed 0.35 %
		 * slower than cub at 2^28 on an H200 (the same code as a
		 * --kernel: 729.5 us against 726.8, three interleaved rounds,
		 * 2026-11-29; rolled 726.8 against 726.8; launch bounds for
		 * the register cap, the copies before the expect and no
		 * fallback path each left it at 729.4-729.6). */
#pragma unroll 1
		for (unsigned j = 0; j < K; j++) {
			unsigned	q = j * blockDim.x + threadIdx.x;
			P		v[H][1];

#pragma unroll
			for (unsigned k = 0; k < H; k++)
				v[k][0] = words[(k < Op::inputs ? k : 0) *
				    count + q];
			((P *)c)[first + q] = apply_column<Op>(v, 0);
		}
		return;
	}
#endif
	ilp_tile<Op, K, plain_access, P>(in, c, n, blockIdx.x);
}

/*
 * The built-in variants' form (fast.cu): the operands as (a, b, c, n),
 * EWB_OPERANDS_ of ops.cuh, a unary operation's b its a, an in-place
 * one's a and b its c.  The same tiles as the N-input forms above, word
 * for word the code the built-ins had before those existed: handing them
 * to the N-input forms changes only the order of a few address
 * computations in PTX, which ptxas for sm_75 to sm_90 turns into the
 * same machine code but ptxas for sm_100 does not (6 of fast.cu's 40
 * kernels), and the built-ins' SASS is what the study measured.
 */
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

template <typename Op, unsigned K, typename Access, typename P = packet>
static __device__ __forceinline__ void
ilp_stride(const typename Op::elem *a, const typename Op::elem *b,
    typename Op::elem *c, size_t n)
{
	size_t per_tile = (size_t)K * blockDim.x *
	    (sizeof(P) / sizeof(typename Op::elem));
	size_t tiles = ewb_div_up(n, per_tile);

	for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x)
		ilp_tile<Op, K, Access, P>(a, b, c, n, tile);
}

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
	__shared__ ewb_barrier		full[2];
	const T				*in[2] = { a, b };
	unsigned			 count = Rows * blockDim.x;
	unsigned			 half = count / 2;
	size_t				 first = (size_t)blockIdx.x * count;
	size_t				 packets = n / lanes;

	if (threadIdx.x == 0)
		bulk_stages<Op::inputs, lanes>(full, staged, in, count, first,
		    packets);
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

/*
 * Left alone, ptxas holds these kernels to 32 registers (what full
 * occupancy allows) by moving the first adds ahead of the last loads, so
 * only about half of a thread's loads are in flight at once.  A cap of 64
 * lets it issue them all first (40 registers for K = 4); unlike
 * __launch_bounds__ it leaves the block size free.
 */
#define ILP_REGS	__maxnreg__(64)

#endif

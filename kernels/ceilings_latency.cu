/*
 * ceilings_latency.cu - DRAM latency: a pointer chase of one thread,
 * alone or beside blocks that copy until it ends (the loaded latency).
 */
#include "ceilings.cuh"

/*
 * A pointer chase for DRAM latency: word w of the chain holds the index of
 * the next word, w + stride modulo words (stride odd, so the chain visits
 * every word before it repeats).  One thread follows `hops` links, each load
 * waiting on the one before; ld.global.cg keeps the links out of L1, and a
 * stride of 64 KiB + 16 B puts every link on a new line, far from the last,
 * so L2 misses and DRAM answers.  The position persists in state->pos from
 * one launch to the next, so later samples walk lines no earlier one
 * touched.
 */
__global__ void
ewb_ceil_chase_init_kernel(uint4 *chain, size_t words, size_t stride)
{
	size_t	w, n = ewb_thread_count();

	for (w = ewb_thread_index(); w < words; w += n) {
		size_t	next = (w + stride) % words;

		chain[w] = make_uint4((unsigned)next, (unsigned)(next >> 32),
		    0u, 0u);
	}
}

/* The chase itself; then state->done = epoch tells the streaming blocks
 * of this launch to stop. */
static __device__ void
ceil_chase(const uint4 *chain, unsigned hops,
    struct ewb_ceil_chase_state *state, unsigned epoch)
{
	unsigned long long	w = state->pos;
	unsigned		h;

	for (h = 0; h < hops; h++) {
		uint4	link = __ldcg(chain + w);

		w = (unsigned long long)link.x |
		    ((unsigned long long)link.y << 32);
	}
	state->pos = w;
	__threadfence();
	*(volatile unsigned *)&state->done = epoch;
}

/*
 * The stream of a loaded chase: copy rounds of EWB_CEIL_LOAD_WIDTH words
 * per thread, as dram_copy does, until the chase's flag says that this
 * launch's chase ended.  The flag is read at the start of a round and
 * tested at its end, so that its read overlaps the round's loads.
 */
struct ceil_stream_op {
	ceil_copy_op		 copy;
	const volatile unsigned	*done;
	unsigned		 epoch;
	bool			 stopped;
	unsigned long long	 words;		/* copied */

	__device__ __forceinline__ bool
	more(void) const
	{
		return !stopped;
	}

	template <unsigned K>
	__device__ __forceinline__ void
	group(const size_t *at)
	{
		unsigned	seen = *done;

		copy.template group<K>(at);
		words += K;
		stopped = seen == epoch;
	}
};

/* What the streaming blocks of a loaded chase get (device pointers). */
struct ceil_stream_args {
	const uint4			*src;
	uint4				*dst;
	size_t				 words;
	unsigned long long		 rounds;	/* the safety cap */
	struct ewb_ceil_stream_count	*count;
};

/*
 * A streaming block (blocks 1, 2, ... of the launch) walks the array with
 * ceil_visit over the whole grid (the indices of block 0's threads are
 * skipped: nothing is counted for them), at most a.rounds rounds per
 * thread.  The lanes of a warp read the flag in one instruction and leave
 * together; lane 0 then adds the warp's bytes.
 */
static __device__ void
ceil_stream(const struct ceil_stream_args &a,
    const struct ewb_ceil_chase_state *state, unsigned epoch)
{
	ceil_stream_op		op = { { a.src, a.dst }, &state->done, epoch,
				    false, 0 };
	unsigned long long	bytes;
	unsigned		offset;

	if (threadIdx.x == 0 && *op.done == epoch)
		atomicAdd(&a.count->late, 1u);
	ceil_visit<EWB_CEIL_LOAD_WIDTH>(a.words, a.rounds *
	    EWB_CEIL_LOAD_WIDTH * ewb_thread_count(), op);
	bytes = op.words * sizeof(uint4) * 2;	/* read + written */
	for (offset = 16; offset > 0; offset /= 2)
		bytes += __shfl_xor_sync(0xffffffffu, bytes, offset);
	if (__any_sync(0xffffffffu, !op.stopped) && threadIdx.x % 32 == 0)
		atomicAdd(&a.count->capped, 1u);
	if (threadIdx.x % 32 == 0)
		atomicAdd(&a.count->bytes, bytes);
}

/* Block 0's thread 0 chases; blocks 1, 2, ... (if any) stream beside it. */
__global__ void __launch_bounds__(CEIL_BLOCK)
ewb_ceil_chase_kernel(const uint4 *chain, unsigned hops,
    struct ewb_ceil_chase_state *state, unsigned epoch,
    struct ceil_stream_args stream)
{
	if (blockIdx.x == 0) {
		if (threadIdx.x == 0)
			ceil_chase(chain, hops, state, epoch);
		return;
	}
	ceil_stream(stream, state, epoch);
}

static_assert(EWB_CEIL_LOAD_BLOCK_BYTES ==
    CEIL_BLOCK * EWB_CEIL_LOAD_WIDTH * sizeof(uint4),
    "EWB_CEIL_LOAD_BLOCK_BYTES: one streaming block's loads in flight");

extern "C" cudaError_t
ewb_ceil_chase_init(void *chain, size_t words,
    struct ewb_ceil_chase_state *state, cudaStream_t stream)
{
	cudaError_t	e;

	if (chain == NULL || state == NULL || words <= EWB_CEIL_CHASE_STRIDE)
		return cudaErrorInvalidValue;
	ewb_ceil_chase_init_kernel<<<1024, CEIL_BLOCK, 0, stream>>>(
	    (uint4 *)chain, words, EWB_CEIL_CHASE_STRIDE);
	if ((e = cudaGetLastError()) != cudaSuccess)
		return e;
	return cudaMemsetAsync(state, 0, sizeof *state, stream);
}

extern "C" cudaError_t
ewb_ceil_chase_wave(int sm_count, unsigned *blocks)
{
	int		per_sm = 0;
	cudaError_t	e;

	if (blocks == NULL)
		return cudaErrorInvalidValue;
	e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm,
	    ewb_ceil_chase_kernel, CEIL_BLOCK, 0);
	if (e != cudaSuccess)
		return e;
	*blocks = (unsigned)per_sm * ewb_sm_count(sm_count);
	return cudaSuccess;
}

extern "C" cudaError_t
ewb_ceil_chase(const void *chain, unsigned hops,
    struct ewb_ceil_chase_state *state, const struct ewb_ceil_load *load,
    cudaStream_t stream)
{
	/* Which launch this is: the streaming blocks stop when state->done
	 * says this one's chase ended, with no reset between launches. */
	static unsigned		epoch;
	struct ceil_stream_args	args = { NULL, NULL, 0, 0, NULL };
	unsigned		blocks = 0;

	if (chain == NULL || state == NULL || hops == 0)
		return cudaErrorInvalidValue;
	if (load != NULL) {
		unsigned long long	threads;

		if (load->src == NULL || load->dst == NULL ||
		    load->count == NULL || load->words == 0 ||
		    load->blocks == 0 || load->blocks >= EWB_MAX_GRID)
			return cudaErrorInvalidValue;
		blocks = load->blocks;
		threads = (unsigned long long)(1 + blocks) * CEIL_BLOCK;
		args.src = (const uint4 *)load->src;
		args.dst = (uint4 *)load->dst;
		args.words = load->words;
		args.count = load->count;
		/* 64 passes over the array: far longer than any chase, so
		 * only a stream left running alone ever reaches it. */
		args.rounds = ewb_div_up(64ULL * load->words,
		    threads * EWB_CEIL_LOAD_WIDTH);
	}
	if (++epoch == 0)
		epoch = 1;	/* 0 is what ewb_ceil_chase_init leaves */
	ewb_ceil_chase_kernel<<<1 + blocks, CEIL_BLOCK, 0, stream>>>(
	    (const uint4 *)chain, hops, state, epoch, args);
	return cudaGetLastError();
}

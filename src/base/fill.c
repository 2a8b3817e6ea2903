/*
 * fill.c - reproducible random operands.
 *
 * The generator is splitmix64: its state advances by a fixed odd constant
 * and each output is a bijective mix of the state, so element i of a buffer
 * depends only on (seed, i).  A buffer of n elements is therefore a prefix
 * of the same buffer with more elements, and slices of it can be filled
 * in parallel (parallel.c) with the same result.
 *
 * Values: sign random; magnitude 2^e * (1 + f) with e uniform in -4..2 and
 * f a random fraction of the dtype's width, so |x| lies in [2^-4, 8), the
 * values are exact in the dtype (fp16 and bf16 ones are built directly)
 * and sums of two span several binades, exercising rounding.  The bits
 * of a value are fill-bits.h's, shared with the GPU's twin (kernels/
 * fill.cu), which writes the same buffer on the device.
 */
#include <string.h>

#include "base/ewbench.h"
#include "base/fill-bits.h"

/*
 * A seed for one stream of a run seed.  Chain calls for several stream
 * keys: fill_seed(fill_seed(fill_seed(seed, n), dtype), operand).
 */
uint64_t
fill_seed(uint64_t seed, uint64_t stream)
{
	return mix64(mix64(seed + GOLDEN_GAMMA) ^ (stream * GOLDEN_GAMMA +
	    0x2545f4914f6cdd1dULL));
}

void
fill_random_range(void *buf, enum ewb_dtype dtype, size_t start, size_t count,
    uint64_t seed)
{
	unsigned char	*out = buf;
	uint64_t	 state = seed + start / 2 * GOLDEN_GAMMA, r;
	uint32_t	 word[2];
	uint16_t	 half[2];
	size_t		 i;

	/* Each 64-bit draw yields two elements; memcpy keeps aliasing legal.
	 * start is even, so the range begins at a draw. */
	switch (dtype) {
	case EWB_F32:
		for (i = 0; i < count; i += 2) {
			r = mix64(state += GOLDEN_GAMMA);
			word[0] = fill_f32_bits((uint32_t)r);
			word[1] = fill_f32_bits((uint32_t)(r >> 32));
			memcpy(out + i * 4, word, count - i >= 2 ? 8 : 4);
		}
		break;
	case EWB_F16:
		for (i = 0; i < count; i += 2) {
			r = mix64(state += GOLDEN_GAMMA);
			half[0] = fill_f16_bits((uint32_t)r);
			half[1] = fill_f16_bits((uint32_t)(r >> 32));
			memcpy(out + i * 2, half, count - i >= 2 ? 4 : 2);
		}
		break;
	case EWB_BF16:
		for (i = 0; i < count; i += 2) {
			r = mix64(state += GOLDEN_GAMMA);
			half[0] = fill_bf16_bits((uint32_t)r);
			half[1] = fill_bf16_bits((uint32_t)(r >> 32));
			memcpy(out + i * 2, half, count - i >= 2 ? 4 : 2);
		}
		break;
	}
}

struct fill {
	unsigned char	*out;
	enum ewb_dtype	 dtype;
	uint64_t	 seed;
};

static void
fill_slice(void *ctx, size_t start, size_t count)
{
	const struct fill *f = ctx;

	fill_random_range(f->out + start * (f->dtype == EWB_F32 ? 4 : 2),
	    f->dtype, start, count, f->seed);
}

void
fill_random(void *buf, enum ewb_dtype dtype, size_t n, uint64_t seed)
{
	struct fill	f = { buf, dtype, seed };

	/* Slices of whole draws: the values do not depend on the split. */
	parallel_for(n, 2, fill_slice, &f);
}

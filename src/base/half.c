/*
 * half.c - IEEE 754 binary16 (and bfloat16) <-> binary32 on the host, bit
 * exact.
 *
 * float -> half rounds to nearest, ties to even, as the GPU's __float2half_rn
 * and __hadd do; subnormals, infinities and NaNs are handled, and values
 * beyond the largest half (65504) round to infinity from 65520 up.
 *
 * The array forms, which the reference check uses on every element, are
 * the reason for the shapes below: half -> float computes every case and
 * selects one without branches, which compilers vectorize; float -> half
 * keeps one well-predicted branch for normal values, which was faster than
 * a branch-free form on SSE2.
 */
#include <string.h>

#include "base/ewbench.h"

static inline uint32_t
float_bits(float f)
{
	uint32_t	u;

	memcpy(&u, &f, sizeof u);
	return u;
}

static inline float
bits_float(uint32_t u)
{
	float	f;

	memcpy(&f, &u, sizeof f);
	return f;
}

/* cond ? a : b as plain arithmetic, which vectorizers take. */
static inline uint32_t
select_u32(int cond, uint32_t a, uint32_t b)
{
	uint32_t	mask = -(uint32_t)(cond != 0);

	return (a & mask) | (b & ~mask);
}

/* Shift right by `shift` (1..31), rounding to nearest even. */
static inline uint32_t
shift_round_even(uint32_t value, unsigned shift)
{
	uint32_t	kept = value >> shift;
	uint32_t	rest = value & ((1U << shift) - 1);
	uint32_t	halfway = 1U << (shift - 1);

	return kept + (rest > halfway || (rest == halfway && (kept & 1)));
}

static inline uint16_t
to_half(float f)
{
	uint32_t	x = float_bits(f);
	uint32_t	sign = (x >> 16) & 0x8000;
	uint32_t	exponent, payload;

	x &= 0x7fffffff;
	if (x >= 0x38800000 && x < 0x477ff000) {
		/*
		 * Normal half, the common case: rebias the exponent (127 ->
		 * 15) and round the 23-bit fraction to 10.  Adding 0xfff plus
		 * the lowest kept bit carries exactly when the dropped bits
		 * are above half, or half with the kept bits odd; a carry out
		 * of the fraction correctly bumps the exponent.
		 */
		x -= 112U << 23;
		return (uint16_t)(sign | (x + 0xfff + ((x >> 13) & 1)) >> 13);
	}
	if (x >= 0x7f800000) {
		if (x == 0x7f800000)
			return (uint16_t)(sign | 0x7c00);
		/* NaN: keep the top payload bits; never let it become inf. */
		payload = (x >> 13) & 0x3ff;
		return (uint16_t)(sign | 0x7c00 |
		    (payload != 0 ? payload : 0x200));
	}
	if (x >= 0x477ff000)		/* 65520 and up round to infinity */
		return (uint16_t)(sign | 0x7c00);

	/*
	 * Subnormal half: the value in units of 2^-24 is
	 * mantissa * 2^(exponent - 126).  Below 2^-25 it rounds to zero; a
	 * result of 0x400 is the smallest normal, encoded correctly as is.
	 */
	exponent = x >> 23;
	if (exponent < 102)
		return (uint16_t)sign;
	return (uint16_t)(sign | shift_round_even((x & 0x7fffff) | 0x800000,
	    126 - exponent));
}

static inline float
to_float(uint16_t h)
{
	uint32_t	sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t	magnitude = h & 0x7fff;
	uint32_t	exponent = magnitude & 0x7c00;
	uint32_t	normal, special, subnormal;

	normal = (magnitude << 13) + (112U << 23);	/* rebias 15 -> 127 */
	special = (magnitude << 13) | 0x7f800000;	/* inf, NaN payload */
	subnormal = float_bits((float)magnitude * 0x1p-24f);	/* exact */
	normal = select_u32(exponent == 0x7c00, special, normal);
	return bits_float(sign | select_u32(exponent == 0, subnormal, normal));
}

uint16_t
half_from_float(float f)
{
	return to_half(f);
}

float
half_to_float(uint16_t h)
{
	return to_float(h);
}

/* bfloat16 is the top half of a float: widening is exact. */
float
bf16_to_float(uint16_t h)
{
	return bits_float((uint32_t)h << 16);
}

/* Rounds to nearest even, as __float2bfloat16_rn; NaN stays NaN. */
uint16_t
bf16_from_float(float f)
{
	uint32_t	x = float_bits(f);

	if ((x & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((x >> 16) | 0x40);
	return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

void
halves_from_floats(const float *src, uint16_t *dst, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		dst[i] = to_half(src[i]);
}

/*
 * Fixed blocks of 8 let compilers vectorize the branch-free conversion at
 * -O2 (GCC's cheapest vectorizer model takes only fixed trip counts).
 */
#define BLOCK	8

void
halves_to_floats(const uint16_t *src, float *dst, size_t n)
{
	size_t	i = 0, j;

	for (; n - i >= BLOCK; i += BLOCK) {
		for (j = 0; j < BLOCK; j++)
			dst[i + j] = to_float(src[i + j]);
	}
	for (; i < n; i++)
		dst[i] = to_float(src[i]);
}

float
element_to_float(const void *array, enum ewb_dtype dtype, size_t i)
{
	uint16_t	h;
	float		f;

	switch (dtype) {
	case EWB_F16:
		memcpy(&h, (const char *)array + i * 2, 2);
		return to_float(h);
	case EWB_BF16:
		memcpy(&h, (const char *)array + i * 2, 2);
		return bf16_to_float(h);
	case EWB_F32:
		break;
	}
	memcpy(&f, (const char *)array + i * 4, 4);
	return f;
}

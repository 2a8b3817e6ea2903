/*
 * fill-bits.h - the random operands' generator, one definition for the
 * host (fill.c) and the GPU (kernels/fill.cu): splitmix64's mix, and how
 * 32 random bits become one fp32, fp16 or bf16 value.  Draw k of a buffer
 * with seed s is mix64(s + (k + 1) * GOLDEN_GAMMA); it yields elements 2k
 * (low 32 bits) and 2k + 1 (high 32 bits).
 */
#ifndef EWB_FILL_BITS_H
#define EWB_FILL_BITS_H

#include <stdint.h>

#ifdef __CUDACC__
#define EWB_HOST_DEVICE	__host__ __device__
#else
#define EWB_HOST_DEVICE
#endif

#define GOLDEN_GAMMA	0x9e3779b97f4a7c15ULL
#define MIN_EXPONENT	(-4)
#define EXPONENTS	7		/* 2^-4 .. 2^2 */

static inline EWB_HOST_DEVICE uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 32 random bits -> one value's bits: sign, exponent choice, fraction. */
static inline EWB_HOST_DEVICE uint32_t
fill_f32_bits(uint32_t r)
{
	uint32_t	sign = r & 0x80000000U;
	uint32_t	fraction = r & 0x7fffff;
	uint32_t	exponent = (((r >> 23) & 0xff) * EXPONENTS) >> 8;

	return sign | ((exponent + (uint32_t)(127 + MIN_EXPONENT)) << 23) |
	    fraction;
}

static inline EWB_HOST_DEVICE uint16_t
fill_f16_bits(uint32_t r)
{
	uint32_t	sign = (r >> 16) & 0x8000;
	uint32_t	fraction = r & 0x3ff;
	uint32_t	exponent = (((r >> 10) & 0xff) * EXPONENTS) >> 8;

	return (uint16_t)(sign | ((exponent + (uint32_t)(15 + MIN_EXPONENT)) << 10) |
	    fraction);
}

/* bf16: fp32's sign and exponent, 7 fraction bits: the same binades as
 * the others, values exact in bf16. */
static inline EWB_HOST_DEVICE uint16_t
fill_bf16_bits(uint32_t r)
{
	uint32_t	sign = (r >> 16) & 0x8000;
	uint32_t	fraction = r & 0x7f;
	uint32_t	exponent = (((r >> 7) & 0xff) * EXPONENTS) >> 8;

	return (uint16_t)(sign | ((exponent + (uint32_t)(127 +
	    MIN_EXPONENT)) << 7) | fraction);
}

#endif

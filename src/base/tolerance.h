/*
 * tolerance.h - when a checked element passes: one definition for the
 * GPU's compare (kernels/compare.cu) and the host (tests/unit/test-guard,
 * which proves on it that an unwritten output element cannot pass).
 *
 * Both values are widened to float (exact for every dtype) and pass when
 * equal by value (-0 equals +0).  Without a tolerance (the built-in ops,
 * checked against the CPU reference: reference.c) that is all, and NaN
 * never passes.  A user's op checked against its reference kernel
 * (--reference) also passes
 *  - NaN against NaN, any payload (the reference may compute NaN: sqrt of
 *    a negative input); the check's output is then poisoned with finite
 *    values, never NaN (checker.c), so an element left unwritten does not
 *    pass as a NaN;
 *  - within any tolerance given, both values finite:
 *    --ulps N units in the last place of the dtype (the distance between
 *    the two bit patterns read as sign-magnitude integers, so across zero
 *    too);
 *    --rel R of the expected value (|got - expected| <= R |expected|);
 *    --atol A and --rtol R, torch.testing.assert_close's rule
 *    (|got - expected| <= A + R |expected|), the one not given taking
 *    assert_close's default for the dtype (tolerance_close_defaults): near
 *    zero, where any relative rule fails a legitimate approximation (a
 *    tanh GELU against an erf one), the absolute term passes it;
 *    the differences in double.
 * Infinities pass only when equal.  The caps keep the two guard poisons
 * (guard.h) apart: no expected value lies within the widest tolerance of
 * both (guard.c says why that matters; test-guard checks it).
 */
#ifndef EWB_TOLERANCE_H
#define EWB_TOLERANCE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kernels/registry.h"
#include "data-limits.h"	/* beside it: nvcc has no -I src */

#ifdef __CUDACC__
#define EWB_TOL_FN	static inline __host__ __device__
#else
#define EWB_TOL_FN	static inline
#endif

/* TOLERANCE_MAX_ULPS, TOLERANCE_MAX_REL (--rel and --rtol) and
 * TOLERANCE_MAX_ATOL: data-limits.h. */

struct ewb_tolerance {
	unsigned	 ulps;		/* 0: none */
	double		 rel;		/* 0: none */
	bool		 nan_equal;	/* NaN passes against NaN */
	double		 atol;		/* atol + rtol |expected|; */
	double		 rtol;		/* both 0: none */
};

/* torch.testing.assert_close's atol and rtol for dtype: what --atol or
 * --rtol alone leaves the other at. */
EWB_TOL_FN void
tolerance_close_defaults(enum ewb_dtype dtype, double *atol, double *rtol)
{
	*atol = 1e-5;
	switch (dtype) {
	case EWB_F16:
		*rtol = 1e-3;
		return;
	case EWB_BF16:
		*rtol = 1.6e-2;
		return;
	case EWB_F32:
		break;
	}
	*rtol = 1.3e-6;
}

/* The bits of an element of dtype, exactly as a float. */
EWB_TOL_FN float
tolerance_widen(uint32_t bits, enum ewb_dtype dtype)
{
	uint32_t	u = bits, sign, exponent, fraction;
	float		f;

	switch (dtype) {
	case EWB_F32:
		break;
	case EWB_BF16:
		u = bits << 16;
		break;
	case EWB_F16:
		sign = (bits & 0x8000u) << 16;
		exponent = (bits >> 10) & 0x1f;
		fraction = bits & 0x3ff;
		if (exponent == 0x1f)
			u = sign | 0x7f800000u | fraction << 13;
		else if (exponent != 0)
			u = sign | (exponent + 112) << 23 | fraction << 13;
		else if (fraction == 0)
			u = sign;
		else {
			/* Subnormal: normalize; 2^-14 is float exponent 113. */
			exponent = 113;
			while ((fraction & 0x400) == 0) {
				fraction <<= 1;
				exponent--;
			}
			u = sign | exponent << 23 | (fraction & 0x3ff) << 13;
		}
		break;
	}
	memcpy(&f, &u, sizeof f);
	return f;
}

/* The element's bits as a sign-magnitude integer: neighbours differ by 1. */
EWB_TOL_FN int64_t
tolerance_ordered(uint32_t bits, enum ewb_dtype dtype)
{
	uint32_t	sign = dtype == EWB_F32 ? 0x80000000u : 0x8000u;

	return (bits & sign) != 0 ? -(int64_t)(bits & ~sign) :
	    (int64_t)bits;
}

/* Whether got passes against expected (both an element's bits); tol NULL:
 * equal by value, NaN never. */
EWB_TOL_FN bool
tolerance_passes(uint32_t got, uint32_t expected, enum ewb_dtype dtype,
    const struct ewb_tolerance *tol)
{
	float	g = tolerance_widen(got, dtype);
	float	e = tolerance_widen(expected, dtype);
	double	diff, size;
	int64_t	ulps;

	if (g == e)
		return true;
	if (tol == NULL)
		return false;
	if (g != g || e != e)
		return tol->nan_equal && g != g && e != e;
	if (!(g - g == 0) || !(e - e == 0))	/* an infinity, unequal */
		return false;
	ulps = tolerance_ordered(got, dtype) - tolerance_ordered(expected,
	    dtype);
	if (ulps < 0)
		ulps = -ulps;
	if (tol->ulps > 0 && ulps <= (int64_t)tol->ulps)
		return true;
	diff = (double)g - (double)e;
	if (diff < 0)
		diff = -diff;
	size = e < 0 ? -(double)e : (double)e;
	if (tol->rel > 0 && diff <= tol->rel * size)
		return true;
	return (tol->atol > 0 || tol->rtol > 0) &&
	    diff <= tol->atol + tol->rtol * size;
}

#endif

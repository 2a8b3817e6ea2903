/* test-half.c - binary16 conversions, exhaustively where it is cheap. */
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#include <string.h>

#include "base/ewbench.h"
#include "check.h"

static float
from_bits(uint32_t u)
{
	float	f;

	memcpy(&f, &u, sizeof f);
	return f;
}

/* The value of a half from its definition, in double. */
static double
half_value(uint16_t h)
{
	int	sign = (h & 0x8000) ? -1 : 1;
	int	exponent = (h >> 10) & 0x1f;
	int	mantissa = h & 0x3ff;

	if (exponent == 0x1f)
		return mantissa == 0 ? sign * INFINITY : NAN;
	if (exponent == 0)
		return sign * ldexp(mantissa, -24);
	return sign * ldexp(1024 + mantissa, exponent - 25);
}

static void
test_to_float(void)
{
	uint32_t	h;
	double		want;
	float		got;
	int		bad = 0;

	for (h = 0; h < 0x10000; h++) {
		got = half_to_float((uint16_t)h);
		want = half_value((uint16_t)h);
		if (isnan(want) ? !isnan(got) : (double)got != want)
			bad++;
		/* The sign survives, zero included. */
		if (!isnan(want) && !signbit(got) != !signbit(want))
			bad++;
		/* Every half, NaNs with their payload, comes back. */
		if (half_from_float(got) != h)
			bad++;
	}
	CHECK(bad == 0);
}

/*
 * Every rounding boundary: for each pair of adjacent non-negative halves
 * lo < hi, the midpoint (exact in float) goes to the even one, and the
 * floats just either side of it go to lo and hi.  Past 65504 the next
 * "half" is 65536, encoded as infinity.
 */
static void
test_boundaries(void)
{
	uint32_t	lo;
	uint16_t	even;
	float		a, b, mid;
	int		bad = 0;

	for (lo = 0; lo < 0x7c00; lo++) {
		a = half_to_float((uint16_t)lo);
		b = lo + 1 == 0x7c00 ? 65536.0f : half_to_float((uint16_t)(lo + 1));
		mid = (a + b) / 2;
		even = (uint16_t)((lo & 1) ? lo + 1 : lo);
		if (half_from_float(a) != lo ||
		    half_from_float(mid) != even ||
		    half_from_float(nextafterf(mid, 0)) != lo ||
		    half_from_float(nextafterf(mid, INFINITY)) != lo + 1)
			bad++;
		/* Negative values mirror positive ones. */
		if (half_from_float(-mid) != (even | 0x8000) ||
		    half_from_float(-nextafterf(mid, INFINITY)) !=
		    ((lo + 1) | 0x8000))
			bad++;
	}
	CHECK(bad == 0);
}

static void
test_special(void)
{
	uint16_t	h;

	CHECK(half_from_float(0.0f) == 0x0000);
	CHECK(half_from_float(-0.0f) == 0x8000);
	CHECK(half_from_float(1.0f) == 0x3c00);
	CHECK(half_from_float(-2.0f) == 0xc000);
	CHECK(half_from_float(65504.0f) == 0x7bff);
	CHECK(half_from_float(65519.99f) == 0x7bff);
	CHECK(half_from_float(65520.0f) == 0x7c00);
	CHECK(half_from_float(1e10f) == 0x7c00);
	CHECK(half_from_float(-1e10f) == 0xfc00);
	CHECK(half_from_float(FLT_MAX) == 0x7c00);
	CHECK(half_from_float(INFINITY) == 0x7c00);
	CHECK(half_from_float(-INFINITY) == 0xfc00);
	CHECK(half_from_float(0x1p-14f) == 0x0400);	/* smallest normal */
	CHECK(half_from_float(0x1p-24f) == 0x0001);	/* smallest subnormal */
	CHECK(half_from_float(0x1p-25f) == 0x0000);	/* tie to even: 0 */
	CHECK(half_from_float(0x1.000002p-25f) == 0x0001);
	CHECK(half_from_float(0x3p-25f) == 0x0002);	/* tie to even: 2 */
	CHECK(half_from_float(0x1p-30f) == 0x0000);
	CHECK(half_from_float(-0x1p-30f) == 0x8000);
	CHECK(half_from_float(FLT_MIN / 4) == 0x0000);	/* float subnormal */
	CHECK(half_from_float(1.0f + 0x1p-11f) == 0x3c00);	/* tie: even */
	CHECK(half_from_float(1.0f + 0x3p-11f) == 0x3c02);	/* tie: even */
	CHECK(half_from_float(0x1.ff8p-15f) == 0x03ff);	/* largest subnormal */
	CHECK(half_from_float(0x1.ffcp-15f) == 0x0400);	/* tie: even normal */
	CHECK(half_from_float(0.1f) == 0x2e66);

	h = half_from_float(NAN);
	CHECK((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0);
	/* A NaN whose payload sits below the half's bits stays a NaN. */
	h = half_from_float(from_bits(0x7f800001));
	CHECK((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0);
	CHECK(isnan(half_to_float(0x7e00)));
	CHECK(isinf(half_to_float(0x7c00)) && half_to_float(0x7c00) > 0);
	CHECK(f32_bits(half_to_float(0x8000)) == 0x80000000);
}

#ifdef __FLT16_MAX__
/* The compiler's own conversion as an independent oracle, on a sample of
 * every bit pattern. */
static void
test_against_compiler(void)
{
	uint64_t	u;
	_Float16	oracle;
	uint16_t	want;
	float		f;
	int		bad = 0;

	for (u = 0; u <= 0xffffffffULL; u += 4093) {
		f = from_bits((uint32_t)u);
		oracle = (_Float16)f;
		memcpy(&want, &oracle, sizeof want);
		if (isnan(f)) {
			if ((half_from_float(f) & 0x7fff) <= 0x7c00)
				bad++;
		} else if (half_from_float(f) != want)
			bad++;
	}
	CHECK(bad == 0);
}
#endif

int
main(void)
{
	test_to_float();
	test_boundaries();
	test_special();
#ifdef __FLT16_MAX__
	test_against_compiler();
#endif
	return check_exit();
}

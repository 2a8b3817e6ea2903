/*
 * test-guard.c - a CPU model of a user kernel's guarded check (checker.c,
 * guard.h): the output between two guards, as misaligned as --misalign
 * makes it, poisoned once per pass; kernels of every op and dtype that
 * store past the end or before the start; the check's verdict.
 *
 * What it proves:
 *  - every element of either poison is negative, finite and normal in
 *    fp16, bf16, fp32 and fp64, at every byte offset, and the two poisons
 *    differ in every byte (the premises of guard.c's argument);
 *  - an overrun of each op and dtype, aligned and misaligned, is seen by
 *    the two passes whatever it writes: the op applied to the guard it
 *    read (in-place abs, and relu of what it read), or any value computed
 *    from elsewhere, the poisons themselves and the old poison included;
 *  - the old check (one pass, poison 0x5a) let the in-place abs overrun
 *    write |guard| over its guard unseen (the bug), and let an
 *    add or relu overrun whose value was 0x5a5a... through;
 *  - a store of exactly the bytes that were there is invisible to any
 *    comparison (the documented limit);
 *  - a user's op (--reference), whose output is poisoned with the pass's
 *    guard poison and compared within its tolerance, NaN equal to NaN
 *    (tolerance.h): an element it leaves unwritten passes in neither pass
 *    or one, never both, against any expected value (every bf16 and fp16
 *    pattern, fp32 ones near both poisons and at random), at the largest
 *    --ulps, --rel, --atol and --rtol; with the built-in check's all-ones
 *    poison (NaN) it would pass against an expected NaN.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base/ewbench.h"
#include "base/guard.h"
#include "base/tolerance.h"

#define GUARD	64u		/* guard bytes on either side (model) */
#define N	37u		/* elements: odd, not a multiple of 4 or 8 */

enum model_op { M_ABS, M_RELU, M_ADD };
/* What an overrun stores: the op of the element it overwrites (read in
 * place), the op of a value read elsewhere (inputs past the end), or the
 * bytes that were there (the invisible store). */
enum source { FROM_GUARD, FROM_ELSEWHERE, SAME_BYTES };

static double
element(const unsigned char *p, unsigned size)
{
	uint16_t	h;
	float		f;
	double		d;

	switch (size) {
	case 2:
		memcpy(&h, p, 2);
		return half_to_float(h);
	case 4:
		memcpy(&f, p, 4);
		return f;
	}
	memcpy(&d, p, 8);
	return d;
}

static void
test_poisons(void)
{
	unsigned char	buf[16];
	unsigned	pass, off;
	uint32_t	bf;
	float		f;

	/* Two passes whose poisons differ in every byte (one byte each). */
	CHECK(GUARD_PASSES == 2 && guard_poison[0] != guard_poison[1]);
	for (pass = 0; pass < GUARD_PASSES; pass++) {
		memset(buf, guard_poison[pass], sizeof buf);
		for (off = 0; off < 8; off++) {
			/* fp16, fp32, fp64: negative, finite, not zero or
			 * subnormal, so |x| and relu(x) change its bytes. */
			double h = element(buf + off, 2);
			double s = element(buf + off, 4);
			double d = element(buf + off, 8);

			CHECK(h < 0 && isfinite(h) && fabs(h) >= 0x1p-14);
			CHECK(s < 0 && isfinite(s) && fabs(s) >= 0x1p-126);
			CHECK(d < 0 && isfinite(d) && fabs(d) >= 0x1p-1022);
			/* bf16: the high half of an fp32 */
			bf = (uint32_t)buf[off] << 16 |
			    (uint32_t)buf[off + 1] << 24;
			memcpy(&f, &bf, 4);
			CHECK(f < 0 && isfinite(f) && fabsf(f) >= 0x1p-126f);
		}
	}
	/* The old poison: positive in both widths, which abs and relu keep. */
	memset(buf, 0x5a, sizeof buf);
	CHECK(element(buf, 4) > 0 && element(buf, 2) > 0);
}

/* The op on one element's bytes, in its dtype's arithmetic as the GPU
 * does it (fp16: computed in fp32, rounded back, exact for these ops). */
static void
apply(enum model_op op, unsigned size, const unsigned char *x,
    unsigned char *out)
{
	float		f;
	uint16_t	h;

	if (size == 4)
		memcpy(&f, x, 4);
	else {
		memcpy(&h, x, 2);
		f = half_to_float(h);
	}
	switch (op) {
	case M_ABS:
		f = fabsf(f);
		break;
	case M_RELU:
		f = f > 0 ? f : 0.0f;
		break;
	case M_ADD:
		f = f + 0.0f;	/* a + b with b = +0 past the end */
		break;
	}
	if (size == 4)
		memcpy(out, &f, 4);
	else {
		h = half_from_float(f);
		memcpy(out, &h, 2);
	}
}

/*
 * One checked launch of the model: a buffer of GUARD + off bytes, the
 * output, GUARD bytes; all poisoned; the kernel stores its right results
 * in [0, N) and `over` elements past the end (or, over < 0, before the
 * start); then the guards are scanned as checker.c scans them.  Returns
 * whether the guards show the stores.
 */
static bool
launch_seen(enum model_op op, unsigned size, unsigned off, int over,
    enum source src, const unsigned char *elsewhere, unsigned char poison)
{
	size_t		 before = GUARD + off, total = before + N * size + GUARD;
	unsigned char	*base = malloc(total), *out = base + before;
	unsigned char	 value[8];
	size_t		 first, last, seen;
	long		 i, lo = over < 0 ? over : 0;
	long		 hi = over > 0 ? (long)N + over : (long)N;

	memset(base, poison, total);
	for (i = lo; i < hi; i++) {
		unsigned char *at = out + i * (long)size;

		if (i >= 0 && i < (long)N) {
			memset(at, 0, size);	/* the right result */
			continue;
		}
		switch (src) {
		case FROM_GUARD:
			apply(op, size, at, value);
			break;
		case FROM_ELSEWHERE:
			apply(op, size, elsewhere, value);
			break;
		case SAME_BYTES:
			memcpy(value, at, size);
			break;
		}
		memcpy(at, value, size);
	}
	seen = guard_scan(out + N * size, GUARD, poison, &first, &last);
	seen += guard_scan(base, before, poison, &first, &last);
	free(base);
	return seen != 0;
}

/* The two-pass check, as checker_run runs it. */
static bool
caught(enum model_op op, unsigned size, unsigned off, int over,
    enum source src, const unsigned char *elsewhere)
{
	unsigned	pass;

	for (pass = 0; pass < GUARD_PASSES; pass++) {
		if (launch_seen(op, size, off, over, src, elsewhere,
		    guard_poison[pass]))
			return true;
	}
	return false;
}

static void
test_every_overrun(void)
{
	static const enum model_op ops[] = { M_ABS, M_RELU, M_ADD };
	static const char *const names[] = { "abs", "relu", "add" };
	static const unsigned sizes[] = { 4, 2 };
	static const int overs[] = { 1, 3, 8, -1, -4 };
	/* Values an overrun may find elsewhere: the poisons, the old
	 * poison, their magnitudes, zero, -0, a NaN, ordinary numbers. */
	static const uint32_t values[] = { 0xa5a5a5a5u, 0xc3c3c3c3u,
	    0x5a5a5a5au, 0x25a5a5a5u, 0x43c3c3c3u, 0, 0x80000000u,
	    0x7fc00000u, 0x3f800000u, 0xbf800000u, 0x12345678u };
	unsigned	o, s, off, k, v, half;
	unsigned char	elsewhere[8];

	for (o = 0; o < 3; o++)
	for (s = 0; s < 2; s++)
	for (off = 0; off <= 4; off += 4)	/* --misalign: 4 bytes */
	for (k = 0; k < sizeof overs / sizeof *overs; k++) {
		/* add reads no output: its stores come from elsewhere
		 * (a + b of the inputs past the end) */
		bool ok = ops[o] == M_ADD || caught(ops[o], sizes[s], off,
		    overs[k], FROM_GUARD, NULL);

		CHECK(ok);
		if (!ok)
			fprintf(stderr, "  %s f%u misalign %u over %d: the op "
			    "of the guard escaped\n", names[o], sizes[s] * 8,
			    off, overs[k]);
		for (v = 0; v < sizeof values / sizeof *values; v++)
		for (half = 0; half < 2; half++) {
			/* each value as fp32, or either half of it as fp16 */
			uint32_t x = values[v] >> (half * 16);

			memcpy(elsewhere, &x, 4);
			ok = caught(ops[o], sizes[s], off, overs[k],
			    FROM_ELSEWHERE, elsewhere);
			CHECK(ok);
			if (!ok)
				fprintf(stderr, "  %s f%u misalign %u over %d: "
				    "a store of %08x escaped\n", names[o],
				    sizes[s] * 8, off, overs[k], x);
		}
		/* The limit: the bytes that were there, stored back. */
		CHECK(!caught(ops[o], sizes[s], off, overs[k], SAME_BYTES,
		    NULL));
	}
}

/* The check before issue 31: one pass, poison 0x5a. */
static void
test_old_check_blind(void)
{
	unsigned char	old[4] = { 0x5a, 0x5a, 0x5a, 0x5a };
	unsigned	s, off;

	for (s = 2; s <= 4; s += 2)
	for (off = 0; off <= 4; off += 4) {
		/* The tutorial's grid-stride abs: |guard| over the guard. */
		CHECK(!launch_seen(M_ABS, s, off, 3, FROM_GUARD, NULL, 0x5a));
		CHECK(!launch_seen(M_RELU, s, off, 3, FROM_ELSEWHERE, old,
		    0x5a));
		CHECK(!launch_seen(M_ADD, s, off, 3, FROM_ELSEWHERE, old,
		    0x5a));
		/* ... each of which the two passes see. */
		CHECK(caught(M_ABS, s, off, 3, FROM_GUARD, NULL));
		CHECK(caught(M_RELU, s, off, 3, FROM_ELSEWHERE, old));
		CHECK(caught(M_ADD, s, off, 3, FROM_ELSEWHERE, old));
	}
}

/* Whether an element left unwritten (holding pass k's poison) passes
 * against expected e in both passes. */
static bool
unwritten_passes_both(enum ewb_dtype dtype, uint32_t e,
    const struct ewb_tolerance *tol)
{
	uint32_t	p[GUARD_PASSES];
	unsigned	k;
	bool		both = true;

	for (k = 0; k < GUARD_PASSES; k++) {
		memset(&p[k], guard_poison[k], sizeof p[k]);
		if (dtype != EWB_F32)
			p[k] &= 0xffff;
		both = both && tolerance_passes(p[k], e, dtype, tol);
	}
	return both;
}

static void
test_unwritten_custom(void)
{
	static const enum ewb_dtype dtypes[] = { EWB_F16, EWB_BF16 };
	struct ewb_tolerance	widest = { TOLERANCE_MAX_ULPS,
				    TOLERANCE_MAX_REL, true, TOLERANCE_MAX_ATOL,
				    TOLERANCE_MAX_REL };
	struct ewb_tolerance	ulps = { TOLERANCE_MAX_ULPS, 0, true, 0, 0 };
	struct ewb_tolerance	close = { 0, 0, true, TOLERANCE_MAX_ATOL,
				    TOLERANCE_MAX_REL };
	uint64_t		state = 1;
	uint32_t		e, p, nan_bits = 0x7fc00000u;
	unsigned		i, k, caught = 0;
	int			d;

	for (i = 0; i < 2; i++) {
		for (e = 0; e <= 0xffff; e++) {
			CHECK(!unwritten_passes_both(dtypes[i], e, &widest));
			CHECK(!unwritten_passes_both(dtypes[i], e, &ulps));
			CHECK(!unwritten_passes_both(dtypes[i], e, &close));
		}
	}
	/* fp32: around each poison, and at random. */
	for (k = 0; k < GUARD_PASSES; k++) {
		memset(&p, guard_poison[k], sizeof p);
		for (d = -100000; d <= 100000; d++)
			caught += !unwritten_passes_both(EWB_F32,
			    p + (uint32_t)d, &widest);
	}
	CHECK(caught == 2 * 200001);
	for (i = 0; i < 1000000; i++) {
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		CHECK(!unwritten_passes_both(EWB_F32, (uint32_t)(state >> 32),
		    &widest));
	}
	/* Why not NaN: all ones would pass against an expected NaN. */
	CHECK(tolerance_passes(0xffffffffu, nan_bits, EWB_F32, &widest));
	CHECK(tolerance_passes(0xffffu, 0x7fc0u, EWB_BF16, &widest));
	CHECK(!tolerance_passes(0xffffffffu, nan_bits, EWB_F32, NULL));
}

/* torch.testing.assert_close's rule, |got - expected| <= atol + rtol
 * |expected| (--atol, --rtol), its per-dtype defaults, and how it goes
 * with --ulps and --rel: any one of them passes an element. */
static void
test_close_rule(void)
{
	struct ewb_tolerance	t = { 0, 0, true, 0, 0 };
	double			atol, rtol;

	tolerance_close_defaults(EWB_F32, &atol, &rtol);
	CHECK(atol == 1e-5 && rtol == 1.3e-6);
	tolerance_close_defaults(EWB_F16, &atol, &rtol);
	CHECK(atol == 1e-5 && rtol == 1e-3);
	tolerance_close_defaults(EWB_BF16, &atol, &rtol);
	CHECK(atol == 1e-5 && rtol == 1.6e-2);

	/* Relative part: 1 against 1 + 1e-3 +- a little, atol 0. */
	t.rtol = 1e-3;
	CHECK(tolerance_passes(f32_bits(1.0009f), f32_bits(1.0f), EWB_F32, &t));
	CHECK(!tolerance_passes(f32_bits(1.0011f), f32_bits(1.0f), EWB_F32,
	    &t));
	CHECK(tolerance_passes(f32_bits(-1.0009f), f32_bits(-1.0f), EWB_F32,
	    &t));
	/* ... nothing passes near zero on it alone ... */
	CHECK(!tolerance_passes(f32_bits(1e-30f), f32_bits(0.0f), EWB_F32, &t));
	/* ... the absolute part does: 0 against 9e-6 and 1.1e-5, atol 1e-5. */
	t.rtol = 0;
	t.atol = 1e-5;
	CHECK(tolerance_passes(f32_bits(9e-6f), f32_bits(0.0f), EWB_F32, &t));
	CHECK(!tolerance_passes(f32_bits(1.1e-5f), f32_bits(0.0f), EWB_F32,
	    &t));
	/* Both: 100 against 100.0019 passes 1e-5 + 2e-5 * 100 = 2.01e-3,
	 * 100.0021 does not. */
	t.rtol = 2e-5;
	CHECK(tolerance_passes(f32_bits(100.0019f), f32_bits(100.0f), EWB_F32,
	    &t));
	CHECK(!tolerance_passes(f32_bits(100.0021f), f32_bits(100.0f),
	    EWB_F32, &t));
	/* The tanh GELU in f16 against an exact one, element 0:
	 * -0.000107 (0x8703) against -0.000180 (0x89e6), 7.3e-5 apart: not
	 * within assert_close's f16 defaults (1e-5 + 1e-3 * 1.8e-4), nor
	 * within --rel 0.25; within --atol 1e-4 (rtol at its default). */
	tolerance_close_defaults(EWB_F16, &t.atol, &t.rtol);
	CHECK(fabs(tolerance_widen(0x8703, EWB_F16) + 0.000107) < 1e-6);
	CHECK(fabs(tolerance_widen(0x89e6, EWB_F16) + 0.000180) < 1e-6);
	CHECK(!tolerance_passes(0x8703, 0x89e6, EWB_F16, &t));
	t.rel = TOLERANCE_MAX_REL;
	CHECK(!tolerance_passes(0x8703, 0x89e6, EWB_F16, &t));
	t.atol = 1e-4;
	CHECK(tolerance_passes(0x8703, 0x89e6, EWB_F16, &t));
	/* Any tolerance passes: 1 ulp of bf16 1.0 with the close rule off,
	 * and the close rule with --ulps 1 too small. */
	t = (struct ewb_tolerance){ 1, 0, true, 0, 0 };
	CHECK(tolerance_passes(0x3f81, 0x3f80, EWB_BF16, &t));
	CHECK(!tolerance_passes(0x3f82, 0x3f80, EWB_BF16, &t));
	t.atol = 1e-5;
	t.rtol = 1.6e-2;	/* bf16 1.015625 is within 1.6 % of 1 */
	CHECK(tolerance_passes(0x3f82, 0x3f80, EWB_BF16, &t));
	/* Infinities and NaN as before: only equal, only with NaN. */
	t.atol = TOLERANCE_MAX_ATOL;
	CHECK(!tolerance_passes(0x7f800000u, 0x7f7fffffu, EWB_F32, &t));
	CHECK(!tolerance_passes(0x7fc00000u, 0x3f800000u, EWB_F32, &t));
}

/* The tolerance's rule on a few hand-made pairs. */
static void
test_tolerance_rule(void)
{
	struct ewb_tolerance	two = { 2, 0, true, 0, 0 };
	struct ewb_tolerance	rel = { 0, 0.01, true, 0, 0 };
	struct ewb_tolerance	exact = { 0, 0, true, 0, 0 };

	/* bf16 1.0 is 0x3f80; 0x3f82 two ulps above; -0 and +0 equal. */
	CHECK(tolerance_widen(0x3f80, EWB_BF16) == 1.0f);
	CHECK(tolerance_widen(0x3c00, EWB_F16) == 1.0f);
	CHECK(tolerance_widen(0x0001, EWB_F16) == 0x1p-24f);
	CHECK(tolerance_passes(0x3f82, 0x3f80, EWB_BF16, &two));
	CHECK(!tolerance_passes(0x3f83, 0x3f80, EWB_BF16, &two));
	CHECK(!tolerance_passes(0x3f81, 0x3f80, EWB_BF16, &exact));
	CHECK(tolerance_passes(0x8000, 0x0000, EWB_BF16, &exact));
	/* Across zero: the smallest subnormals of either sign, 2 apart. */
	CHECK(tolerance_passes(0x8001, 0x0001, EWB_F16, &two));
	/* Relative: 1.0 against 1.0078125 (bf16 0x3f81) within 1 %. */
	CHECK(tolerance_passes(0x3f81, 0x3f80, EWB_BF16, &rel));
	CHECK(!tolerance_passes(0x3f90, 0x3f80, EWB_BF16, &rel));
	/* Infinities only when equal; NaN only with NaN. */
	CHECK(tolerance_passes(0x7f800000u, 0x7f800000u, EWB_F32, &two));
	CHECK(!tolerance_passes(0x7f800000u, 0x7f7fffffu, EWB_F32, &two));
	CHECK(tolerance_passes(0x7fc00000u, 0xffc00001u, EWB_F32, &two));
	CHECK(!tolerance_passes(0x7fc00000u, 0x3f800000u, EWB_F32, &two));
	CHECK(!tolerance_passes(0x7fc00000u, 0x7fc00000u, EWB_F32, NULL));
}

int
main(void)
{
	test_poisons();
	test_unwritten_custom();
	test_tolerance_rule();
	test_close_rule();
	test_every_overrun();
	test_old_check_blind();
	printf("guard: %s\n", check_failures ? "FAILED" : "ok");
	return check_exit();
}

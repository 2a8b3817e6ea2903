/*
 * test-reference.c - the CPU reference accepts right results and catches
 * wrong ones: a planted error, a NaN, fp16 truncation instead of rounding.
 * "test-reference --bench" times a 256M-element fp16 add check instead.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/ewbench.h"
#include "check.h"

#define N	5003		/* several chunks and a ragged end */

static const struct ewb_variant add_f32 = {
	.id = "add_f32", .op = EWB_OP_ADD, .dtype = EWB_F32
};
static const struct ewb_variant add_f16 = {
	.id = "add_f16", .op = EWB_OP_ADD, .dtype = EWB_F16
};
static const struct ewb_variant relu_f32 = {
	.id = "relu_f32", .op = EWB_OP_RELU, .dtype = EWB_F32
};
static const struct ewb_variant abs_f32 = {
	.id = "abs_f32", .op = EWB_OP_ABS, .dtype = EWB_F32, .in_place = true
};

/*
 * Round x (finite, |x| < 65504) to the nearest half, ties to even, in a
 * way independent of half.c: scale so one half ulp is 1 and let
 * nearbyint (round-half-even by default) do it.
 */
static uint16_t
round_half_independent(double x)
{
	int	e;
	double	ulp, r;

	frexp(x, &e);		/* |x| in [2^(e-1), 2^e) */
	if (e - 1 < -14)
		e = -13;	/* subnormal range: fixed ulp 2^-24 */
	ulp = ldexp(1, e - 1 - 10);
	r = nearbyint(x / ulp) * ulp;
	return half_from_float((float)r);	/* exact: r is a half */
}

static void
test_add_f32(void)
{
	float		a[N], b[N], c[N];
	struct mismatch	bad;
	size_t		i;

	fill_random(a, EWB_F32, N, fill_seed(1, 0));
	fill_random(b, EWB_F32, N, fill_seed(1, 1));
	for (i = 0; i < N; i++)
		c[i] = (float)((double)a[i] + (double)b[i]);
	CHECK(reference_check(&add_f32, a, b, c, N, &bad) == 0);
	CHECK(reference_check(&add_f32, a, b, c, 0, &bad) == 0);

	/* One planted error, one ulp off, in the ragged last chunk. */
	c[N - 2] = nextafterf(c[N - 2], INFINITY);
	memset(&bad, 0, sizeof bad);
	CHECK(reference_check(&add_f32, a, b, c, N, &bad) == -1);
	CHECK(bad.index == N - 2);
	CHECK(bad.bad_count == 1);
	CHECK(bad.got == (double)c[N - 2]);
	CHECK(bad.expected == (double)(a[N - 2] + b[N - 2]));
	/* A prefix that stops before it is still right. */
	CHECK(reference_check(&add_f32, a, b, c, N - 2, &bad) == 0);

	/* More errors: the first is reported, all are counted. */
	c[3] = NAN;
	c[2048] = 0;
	CHECK(reference_check(&add_f32, a, b, c, N, &bad) == -1);
	CHECK(bad.index == 3);
	CHECK(isnan(bad.got));
	CHECK(bad.bad_count == 3);

	/* Swapping the operands of a wrong op is caught: c = a - b. */
	for (i = 0; i < N; i++)
		c[i] = a[i] - b[i];
	CHECK(reference_check(&add_f32, a, b, c, N, &bad) == -1);
	CHECK(bad.bad_count == N);
}

static void
test_add_f16(void)
{
	uint16_t	a[N], b[N], c[N], truncated[N];
	struct mismatch	bad;
	size_t		i, differ = 0;
	float		sum;
	uint32_t	bits;

	fill_random(a, EWB_F16, N, fill_seed(2, 0));
	fill_random(b, EWB_F16, N, fill_seed(2, 1));
	for (i = 0; i < N; i++) {
		sum = half_to_float(a[i]) + half_to_float(b[i]);
		c[i] = round_half_independent((double)half_to_float(a[i]) +
		    (double)half_to_float(b[i]));

		/* A wrong GPU: float sum truncated to half, not rounded. */
		memcpy(&bits, &sum, 4);
		bits &= ~(uint32_t)0x1fff;
		memcpy(&sum, &bits, 4);
		truncated[i] = half_from_float(sum);	/* now exact */
		differ += truncated[i] != c[i];
	}
	CHECK(reference_check(&add_f16, a, b, c, N, &bad) == 0);

	/* Truncation is wrong often enough to matter, and every case is seen. */
	CHECK(differ > N / 4);
	CHECK(reference_check(&add_f16, a, b, truncated, N, &bad) == -1);
	CHECK(bad.bad_count == differ);
	CHECK(fabs(bad.got - bad.expected) > 0);

	/* A half NaN is never right. */
	c[17] = 0x7e00;
	CHECK(reference_check(&add_f16, a, b, c, N, &bad) == -1);
	CHECK(bad.index == 17 && bad.bad_count == 1 && isnan(bad.got));
}

/* Ties: exact halfway sums go to the even half, as __hadd does. */
static void
test_add_f16_ties(void)
{
	uint16_t	a[3], b[3], c[3];
	struct mismatch	bad;

	a[0] = 0x3c00; b[0] = 0x1000;	/* 1 + 2^-11: tie, down to 1 */
	c[0] = 0x3c00;
	a[1] = 0x3c01; b[1] = 0x1000;	/* (1 + 2^-10) + 2^-11: tie, up */
	c[1] = 0x3c02;
	a[2] = 0x7bff; b[2] = 0x5000;	/* 65504 + 32: tie, to infinity */
	c[2] = 0x7c00;
	CHECK(reference_check(&add_f16, a, b, c, 3, &bad) == 0);
	c[0] = 0x3c01;			/* rounded away from even */
	CHECK(reference_check(&add_f16, a, b, c, 3, &bad) == -1);
	CHECK(bad.index == 0 && bad.bad_count == 1);
}

static void
test_relu(void)
{
	float		a[N], c[N];
	struct mismatch	bad;
	size_t		i, negative = 0;

	fill_random(a, EWB_F32, N, fill_seed(3, 0));
	for (i = 0; i < N; i++) {
		c[i] = a[i] > 0 ? a[i] : -0.0f;	/* -0 equals +0 by value */
		negative += a[i] < 0;
	}
	CHECK(reference_check(&relu_f32, a, NULL, c, N, &bad) == 0);

	/* A kernel that copied its input: every negative is wrong. */
	CHECK(reference_check(&relu_f32, a, NULL, a, N, &bad) == -1);
	CHECK(negative > 0 && bad.bad_count == negative);
	CHECK(bad.expected == 0);
}

static void
test_abs(void)
{
	float		before[N], after[N];
	struct mismatch	bad;
	size_t		i;

	fill_random(before, EWB_F32, N, fill_seed(4, 0));
	for (i = 0; i < N; i++)
		after[i] = before[i] < 0 ? -before[i] : before[i];
	CHECK(reference_check(&abs_f32, before, NULL, after, N, &bad) == 0);

	after[N - 1] = -after[N - 1];
	CHECK(reference_check(&abs_f32, before, NULL, after, N, &bad) == -1);
	CHECK(bad.index == N - 1 && bad.bad_count == 1);
	CHECK(bad.got == -bad.expected);

	/* NaN in, NaN out: still not a match. */
	before[0] = after[0] = NAN;
	after[N - 1] = -after[N - 1];
	CHECK(reference_check(&abs_f32, before, NULL, after, N, &bad) == -1);
	CHECK(bad.index == 0 && bad.bad_count == 1);
}

static int
bench(void)
{
	size_t		 n = (size_t)1 << 28, i;
	uint16_t	*a, *b, *c;
	struct mismatch	 bad;
	struct timespec	 t0, t1;
	int		 rc;

	a = xmalloc(n * 2);
	b = xmalloc(n * 2);
	c = xmalloc(n * 2);
	fill_random(a, EWB_F16, n, 1);
	fill_random(b, EWB_F16, n, 2);
	for (i = 0; i < n; i++)
		c[i] = half_from_float(half_to_float(a[i]) +
		    half_to_float(b[i]));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = reference_check(&add_f16, a, b, c, n, &bad);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("reference_check add_f16: %zu elements in %.3f s (rc %d)\n", n,
	    (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	    rc);
	free(a);
	free(b);
	free(c);
	return rc == 0 ? 0 : 1;
}

/* reference_compute writes exactly what reference_check accepts, for every
 * op and dtype, split over threads or not, and reference_generate (inputs
 * generated from their seeds, never stored) the same; one changed element
 * of it is then caught at its index. */
static void
test_compute(void)
{
	static const struct ewb_variant rows[] = {
		{ .id = "add_f32", .op = EWB_OP_ADD, .dtype = EWB_F32 },
		{ .id = "add_f16", .op = EWB_OP_ADD, .dtype = EWB_F16 },
		{ .id = "relu_f32", .op = EWB_OP_RELU, .dtype = EWB_F32 },
		{ .id = "relu_f16", .op = EWB_OP_RELU, .dtype = EWB_F16 },
		{ .id = "abs_f32", .op = EWB_OP_ABS, .dtype = EWB_F32 },
	};
	size_t		 n = (1u << 19) + 7, i, size;
	unsigned char	*a, *b, *one, *many;
	struct mismatch	 bad;

	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		size = rows[i].dtype == EWB_F16 ? 2 : 4;
		a = xmalloc(n * size);
		b = xmalloc(n * size);
		one = xmalloc(n * size);
		many = xmalloc(n * size);
		fill_random(a, rows[i].dtype, n, 5);
		fill_random(b, rows[i].dtype, n, 6);
		setenv("EWBENCH_THREADS", "1", 1);
		reference_compute(rows[i].op, rows[i].dtype, a, b, one, n);
		setenv("EWBENCH_THREADS", "5", 1);
		reference_compute(rows[i].op, rows[i].dtype, a, b, many, n);
		unsetenv("EWBENCH_THREADS");
		CHECK(memcmp(one, many, n * size) == 0);
		/* Generated chunk by chunk from the seeds: the same bytes. */
		memset(many, 0, n * size);
		reference_generate(rows[i].op, rows[i].dtype, n, 5, 6, many);
		CHECK(memcmp(one, many, n * size) == 0);
		CHECK(reference_check(&rows[i], a, b, many, n, &bad) == 0);
		many[(n - 1) * size] ^= 0x40;	/* the last element */
		CHECK(reference_check(&rows[i], a, b, many, n, &bad) == -1);
		CHECK(bad.index == n - 1 && bad.bad_count == 1);
		free(a);
		free(b);
		free(one);
		free(many);
	}
}

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--bench") == 0)
		return bench();
	test_add_f32();
	test_add_f16();
	test_add_f16_ties();
	test_relu();
	test_abs();
	test_compute();
	return check_exit();
}

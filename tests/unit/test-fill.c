/*
 * test-fill.c - random operands: reproducible, in range, per-stream.
 * "test-fill --bench" times 256M floats instead (not part of make check).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/ewbench.h"
#include "check.h"

#define N	100003		/* odd: the last element has no pair */

/* Value i of a filled buffer as a float. */
static float
value(const void *buf, enum ewb_dtype dtype, size_t i)
{
	return element_to_float(buf, dtype, i);
}

/* Whether v is exact in dtype. */
static bool
representable(float v, enum ewb_dtype dtype)
{
	switch (dtype) {
	case EWB_F16:
		return half_to_float(half_from_float(v)) == v;
	case EWB_BF16:
		return bf16_to_float(bf16_from_float(v)) == v;
	case EWB_F32:
		break;
	}
	return true;
}

static void
test_values(enum ewb_dtype dtype, unsigned size)
{
	unsigned char	*buf, *again;
	size_t		 i, negative = 0, not_half = 0, bad = 0;
	size_t		 per_binade[7] = { 0 };
	float		 v, m;
	int		 e;

	/* Two guard bytes past the end must survive. */
	buf = xmalloc(N * size + 2);
	again = xmalloc(N * size + 2);
	memset(buf, 0xa5, N * size + 2);
	fill_random(buf, dtype, N, 42);
	CHECK(buf[N * size] == 0xa5 && buf[N * size + 1] == 0xa5);

	for (i = 0; i < N; i++) {
		v = value(buf, dtype, i);
		m = fabsf(v);
		if (!isfinite(v) || !(m >= 0x1p-4f && m < 8.0f)) {
			bad++;
			continue;
		}
		negative += v < 0;
		frexpf(m, &e);			/* m = [0.5, 1) * 2^e */
		per_binade[e - 1 + 4]++;	/* 2^-4 -> 0 ... 2^2 -> 6 */
		if (!representable(v, dtype == EWB_F32 ? EWB_F16 : dtype))
			not_half++;
	}
	CHECK(bad == 0);
	/* Both signs, every binade of [2^-4, 8), roughly evenly. */
	CHECK(negative > N * 45 / 100 && negative < N * 55 / 100);
	for (i = 0; i < 7; i++)
		CHECK(per_binade[i] > N / 7 * 9 / 10 &&
		    per_binade[i] < N / 7 * 11 / 10);
	/* f16 and bf16 values are exact in their type by construction; f32
	 * ones use the full width (most are not halves). */
	if (dtype != EWB_F32)
		CHECK(not_half == 0);
	else
		CHECK(not_half > N * 9 / 10);

	/* Same seed, same bytes; another seed, other bytes. */
	fill_random(again, dtype, N, 42);
	CHECK(memcmp(buf, again, N * size) == 0);
	fill_random(again, dtype, N, 43);
	CHECK(memcmp(buf, again, N * size) != 0);

	/* A shorter fill is a prefix of a longer one. */
	memset(again, 0, N * size);
	fill_random(again, dtype, 1001, 42);
	CHECK(memcmp(buf, again, 1001 * size) == 0);
	CHECK(again[1001 * size] == 0);
	fill_random(again, dtype, 0, 42);	/* writes nothing */

	free(buf);
	free(again);
}

static void
test_seeds(void)
{
	uint64_t	a, b, c, d;

	CHECK(fill_seed(1, 0) == fill_seed(1, 0));
	CHECK(fill_seed(1, 0) != fill_seed(1, 1));
	CHECK(fill_seed(1, 0) != fill_seed(2, 0));
	/* Not symmetric: seed 1 stream 2 is not seed 2 stream 1. */
	CHECK(fill_seed(1, 2) != fill_seed(2, 1));
	CHECK(fill_seed(0, 0) != 0);

	/* Chained keys (n, dtype, operand) give distinct streams. */
	a = fill_seed(fill_seed(fill_seed(1, 1 << 20), EWB_F32), 0);
	b = fill_seed(fill_seed(fill_seed(1, 1 << 20), EWB_F32), 1);
	c = fill_seed(fill_seed(fill_seed(1, 1 << 20), EWB_F16), 0);
	d = fill_seed(fill_seed(fill_seed(1, 1 << 24), EWB_F32), 0);
	CHECK(a != b && a != c && a != d && b != c && b != d && c != d);
}

static void
test_streams_differ(void)
{
	float	x[64], y[64];
	size_t	i, same = 0;

	/* Operands a and b of one point must not be equal element-wise. */
	fill_random(x, EWB_F32, 64, fill_seed(7, 0));
	fill_random(y, EWB_F32, 64, fill_seed(7, 1));
	for (i = 0; i < 64; i++)
		same += x[i] == y[i];
	CHECK(same == 0);
}

/* The fill is split across threads by slices of whole draws: any split,
 * odd lengths included, gives the bytes one thread gives. */
static void
test_threads_agree(enum ewb_dtype dtype, unsigned size)
{
	static const char *const threads[] = { "2", "3", "7", "16" };
	size_t		 n = (1u << 20) + 3, i;
	unsigned char	*one = xmalloc(n * size), *many = xmalloc(n * size);

	setenv("EWBENCH_THREADS", "1", 1);
	fill_random(one, dtype, n, 99);
	for (i = 0; i < sizeof threads / sizeof threads[0]; i++) {
		setenv("EWBENCH_THREADS", threads[i], 1);
		memset(many, 0, n * size);
		fill_random(many, dtype, n, 99);
		CHECK(memcmp(one, many, n * size) == 0);
	}
	unsetenv("EWBENCH_THREADS");
	free(one);
	free(many);
}

static int
bench(void)
{
	size_t		 n = (size_t)1 << 28;
	float		*buf;
	struct timespec	 t0, t1;

	buf = xmalloc(n * sizeof *buf);
	memset(buf, 0, n * sizeof *buf);	/* fault the pages in first */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fill_random(buf, EWB_F32, n, 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("fill_random: %zu floats in %.3f s\n", n,
	    (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	free(buf);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--bench") == 0)
		return bench();
	test_values(EWB_F32, 4);
	test_values(EWB_F16, 2);
	test_values(EWB_BF16, 2);
	test_seeds();
	test_streams_differ();
	test_threads_agree(EWB_F32, 4);
	test_threads_agree(EWB_F16, 2);
	test_threads_agree(EWB_BF16, 2);
	return check_exit();
}

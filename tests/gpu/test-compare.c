/*
 * test-compare.c - the GPU comparison (compare.cu) is exactly as strict as
 * the CPU reference check (reference.c): for every planted kind of wrong
 * element - one ulp off, a NaN, the wrong sign, the first and the last
 * element, many at once - both count the same bad elements and name the
 * same first one, in fp32 and fp16; a signed zero is right in both.  And
 * the GPU's fill of the inputs (fill.cu) is byte for byte the host's, in
 * f32, f16 and bf16.  With a user's op's tolerance (--ulps, --rel, NaN
 * equal) the GPU's verdict is that of tolerance_passes on the host, on
 * pairs near and far, NaN, infinities and signed zeros, in every dtype.
 * Exits 77 (SKIP) without a GPU.
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>

#include <cuda_runtime_api.h>

#include "base/ewbench.h"
#include "base/tolerance.h"
#include "tests/unit/check.h"

#define N	((1u << 20) + 3)	/* odd: a tail past every vector */

static const struct ewb_variant abs_rows[] = {
	{ .id = "abs_f32", .op = EWB_OP_ABS, .dtype = EWB_F32, .in_place = true },
	{ .id = "abs_f16", .op = EWB_OP_ABS, .dtype = EWB_F16, .in_place = true },
};

/* Element i of buf set to a float value, in the dtype. */
static void
put(void *buf, enum ewb_dtype dtype, size_t i, float value)
{
	uint16_t	h = half_from_float(value);

	if (dtype == EWB_F32)
		memcpy((char *)buf + i * 4, &value, 4);
	else
		memcpy((char *)buf + i * 2, &h, 2);
}

static float
get(const void *buf, enum ewb_dtype dtype, size_t i)
{
	float		f;
	uint16_t	h;

	if (dtype == EWB_F32) {
		memcpy(&f, (const char *)buf + i * 4, 4);
		return f;
	}
	memcpy(&h, (const char *)buf + i * 2, 2);
	return half_to_float(h);
}

/* One planted case: got = expected with `count` elements changed by kind
 * at positions from `where`; compares the two checkers' verdicts. */
static void
plant(const struct ewb_variant *v, unsigned char *a, unsigned char *expected,
    unsigned char *got, void *d_got, void *d_expected,
    struct ewb_compare_result *d_result, int kind, const size_t *where,
    size_t count)
{
	struct ewb_compare_result	r;
	struct mismatch			bad;
	size_t				size = ewb_dtype_size(v->dtype), i;
	int				cpu;

	memcpy(got, expected, N * size);
	for (i = 0; i < count; i++) {
		float x = get(expected, v->dtype, where[i]);

		switch (kind) {
		case 0:	/* one ulp (fp16: one half ulp step) up */
			if (v->dtype == EWB_F32)
				put(got, v->dtype, where[i],
				    nextafterf(x, INFINITY));
			else {
				uint16_t h;

				memcpy(&h, got + where[i] * 2, 2);
				h++;
				memcpy(got + where[i] * 2, &h, 2);
			}
			break;
		case 1:	/* NaN */
			put(got, v->dtype, where[i], NAN);
			break;
		case 2:	/* the wrong sign */
			put(got, v->dtype, where[i], -x);
			break;
		case 3:	/* -0 where +0 is expected: right, by value */
			put(got, v->dtype, where[i], -0.0f);
			break;
		}
	}
	cpu = reference_check(v, a, NULL, got, N, &bad);
	if (cudaMemcpy(d_got, got, N * size, cudaMemcpyHostToDevice) !=
	    cudaSuccess || ewb_compare(d_got, d_expected, N, v->dtype, NULL,
	    d_result, 0) != cudaSuccess ||
	    cudaMemcpy(&r, d_result, sizeof r, cudaMemcpyDeviceToHost) !=
	    cudaSuccess) {
		CHECK(!"CUDA failed");
		return;
	}
	if (count == 0 || kind == 3) {
		CHECK(cpu == 0 && r.bad_count == 0);
		return;
	}
	CHECK(cpu == -1);
	CHECK(r.bad_count == bad.bad_count);
	CHECK(r.first_index == bad.index);
	CHECK(r.bad_count == count);
}

/* The GPU's fill (kernels/fill.cu) writes exactly fill_random's bytes,
 * odd lengths included, so the reference computed from the host's copy
 * is the reference of what the kernels read. */
static void
test_fill_twin(enum ewb_dtype dtype)
{
	size_t		 size = ewb_dtype_size(dtype), n = 1000003;
	unsigned char	*host = xmalloc(n * size), *back = xmalloc(n * size);
	void		*d = NULL;

	fill_random(host, dtype, n, 12345);
	if (cudaMalloc(&d, n * size) != cudaSuccess ||
	    ewb_fill_random(d, dtype, n, 12345, 0) != cudaSuccess ||
	    cudaMemcpy(back, d, n * size, cudaMemcpyDeviceToHost) !=
	    cudaSuccess)
		CHECK(!"CUDA failed");
	else
		CHECK(memcmp(host, back, n * size) == 0);
	cudaFree(d);
	free(host);
	free(back);
}

/* The GPU tests' lock (tests/setup.sh gpu_lock): make -j check runs the
 * tests that use the GPU one at a time.  Held until exit. */
static void
gpu_lock(void)
{
	const char	*dir = getenv("TMPDIR");
	char		 path[4096];
	int		 fd;

	snprintf(path, sizeof path, "%s/ewbench-gpu-tests.lock",
	    dir != NULL && *dir != '\0' ? dir : "/tmp");
	if ((fd = open(path, O_WRONLY | O_CREAT, 0666)) >= 0)
		(void)flock(fd, LOCK_EX);
}

/* Bits of an element: near the expected one (a few ulps either way, a
 * relative nudge), far, NaN, an infinity or a zero of either sign. */
static uint32_t
near_bits(uint32_t e, enum ewb_dtype dtype, uint64_t r)
{
	uint32_t	sign = dtype == EWB_F32 ? 0x80000000u : 0x8000u;
	uint32_t	inf = dtype == EWB_F32 ? 0x7f800000u : dtype == EWB_F16 ?
			    0x7c00u : 0x7f80u;

	switch (r % 8) {
	case 0:
	case 1:
	case 2:
		return e + (uint32_t)(r >> 8) % 9 - 4;	/* within 4 ulps */
	case 3:
		return e ^ (uint32_t)(r >> 8) % 64;	/* low bits */
	case 4:
		return inf | 1;				/* NaN */
	case 5:
		return ((r >> 8) & 1) ? inf : inf | sign;
	case 6:
		return ((r >> 8) & 1) ? 0 : sign;	/* +-0 */
	}
	return (uint32_t)(r >> 16) & (dtype == EWB_F32 ? 0xffffffffu :
	    0xffffu);
}

static void
test_tolerance_twin(enum ewb_dtype dtype, struct ewb_tolerance tol)
{
	size_t		 size = ewb_dtype_size(dtype), n = 1000003, i;
	size_t		 bad = 0, first = ~(size_t)0;
	unsigned char	*got = xmalloc(n * size), *expected = xmalloc(n * size);
	void		*d_got = NULL, *d_expected = NULL;
	struct ewb_compare_result *d_result = NULL, r;
	uint64_t	 state = 7;

	fill_random(expected, dtype, n, 99);
	for (i = 0; i < n; i++) {
		uint32_t e = 0, g;

		memcpy(&e, expected + i * size, size);
		/* Some expected NaN, infinities and zeros too. */
		if (i % 97 == 0)
			e = near_bits(e, dtype, 4 + i % 3);
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		g = near_bits(e, dtype, state >> 11) & (dtype == EWB_F32 ?
		    0xffffffffu : 0xffffu);
		memcpy(expected + i * size, &e, size);
		memcpy(got + i * size, &g, size);
		if (!tolerance_passes(g, e, dtype, &tol) && bad++ == 0)
			first = i;
	}
	if (cudaMalloc(&d_got, n * size) != cudaSuccess ||
	    cudaMalloc(&d_expected, n * size) != cudaSuccess ||
	    cudaMalloc((void **)&d_result, sizeof *d_result) != cudaSuccess ||
	    cudaMemcpy(d_got, got, n * size, cudaMemcpyHostToDevice) !=
	    cudaSuccess || cudaMemcpy(d_expected, expected, n * size,
	    cudaMemcpyHostToDevice) != cudaSuccess ||
	    ewb_compare(d_got, d_expected, n, dtype, &tol, d_result, 0) !=
	    cudaSuccess || cudaMemcpy(&r, d_result, sizeof r,
	    cudaMemcpyDeviceToHost) != cudaSuccess)
		CHECK(!"CUDA failed");
	else {
		CHECK(bad > n / 10 && bad < n);	/* both verdicts occur */
		CHECK(r.bad_count == bad);
		CHECK(r.first_index == first);
	}
	cudaFree(d_got);
	cudaFree(d_expected);
	cudaFree(d_result);
	free(got);
	free(expected);
}

int
main(void)
{
	static const size_t	 spots[] = { 0, 17, 4096, N / 2, N - 2, N - 1 };
	static const size_t	 zero_at[] = { 5 };
	size_t			 i, k, size, many[1000];
	unsigned char		*a, *expected, *got;
	void			*d_got, *d_expected;
	struct ewb_compare_result *d_result;
	int			 devices = 0;

	if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
		printf("SKIP: no usable GPU\n");
		return 77;
	}
	gpu_lock();
	test_fill_twin(EWB_F32);
	test_fill_twin(EWB_F16);
	test_fill_twin(EWB_BF16);
	for (i = 0; i < 3; i++) {
		static const enum ewb_dtype dtypes[] = { EWB_F32, EWB_F16,
		    EWB_BF16 };

		test_tolerance_twin(dtypes[i], (struct ewb_tolerance){ 0, 0,
		    true, 0, 0 });
		test_tolerance_twin(dtypes[i], (struct ewb_tolerance){ 2, 0,
		    true, 0, 0 });
		test_tolerance_twin(dtypes[i], (struct ewb_tolerance){ 0, 0.01,
		    true, 0, 0 });
		test_tolerance_twin(dtypes[i], (struct ewb_tolerance){ 3, 1e-3,
		    true, 0, 0 });
		/* --atol/--rtol (assert_close's rule), alone and beside the
		 * others. */
		test_tolerance_twin(dtypes[i], (struct ewb_tolerance){ 0, 0,
		    true, 1e-5, 1e-3 });
		test_tolerance_twin(dtypes[i], (struct ewb_tolerance){ 0, 0,
		    true, 0.5, 0 });
		test_tolerance_twin(dtypes[i], (struct ewb_tolerance){ 3, 1e-3,
		    true, 1e-5, 1.6e-2 });
	}
	/* 1000 distinct positions (7919 is prime, N is no multiple of it). */
	for (i = 0; i < 1000; i++)
		many[i] = (i * 7919 + 13) % N;
	for (i = 0; i < sizeof abs_rows / sizeof abs_rows[0]; i++) {
		const struct ewb_variant *v = &abs_rows[i];

		size = ewb_dtype_size(v->dtype);
		a = xmalloc(N * size);
		expected = xmalloc(N * size);
		got = xmalloc(N * size);
		fill_random(a, v->dtype, N, 11);
		/* Signed zeros: |-0| is +0, and -0 == +0 by value. */
		put(a, v->dtype, 5, -0.0f);
		reference_compute(v->op, v->dtype, a, NULL, expected, N);
		if (cudaMalloc(&d_got, N * size) != cudaSuccess ||
		    cudaMalloc(&d_expected, N * size) != cudaSuccess ||
		    cudaMalloc((void **)&d_result, sizeof *d_result) !=
		    cudaSuccess || cudaMemcpy(d_expected, expected, N * size,
		    cudaMemcpyHostToDevice) != cudaSuccess) {
			printf("FAIL: cannot allocate on the GPU\n");
			return 1;
		}
		plant(v, a, expected, got, d_got, d_expected, d_result, 0,
		    spots, 0);
		plant(v, a, expected, got, d_got, d_expected, d_result, 3,
		    zero_at, 1);
		for (k = 0; k < 3; k++) {
			size_t j;

			for (j = 0; j < sizeof spots / sizeof spots[0]; j++)
				plant(v, a, expected, got, d_got, d_expected,
				    d_result, (int)k, &spots[j], 1);
			plant(v, a, expected, got, d_got, d_expected, d_result,
			    (int)k, many, 1000);
		}
		cudaFree(d_got);
		cudaFree(d_expected);
		cudaFree(d_result);
		free(a);
		free(expected);
		free(got);
	}
	if (check_exit() != 0)
		return 1;
	printf("compare: GPU and CPU checks agree\n");
	return 0;
}

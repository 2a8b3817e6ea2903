/*
 * reference.c - the CPU reference of every op, compared with a GPU result.
 *
 * Work goes in chunks small enough to stay in L1: operands are widened to
 * float, the op is applied (one switch per chunk, none per element), fp16
 * results are rounded to half, and the result is compared by value with
 * the GPU's.  Every op is exact in float before that one rounding: the sum
 * of two halves rounded once to float and then to half equals the sum
 * rounded to half directly, since float's 24 bits are at least 2 * 11 + 2.
 *
 * Chunks always hold CHUNK elements, the last one padded with zeros on
 * both sides (0 op 0 is 0, so padding always matches): loops with a
 * constant trip count are ones that compilers vectorize at -O2.
 */
#include <math.h>
#include <string.h>

#include "base/ewbench.h"

#define CHUNK	2048

/* src[start..start+count) of a dtype, widened to float; zeros after. */
static void
load_floats(enum ewb_dtype dtype, const void *src, size_t start,
    size_t count, float *out)
{
	switch (dtype) {
	case EWB_F32:
		memcpy(out, (const float *)src + start, count * sizeof *out);
		break;
	case EWB_F16:
		halves_to_floats((const uint16_t *)src + start, out, count);
		break;
	case EWB_BF16:
		for (size_t i = 0; i < count; i++)
			out[i] = bf16_to_float(((const uint16_t *)src)[start +
			    i]);
		break;
	}
	memset(out + count, 0, (CHUNK - count) * sizeof *out);
}

/* x[0..count) rounded to dtype into out (2 or 4 bytes an element). */
static void
store_rounded(enum ewb_dtype dtype, const float *x, size_t count, void *out)
{
	size_t	i;

	switch (dtype) {
	case EWB_F32:
		memcpy(out, x, count * sizeof *x);
		break;
	case EWB_F16:
		halves_from_floats(x, out, count);
		break;
	case EWB_BF16:
		for (i = 0; i < count; i++)
			((uint16_t *)out)[i] = bf16_from_float(x[i]);
		break;
	}
}

/* x[i] = op(x[i], y[i]); y is read only for binary ops. */
static void
apply_op(enum ewb_op op, float *x, const float *y)
{
	size_t	i;

	switch (op) {
	case EWB_OP_ADD:
		for (i = 0; i < CHUNK; i++)
			x[i] = x[i] + y[i];
		break;
	case EWB_OP_RELU:
		for (i = 0; i < CHUNK; i++)
			x[i] = x[i] > 0 ? x[i] : 0.0f;
		break;
	case EWB_OP_ABS:
		for (i = 0; i < CHUNK; i++)
			x[i] = fabsf(x[i]);
		break;
	case EWB_OP_CUSTOM:
		/* Not the CPU's: the user's reference kernel computes it on
		 * the GPU (checker.c). */
		break;
	}
}

/* How many of the chunk differ; NaN never equals anything. */
static size_t
count_mismatches(const float *actual, const float *expected)
{
	size_t	i, bad = 0;

	for (i = 0; i < CHUNK; i++)
		bad += !(actual[i] == expected[i]);
	return bad;
}

int
reference_check(const struct ewb_variant *v, const void *a, const void *b,
    const void *got, size_t n, struct mismatch *bad)
{
	float		expected[CHUNK], operand[CHUNK], actual[CHUNK];
	float		rounded[CHUNK];
	size_t		start, count, i, chunk_bad, bad_count = 0;

	for (start = 0; start < n; start += count) {
		count = n - start < CHUNK ? n - start : CHUNK;

		load_floats(v->dtype, a, start, count, expected);
		if (v->op == EWB_OP_ADD)
			load_floats(v->dtype, b, start, count, operand);
		apply_op(v->op, expected, operand);
		store_rounded(v->dtype, expected, count, rounded);
		load_floats(v->dtype, rounded, 0, count, expected);
		load_floats(v->dtype, got, start, count, actual);

		if ((chunk_bad = count_mismatches(actual, expected)) == 0)
			continue;
		if (bad_count == 0) {
			for (i = 0; actual[i] == expected[i]; i++)
				/* the first one */;
			bad->index = start + i;
			bad->got = actual[i];
			bad->expected = expected[i];
		}
		bad_count += chunk_bad;
	}
	if (bad_count == 0)
		return 0;
	bad->bad_count = bad_count;
	return -1;
}

struct expected {
	enum ewb_op	 op;
	enum ewb_dtype	 dtype;
	const void	*a, *b;		/* NULL: generated from the seeds */
	uint64_t	 seed_a, seed_b;
	void		*out;
};

/* One chunk of expected output, from stored or generated inputs. */
static void
expected_chunk(const struct expected *e, size_t start, size_t count)
{
	float		x[CHUNK], y[CHUNK];
	uint32_t	raw_a[CHUNK], raw_b[CHUNK];	/* fp32 or fp16 bits */
	const void	*a = e->a, *b = e->b;
	size_t		at = start;

	if (a == NULL) {
		fill_random_range(raw_a, e->dtype, start, count, e->seed_a);
		if (e->op == EWB_OP_ADD)
			fill_random_range(raw_b, e->dtype, start, count,
			    e->seed_b);
		a = raw_a;
		b = raw_b;
		at = 0;
	}
	load_floats(e->dtype, a, at, count, x);
	if (e->op == EWB_OP_ADD)
		load_floats(e->dtype, b, at, count, y);
	apply_op(e->op, x, y);
	store_rounded(e->dtype, x, count, (char *)e->out + start *
	    (e->dtype == EWB_F32 ? 4 : 2));
}

/* One slice of the expected output, chunk by chunk (slices are whole
 * chunks, and chunks start at even elements, as generation needs). */
static void
expected_slice(void *ctx, size_t first, size_t total)
{
	size_t	start, count, end = first + total;

	for (start = first; start < end; start += count) {
		count = end - start < CHUNK ? end - start : CHUNK;
		expected_chunk(ctx, start, count);
	}
}

void
reference_compute(enum ewb_op op, enum ewb_dtype dtype, const void *a,
    const void *b, void *out, size_t n)
{
	struct expected	e = { op, dtype, a, b, 0, 0, out };

	parallel_for(n, CHUNK, expected_slice, &e);
}

void
reference_generate(enum ewb_op op, enum ewb_dtype dtype, size_t n,
    uint64_t seed_a, uint64_t seed_b, void *out)
{
	struct expected	e = { op, dtype, NULL, NULL, seed_a, seed_b, out };

	parallel_for(n, CHUNK, expected_slice, &e);
}

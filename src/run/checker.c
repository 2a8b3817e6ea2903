/*
 * checker.c - every output element of every case, against a reference
 * computed once: the CPU's for add, relu and abs, the user's reference
 * kernel on the GPU for a user's op (--reference).
 *
 * All variants of one op and dtype at one size see the same inputs, so
 * they share one expected output.  The inputs are filled on the device
 * (kernels/fill.cu); the host generates the same values again, chunk by
 * chunk (fill.c), computes the reference from them (reference.c, every
 * core) once per size, dtype and op, and uploads it; the GPU compares
 * each variant's output with it (compare.cu, the rule of
 * reference_check).  A user's op (--reference) sees the same inputs
 * (up to four arrays), and its reference kernel computes the expected
 * output on the GPU; the compare then passes its tolerance (tolerance.h).
 * Before each checked launch the output is poisoned (all bits set: NaN,
 * which never equals anything; a user's op: the pass's guard poison), or,
 * for an in-place variant, restored to the input.
 *
 * A user's kernel (--kernel) writes its checked output into a buffer of
 * its own with USER_GUARD_BYTES of poison on either side: bytes it wrote
 * outside its output are found there after the launch, the nearest named
 * like a wrong element, by its index (n + k after the end).  Its check
 * runs twice, over two poisons (guard.h): a store into a guard that leaves
 * one poison as it was changes the other (guard.c proves it).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/bench.h"
#include "base/guard.h"
#include "trace/trace.h"
#include "userkernel/userkernel.h"
#include "opgen/opgen.h"

/* CUDA_TRY for a function that must free what it holds. */
#define CUDA_TRY_GOTO(call, cause, label) do {				\
	cudaError_t ewb_e_ = (call);					\
	if (ewb_e_ != cudaSuccess) {					\
		cuda_fail(ewb_e_, #call, (cause));			\
		goto label;						\
	}								\
} while (0)

static int
upload_expected(struct bench *b, void *dst, const void *src, size_t bytes,
    char **cause)
{
	CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice,
	    b->stream), cause);
	return 0;
}

/* The seed of input array k (0: a, 1: b, 2 and 3: a user's op's more)
 * of n elements of dtype.  f32 and f16 keep the streams they always had;
 * bf16 draws from a chain of its own. */
static uint64_t
input_seed(uint64_t seed, uint64_t n, enum ewb_dtype dtype, unsigned k)
{
	uint64_t	key = n * 2 + (dtype != EWB_F32);
	uint64_t	base = dtype == EWB_BF16 ? fill_seed(seed, UINT64_MAX) :
			    seed;

	if (k < 2)
		return fill_seed(base, key * 2 + k);
	return fill_seed(fill_seed(base, key * 2), k);
}

/* A user's op: its reference kernel (--reference) computes the expected
 * output from the same inputs on the GPU, one thread per element; in
 * place, over a copy of the input.  An element it leaves unwritten stays
 * NaN, which no candidate's output holds unless it wrote one (checker
 * poisons it with finite bytes: check_once). */
static int
reference_on_gpu(struct bench *b, const struct plan_case *c, char **cause)
{
	const struct ewb_variant	*v = c->v;
	size_t				 bytes = c->n * ewb_dtype_size(v->dtype);
	struct ewb_launch_args		 a;
	cudaError_t			 e;

	memset(&a, 0, sizeof a);
	a.a = b->d_a;
	a.b = b->d_b;
	a.more[0] = b->d_more[0];
	a.more[1] = b->d_more[1];
	a.c = b->d_expected;
	a.n = c->n;
	a.stream = b->stream;
	if (v->in_place)
		CUDA_TRY(cudaMemcpyAsync(b->d_expected, b->d_a, bytes,
		    cudaMemcpyDeviceToDevice, b->stream), cause);
	else
		CUDA_TRY(cudaMemsetAsync(b->d_expected, 0xff, bytes,
		    b->stream), cause);
	/* The --reference kernel when there is one, else (--elementwise)
	 * the reference generated from the op's own function. */
	if (user_reference_loaded()) {
		if ((e = user_reference_launch(&a)) != cudaSuccess)
			return cuda_fail(e, "the reference kernel (--reference)",
			    cause);
	} else if ((e = opgen_reference_launch(&a)) != cudaSuccess)
		return cuda_fail(e, "the op's reference kernel (--elementwise)",
		    cause);
	return 0;
}

int
checker_inputs(struct bench *b, const struct plan_case *c, char **cause)
{
	const struct ewb_variant *v = c->v;
	double		t0 = monotonic_seconds();
	unsigned	k;

	if (b->have_inputs && b->n == c->n && b->dtype == v->dtype)
		return 0;
	b->have_inputs = b->have_expected = false;
	/* On the device for the kernels (no upload); the host generates the
	 * same values again for the reference. */
	for (k = 0; k < 4; k++) {
		void	*array = k == 0 ? b->d_a : k == 1 ? b->d_b :
			    b->d_more[k - 2];

		if (array != NULL)
			CUDA_TRY(ewb_fill_random(array, v->dtype, c->n,
			    input_seed(b->seed, c->n, v->dtype, k), b->stream),
			    cause);
	}
	b->n = c->n;
	b->dtype = v->dtype;
	b->have_inputs = true;
	b->wall_fill += monotonic_seconds() - t0;
	return 0;
}

int
checker_prepare(struct bench *b, const struct plan_case *c, char **cause)
{
	const struct ewb_variant *v = c->v;
	size_t		bytes = c->n * ewb_dtype_size(v->dtype);
	uint64_t	seed_a = input_seed(b->seed, c->n, v->dtype, 0);
	uint64_t	seed_b = input_seed(b->seed, c->n, v->dtype, 1);
	double		t0, t1;

	if (checker_inputs(b, c, cause) != 0)
		return -1;
	t0 = monotonic_seconds();
	if (b->have_expected && b->op == v->op)
		return 0;
	if (v->op == EWB_OP_CUSTOM) {
		if (reference_on_gpu(b, c, cause) != 0)
			return -1;
		b->wall_reference += monotonic_seconds() - t0;
	} else {
		/* h_expected is free once the last compare is done. */
		CUDA_TRY(cudaStreamSynchronize(b->stream), cause);
		reference_generate(v->op, v->dtype, c->n, seed_a, seed_b,
		    b->h_expected);
		t1 = monotonic_seconds();
		b->wall_reference += t1 - t0;
		if (upload_expected(b, b->d_expected, b->h_expected, bytes,
		    cause) != 0)
			return -1;
		CUDA_TRY(cudaStreamSynchronize(b->stream), cause);
		b->wall_upload += monotonic_seconds() - t1;
	}
	b->op = v->op;
	b->have_expected = true;
	return 0;
}

/* Element i of a device array of dtype, as a double. */
static int
fetch(struct bench *b, const void *array, enum ewb_dtype dtype, size_t i,
    double *value, char **cause)
{
	unsigned	size = ewb_dtype_size(dtype);
	unsigned char	bytes[4];

	CUDA_TRY(cudaMemcpyAsync(bytes, (const char *)array + i * size, size,
	    cudaMemcpyDeviceToHost, b->stream), cause);
	CUDA_TRY(cudaStreamSynchronize(b->stream), cause);
	*value = element_to_float(bytes, dtype, 0);
	return 0;
}

/* Test hook (tests/gpu/check.sh): EWBENCH_TEST_CORRUPT=VARIANT spoils
 * the middle element of that variant's output, =VARIANT:last the last
 * one (a tail), to prove a wrong result is caught and reported. */
static int
corrupt_for_test(struct bench *b, const struct launch *l, char **cause)
{
	const char	*want = getenv("EWBENCH_TEST_CORRUPT");
	size_t		 len, i, size = ewb_dtype_size(l->v->dtype);

	if (want == NULL)
		return 0;
	len = strlen(l->v->id);
	if (strncmp(want, l->v->id, len) != 0 ||
	    (want[len] != '\0' && strcmp(want + len, ":last") != 0))
		return 0;
	i = want[len] == '\0' ? l->args.n / 2 : l->args.n - 1;
	CUDA_TRY(cudaMemsetAsync((char *)l->args.c + i * size, 0x7f, size,
	    b->stream), cause);
	return 0;
}

/* A user kernel's output with its guards: base holds the guard, the
 * output (as misaligned as the bench's), and the guard again.  One
 * allocation for the plan's largest size serves every check of the run
 * (bench.d_guarded): freeing a gigabyte between a check and the timing
 * that follows it has the GPU scrub that memory in the background, and
 * the kernel timed next shares DRAM with the scrub (torch_ops.py measured
 * it: +16 %).  With --no-guard no guard at all and an allocation per
 * check, so that compute-sanitizer sees the allocation end where the
 * output does. */
struct guarded {
	char	*base;
	char	*out;
	size_t	 before;	/* bytes before out */
	size_t	 guard;		/* guard bytes after the output */
	bool	 owned;		/* base is this check's, not the bench's */
};

static int
guarded_open(struct bench *b, size_t bytes, unsigned char poison,
    struct guarded *g, char **cause)
{
	size_t	off = (size_t)((char *)b->d_c - (char *)b->base[2]);

	g->guard = user_guard_bytes();
	g->before = g->guard + off;
	if (g->guard == 0) {
		CUDA_TRY(cudaMalloc((void **)&g->base, g->before + bytes),
		    cause);
		g->owned = true;
	} else {
		if (b->d_guarded == NULL)
			CUDA_TRY(cudaMalloc((void **)&b->d_guarded, g->before +
			    b->array_bytes + g->guard), cause);
		g->base = b->d_guarded;
	}
	g->out = g->base + g->before;
	CUDA_TRY(cudaMemsetAsync(g->base, poison, g->before + bytes +
	    g->guard, b->stream), cause);
	return 0;
}

/* 0 when the guards still hold poison; 1 when the kernel wrote there
 * (*bad: the element nearest the output it wrote, by its index: n + k
 * after the end, k before the start); -1 on error. */
static int
guards_check(struct bench *b, const struct launch *l, const struct guarded *g,
    unsigned char poison, struct mismatch *bad, char **cause)
{
	unsigned	 size = ewb_dtype_size(l->v->dtype);
	size_t		 bytes = l->args.n * size, first, unused;
	size_t		 changed, last_before;
	unsigned char	*before = xmalloc(g->before + 1), *after;
	int		 rc = -1;

	after = xmalloc(g->guard + 1);
	if (g->guard == 0) {
		rc = 0;		/* --no-guard */
		goto out;
	}
	CUDA_TRY_GOTO(cudaMemcpyAsync(before, g->base, g->before,
	    cudaMemcpyDeviceToHost, b->stream), cause, out);
	CUDA_TRY_GOTO(cudaMemcpyAsync(after, g->out + bytes, g->guard,
	    cudaMemcpyDeviceToHost, b->stream), cause, out);
	CUDA_TRY_GOTO(cudaStreamSynchronize(b->stream), cause, out);
	changed = guard_scan(after, g->guard, poison, &first, &unused);
	changed += guard_scan(before, g->before, poison, &unused,
	    &last_before);
	rc = 0;
	if (changed == 0)
		goto out;
	memset(bad, 0, sizeof *bad);
	bad->bad_count = (changed + size - 1) / size;	/* about */
	bad->expected = NAN;		/* nothing belongs there */
	bad->got = NAN;
	bad->poison = poison;
	rc = 1;
	if (first != SIZE_MAX) {
		bad->outside = 1;
		bad->index = l->args.n + first / size;
		if (fetch(b, g->out, l->v->dtype, bad->index, &bad->got,
		    cause) != 0)
			rc = -1;
	} else {
		bad->outside = -1;
		bad->index = (g->before - last_before + size - 1) / size;
	}
out:
	free(before);
	free(after);
	return rc;
}

/* One checked launch: 1 passed, 0 failed (*bad), -1 on error.  A user
 * kernel's output lies between guards poisoned with `poison`. */
static int
check_once(struct bench *b, const struct launch *given, unsigned char poison,
    struct mismatch *bad, char **cause)
{
	const struct ewb_variant	*v = given->v;
	size_t				 bytes = given->args.n *
					     ewb_dtype_size(v->dtype);
	struct ewb_compare_result	 r;
	struct launch			 l = *given;
	struct guarded			 g = { NULL, NULL, 0, 0, false };
	int				 rc = -1;

	if (variant_is_user(v)) {
		if (guarded_open(b, bytes, poison, &g, cause) != 0)
			goto out;
		l.args.c = g.out;
	}
	if (trace_point_begin(&(struct trace_label){ v->id, l.args.n,
	    "warm", "check" }, cause) != 0)
		goto out;
	/* The output poisoned: NaN (all bits set), which never passes; a
	 * user's op, whose NaN passes against its reference's NaN
	 * (tolerance.h), with this pass's finite guard poison instead. */
	if (v->in_place)
		CUDA_TRY_GOTO(cudaMemcpyAsync(l.args.c, b->d_a, bytes,
		    cudaMemcpyDeviceToDevice, b->stream), cause, out);
	else
		CUDA_TRY_GOTO(cudaMemsetAsync(l.args.c, v->op == EWB_OP_CUSTOM ?
		    poison : 0xff, bytes, b->stream), cause, out);
	if (bench_launch(&l, cause) != 0 ||
	    trace_point_end(NULL, NULL, cause) != 0 ||
	    corrupt_for_test(b, &l, cause) != 0)
		goto out;
	CUDA_TRY_GOTO(ewb_compare(l.args.c, b->d_expected, l.args.n, v->dtype,
	    variant_tolerance(v), b->d_result, b->stream), cause, out);
	CUDA_TRY_GOTO(cudaMemcpyAsync(&r, b->d_result, sizeof r,
	    cudaMemcpyDeviceToHost, b->stream), cause, out);
	CUDA_TRY_GOTO(cudaStreamSynchronize(b->stream), cause, out);
	if (r.bad_count == 0) {
		/* Right inside; and nothing written outside? */
		rc = g.base == NULL ? 0 : guards_check(b, &l, &g, poison, bad,
		    cause);
		rc = rc < 0 ? -1 : rc == 0 ? 1 : 0;
		goto out;
	}
	memset(bad, 0, sizeof *bad);
	bad->index = (size_t)r.first_index;
	bad->bad_count = (size_t)r.bad_count;
	if (r.first_index >= l.args.n ||
	    fetch(b, l.args.c, v->dtype, bad->index, &bad->got, cause) != 0 ||
	    fetch(b, b->d_expected, v->dtype, bad->index, &bad->expected,
	    cause) != 0) {
		if (*cause == NULL)
			*cause = xasprintf("%s: the compare kernel reported "
			    "%llu bad elements but no index", v->id,
			    r.bad_count);
		goto out;
	}
	rc = 0;
out:
	if (g.owned)
		cudaFree(g.base);
	return rc;
}

/* A built-in variant: one checked launch.  A user's kernel with guards:
 * one per poison (guard.h), so that no store into a guard escapes (guard.c
 * says why); the first failing pass is the one reported. */
int
checker_run(struct bench *b, const struct launch *given, struct mismatch *bad,
    char **cause)
{
	unsigned	passes = variant_is_user(given->v) &&
			    user_guard_bytes() != 0 ? GUARD_PASSES : 1;
	unsigned	pass;
	int		rc = 1;

	for (pass = 0; pass < passes && rc == 1; pass++)
		rc = check_once(b, given, guard_poison[pass], bad, cause);
	return rc;
}

/*
 * test-plan.c - a plan is built, counted and ordered as documented, from
 * a device's facts alone (no GPU): cases in run order (size, dtype, op,
 * registry row, block as listed), the axes' product, tier sizes with their
 * reasons, and bulk-copy variants skipped below sm_90 unless
 * --allow-fallback; a user's kernel (--kernel) after the built-in variants
 * of its op and dtype, its guarded check output counted, in the printed
 * plan.  The settings are filled as a test fills them (settings.h), not
 * by the command line's parser.
 */
#define _GNU_SOURCE
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "run/plan.h"
#include "run/settings.h"
#include "tests/unit/check.h"

static void
fake_device(struct device_facts *d, int major)
{
	memset(d, 0, sizeof *d);
	d->index = -1;		/* by name: planned from the build's targets */
	snprintf(d->name, sizeof d->name, "Fake GPU");
	d->cc_major = major;
	d->sm_count = 132;
	d->l2_bytes = 50u << 20;
	d->memory_bytes = 80ULL << 30;
	d->dram_bandwidth = 3.35e12;
	d->max_threads_per_sm = 2048;
}

/* A command's settings with -v variants (NULL: none given) and -s sizes
 * (NULL: none given); the test sets more, then finish(). */
static void
settings(struct run_options *o, enum command command, const char *variants,
    const char *sizes)
{
	uint64_t	*parsed;
	size_t		 count;
	char		*cause = NULL;

	settings_init(o, command);
	if (variants != NULL) {
		o->variant_lists = xmalloc(sizeof *o->variant_lists);
		o->variant_lists[o->nvariant_lists++] = variants;
	}
	if (sizes != NULL) {
		CHECK(sizes_parse(sizes, &parsed, &count, &cause) == 0);
		settings_add_sizes(o, parsed, count);
		free(parsed);
	}
}

/* --block's list of threads per block. */
static void
blocks(struct run_options *o, const unsigned *list, size_t count)
{
	o->blocks = xmalloc(count * sizeof *list);
	memcpy(o->blocks, list, count * sizeof *list);
	o->nblocks = count;
}

/* --block's multiples "xK" of each variant's own block. */
static void
block_times(struct run_options *o, const unsigned *list, size_t count)
{
	o->block_times = xmalloc(count * sizeof *list);
	memcpy(o->block_times, list, count * sizeof *list);
	o->nblock_times = count;
}

static int
finish(struct run_options *o)
{
	char	*cause = NULL;
	int	 rc;

	rc = settings_finish(o, &cause);
	if (rc != 0)
		fprintf(stderr, "settings: %s\n", cause);
	free(cause);
	return rc;
}

/* finish() then plan_build(): o's plan on d as a run with `free_bytes` of
 * GPU memory free (counters: a counter pass will run); plan_build's
 * status, or -1 when the settings are refused. */
static int
build(struct run_options *o, const struct device_facts *d, size_t free_bytes,
    bool counters, struct plan *p, char **cause)
{
	if (finish(o) != 0)
		return -1;
	return plan_build(o, d, free_bytes, counters, p, cause);
}

static void
test_order_and_counts(void)
{
	static const unsigned	 list[] = { 128, 64 };
	struct run_options	 o;
	struct device_facts	 d;
	struct plan		 p;
	char			*cause = NULL;
	size_t			 i;

	fake_device(&d, 9);
	settings(&o, CMD_RUN, "add_f16,add_f32x4,relu_f32,add_f32",
	    "16Mi,1Mi");
	blocks(&o, list, 2);
	o.cache = CACHE_BOTH;
	o.launch = LAUNCH_BOTH;
	CHECK(build(&o, &d, 70ULL << 30, true, &p, &cause) == 0);
	/* 4 variants x 2 sizes x 2 blocks, each timed warm/cold x
	 * stream/graph, counted in both cache states. */
	CHECK(p.ncases == 16);
	CHECK(plan_timed_points(&p) == 64);
	CHECK(plan_profiled_points(&p) == 32);
	CHECK(p.nsizes == 2 && p.sizes[0] == 1u << 20 && p.sizes[1] == 16u << 20);
	/* Size first, then f32 before f16, add before relu, registry order,
	 * blocks as listed. */
	CHECK_STR(p.cases[0].v->id, "add_f32");
	CHECK(p.cases[0].n == 1u << 20 && p.cases[0].block == 128);
	CHECK(p.cases[1].block == 64);
	CHECK_STR(p.cases[2].v->id, "add_f32x4");
	CHECK_STR(p.cases[4].v->id, "relu_f32");
	CHECK_STR(p.cases[6].v->id, "add_f16");
	CHECK(p.cases[8].n == 16u << 20);
	for (i = 1; i < p.ncases; i++)
		CHECK(p.cases[i - 1].n <= p.cases[i].n);
	/* Every variant's blocks at every size in --block's order. */
	for (i = 0; i + 1 < p.ncases; i += 2)
		CHECK(p.cases[i].v == p.cases[i + 1].v &&
		    p.cases[i].n == p.cases[i + 1].n &&
		    p.cases[i].block == 128 && p.cases[i + 1].block == 64);
	/* Three operand arrays, the expected output and 4 x L2 of flush. */
	CHECK(plan_device_bytes(&p) == 4 * (64u << 20) + 4 * (50u << 20));
	/* One expected output a size, dtype and op: f32 add, ReLU, then f16
	 * add, at 1Mi (4 + 4 + 2 MiB) and 16Mi (64 + 64 + 32 MiB). */
	CHECK(plan_expected_bytes(&p) == 170u << 20);
	CHECK(plan_estimate_seconds(&p, &o, &d, 4) > 0);
	plan_free(&p);
	settings_free(&o);
}

static void
test_fallback_skipped(void)
{
	struct run_options	 o;
	struct device_facts	 d;
	struct plan		 p;
	char			*cause = NULL;

	fake_device(&d, 8);
	settings(&o, CMD_RUN, "add_f32_tma,add_f32", "1Mi");
	CHECK(build(&o, &d, 70ULL << 30, false, &p, &cause) == 0);
	CHECK(p.ncases == 1 && p.nskipped == 1);
	CHECK_STR(p.skipped[0].variant, "add_f32_tma");
	CHECK(strstr(p.skipped[0].reason, "9.0") != NULL);
	plan_free(&p);
	settings_free(&o);

	settings(&o, CMD_RUN, "add_f32_tma,add_f32", "1Mi");
	o.allow_fallback = true;
	CHECK(build(&o, &d, 70ULL << 30, false, &p, &cause) == 0);
	CHECK(p.ncases == 2 && p.nskipped == 0 && p.nfallbacks == 1);
	CHECK(strstr(p.fallbacks[0].reason, "fallback kernel ran") != NULL);
	plan_free(&p);
	settings_free(&o);

	/* On sm_90 nothing is skipped, if this build holds sm_90 code; a
	 * build without (--with-cuda-arch=75, the sanitizer build) skips
	 * the bulk copies and says why. */
	fake_device(&d, 9);
	settings(&o, CMD_RUN, "add_f32_tma,add_f32", "1Mi");
	CHECK(build(&o, &d, 70ULL << 30, false, &p, &cause) == 0);
	if (plan_code_arch(EWB_CUDA_ARCH, 90) >= 90)
		CHECK(p.ncases == 2 && p.nskipped == 0);
	else {
		CHECK(p.ncases == 1 && p.nskipped == 1);
		CHECK(p.nskipped == 1 && strstr(p.skipped[0].reason,
		    "needs code built for compute capability 9.0") != NULL);
	}
	plan_free(&p);
	settings_free(&o);
}

static void
test_tiers_and_check(void)
{
	struct run_options	 o;
	struct device_facts	 d;
	struct plan		 p;
	char			*cause = NULL;

	fake_device(&d, 9);
	settings(&o, CMD_RUN, "add_f32", "3Ki");
	CHECK(settings_preset(&o, "tiers", &cause) == 0);
	CHECK(build(&o, &d, 70ULL << 30, true, &p, &cause) == 0);
	/* Three tiers plus the given size, each with its reason. */
	CHECK(p.ncases == 4 && p.nchoices == 3);
	CHECK(p.cases[0].n == 3072);
	plan_free(&p);
	settings_free(&o);

	/* check: its own sizes, cases only, no timed or counter points. */
	settings(&o, CMD_CHECK, "add_f32", NULL);
	CHECK(build(&o, &d, 70ULL << 30, true, &p, &cause) == 0);
	CHECK(p.ncases == 8 && plan_timed_points(&p) == 0 &&
	    plan_profiled_points(&p) == 0);
	plan_free(&p);
	settings_free(&o);
}

static void
test_user_kernel(void)
{
	struct run_options	 o;
	struct device_facts	 d;
	struct user_build	 b;
	struct user_kernel	 u;
	struct plan		 p;
	char			*cause = NULL, *path, *text = NULL;
	size_t			 i, len = 0, probes;
	FILE			*f;

	path = xasprintf("%s/examples/add_f32x4.cu", EWB_SRCDIR);
	fake_device(&d, 9);
	settings(&o, CMD_RUN, NULL, "1Mi,16Mi");
	CHECK(user_spec_kernel(&o.kernel, path, &cause) == 0);
	o.kernel.per_thread = 4;
	CHECK(finish(&o) == 0);
	/* The op and dtype from the parameters; the family selected, but
	 * none of the experiments' probes (add_f32_ilp2 is add f32 too),
	 * which run only by name (issue 55). */
	CHECK(o.kernel.op == EWB_OP_ADD && o.kernel.dtype == EWB_F32);
	CHECK_STR(o.kernel.function, "add_f32x4_user");
	for (i = 0, probes = 0; i < ewb_variant_count; i++) {
		bool probe = strcmp(ewb_variants[i].origin, "probe") == 0;

		probes += probe && ewb_variants[i].op == EWB_OP_ADD &&
		    ewb_variants[i].dtype == EWB_F32;
		CHECK(o.selected[i] == (ewb_variants[i].op == EWB_OP_ADD &&
		    ewb_variants[i].dtype == EWB_F32 && !probe));
	}
	CHECK(probes > 0);
	/* As compiled (no NVRTC here: the plan needs only its facts). */
	memset(&b, 0, sizeof b);
	memset(&u, 0, sizeof u);
	b.function = xstrdup(o.kernel.function);
	memset(b.source_sha256, 'a', 64);
	user_kernel_init(&u, &o.kernel, &b, NULL);
	o.user_variant = &u.variant;
	CHECK_STR(u.variant.id, "user:add_f32x4_user");
	CHECK_STR(u.variant.origin, "user");
	CHECK(u.variant.read_bytes == 8 && u.variant.write_bytes == 4 &&
	    u.variant.elems_per_thread == 4 && u.variant.default_block == 256);
	CHECK(plan_build(&o, &d, 70ULL << 30, true, &p, &cause) == 0);
	/* Last at each size, after the registry's rows. */
	for (i = 0; i < p.ncases; i++)
		CHECK(variant_is_user(p.cases[i].v) == (i + 1 < p.ncases ?
		    p.cases[i + 1].n != p.cases[i].n : true));
	/* Its check writes into a copy of the largest output with 256 KiB
	 * of guard on either side. */
	CHECK(p.guarded_bytes == (64u << 20) + 2 * USER_GUARD_BYTES);
	CHECK(plan_device_bytes(&p) == 4 * (64u << 20) + 4 * (50u << 20) +
	    p.guarded_bytes);
	f = open_memstream(&text, &len);
	plan_print(&p, &o, &d, 4, f);
	fclose(f);
	CHECK(text != NULL && strstr(text, "\nuser:add_f32x4_user 1Mi "));
	free(text);
	plan_free(&p);
	user_kernel_free(&u);
	settings_free(&o);
	free(path);
}

/* A user kernel with the article's int N: sizes (and blocks) whose launch
 * covers elements past 2^31 - 1, or whose n an int cannot hold, are left
 * out for it with the reason; the rest keep their blocks in order. */
static void
test_user_int_count(void)
{
	static const unsigned	 list[] = { 256, 992 };
	struct run_options	 o;
	struct device_facts	 d;
	struct user_build	 b;
	struct user_kernel	 u;
	struct plan		 p;
	char			*cause = NULL, *path;
	size_t			 i, user = 0, skipped = 0;

	path = xasprintf("%s/examples/article_add.cu:"
	    "elementwise_add_f32_kernel", EWB_SRCDIR);
	fake_device(&d, 9);
	d.memory_bytes = 200ULL << 30;
	settings(&o, CMD_RUN, NULL, "1Mi,2147483647,2147483648,2147483651");
	blocks(&o, list, 2);
	o.no_cupti = true;
	CHECK(user_spec_kernel(&o.kernel, path, &cause) == 0);
	CHECK(finish(&o) == 0);
	CHECK(o.kernel.op == EWB_OP_ADD && o.kernel.dtype == EWB_F32);
	for (i = 0; i < ewb_variant_count; i++)
		o.selected[i] = false;
	memset(&b, 0, sizeof b);
	memset(&u, 0, sizeof u);
	b.function = xstrdup(o.kernel.function);
	b.count = USER_COUNT_I32;	/* as NVRTC judged `int N` */
	memset(b.source_sha256, 'a', 64);
	user_kernel_init(&u, &o.kernel, &b, NULL);
	CHECK(u.variant.max_cover == (uint64_t)1 << 31);
	o.user_variant = &u.variant;
	CHECK(plan_build(&o, &d, 190ULL << 30, false, &p, &cause) == 0);
	for (i = 0; i < p.ncases; i++) {
		CHECK(p.cases[i].n < ((uint64_t)1 << 31));
		user++;
	}
	/* 1Mi at both blocks; 2^31 - 1 at 256 (8388608 blocks cover 2^31
	 * elements), not at 992 (they would cover 2147484576). */
	CHECK(user == 3);
	if (user == 3) {
		CHECK(p.cases[0].n == 1048576 && p.cases[0].block == 256);
		CHECK(p.cases[1].n == 1048576 && p.cases[1].block == 992);
		CHECK(p.cases[2].n == 2147483647 && p.cases[2].block == 256);
	}
	for (i = 0; i < p.nskipped; i++) {
		CHECK_STR(p.skipped[i].variant,
		    "user:elementwise_add_f32_kernel");
		CHECK(strstr(p.skipped[i].reason, "past what its int (32-bit "
		    "signed) element count holds (at most 2147483647)") !=
		    NULL);
		skipped++;
	}
	CHECK(skipped == 5);	/* 2^31 - 1 at 992; 2^31, 2^31 + 3 at both */
	CHECK(p.nskipped > 0 && strstr(p.skipped[0].reason,
	    "n=2147483647, block 992: its launch covers elements 0 to "
	    "2147484575") != NULL);
	plan_free(&p);
	user_kernel_free(&u);
	settings_free(&o);
	free(path);
}

/* Issue 42: a grid past EWB_MAX_GRID blocks (a kernel without a loop, a
 * small block, billions of elements) is left out at plan time, saying
 * why (it was planned, and the launcher refused it at run time); a plan
 * left with nothing is refused. */
static void
test_grid_past_the_limit(void)
{
	static const unsigned	 list[] = { 1, 256 };
	struct run_options	 o;
	struct device_facts	 d;
	struct plan		 p;
	char			*cause = NULL;
	size_t			 i;

	fake_device(&d, 9);
	d.memory_bytes = 200ULL << 30;
	settings(&o, CMD_RUN, "add_f32,add_f32x4", "1Mi,3Gi");
	blocks(&o, list, 2);
	o.no_cupti = true;
	CHECK(build(&o, &d, 190ULL << 30, false, &p, &cause) == 0);
	/* add_f32 at 3Gi and block 1: 3221225472 blocks; add_f32x4 (4 a
	 * thread) needs 805306368 there: planned. */
	CHECK(p.ncases == 7);
	for (i = 0; i < p.ncases; i++)
		CHECK(!(p.cases[i].n == 3ULL << 30 && p.cases[i].block == 1 &&
		    strcmp(p.cases[i].v->id, "add_f32") == 0));
	CHECK(p.nskipped == 1);
	if (p.nskipped == 1) {
		CHECK_STR(p.skipped[0].variant, "add_f32");
		CHECK(strstr(p.skipped[0].reason, "n=3221225472, block 1: a "
		    "grid of 3221225472 blocks, past the 2147483647") != NULL);
	}
	plan_free(&p);
	settings_free(&o);
	settings(&o, CMD_RUN, "add_f32", "3Gi");
	blocks(&o, list, 1);
	o.no_cupti = true;
	CHECK(build(&o, &d, 190ULL << 30, false, &p, &cause) ==
	    PLAN_NOTHING_LEFT);
	CHECK(cause != NULL && strstr(cause, "nothing left to run") != NULL);
	free(cause);
	settings_free(&o);
}

/* The code a build gives a GPU: its SASS of the same major, else PTX. */
static void
test_code_arch(void)
{
	const char	*dflt = "75 80 86 89 90 100 120";

	CHECK(plan_code_arch(dflt, 90) == 90);
	CHECK(plan_code_arch(dflt, 89) == 89);
	CHECK(plan_code_arch(dflt, 87) == 86);
	CHECK(plan_code_arch(dflt, 103) == 100);
	CHECK(plan_code_arch(dflt, 121) == 120);
	CHECK(plan_code_arch(dflt, 75) == 75);
	/* An A100 site's build on a Hopper or Blackwell GPU: compute_80
	 * PTX, JIT-compiled, without the bulk copies. */
	CHECK(plan_code_arch("80", 90) == 80);
	CHECK(plan_code_arch("80", 120) == 80);
	CHECK(plan_code_arch("80", 86) == 80);
	/* Newer than the GPU: nothing runs. */
	CHECK(plan_code_arch("90", 75) == 0);
	CHECK(plan_code_arch("90 100", 89) == 0);
	CHECK(plan_code_arch("90", 100) == 90);
}

/* A user's own op of three bf16 inputs (--reference): planned beside the
 * built-in variants of its 8 bytes per element, with a fourth input array
 * on the device. */
static void
test_user_op(void)
{
	char			*kernel, *reference;
	struct run_options	 o;
	struct device_facts	 d;
	struct user_build	 b;
	struct user_kernel	 u;
	struct plan		 p;
	char			*cause = NULL;
	size_t			 i, selected = 0;

	kernel = xasprintf("%s/examples/fma_bf16.cu", EWB_SRCDIR);
	reference = xasprintf("%s/examples/fma_bf16_ref.cu", EWB_SRCDIR);
	fake_device(&d, 9);
	settings(&o, CMD_RUN, NULL, "16Mi");
	CHECK(user_spec_kernel(&o.kernel, kernel, &cause) == 0);
	CHECK(user_spec_reference(&o.kernel, reference, &cause) == 0);
	CHECK(finish(&o) == 0);
	CHECK(o.kernel.op == EWB_OP_CUSTOM && o.kernel.dtype == EWB_BF16 &&
	    o.kernel.inputs == 3);
	for (i = 0; i < ewb_variant_count; i++) {
		const struct ewb_variant *v = &ewb_variants[i];

		CHECK(o.selected[i] == (v->read_bytes + v->write_bytes == 8 &&
		    strcmp(v->origin, "probe") != 0));
		selected += o.selected[i];
	}
	CHECK(selected > 0);
	memset(&b, 0, sizeof b);
	b.function = xstrdup(o.kernel.function);
	user_kernel_init(&u, &o.kernel, &b, NULL);
	o.user_variant = &u.variant;
	CHECK(u.variant.read_bytes == 6 && u.variant.write_bytes == 2);
	CHECK(plan_build(&o, &d, 70ULL << 30, true, &p, &cause) == 0);
	/* The largest array is the built-ins' f32 (64 MiB); a, b, c, the
	 * expected output and the user's third input; the flush buffer; the
	 * guarded copy of the bf16 output. */
	CHECK(p.more_inputs == 1);
	CHECK(p.guarded_bytes == (32u << 20) + 2 * USER_GUARD_BYTES);
	CHECK(plan_device_bytes(&p) == 5 * (64u << 20) + p.flush_bytes +
	    p.guarded_bytes);
	plan_free(&p);
	user_kernel_free(&u);
	settings_free(&o);
	free(kernel);
	free(reference);
}

/* --block xK (issue 55): a multiple past 1024 threads is left out saying
 * why, never dropped silently; when nothing is left, the plan is refused,
 * never an empty run. */
static void
test_block_times_past_the_limit(void)
{
	static const unsigned	 x8[] = { 8 }, x2_x8[] = { 2, 8 };
	struct run_options	 o;
	struct device_facts	 d;
	struct plan		 p;
	char			*cause = NULL;

	fake_device(&d, 9);
	/* add_f32's published block is 256: x8 is 2048 threads. */
	settings(&o, CMD_RUN, "add_f32", "1Mi");
	block_times(&o, x8, 1);
	o.no_cupti = true;
	CHECK(build(&o, &d, 70ULL << 30, false, &p, &cause) ==
	    PLAN_NOTHING_LEFT);
	CHECK(cause != NULL && strstr(cause, "nothing left to run: add_f32: "
	    "--block x8 left out: 8 x its published block of 256 is 2048 "
	    "threads, past the 1024 of a CUDA block") != NULL);
	free(cause);
	cause = NULL;
	settings_free(&o);

	/* x2 kept (512 threads), x8 left out and said. */
	settings(&o, CMD_RUN, "add_f32", "1Mi");
	block_times(&o, x2_x8, 2);
	o.no_cupti = true;
	CHECK(build(&o, &d, 70ULL << 30, false, &p, &cause) == 0);
	CHECK(p.ncases == 1 && p.cases[0].block == 512);
	CHECK(p.nskipped == 1 && strcmp(p.skipped[0].variant, "add_f32") == 0 &&
	    strstr(p.skipped[0].reason, "--block x8 left out") != NULL);
	plan_free(&p);
	settings_free(&o);
}

/* Each variant's primary block (run.json primary_blocks): its published
 * one where the plan runs it with it, wherever in the --block list; else
 * the first it runs with; a library's 0. */
static void
test_primary_blocks(void)
{
	static const unsigned	 with_own[] = { 512, 0, 128 }, without[] = {
		512, 128 };
	struct primary_block	 pb[16];
	struct run_options	 o;
	struct device_facts	 d;
	struct plan		 p;
	char			*cause = NULL;
	size_t			 n;

	fake_device(&d, 9);
	settings(&o, CMD_RUN, "add_f32,cub_add_f32", "1Mi,16Mi");
	blocks(&o, with_own, 3);
	o.no_cupti = true;
	CHECK(build(&o, &d, 70ULL << 30, false, &p, &cause) == 0);
	n = plan_primary_blocks(&p, pb);
	CHECK(n == 2);
	CHECK(strcmp(pb[0].variant, "add_f32") == 0 && pb[0].block == 256);
	CHECK(strcmp(pb[1].variant, "cub_add_f32") == 0 && pb[1].block == 0);
	plan_free(&p);
	settings_free(&o);

	settings(&o, CMD_RUN, "add_f32", "1Mi");
	blocks(&o, without, 2);
	o.no_cupti = true;
	CHECK(build(&o, &d, 70ULL << 30, false, &p, &cause) == 0);
	CHECK(plan_primary_blocks(&p, pb) == 1 && pb[0].block == 512);
	plan_free(&p);
	settings_free(&o);
}

/* --residency: the blocks an SM cannot hold N of are left out at the
 * plan, so is a kernel it cannot pad; a case the run's occupancy
 * calculator refuses leaves through plan_leave_out, which keeps the
 * sizes and the largest array true to the cases left. */
static void
test_residency(void)
{
	static const unsigned	 x2_x4[] = { 2, 4 };
	struct run_options	 o;
	struct device_facts	 d;
	struct plan		 p;
	char			*cause = NULL;

	fake_device(&d, 9);
	d.max_blocks_per_sm = 32;
	/* add_f32 at 256, 512, 1024 threads: 3 x 1024 > 2048 threads. */
	settings(&o, CMD_RUN, "add_f32,add_f32x4_grid,add_f16", "1Mi,2^28");
	block_times(&o, x2_x4, 2);
	o.nblocks = 1;
	o.blocks = xcalloc(1, sizeof *o.blocks);	/* own */
	o.residency = 3;
	o.no_cupti = true;
	CHECK(build(&o, &d, 70ULL << 30, false, &p, &cause) == 0);
	/* add_f32 and add_f16 at 256 and 512, two sizes each. */
	CHECK(p.ncases == 8);
	for (size_t i = 0; i < p.ncases; i++)
		CHECK(p.cases[i].block <= 512 && p.cases[i].shared_pad == 0);
	CHECK(p.nskipped == 3);
	CHECK(strstr(p.skipped[1].reason, "--residency left out: a "
	    "grid-stride kernel") != NULL);
	CHECK(strstr(p.skipped[0].reason, "--residency 3 left out at block "
	    "1024: 3072 threads, past the 2048") != NULL);
	CHECK(p.largest_n == 1ULL << 28 && p.nsizes == 2);
	/* The 2^28 cases left at the run: the sizes follow. */
	while (p.ncases > 0 && p.cases[p.ncases - 1].n == 1ULL << 28)
		plan_leave_out(&p, p.ncases - 1, "refused by the calculator");
	CHECK(p.ncases == 4 && p.nsizes == 1 && p.largest_n == 1ULL << 20);
	CHECK(p.array_bytes == (1u << 20) * 4u);
	CHECK(p.nskipped == 7 && strcmp(p.skipped[6].reason,
	    "refused by the calculator") == 0);
	plan_free(&p);
	settings_free(&o);

	/* More than the SM's block limit: nothing left. */
	settings(&o, CMD_RUN, "add_f32", "1Mi");
	o.residency = 33;
	o.no_cupti = true;
	CHECK(build(&o, &d, 70ULL << 30, false, &p, &cause) ==
	    PLAN_NOTHING_LEFT);
	CHECK(cause != NULL && strstr(cause, "--residency 33 left out: an SM "
	    "of this GPU holds at most 32 blocks") != NULL);
	free(cause);
	settings_free(&o);
}

int
main(void)
{
	test_order_and_counts();
	test_fallback_skipped();
	test_tiers_and_check();
	test_user_kernel();
	test_user_op();
	test_user_int_count();
	test_grid_past_the_limit();
	test_block_times_past_the_limit();
	test_residency();
	test_primary_blocks();
	test_code_arch();
	return check_exit();
}

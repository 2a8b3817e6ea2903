/*
 * test-userkernel.c - a user's kernel through NVRTC, without a GPU: SHA-256
 * against the FIPS 180-4 examples, finding the function, compiling the
 * examples to cubins, the cache (a hit, a miss when the source, options or
 * architecture change, a damaged entry), and the refusals: a compile error
 * with NVRTC's file:line, a signature that is not the op's; the article's
 * listings as pasted (examples/article_add.cu: int N, non-const inputs,
 * its reinterpret_cast macros) and every count type, judged by the
 * compiler; the architecture NVRTC compiles for (the GPU's own, else the
 * newest of its major NVRTC knows, never PTX); and the watchdog, which
 * ends a process stuck past its limit.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "userkernel/userkernel.h"
#include "device/watchdog.h"

static char	*cache;		/* $XDG_CACHE_HOME for this test */

static void
test_sha256(void)
{
	static const struct { const char *text, *hex; } cases[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	struct sha256	h;
	char		hex[SHA256_HEX];
	size_t		i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		sha256_init(&h);
		sha256_update(&h, cases[i].text, strlen(cases[i].text));
		sha256_hex(&h, hex);
		CHECK_STR(hex, cases[i].hex);
	}
	/* A million 'a's, fed in uneven pieces across block boundaries. */
	sha256_init(&h);
	for (i = 0; i < 1000000; ) {
		char	piece[97];
		size_t	take = 1000000 - i < 97 ? 1000000 - i : 97;

		memset(piece, 'a', take);
		sha256_update(&h, piece, take);
		i += take;
	}
	sha256_hex(&h, hex);
	CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void
expect_function(const char *source, const char *want)
{
	char	*f = NULL, *cause = NULL;
	int	 rc = user_find_function(source, "k.cu", &f, &cause);

	if (want == NULL) {
		CHECK(rc == -1);
		CHECK(cause != NULL && strstr(cause, "--kernel k.cu:FUNCTION"));
	} else {
		CHECK(rc == 0);
		CHECK_STR(f, want);
	}
	free(f);
	free(cause);
}

static void
test_find_function(void)
{
	expect_function("extern \"C\" __global__ void f(float *c, size_t n) {}",
	    "f");
	expect_function("__global__ void __launch_bounds__(256, 2)\n"
	    "my_add (const float *a, const float *b, float *c, size_t n);\n"
	    "__global__ void __launch_bounds__(256, 2)\n"
	    "my_add (const float *a, const float *b, float *c, size_t n) {}",
	    "my_add");
	expect_function("__device__ float g(float x) { return x; }", NULL);
	expect_function("__global__ void f(float *c, size_t n) {}\n"
	    "__global__ void g(float *c, size_t n) {}", NULL);
	/* A word that merely contains __global__ is not one. */
	expect_function("int my__global__x;\n__global__ void h(float *c, "
	    "size_t n) {}", "h");
}

static char *
example(const char *name)
{
	return xasprintf("%s/examples/%s", EWB_SRCDIR, name);
}

/* A spec as `--kernel PATH --op OP --dtype DTYPE [--kernel-flags F]`. */
static void
spec_init(struct user_spec *s, const char *path, enum ewb_op op,
    enum ewb_dtype dtype, const char *flags)
{
	char	*cause = NULL;

	memset(s, 0, sizeof *s);
	s->path = path;
	s->op = op;
	s->op_given = true;
	s->dtype = dtype;
	s->dtype_given = true;
	if (flags != NULL)
		user_spec_flags(s, flags);
	CHECK(user_spec_finish(s, &cause) == 0);
	free(cause);
}

static void
spec_clear(struct user_spec *s)
{
	s->path = NULL;		/* not owned */
	user_spec_free(s);
}

/* Builds and returns 0, or the failure's code with *cause kept. */
static int
build(const char *path, enum ewb_op op, enum ewb_dtype dtype,
    const char *flags, unsigned arch, struct user_build *b, char **cause)
{
	struct user_spec	s;
	int			code = 0;

	spec_init(&s, path, op, dtype, flags);
	*cause = NULL;
	if (user_build(&s, arch, b, &code, cause) != 0) {
		CHECK(code != 0);
		user_build_free(b);
	} else
		code = 0;
	spec_clear(&s);
	return code;
}

/* Machine code for the GPU's own architecture where this NVRTC (12.8 or
 * newer) knows it; a minor it does not know gets its major's newest; a
 * major it does not know is refused, saying so. */
static void
test_nvrtc_arch(void)
{
	struct user_build	 b;
	char			*path = example("add_f32x4.cu"), *cause = NULL;

	CHECK(user_nvrtc_arch(75) == 75);
	CHECK(user_nvrtc_arch(90) == 90);
	CHECK(user_nvrtc_arch(120) == 120);
	CHECK(user_nvrtc_arch(99) == 90);
	CHECK(user_nvrtc_arch(990) == 0);
	CHECK(build(path, EWB_OP_ADD, EWB_F32, NULL, 99, &b, &cause) == 0);
	CHECK(b.arch == 90 && b.device_arch == 99 && b.cubin_bytes > 0);
	user_build_free(&b);
	CHECK(build(path, EWB_OP_ADD, EWB_F32, NULL, 990, &b, &cause) ==
	    EWB_EXIT_ERROR);
	CHECK(cause != NULL && strstr(cause, "cannot compile for this GPU's "
	    "sm_990") != NULL);
	free(cause);
	free(path);
}

static size_t
cache_entries(bool *temporary)
{
	char		*dir = xasprintf("%s/ewbench", cache);
	DIR		*d = opendir(dir);
	struct dirent	*e;
	size_t		 count = 0;

	*temporary = false;
	while (d != NULL && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' && (e->d_name[1] == '\0' ||
		    strcmp(e->d_name, "..") == 0))
			continue;
		if (e->d_name[0] == '.')
			*temporary = true;	/* a leftover mkstemp file */
		count++;
	}
	if (d != NULL)
		closedir(d);
	free(dir);
	return count;
}

static void
test_compile_and_cache(void)
{
	struct user_build	 first, again, other;
	char			*path = example("add_f32x4.cu"), *cause;
	char			*copy = xasprintf("%s/edited.cu", cache);
	char			*text;
	bool			 temporary;
	FILE			*f;

	CHECK(build(path, EWB_OP_ADD, EWB_F32, NULL, 90, &first,
	    &cause) == 0);
	if (cause != NULL) {
		fprintf(stderr, "%s\n", cause);
		free(cause);
		free(path);
		free(copy);
		return;
	}
	CHECK(!first.cached);
	CHECK_STR(first.function, "add_f32x4_user");
	CHECK_STR(first.lowered, "add_f32x4_user");	/* extern "C" */
	CHECK(first.cubin_bytes > 4 &&
	    memcmp(first.cubin, "\177ELF", 4) == 0);
	CHECK(strlen(first.key) == 64 && strlen(first.source_sha256) == 64);
	CHECK_STR(first.options[0], "--gpu-architecture=sm_90");
	CHECK(cache_entries(&temporary) == 1 && !temporary);

	/* The same again: a hit, the same bytes. */
	CHECK(build(path, EWB_OP_ADD, EWB_F32, NULL, 90, &again,
	    &cause) == 0);
	CHECK(again.cached);
	CHECK_STR(again.key, first.key);
	CHECK_STR(again.lowered, first.lowered);
	CHECK(again.cubin_bytes == first.cubin_bytes &&
	    memcmp(again.cubin, first.cubin, first.cubin_bytes) == 0);
	user_build_free(&again);

	/* Another architecture, other options: misses, new entries. */
	CHECK(build(path, EWB_OP_ADD, EWB_F32, NULL, 75, &other,
	    &cause) == 0);
	CHECK(!other.cached && strcmp(other.key, first.key) != 0);
	user_build_free(&other);
	CHECK(build(path, EWB_OP_ADD, EWB_F32, "-DUNUSED=1  --use_fast_math",
	    90, &other, &cause) == 0);
	CHECK(!other.cached && strcmp(other.key, first.key) != 0);
	CHECK(other.noptions == first.noptions + 2);
	CHECK_STR(other.options[other.noptions - 1], "--use_fast_math");
	user_build_free(&other);
	CHECK(cache_entries(&temporary) == 3 && !temporary);

	/* An edited source: another source hash and key. */
	CHECK(user_build(&(struct user_spec){ .path = path, .op = EWB_OP_ADD,
	    .per_thread = 4, .block = 64 }, 90, &other, &(int){ 0 },
	    &cause) == 0);
	user_build_free(&other);
	f = fopen(path, "r");
	text = xcalloc(1, 1 << 16);
	CHECK(f != NULL && fread(text, 1, (1 << 16) - 1, f) > 0);
	if (f != NULL)
		fclose(f);
	f = fopen(copy, "w");
	CHECK(f != NULL && fprintf(f, "// edited\n%s", text) > 0);
	if (f != NULL)
		fclose(f);
	free(text);
	CHECK(build(copy, EWB_OP_ADD, EWB_F32, NULL, 90, &other,
	    &cause) == 0);
	CHECK(!other.cached && strcmp(other.key, first.key) != 0 &&
	    strcmp(other.source_sha256, first.source_sha256) != 0);
	user_build_free(&other);

	/* A damaged entry is a miss, compiled and stored again. */
	f = fopen(first.cache_path, "w");
	CHECK(f != NULL && fputs("not a cubin", f) >= 0);
	if (f != NULL)
		fclose(f);
	CHECK(build(path, EWB_OP_ADD, EWB_F32, NULL, 90, &again,
	    &cause) == 0);
	CHECK(!again.cached && again.cubin_bytes == first.cubin_bytes);
	user_build_free(&again);
	CHECK(build(path, EWB_OP_ADD, EWB_F32, NULL, 90, &again,
	    &cause) == 0);
	CHECK(again.cached);
	user_build_free(&again);

	/* Every kernel the examples and tests/gpu/user-kernel.sh use
	 * compiles and passes the signature check of its op. */
	{
		static const struct {
			const char	*file;
			enum ewb_op	 op;
			enum ewb_dtype	 dtype;
		} others[] = {
			{ "examples/add_tail_bug.cu", EWB_OP_ADD, EWB_F32 },
			{ "examples/add_chunked.cu", EWB_OP_ADD, EWB_F32 },
			{ "examples/add_offset.cu", EWB_OP_ADD, EWB_F32 },
			{ "examples/add_few_blocks.cu", EWB_OP_ADD, EWB_F32 },
			{ "examples/add_low_occupancy.cu", EWB_OP_ADD,
			    EWB_F32 },
			{ "tests/gpu/kernels/add_overrun.cu", EWB_OP_ADD, EWB_F32 },
			{ "tests/gpu/kernels/add_hang.cu", EWB_OP_ADD, EWB_F32 },
			{ "tests/gpu/kernels/abs_f32_stride_bug.cu", EWB_OP_ABS,
			    EWB_F32 },
			{ "tests/gpu/kernels/abs_f16_stride_bug.cu", EWB_OP_ABS,
			    EWB_F16 },
			{ "tests/gpu/kernels/relu_f32_off_by_one.cu",
			    EWB_OP_RELU, EWB_F32 },
			{ "tests/gpu/kernels/relu_f16_off_by_one.cu",
			    EWB_OP_RELU, EWB_F16 },
			{ "tests/gpu/kernels/add_f32_off_by_one.cu", EWB_OP_ADD,
			    EWB_F32 },
			{ "tests/gpu/kernels/add_f16_off_by_one.cu", EWB_OP_ADD,
			    EWB_F16 },
		};
		size_t	i;

		for (i = 0; i < sizeof others / sizeof *others; i++) {
			char *file = xasprintf("%s/%s", EWB_SRCDIR,
			    others[i].file);

			CHECK(build(file, others[i].op, others[i].dtype, NULL,
			    90, &other, &cause) == 0);
			if (cause != NULL)
				fprintf(stderr, "%s\n", cause);
			else
				user_build_free(&other);
			free(cause);
			free(file);
		}
	}

	user_build_free(&first);
	unlink(copy);
	free(copy);
	free(path);
}

/* A kernel file in the cache directory (which the test owns). */
static char *
scratch(const char *name, const char *source)
{
	char	*path = xasprintf("%s/%s", cache, name);
	FILE	*f = fopen(path, "w");

	CHECK(f != NULL && fputs(source, f) >= 0);
	if (f != NULL)
		fclose(f);
	return path;
}

static void
expect_refusal(const char *path, enum ewb_op op, enum ewb_dtype dtype,
    const char *want1, const char *want2)
{
	struct user_build	 b;
	char			*cause = NULL;

	CHECK(build(path, op, dtype, NULL, 90, &b, &cause) ==
	    EWB_EXIT_USAGE);
	CHECK(cause != NULL && strstr(cause, want1) != NULL);
	CHECK(cause != NULL && (want2 == NULL || strstr(cause, want2)));
	if (cause != NULL && (!strstr(cause, want1) ||
	    (want2 != NULL && !strstr(cause, want2))))
		fprintf(stderr, "the message was:\n%s\n", cause);
	free(cause);
}

static void
test_refusals(void)
{
	char	*broken = example("add_broken.cu");
	char	*good = example("add_f32x4.cu");
	char	*where = xasprintf("%s(14): error", broken);
	char	*narrow = scratch("narrow.cu", "extern \"C\" __global__ "
		    "void add_int(const float *a, const float *b, float *c, "
		    "int n)\n"
		    "{ int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		    "  if (i < n) c[i] = a[i] + b[i]; }\n");
	char	*half = scratch("half.cu", "#include <cuda_fp16.h>\n"
		    "__global__ void add_h(const __half *a, const __half *b, "
		    "__half *c, size_t n)\n"
		    "{ size_t i = blockIdx.x * (size_t)blockDim.x + "
		    "threadIdx.x;\n"
		    "  if (i < n) c[i] = __hadd(a[i], b[i]); }\n");
	struct user_build	 b;
	char			*cause = NULL;

	/* The compiler's own error, where it wrote it: the line after the
	 * missing semicolon, in the file as it was named. */
	expect_refusal(broken, EWB_OP_ADD, EWB_F32, where,
	    "does not compile");
	/* The signature of another op, or another type. */
	expect_refusal(good, EWB_OP_RELU, EWB_F32, "does not have the "
	    "signature of --op relu --dtype f32",
	    "__global__ void add_f32x4_user(const float *a, float *c, "
	    "size_t n)");
	expect_refusal(good, EWB_OP_ADD, EWB_F16, "--op add --dtype f16", NULL);
	/* A 32-bit count is accepted now (the article's int N); its type is
	 * known, for the launch and the plan. */
	CHECK(build(narrow, EWB_OP_ADD, EWB_F32, NULL, 90, &b, &cause) == 0);
	if (cause == NULL) {
		CHECK(b.count == USER_COUNT_I32);
		user_build_free(&b);
	}
	free(cause);
	expect_refusal(half, EWB_OP_ADD, EWB_F32, "does not have the "
	    "signature", NULL);
	/* An fp16 kernel with C++ linkage: found through its mangled name. */
	CHECK(build(half, EWB_OP_ADD, EWB_F16, NULL, 90, &b, &cause) == 0);
	if (cause == NULL) {
		CHECK_STR(b.function, "add_h");
		CHECK(strcmp(b.lowered, "add_h") != 0 &&
		    strstr(b.lowered, "add_h") != NULL);
		user_build_free(&b);
	}
	free(cause);
	/* A function the file does not have, and a file that is not. */
	{
		struct user_spec	s;
		int			code = 0;

		spec_init(&s, good, EWB_OP_ADD, EWB_F32, NULL);
		free(s.function);	/* the one the file has */
		s.function = xstrdup("no_such_kernel");
		CHECK(user_build(&s, 90, &b, &code, &cause) == -1);
		CHECK(code == EWB_EXIT_USAGE);
		CHECK(cause != NULL && strstr(cause, "no function "
		    "no_such_kernel"));
		free(cause);
		user_build_free(&b);
		free(s.function);
		s.function = NULL;
		s.path = "/nonexistent/k.cu";
		CHECK(user_build(&s, 90, &b, &code, &cause) == -1);
		CHECK(code == EWB_EXIT_USAGE);
		CHECK(cause != NULL && strstr(cause, "/nonexistent/k.cu: "));
		free(cause);
		user_build_free(&b);
		spec_clear(&s);
	}
	/* A bad NVRTC option is the user's too. */
	CHECK(build(good, EWB_OP_ADD, EWB_F32, "--no-such-option", 90, &b,
	    &cause) == EWB_EXIT_USAGE);
	CHECK(cause != NULL && strstr(cause, "refused an option"));
	free(cause);

	free(where);
	free(broken);
	free(good);
	unlink(narrow);
	unlink(half);
	free(narrow);
	free(half);
}

/* FUNCTION of FILE, op and dtype from its parameters (as `--kernel
 * FILE:FUNCTION` without --op and --dtype): 0 and *b, or the code. */
static int
build_inferred(const char *path, const char *function, struct user_build *b,
    char **cause)
{
	struct user_spec	s;
	int			code = 0;

	memset(&s, 0, sizeof s);
	s.path = path;
	s.function = xstrdup(function);
	*cause = NULL;
	if (user_spec_finish(&s, cause) != 0)
		code = EWB_EXIT_USAGE;
	else if (user_build(&s, 90, b, &code, cause) != 0)
		user_build_free(b);
	else
		code = 0;
	s.path = NULL;
	user_spec_free(&s);
	return code;
}

/* The article's listings as pasted (examples/article_add.cu): non-const
 * inputs, int N, its reinterpret_cast macros; the same with const inputs;
 * every count type but the odd ones; what is still refused. */
static void
test_article(void)
{
	static const char *const kernels[] = { "elementwise_add_f32_kernel",
	    "elementwise_add_f32x4_kernel", "elementwise_add_f16_kernel",
	    "elementwise_add_f16x2_kernel", "elementwise_add_f16x8_kernel",
	    "elementwise_add_f16x8_pack_kernel" };
	static const struct {
		const char	*params;
		enum user_count	 count;
	} counts[] = {
		{ "const float *a, const float *b, float *c, int n",
		    USER_COUNT_I32 },
		{ "float *a, const float *b, float *c, unsigned n",
		    USER_COUNT_U32 },
		{ "const float *__restrict__ a, float *b, float *c, long long n",
		    USER_COUNT_I64 },
		{ "float *a, float *b, float *c, size_t n", USER_COUNT_U64 },
		{ "float *a, float *b, float *c, unsigned long long n",
		    USER_COUNT_U64 },
	};
	char			*path = example("article_add.cu"), *cause;
	struct user_build	 b;
	size_t			 i;

	for (i = 0; i < sizeof kernels / sizeof *kernels; i++) {
		CHECK(build_inferred(path, kernels[i], &b, &cause) == 0);
		if (cause != NULL) {
			fprintf(stderr, "%s: %s\n", kernels[i], cause);
			free(cause);
			continue;
		}
		CHECK_STR(b.function, kernels[i]);
		CHECK(b.count == USER_COUNT_I32);
		user_build_free(&b);
		/* Again: from the cache, the count's type with it. */
		CHECK(build_inferred(path, kernels[i], &b, &cause) == 0);
		CHECK(cause == NULL && b.cached && b.count == USER_COUNT_I32);
		if (cause == NULL)
			user_build_free(&b);
		free(cause);
	}
	/* The article's macros on const inputs do not compile (a
	 * reinterpret_cast cannot cast away const): the compiler's error,
	 * not ewbench's. */
	{
		char *c = scratch("const4.cu", "#define FLOAT4(value) "
		    "(reinterpret_cast<float4 *>(&(value))[0])\n"
		    "__global__ void k(const float *a, const float *b, float "
		    "*c, int N)\n{ int idx = 4 * (blockIdx.x * blockDim.x + "
		    "threadIdx.x);\n  if (idx + 3 < N) { float4 x = "
		    "FLOAT4(a[idx]); FLOAT4(c[idx]) = x; } }\n");

		expect_refusal(c, EWB_OP_ADD, EWB_F32, "does not compile",
		    "cast");
		unlink(c);
		free(c);
	}
	for (i = 0; i < sizeof counts / sizeof *counts; i++) {
		char *src = xasprintf("__global__ void k(%s) {}\n",
		    counts[i].params);
		char *file = scratch("count.cu", src);

		CHECK(build(file, EWB_OP_ADD, EWB_F32, NULL, 90, &b,
		    &cause) == 0);
		if (cause == NULL) {
			CHECK(b.count == counts[i].count);
			user_build_free(&b);
		} else
			fprintf(stderr, "%s: %s\n", counts[i].params, cause);
		free(cause);
		unlink(file);
		free(file);
		free(src);
	}
	/* Still refused: a count of 16 bits, a float count, a const output,
	 * an input of another type; the message names what is accepted. */
	{
		static const char *const bad[] = {
			"float *a, float *b, float *c, short n",
			"float *a, float *b, float *c, float n",
			"float *a, float *b, const float *c, int n",
			"double *a, float *b, float *c, int n",
		};

		for (i = 0; i < sizeof bad / sizeof *bad; i++) {
			char *src = xasprintf("__global__ void k(%s) {}\n",
			    bad[i]);
			char *file = scratch("bad.cu", src);

			expect_refusal(file, EWB_OP_ADD, EWB_F32,
			    "does not have the signature of --op add --dtype "
			    "f32", "the inputs const or not; the count size_t, "
			    "or int as in the article");
			unlink(file);
			free(file);
			free(src);
		}
	}
	CHECK(user_count_cover(USER_COUNT_I32) == (uint64_t)1 << 31);
	CHECK(user_count_cover(USER_COUNT_U32) == (uint64_t)1 << 32);
	CHECK(user_count_cover(USER_COUNT_U64) == 0);
	free(path);
}

/* user_spec_finish on path with --op given (or NULL): op and dtype. */
static void
expect_inferred(const char *path, const char *op, enum ewb_op want_op,
    enum ewb_dtype want_dtype)
{
	struct user_spec	 s;
	char			*cause = NULL, *hint, *what, *want;

	memset(&s, 0, sizeof s);
	s.path = path;
	if (op != NULL)
		CHECK(user_spec_op(&s, op, &cause) == 0);
	CHECK(user_spec_finish(&s, &cause) == 0);
	if (cause != NULL)
		fprintf(stderr, "%s: %s\n", path, cause);
	CHECK(s.op == want_op && s.dtype == want_dtype);
	/* Where the op came from, said in run.json, the plan, and after a
	 * wrong element (issue 41: a silu taken for a relu, silently). */
	CHECK_STR(user_spec_op_from(&s), op != NULL ? "--op" : "parameters");
	CHECK_STR(user_spec_dtype_from(&s), "parameters");
	hint = user_spec_guess_hint(&s);
	what = user_spec_describe(&s, "user:k");
	if (op != NULL) {
		CHECK(hint == NULL);
		CHECK(strstr(what, " (--op)") != NULL);
	} else {
		want = xasprintf("its op, %s, was taken from its %u parameters: "
		    "if it is not %s %s, give --reference REF.cu",
		    ewb_op_name(want_op), want_op == EWB_OP_ADD ? 4 :
		    want_op == EWB_OP_RELU ? 3 : 2, want_op == EWB_OP_RELU ?
		    "a" : "an", ewb_op_name(want_op));
		CHECK(hint != NULL && strstr(hint, want) == hint);
		CHECK(strstr(what, "if it is not") != NULL);
		free(want);
	}
	free(hint);
	free(what);
	free(cause);
	s.path = NULL;
	user_spec_free(&s);
}

/* user_spec_finish refuses s, saying want; s is freed. */
static void
expect_unfinished(struct user_spec *s, const char *want)
{
	char	*cause = NULL;

	CHECK(user_spec_finish(s, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, want) != NULL);
	if (cause != NULL && strstr(cause, want) == NULL)
		fprintf(stderr, "the message was:\n%s\n", cause);
	free(cause);
	user_spec_free(s);
}

static void
test_spec(void)
{
	struct user_spec	 s;
	char			*cause = NULL;
	char			*path = example("add_f32x4.cu");
	char			*half = scratch("h.cu",
		    "#include <cuda_fp16.h>\n"
		    "__global__ void __launch_bounds__(256)\nadd_h(const "
		    "__half *__restrict__ a, const __half *b,\n  __half *c, "
		    "size_t n) {}\n");
	char			*unary = scratch("u.cu", "__global__ void "
		    "relu_h(const half *a, half *c, size_t n) {}\n");
	char			*inplace = scratch("i.cu",
		    "__global__ void "
		    "abs_f(float *c, size_t n) { /* half, not */ }\n");
	char			*odd = scratch("o.cu", "__global__ void "
		    "f5(float *a, float *b, float *c, float *d, size_t n) "
		    "{}\n");
	char			*named = xasprintf("%s:my_add", path);

	memset(&s, 0, sizeof s);
	CHECK(user_spec_kernel(&s, named, &cause) == 0);
	CHECK_STR(s.path, path);
	CHECK_STR(s.function, "my_add");
	CHECK(user_spec_finish(&s, &cause) == -1);	/* not in the file */
	CHECK(cause != NULL && strstr(cause, "no __global__ function my_add "
	    "in it"));
	free(cause);
	cause = NULL;
	CHECK(user_spec_op(&s, "relu", &cause) == 0 && s.op == EWB_OP_RELU);
	CHECK(user_spec_dtype(&s, "f16", &cause) == 0 && s.dtype == EWB_F16);
	CHECK(user_spec_op(&s, "mul", &cause) == -1);
	free(cause);
	cause = NULL;
	CHECK(user_spec_finish(&s, &cause) == 0);
	CHECK(s.per_thread == 1 && s.block == 256 &&
	    s.timeout_s == USER_TIMEOUT_S);
	user_spec_free(&s);

	/* A colon not followed by an identifier belongs to the path. */
	memset(&s, 0, sizeof s);
	CHECK(user_spec_kernel(&s, "a:b/k.cu", &cause) == 0);
	CHECK_STR(s.path, "a:b/k.cu");
	CHECK(s.function == NULL);
	CHECK(user_spec_kernel(&s, ":f", &cause) == -1);
	free(cause);
	cause = NULL;
	user_spec_free(&s);

	/* Kernel options without a kernel. */
	memset(&s, 0, sizeof s);
	CHECK(user_spec_op(&s, "add", &cause) == 0);
	expect_unfinished(&s, "--kernel FILE.cu");

	/* Without --op and --dtype, the parameters say them; given, they
	 * stand (the compiler judges them later). */
	expect_inferred(path, NULL, EWB_OP_ADD, EWB_F32);
	expect_inferred(path, "relu", EWB_OP_RELU, EWB_F32);
	expect_inferred(half, NULL, EWB_OP_ADD, EWB_F16);
	expect_inferred(unary, NULL, EWB_OP_RELU, EWB_F16);
	expect_inferred(inplace, NULL, EWB_OP_ABS, EWB_F32);
	memset(&s, 0, sizeof s);
	s.path = odd;
	CHECK(user_spec_finish(&s, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "cannot tell what f5 computes"));
	free(cause);
	cause = NULL;
	s.path = NULL;
	user_spec_free(&s);
	unlink(half);
	unlink(unary);
	unlink(inplace);
	unlink(odd);
	free(half);
	free(unary);
	free(inplace);
	free(odd);

	/* A file that cannot be read: found before any GPU work. */
	memset(&s, 0, sizeof s);
	CHECK(user_spec_kernel(&s, "/nonexistent/k.cu", &cause) == 0);
	CHECK(user_spec_op(&s, "add", &cause) == 0);
	expect_unfinished(&s, "/nonexistent/k.cu: No such");
	free(named);
	free(path);
}

static void
fired(void *ctx, const char *what, unsigned seconds)
{
	(void)ctx;
	printf("fired: %s after %u s\n", what, seconds);
}

/* In a child: stretches that end in time pass; one that does not ends the
 * process with EWB_EXIT_ERROR after the callback, about on time. */
static void
test_watchdog(void)
{
	struct timespec	 t0, t1;
	char		*cause = NULL;
	pid_t		 pid;
	int		 status;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((pid = fork()) == 0) {
		if (watchdog_start(fired, NULL, &cause) != 0)
			_exit(90);
		watchdog_arm("quick", 1);
		usleep(100000);
		watchdog_disarm();
		usleep(1200000);	/* past the disarmed limit: nothing */
		watchdog_arm("stuck", 1);
		sleep(10);
		_exit(91);		/* the watchdog never fired */
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == EWB_EXIT_ERROR);
	CHECK(t1.tv_sec - t0.tv_sec >= 2 && t1.tv_sec - t0.tv_sec < 6);

	/* Started and stopped without a stretch: joins cleanly. */
	CHECK(watchdog_start(fired, NULL, &cause) == 0);
	watchdog_arm("short", 5);
	watchdog_disarm();
	watchdog_stop();
}

/* A spec as `--kernel KERNEL --reference REF [--ulps U]`, finished. */
static int
reference_spec(struct user_spec *s, const char *kernel, const char *ref,
    const char *ulps, char **cause)
{
	memset(s, 0, sizeof *s);
	*cause = NULL;
	if (user_spec_kernel(s, kernel, cause) != 0 ||
	    user_spec_reference(s, ref, cause) != 0 ||
	    (ulps != NULL && user_spec_ulps(s, ulps, cause) != 0))
		return -1;
	return user_spec_finish(s, cause);
}

/* The examples the --reference tests share: a 3-input bf16 op and a
 * 2-input f32 one, each with its reference. */
struct ref_examples {
	char	*fma, *fma_ref, *silu, *silu_ref;
};

/* A user's own op (--reference): the 3-input bf16 example and its
 * reference compile for sm_90 without a GPU (the example not for sm_75,
 * named in one line); arity, dtype, bytes per element and the tolerance
 * follow from the signature and the options. */
static void
test_reference_bf16(const struct ref_examples *ex)
{
	struct user_spec	 s;
	struct user_build	 b, r;
	struct user_kernel	 u;
	char			*cause = NULL;
	int			 code = 0;

	CHECK(reference_spec(&s, ex->fma, ex->fma_ref, "1", &cause) == 0);
	CHECK(s.op == EWB_OP_CUSTOM && s.dtype == EWB_BF16 && s.inputs == 3);
	CHECK(user_spec_inputs(&s) == 3);
	CHECK_STR(s.ref_function, "fma_bf16_ref");
	CHECK(s.tol.ulps == 1 && s.tol.rel == 0 && s.tol.nan_equal);
	CHECK(user_build(&s, 90, &b, &code, &cause) == 0);
	CHECK(user_build_reference(&s, 90, &r, &code, &cause) == 0);
	CHECK(b.cubin_bytes > 0 && r.cubin_bytes > 0);
	CHECK_STR(r.function, "fma_bf16_ref");
	/* On sm_75 the kernel's __hfma2 (bf16 arithmetic, sm_80's) does not
	 * compile: one line naming sm_80; the reference (float math) does. */
	{
		struct user_build	b75, r75;
		char			*c75 = NULL;

		CHECK(user_build(&s, 75, &b75, &code, &c75) != 0);
		CHECK(code == EWB_EXIT_USAGE && c75 != NULL &&
		    strstr(c75, "needs sm_80 or newer: it does not compile "
		    "for sm_75 and does for sm_80") != NULL &&
		    strchr(c75, '\n') == NULL);
		free(c75);
		user_build_free(&b75);
		CHECK(user_build_reference(&s, 75, &r75, &code, &c75) == 0);
		user_build_free(&r75);
	}
	user_kernel_init(&u, &s, &b, &r);
	CHECK_STR(u.id, "user:fma_bf16");
	CHECK(u.variant.op == EWB_OP_CUSTOM && u.variant.dtype == EWB_BF16);
	/* Three bf16 inputs read, one written: 8 bytes an element. */
	CHECK(u.variant.read_bytes == 6 && u.variant.write_bytes == 2);
	CHECK(!u.variant.in_place && u.variant.max_cover == 0);
	CHECK(variant_input_arrays(&u.variant) == 3);
	CHECK(variant_tolerance(&u.variant) == &s.tol);
	user_kernel_free(&u);
	user_spec_free(&s);
}

/* In f32 with --rel, in place with an int count, with 4 inputs; a
 * reference or an input of another signature is refused by the
 * compiler. */
static void
test_reference_signatures(const struct ref_examples *ex)
{
	char			*sq = scratch("sq.cu", "__global__ void sq("
		    "float *x, int n) { int i = blockIdx.x * blockDim.x + "
		    "threadIdx.x; if (i < n) x[i] = x[i] * x[i]; }\n");
	char			*sq_ref = scratch("sqr.cu", "__global__ void "
		    "sq_ref(float *x, size_t n) { size_t i = blockIdx.x * "
		    "(size_t)blockDim.x + threadIdx.x; if (i < n) x[i] *= "
		    "x[i]; }\n");
	char			*four = scratch("four.cu", "#include "
		    "<cuda_fp16.h>\n__global__ void four(const __half *a, "
		    "const __half *b, float *c, const __half *d, __half *out, "
		    "size_t n) {}\n");
	char			*four_ok = scratch("four_ok.cu", "#include "
		    "<cuda_fp16.h>\n__global__ void four_ok(const __half *a, "
		    "const __half *b, const half *c, __half *d, __half *out, "
		    "size_t n) {}\n");
	char			*cause = NULL;
	struct user_spec	 s;
	struct user_build	 b, r;
	struct user_kernel	 u;
	int			 code = 0;

	/* f32, 2 inputs, --rel; sm_75 too. */
	memset(&s, 0, sizeof s);
	CHECK(user_spec_kernel(&s, ex->silu, &cause) == 0 &&
	    user_spec_reference(&s, ex->silu_ref, &cause) == 0 &&
	    user_spec_rel(&s, "1e-5", &cause) == 0 &&
	    user_spec_finish(&s, &cause) == 0);
	CHECK(s.op == EWB_OP_CUSTOM && s.dtype == EWB_F32 && s.inputs == 2);
	CHECK(s.tol.rel == 1e-5 && s.tol.ulps == 0);
	CHECK(user_build(&s, 75, &b, &code, &cause) == 0);
	CHECK(user_build_reference(&s, 75, &r, &code, &cause) == 0);
	user_build_free(&b);
	user_build_free(&r);
	user_spec_free(&s);

	/* In place, an int count: 2 x 4 bytes, the int's cover. */
	CHECK(reference_spec(&s, sq, sq_ref, NULL, &cause) == 0);
	CHECK(s.inputs == 0 && s.dtype == EWB_F32 && s.tol.ulps == 0);
	CHECK(user_build(&s, 90, &b, &code, &cause) == 0);
	CHECK(b.count == USER_COUNT_I32);
	CHECK(user_build_reference(&s, 90, &r, &code, &cause) == 0);
	CHECK(r.count == USER_COUNT_U64);
	user_kernel_init(&u, &s, &b, &r);
	CHECK(u.variant.in_place && u.variant.read_bytes == 4 &&
	    u.variant.write_bytes == 4);
	CHECK(u.variant.max_cover == (uint64_t)1 << 31);
	CHECK(variant_input_arrays(&u.variant) == 1);
	user_kernel_free(&u);
	user_spec_free(&s);

	/* Four f16 inputs; one of them not a pointer to T is refused by the
	 * compiler, with the declaration it needs. */
	CHECK(reference_spec(&s, four_ok, four_ok, NULL, &cause) == 0);
	CHECK(s.inputs == 4 && s.dtype == EWB_F16);
	CHECK(user_build(&s, 90, &b, &code, &cause) == 0);
	user_build_free(&b);
	user_spec_free(&s);
	CHECK(reference_spec(&s, four, four, NULL, &cause) == 0);
	CHECK(user_build(&s, 90, &b, &code, &cause) == -1 &&
	    code == EWB_EXIT_USAGE);
	CHECK(cause != NULL && strstr(cause, "does not have the signature of "
	    "the kernel and its reference (4 inputs, --dtype f16)") &&
	    strstr(cause, "four(const __half *a, const __half *b, const "
	    "__half *c, const __half *d, __half *out, size_t n)"));
	free(cause);
	user_build_free(&b);
	user_spec_free(&s);

	/* A reference of another signature. */
	CHECK(reference_spec(&s, ex->fma, ex->silu_ref, NULL, &cause) == 0);
	CHECK(user_build(&s, 90, &b, &code, &cause) == 0);
	CHECK(user_build_reference(&s, 90, &r, &code, &cause) == -1 &&
	    code == EWB_EXIT_USAGE);
	CHECK(cause != NULL && strstr(cause, "silu_mul_f32_ref does not have "
	    "the signature of the kernel and its reference (3 inputs, --dtype "
	    "bf16)"));
	free(cause);
	user_build_free(&b);
	user_build_free(&r);
	user_spec_free(&s);
	free(sq);
	free(sq_ref);
	free(four);
	free(four_ok);
}

/* Refused before any compile: a fifth input, --op beside --reference, a
 * tolerance without a reference, bf16 without one, tolerances out of
 * range. */
static void
test_reference_refusals(const struct ref_examples *ex)
{
	struct user_spec	 s;
	char			*cause = NULL;
	char			*five = scratch("five.cu", "__global__ void "
		    "five(float *a, float *b, float *c, float *d, float *e, "
		    "float *out, size_t n) {}\n");

	CHECK(reference_spec(&s, five, five, NULL, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "must take 1 to 4 input arrays"));
	free(cause);
	user_spec_free(&s);
	memset(&s, 0, sizeof s);
	CHECK(user_spec_kernel(&s, ex->fma, &cause) == 0 &&
	    user_spec_reference(&s, ex->fma_ref, &cause) == 0 &&
	    user_spec_op(&s, "add", &cause) == 0);
	expect_unfinished(&s, "leave out --op");
	memset(&s, 0, sizeof s);
	CHECK(user_spec_kernel(&s, ex->silu, &cause) == 0 &&
	    user_spec_ulps(&s, "2", &cause) == 0);
	expect_unfinished(&s, "tolerance of a check against --reference");
	memset(&s, 0, sizeof s);
	/* bf16, no reference. */
	CHECK(user_spec_kernel(&s, ex->fma, &cause) == 0 &&
	    user_spec_op(&s, "add", &cause) == 0);
	expect_unfinished(&s, "in bf16 needs a reference");
	memset(&s, 0, sizeof s);
	CHECK(user_spec_ulps(&s, "1025", &cause) == -1);
	free(cause);
	CHECK(user_spec_rel(&s, "0.3", &cause) == -1);
	free(cause);
	CHECK(user_spec_rel(&s, "-0", &cause) == 0);
	CHECK(user_spec_atol(&s, "1.5", &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "--atol: '1.5' is not a number "
	    "from 0 to 1"));
	free(cause);
	CHECK(user_spec_rtol(&s, "0.3", &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "--rtol: '0.3' is not a number "
	    "from 0 to 0.25"));
	free(cause);
	CHECK(user_spec_atol(&s, "1e-3,", &cause) == -1);
	free(cause);
	user_spec_free(&s);
	free(five);
}

/* --atol and --rtol (assert_close's rule): one alone takes the
 * other's default for the dtype the signature says; both as given;
 * neither: the rule is off.  Without --reference: refused. */
static void
test_reference_tolerance(const struct ref_examples *ex)
{
	static const struct {
		const char	*atol, *rtol;
		double		 want_atol, want_rtol;
	} cases[] = {
		{ "1e-3", NULL, 1e-3, 1.6e-2 },	/* bf16's rtol */
		{ NULL, "0.05", 1e-5, 0.05 },
		{ "0", "0.001", 0, 1e-3 },
		{ NULL, NULL, 0, 0 },
	};
	struct user_spec	 s;
	char			*cause = NULL;
	size_t			 i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		memset(&s, 0, sizeof s);
		CHECK(user_spec_kernel(&s, ex->fma, &cause) == 0 &&
		    user_spec_reference(&s, ex->fma_ref, &cause) == 0);
		if (cases[i].atol != NULL)
			CHECK(user_spec_atol(&s, cases[i].atol,
			    &cause) == 0);
		if (cases[i].rtol != NULL)
			CHECK(user_spec_rtol(&s, cases[i].rtol,
			    &cause) == 0);
		CHECK(user_spec_finish(&s, &cause) == 0);
		CHECK(s.dtype == EWB_BF16);
		CHECK(s.tol.atol == cases[i].want_atol &&
		    s.tol.rtol == cases[i].want_rtol);
		CHECK(s.tol.ulps == 0 && s.tol.rel == 0);
		user_spec_free(&s);
	}
	/* f32's default rtol, beside --ulps. */
	memset(&s, 0, sizeof s);
	CHECK(user_spec_kernel(&s, ex->silu, &cause) == 0 &&
	    user_spec_reference(&s, ex->silu_ref, &cause) == 0 &&
	    user_spec_ulps(&s, "4", &cause) == 0 &&
	    user_spec_atol(&s, "1e-4", &cause) == 0);
	CHECK(user_spec_finish(&s, &cause) == 0);
	CHECK(s.dtype == EWB_F32 && s.tol.ulps == 4 &&
	    s.tol.atol == 1e-4 && s.tol.rtol == 1.3e-6);
	user_spec_free(&s);
	memset(&s, 0, sizeof s);
	CHECK(user_spec_kernel(&s, ex->silu, &cause) == 0 &&
	    user_spec_rtol(&s, "1e-3", &cause) == 0);
	expect_unfinished(&s, "--ulps, --rel, --atol and --rtol are "
	    "the tolerance of a check against --reference");
}

/* A user's own op against its --reference. */
static void
test_reference(void)
{
	struct ref_examples	ex = { example("fma_bf16.cu"),
				    example("fma_bf16_ref.cu"),
				    example("silu_mul_f32.cu"),
				    example("silu_mul_f32_ref.cu") };

	test_reference_bf16(&ex);
	test_reference_signatures(&ex);
	test_reference_refusals(&ex);
	test_reference_tolerance(&ex);
	free(ex.fma);
	free(ex.fma_ref);
	free(ex.silu);
	free(ex.silu_ref);
}

int
main(void)
{
	char	 tmpl[] = "/tmp/ewbench-userkernel-XXXXXX";
	char	*cmd;

	test_sha256();
	test_find_function();
	if ((cache = mkdtemp(tmpl)) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	setenv("XDG_CACHE_HOME", cache, 1);
	test_spec();
	test_watchdog();
	test_compile_and_cache();
	test_nvrtc_arch();
	test_refusals();
	test_article();
	test_reference();
	cmd = xasprintf("rm -rf '%s'", cache);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", cache);
	free(cmd);
	printf("userkernel: NVRTC %s\n", check_failures ? "FAILED" : "ok");
	return check_exit();
}

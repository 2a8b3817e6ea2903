/*
 * test-opgen.c - the family generated for a user's op, without a GPU: its
 * kernels enumerated per dtype and number of inputs (exact counts, every
 * axis), every kernel of six ops (1 to 4 inputs, f32, f16, bf16: add,
 * ReLU, the bf16 FMA, the tanh GELU in f16, SiLU*mul, a four-input mix)
 * compiled by NVRTC to PTX from the headers built into ewbench, each found there
 * by its lowered name with the load and store width of its word (and a
 * bulk-copy member's bulk copies on two mbarriers, a bulkone member's on
 * one, with shared-memory reads of its word); and the
 * refusals, one line each: a function of another type, one that does not
 * compile, a file with no function or two.  Where the build found
 * cuobjdump (configure's CUOBJDUMP), the same widths in the SASS of an
 * sm_90 cubin.  A family from the compile cache (a private one) equal to
 * the one compiled, PTX and cubin.  Exit 77 where NVRTC does not work.
 */
#define _GNU_SOURCE
#include <unistd.h>
#include <nvrtc.h>

#include "check.h"
#include "opgen/opgen.h"

#ifndef EWB_SRCDIR
#define EWB_SRCDIR "."
#endif
#ifndef EWB_CUOBJDUMP
#define EWB_CUOBJDUMP ""
#endif

static void
test_family(void)
{
	static const enum ewb_dtype dtypes[] = { EWB_F32, EWB_F16, EWB_BF16 };
	struct opgen_kernel	 k[OPGEN_KERNELS];
	unsigned		 d, inputs, i, j, n;

	for (d = 0; d < 3; d++) {
		for (inputs = 1; inputs <= 4; inputs++) {
			unsigned	 shape[OPGEN_SHAPES] = { 0 };
			unsigned	 bytes[17] = { 0 }, per_k[9] = { 0 };
			unsigned	 elem = ewb_dtype_size(dtypes[d]);

			/* K 2's bulk tile at 1024 threads: 32 KiB an input,
			 * past sm_120's 99 KiB for 4 inputs; the same for
			 * bulkone's packets, while its element tiles fit at
			 * every K (6 x 4 KiB an f32 input at most) */
			unsigned	 bulk = inputs < 4 ? 2 : 1;
			unsigned	 one = 4 + bulk;

			n = opgen_family(dtypes[d], inputs, k);
			CHECK(n == 36 + bulk + one);
			CHECK(n <= OPGEN_KERNELS);
			for (i = 0; i < n; i++) {
				shape[k[i].shape]++;
				bytes[k[i].word_bytes]++;
				per_k[k[i].k]++;
				CHECK(k[i].lanes * elem == k[i].word_bytes);
				for (j = 0; j < i; j++)
					CHECK(strcmp(k[i].name, k[j].name) != 0);
			}
			for (i = 0; i < OPGEN_WORD_SHAPES; i++)
				CHECK(shape[i] == 12);
			CHECK(shape[OPGEN_BULK] == bulk);
			CHECK(shape[OPGEN_BULK_ONE] == one);
			CHECK(bytes[elem] == 12 + 4 && bytes[8] == 12 &&
			    bytes[16] == 12 + bulk + bulk);
			CHECK(per_k[1] == 11 && per_k[2] == 8 + 2 * bulk &&
			    per_k[3] == 1 && per_k[4] == 10 &&
			    per_k[6] == 1 && per_k[8] == 9);
			/* the bulk members, then the bulkone ones, last: the
			 * word shapes' order kept */
			for (i = 36; i < n; i++)
				CHECK(k[i].shape == (i < 36 + bulk ?
				    OPGEN_BULK : OPGEN_BULK_ONE) &&
				    (k[i].word_bytes == 16 ||
				    (k[i].shape == OPGEN_BULK_ONE &&
				    k[i].word_bytes == elem)) &&
				    inputs * k[i].k * EWB_MAX_BLOCK *
				    k[i].word_bytes <= OPGEN_BULK_SHARED_MOST);
		}
	}
	/* Names say the shape, the word's bits and K. */
	n = opgen_family(EWB_F32, 2, k);
	CHECK_STR(k[0].name, "tile_v32_k1");
	CHECK_STR(k[35].name, "runs_v128_k8");
	CHECK_STR(k[37].name, "bulk_v128_k2");
	/* CCCL's DeviceTransform's design point for a two-input f32 op:
	 * one stage, 3 elements a thread (opgen.h) */
	CHECK_STR(k[39].name, "bulkone_v32_k3");
	CHECK_STR(k[n - 1].name, "bulkone_v128_k2");
	n = opgen_family(EWB_F16, 1, k);
	CHECK_STR(k[0].name, "tile_v16_k1");
	CHECK_STR(k[41].name, "bulkone_v16_k6");
}

/* The body of PTX entry `name`, up to the next entry. */
static char *
entry_body(const char *ptx, const char *name)
{
	char		*head = xasprintf(".entry %s(", name);
	const char	*p = strstr(ptx, head), *end;
	char		*body = NULL;

	free(head);
	if (p == NULL)
		return NULL;
	end = strstr(p + 1, ".entry ");
	if (end == NULL)
		end = p + strlen(p);
	body = xmalloc((size_t)(end - p) + 1);
	memcpy(body, p, (size_t)(end - p));
	body[end - p] = '\0';
	return body;
}

/* Whether the body has a global access ("ld" or "st") of `bits` bits:
 * PTX's ld.global[.qualifiers][.vN].TYPE, N lanes of TYPE's bits each
 * (ld.global.v4.f32 128, ld.global.v2.u32 64, ld.global.u16 16). */
static bool
has_access_in(const char *body, const char *op, const char *space,
    unsigned bits)
{
	const char	*p = body;
	char		*pat = xasprintf("%s.%s.", op, space);
	bool		 found = false;

	while (!found && (p = strstr(p, pat)) != NULL) {
		const char	*q = p + strlen(pat);
		unsigned	 lanes = 1, width = 0;

		/* Cache and eviction qualifiers, such as .nc or .L2::... */
		while (*q != '\0' && !(q[0] == 'v' && q[1] >= '1' &&
		    q[1] <= '8' && q[2] == '.') && !(strchr("ubfs", q[0]) &&
		    q[1] >= '1' && q[1] <= '9'))
			q += strcspn(q, ".\n") + (q[strcspn(q, ".\n")] == '.');
		if (q[0] == 'v') {
			lanes = (unsigned)(q[1] - '0');
			q += 3;
		}
		if (sscanf(q + 1, "%u", &width) == 1)
			found = lanes * width == bits;
		p = q;
	}
	free(pat);
	return found;
}

static bool
has_access(const char *body, const char *op, unsigned bits)
{
	return has_access_in(body, op, "global", bits);
}

/* How many times `what` occurs in body. */
static unsigned
occurrences(const char *body, const char *what)
{
	const char	*p = body;
	unsigned	 count = 0;

	while ((p = strstr(p, what)) != NULL) {
		count++;
		p += strlen(what);
	}
	return count;
}

static bool
nvrtc_works(void)
{
	int	major, minor;

	return nvrtcVersion(&major, &minor) == NVRTC_SUCCESS;
}

/* Every kernel of an op, compiled to PTX and found there. */
static void
test_compile(const char *file, const char *function, enum ewb_dtype dtype,
    unsigned inputs)
{
	struct opgen_build	 b;
	char			*path = xasprintf("%s/%s", EWB_SRCDIR, file);
	char			*cause = NULL, *ptx, *body;
	unsigned		 i, elem_bits = ewb_dtype_size(dtype) * 8;
	int			 code = 0;

	if (opgen_build(path, function, 0, &b, &code, &cause) != 0) {
		fprintf(stderr, "%s: %s\n", file, cause);
		CHECK(!"the op compiles");
		free(cause);
		free(path);
		return;
	}
	CHECK(b.inputs == inputs);
	CHECK(b.dtype == dtype);
	CHECK(b.nkernels == (inputs < 4 ? 44 : 42));
	ptx = b.image;
	CHECK(ptx != NULL && strstr(ptx, ".target sm_90") != NULL);
	CHECK(b.reference != NULL && (body = entry_body(ptx, b.reference)));
	free(body);
	for (i = 0; i < b.nkernels; i++) {
		const struct opgen_kernel *g = &b.kernels[i];
		unsigned bits = g->word_bytes * 8;

		body = entry_body(ptx, g->lowered);
		if (body == NULL) {
			fprintf(stderr, "%s: %s (%s) not in the PTX\n", file,
			    g->name, g->lowered);
			CHECK(!"every kernel in the PTX");
			continue;
		}
		/* The word's own width, both ways; and no wider one. */
		if (!has_access(body, "ld", bits) ||
		    !has_access(body, "st", bits)) {
			fprintf(stderr, "%s: %s: no %u-bit load or store\n",
			    file, g->name, bits);
			CHECK(!"the word's width");
		}
		if (bits < 128)
			CHECK(!has_access(body, "ld", 128));
		if (bits < 64)
			CHECK(!has_access(body, "ld", 64));
		/* The tail, an element at a time, unless the word is one. */
		if (bits > elem_bits)
			CHECK(has_access(body, "st", elem_bits));
		/* A bulk or bulkone member's tile comes by bulk copies on
		 * mbarriers (compute_90): a bulk member's in two stages, a
		 * bulkone member's in one, read from shared memory a word at
		 * a time; no other member has one. */
		if ((strstr(body, "cp.async.bulk.shared::cluster.global.") !=
		    NULL && strstr(body, "mbarrier.try_wait") != NULL) !=
		    (g->shape == OPGEN_BULK || g->shape == OPGEN_BULK_ONE)) {
			fprintf(stderr, "%s: %s: bulk copies %s\n", file,
			    g->name, g->shape == OPGEN_TILE ||
			    g->shape == OPGEN_STRIDE || g->shape == OPGEN_RUNS ?
			    "where none belong" : "missing");
			CHECK(!"bulk copies in the bulk members alone");
		}
		if (g->shape == OPGEN_BULK || g->shape == OPGEN_BULK_ONE) {
			unsigned barriers = occurrences(body, "mbarrier.init");

			if (barriers != (g->shape == OPGEN_BULK ? 2u : 1u)) {
				fprintf(stderr, "%s: %s: %u mbarriers\n", file,
				    g->name, barriers);
				CHECK(!"two stages' barriers, or one");
			}
			if (!has_access_in(body, "ld", "shared", bits)) {
				fprintf(stderr, "%s: %s: no %u-bit shared "
				    "load\n", file, g->name, bits);
				CHECK(!"the staged word read at its width");
			}
		}
		/* A bulkone member's loop over a thread's K words stays
		 * rolled, as cub's does (tiles.cuh, bulk_whole_tile:
		 * unrolled it streamed 0.35 % slower on an H200). */
		if (g->shape == OPGEN_BULK_ONE && g->k > 1 &&
		    strstr(body, ".pragma \"nounroll\"") == NULL) {
			fprintf(stderr, "%s: %s: its loop unrolled\n", file,
			    g->name);
			CHECK(!"a bulkone member's loop over its words rolled");
		}
		free(body);
	}
	opgen_build_free(&b);
	free(path);
}

/* Whether a SASS body has a global access ("LDG" or "STG") of `bits`:
 * the opcode's suffixes say it, LDG.E.128, LDG.E.64, LDG.E.U16 (16),
 * none of them 32 (LDG.E, LDG.E.EF). */
static bool
has_sass(const char *body, const char *op, unsigned bits)
{
	const char	*p = body;
	size_t		 len = strlen(op);

	while ((p = strstr(p, op)) != NULL) {
		const char	*end = p + strcspn(p, " ;\n");
		unsigned	 width = 32;
		const char	*q;

		if (p > body && p[-1] != ' ')
			goto next;
		for (q = p + len; q < end && *q == '.'; q += 1 +
		    strcspn(q + 1, ". ;\n")) {
			if (strncmp(q, ".128", 4) == 0)
				width = 128;
			else if (strncmp(q, ".64", 3) == 0)
				width = 64;
			else if (strncmp(q, ".U16", 4) == 0 ||
			    strncmp(q, ".S16", 4) == 0)
				width = 16;
		}
		if (width == bits)
			return true;
next:
		p = end;
	}
	return false;
}

/* has_sass on lines as cuobjdump prints them (tests/sass/): the opcode's
 * suffixes, never an operand's .64. */
static void
test_sass_reader(void)
{
	static const char body[] =
	    "        /*00b0*/                   LDG.E.SYS R0, [R2.64+UR4] ;\n"
	    "        /*0170*/              @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;\n"
	    "        /*01b0*/                   STG.E.U16 desc[UR4][R2.64], R5 ;\n";

	CHECK(has_sass(body, "LDG", 32));
	CHECK(has_sass(body, "LDG", 128));
	CHECK(!has_sass(body, "LDG", 64));
	CHECK(has_sass(body, "STG", 16));
	CHECK(!has_sass(body, "STG", 32));
}

/* The SASS of the family of file, where there is a cuobjdump: each
 * kernel's loads and stores of its word's width, none wider. */
static void
test_sass(const char *file, enum ewb_dtype dtype)
{
	struct opgen_build	 b;
	char			*path = xasprintf("%s/%s", EWB_SRCDIR, file);
	char			 cubin[] = "/tmp/test-opgen-XXXXXX";
	char			*cause = NULL, *command, *sass = NULL, *body;
	unsigned		 i, elem_bits = ewb_dtype_size(dtype) * 8;
	size_t			 len = 0, got;
	FILE			*f;
	int			 code, fd;

	if (EWB_CUOBJDUMP[0] == '\0') {
		printf("test-opgen: this build found no cuobjdump: SASS "
		    "widths not asserted\n");
		free(path);
		return;
	}
	if (opgen_build(path, NULL, 90, &b, &code, &cause) != 0) {
		fprintf(stderr, "%s: %s\n", file, cause);
		CHECK(!"the op compiles for sm_90");
		free(cause);
		free(path);
		return;
	}
	fd = mkstemp(cubin);
	CHECK(fd >= 0 && write(fd, b.image, b.image_bytes) ==
	    (ssize_t)b.image_bytes);
	close(fd);
	command = xasprintf("'%s' -sass '%s'", EWB_CUOBJDUMP, cubin);
	f = popen(command, "r");
	CHECK(f != NULL);
	while (f != NULL) {
		sass = xrealloc(sass, len + 65537);
		got = fread(sass + len, 1, 65536, f);
		len += got;
		sass[len] = '\0';
		if (got == 0)
			break;
	}
	CHECK(f != NULL && pclose(f) == 0);
	for (i = 0; sass != NULL && i < b.nkernels; i++) {
		const struct opgen_kernel *g = &b.kernels[i];
		unsigned bits = g->word_bytes * 8;
		char *head = xasprintf("Function : %s\n", g->lowered);
		const char *p = strstr(sass, head), *end;

		free(head);
		if (p == NULL) {
			fprintf(stderr, "%s: %s not in the SASS\n", file, g->name);
			CHECK(!"every kernel in the SASS");
			continue;
		}
		end = strstr(p + 1, "Function : ");
		len = end != NULL ? (size_t)(end - p) : strlen(p);
		body = xmalloc(len + 1);
		memcpy(body, p, len);
		body[len] = '\0';
		if (!has_sass(body, "LDG", bits) || !has_sass(body, "STG", bits)) {
			fprintf(stderr, "%s: %s: no %u-bit LDG or STG\n", file,
			    g->name, bits);
			CHECK(!"the word's width in SASS");
		}
		if (bits < 128)
			CHECK(!has_sass(body, "LDG", 128));
		if (bits < 64)
			CHECK(!has_sass(body, "LDG", 64));
		if (bits > elem_bits)
			CHECK(has_sass(body, "STG", elem_bits));
		free(body);
	}
	printf("test-opgen: %s: the SASS widths of %u kernels (%s)\n", file,
	    b.nkernels, EWB_CUOBJDUMP);
	unlink(cubin);
	free(command);
	free(sass);
	opgen_build_free(&b);
	free(path);
}

/* A refusal: rc -1, the code, one line holding `words`. */
static void
test_refused(const char *file, const char *function, int want_code,
    const char *words)
{
	struct opgen_build	 b;
	char			*path = xasprintf("%s/%s", EWB_SRCDIR, file);
	char			*cause = NULL;
	int			 code = 0;

	CHECK(opgen_build(path, function, 0, &b, &code, &cause) == -1);
	CHECK(code == want_code);
	CHECK(cause != NULL && strchr(cause, '\n') == NULL);
	if (cause == NULL || strstr(cause, words) == NULL) {
		fprintf(stderr, "%s: got \"%s\", want \"%s\" in it\n", file,
		    cause != NULL ? cause : "(null)", words);
		CHECK(!"the refusal's words");
	}
	opgen_build_free(&b);
	free(cause);
	free(path);
}

static int	run_compile_tests(void);

/* A family from the compile cache is the family compiled: the same
 * inputs, dtype, kernels, lowered names and image, byte for byte. */
static void
test_cache(const char *file, unsigned arch)
{
	struct opgen_build	 fresh, hit;
	char			*path = xasprintf("%s/%s", EWB_SRCDIR, file);
	char			*cause = NULL;
	unsigned		 i;
	int			 code = 0;

	memset(&hit, 0, sizeof hit);
	if (opgen_build(path, NULL, arch, &fresh, &code, &cause) != 0) {
		fprintf(stderr, "%s: %s\n", file, cause);
		CHECK(!"the op compiles");
		goto out;
	}
	/* From an earlier test's entry: compiled again, the entry gone,
	 * and stored anew. */
	if (fresh.cached) {
		CHECK(fresh.cache_path != NULL &&
		    unlink(fresh.cache_path) == 0);
		opgen_build_free(&fresh);
		CHECK(opgen_build(path, NULL, arch, &fresh, &code,
		    &cause) == 0);
	}
	CHECK(!fresh.cached && access(fresh.cache_path, F_OK) == 0);
	CHECK(opgen_build(path, NULL, arch, &hit, &code, &cause) == 0);
	CHECK(hit.cached && strcmp(hit.key, fresh.key) == 0);
	CHECK(hit.inputs == fresh.inputs && hit.dtype == fresh.dtype &&
	    hit.nkernels == fresh.nkernels && hit.arch == fresh.arch);
	CHECK(strcmp(hit.function, fresh.function) == 0 &&
	    strcmp(hit.reference, fresh.reference) == 0);
	for (i = 0; i < hit.nkernels && i < fresh.nkernels; i++)
		CHECK(strcmp(hit.kernels[i].expr, fresh.kernels[i].expr) == 0 &&
		    strcmp(hit.kernels[i].lowered,
		    fresh.kernels[i].lowered) == 0);
	CHECK(hit.image_bytes == fresh.image_bytes &&
	    memcmp(hit.image, fresh.image, hit.image_bytes) == 0);
	opgen_build_free(&hit);
	opgen_build_free(&fresh);
out:
	free(cause);
	free(path);
}

int
main(void)
{
	char	 tmpl[] = "/tmp/ewbench-opgen-XXXXXX";
	char	*cache, *cmd;
	int	 rc;

	test_family();
	test_sass_reader();
	if (!nvrtc_works()) {
		printf("test-opgen: NVRTC does not work here: compile tests "
		    "skipped\n");
		return check_failures != 0 ? check_exit() : 77;
	}
	/* A compile cache of its own, never the user's. */
	if ((cache = mkdtemp(tmpl)) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	setenv("XDG_CACHE_HOME", cache, 1);
	rc = run_compile_tests();
	cmd = xasprintf("rm -rf '%s'", cache);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", cache);
	free(cmd);
	return rc;
}

static int
run_compile_tests(void)
{
	/* First, so that each compile it compares with is its own (the
	 * tests after it take op_relu's family from the cache). */
	test_cache("examples/op_relu.cu", 0);
	test_cache("examples/op_relu.cu", 90);
	test_compile("examples/op_add.cu", NULL, EWB_F32, 2);
	test_compile("examples/op_relu.cu", NULL, EWB_F32, 1);
	test_compile("examples/op_fma_bf16.cu", NULL, EWB_BF16, 3);
	test_compile("tests/opgen/mix_f16.cu", "mix4", EWB_F16, 4);
	test_compile("examples/op_gelu_f16.cu", NULL, EWB_F16, 1);
	test_compile("examples/op_silu_mul_f32.cu", NULL, EWB_F32, 2);
	test_sass("examples/op_add.cu", EWB_F32);
	test_sass("examples/op_relu.cu", EWB_F32);
	test_refused("tests/opgen/bad_type.cu", NULL, EWB_EXIT_USAGE,
	    "ewbench: --elementwise needs T twice(T, ...)");
	test_refused("tests/opgen/bad_syntax.cu", NULL, EWB_EXIT_USAGE,
	    "not a per-element op NVRTC");
	test_refused("tests/opgen/mix_f16.cu", NULL, EWB_EXIT_USAGE,
	    "2 __device__ functions in it (twice, mix4...): name one");
	test_refused("tests/opgen/mix_f16.cu", "nosuch", EWB_EXIT_USAGE,
	    "nosuch");
	test_refused("tests/opgen/none.cu", NULL, EWB_EXIT_USAGE,
	    "none.cu");
	return check_exit();
}

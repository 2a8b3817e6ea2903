/*
 * compile.c - a user's per-element op through NVRTC, no GPU needed: the
 * file read and its function found, the op's inputs and dtype asked of
 * the compiler (a first, small compile whose probe's lowered name says
 * them), then the family and its reference in one program, one cubin (or
 * PTX, for the tests), each kernel found by its lowered name; or all
 * that from the compile cache (src/userkernel/cache.c), which a compile
 * fills.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nvrtc.h>

#include "config.h"
#include "opgen/opgen.h"
#include "userkernel/userkernel.h"

/* The architecture of the PTX built without a GPU (arch 0): the oldest
 * the family's every kernel compiles for (sm_90: __maxnreg__ needs none,
 * bf16 arithmetic needs sm_80). */
#define OPGEN_PTX_ARCH		90u
/* NVRTC's options besides the architecture (arch_option). */
static const char *const fixed_options[] = { "-std=c++17",
    "-I" EWB_CUDA_INCLUDE, "--generate-line-info" };
#define FIXED_OPTIONS	(sizeof fixed_options / sizeof fixed_options[0])
/* The name expression of the family's reference. */
#define REFERENCE_EXPR		"ewb_family_reference<ewb_user_op>"
/* The kind and layout of a family's cache entry (user_cache_entry_load):
 * its payload is a line "INPUTS DTYPE KERNELS" (DTYPE enum ewb_dtype's
 * value), the reference's lowered name and each kernel's in family
 * order, one a line, then the image. */
#define CACHE_MAGIC		"ewbench-family 1 "

/* NVRTC's architecture option for sm_<arch>, or compute_90 (arch 0). */
static char *
arch_option(unsigned arch)
{
	return arch != 0 ? xasprintf("--gpu-architecture=sm_%u", arch) :
	    xasprintf("--gpu-architecture=compute_%u", OPGEN_PTX_ARCH);
}

/* len bytes of s, as a string. */
static char *
span(const char *s, size_t len)
{
	char	*t = xmalloc(len + 1);

	memcpy(t, s, len);
	t[len] = '\0';
	return t;
}

static bool
is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* source with its comments and string literals blanked out. */
static char *
code_only(const char *source)
{
	char	*code = xstrdup(source), *p = code;

	while (*p != '\0') {
		if (p[0] == '/' && p[1] == '*') {
			char *end = strstr(p + 2, "*/");

			end = end != NULL ? end + 2 : p + strlen(p);
			memset(p, ' ', (size_t)(end - p));
			p = end;
		} else if (p[0] == '/' && p[1] == '/') {
			size_t len = strcspn(p, "\n");

			memset(p, ' ', len);
			p += len;
		} else if (*p == '"') {
			char *q = p + 1;

			while (*q != '\0' && *q != '"' && *q != '\n')
				q += q[0] == '\\' && q[1] != '\0' ? 2 : 1;
			if (*q == '"')
				q++;
			memset(p, ' ', (size_t)(q - p));
			p = q;
		} else
			p++;
	}
	return code;
}

/* The names of the __device__ functions of source that are not
 * __global__, by their text: the identifier before the first '(' after
 * each `__device__`, in the same declaration. */
static size_t
device_functions(const char *text, char ***names)
{
	char		*source = code_only(text);
	const char	*p = source, *q, *end;
	size_t		 n = 0, i;

	*names = NULL;
	while ((p = strstr(p, "__device__")) != NULL) {
		bool	token = (p == source || !is_ident(p[-1])) &&
			    !is_ident(p[10]);

		p += 10;
		if (!token)
			continue;
		for (q = p; *q != '\0' && *q != '(' && *q != ';' && *q != '{' &&
		    *q != '='; q++)
			;
		if (*q != '(')
			continue;
		for (end = q; end > p && isspace((unsigned char)end[-1]); end--)
			;
		for (q = end; q > p && is_ident(q[-1]); q--)
			;
		if (q == end || strncmp(q, "__global__", 10) == 0)
			continue;
		for (i = 0; i < n; i++)
			if (strlen((*names)[i]) == (size_t)(end - q) &&
			    strncmp((*names)[i], q, (size_t)(end - q)) == 0)
				break;
		if (i < n)
			continue;
		*names = xrealloc(*names, (n + 1) * sizeof **names);
		(*names)[n++] = span(q, (size_t)(end - q));
	}
	free(source);
	return n;
}

/* The log's first error, one line, without its file:line when that is
 * ewbench's own appended part; the static_assert's words when it is one. */
static char *
first_error(const char *log)
{
	const char	*e = log != NULL ? strstr(log, "error") : NULL;
	const char	*start, *end, *quote;

	if (e == NULL)
		return xstrdup("NVRTC failed without a message");
	for (start = e; start > log && start[-1] != '\n'; start--)
		;
	end = strchr(start, '\n');
	if (end == NULL)
		end = start + strlen(start);
	if ((quote = strstr(start, "\"ewbench: ")) != NULL && quote < end)
		return span(quote + 1, (size_t)(strcspn(quote + 1, "\"\n")));
	return span(start, (size_t)(end - start));
}

/*
 * b->key, from all that makes the image without compiling anything: the
 * NVRTC version and options, the program's name (b->path, in the line
 * info), the files the op #includes (their digest), the embedded
 * headers, the probe's program and the family's for each count of inputs
 * it may say (both hold the op's source and function), and the name
 * expressions of every family it may be.
 */
static void
cache_key(struct opgen_build *b, const char *source)
{
	static const enum ewb_dtype dtypes[] = { EWB_F32, EWB_F16, EWB_BF16 };
	struct opgen_build	 family;
	struct sha256		 h;
	char			 version[32], *text;
	unsigned		 inputs, d, i;

	snprintf(version, sizeof version, "nvrtc %d.%d", b->nvrtc_major,
	    b->nvrtc_minor);
	sha256_init(&h);
	user_cache_key_part(&h, CACHE_MAGIC);
	user_cache_key_part(&h, version);
	text = arch_option(b->arch);
	user_cache_key_part(&h, text);
	free(text);
	for (i = 0; i < FIXED_OPTIONS; i++)
		user_cache_key_part(&h, fixed_options[i]);
	user_cache_key_part(&h, b->path);
	user_cache_key_part(&h, b->includes_sha256);
	for (i = 0; i < opgen_header_count; i++) {
		user_cache_key_part(&h, opgen_header_names[i]);
		user_cache_key_part(&h, opgen_header_texts[i]);
	}
	text = opgen_probe_expr();
	user_cache_key_part(&h, text);
	free(text);
	user_cache_key_part(&h, REFERENCE_EXPR);
	for (inputs = 0; inputs <= 4; inputs++) {
		text = opgen_program_text(source, b->function, inputs);
		user_cache_key_part(&h, text);
		free(text);
	}
	for (inputs = 1; inputs <= 4; inputs++)
		for (d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
			memset(&family, 0, sizeof family);
			family.inputs = inputs;
			family.dtype = dtypes[d];
			opgen_name_kernels(&family);
			for (i = 0; i < family.nkernels; i++)
				user_cache_key_part(&h, family.kernels[i].expr);
			opgen_build_free(&family);
		}
	sha256_hex(&h, b->key);
}

/* The line at *p (before end), *p past its newline; NULL when there is
 * none or it is empty. */
static char *
take_line(const char **p, const char *end)
{
	const char	*nl = memchr(*p, '\n', (size_t)(end - *p));
	char		*line;

	if (nl == NULL || nl == *p)
		return NULL;
	line = span(*p, (size_t)(nl - *p));
	*p = nl + 1;
	return line;
}

/* b's family, reference and image from its cache entry, as a compile
 * leaves them; false (b as it was) when the entry is missing, answers
 * another key, fails its digest or does not parse.  Parsed into a build
 * of its own first, which opgen_build_free clears on a miss. */
static bool
cache_load(struct opgen_build *b)
{
	struct opgen_build	 got;
	char			*payload, *line;
	const char		*p, *end;
	size_t			 len;
	unsigned		 inputs, kernels, i;
	int			 dtype;
	char			 after;

	if (!user_cache_entry_load(b->cache_path, CACHE_MAGIC, b->key,
	    &payload, &len))
		return false;
	memset(&got, 0, sizeof got);
	p = payload;
	end = payload + len;
	if ((line = take_line(&p, end)) == NULL ||
	    sscanf(line, "%u %d %u%c", &inputs, &dtype, &kernels,
	    &after) != 3 || inputs < 1 || inputs > 4 ||
	    (dtype != EWB_F32 && dtype != EWB_F16 && dtype != EWB_BF16))
		goto miss;
	got.inputs = inputs;
	got.dtype = (enum ewb_dtype)dtype;
	opgen_name_kernels(&got);
	if (got.nkernels != kernels ||
	    (got.reference = take_line(&p, end)) == NULL)
		goto miss;
	for (i = 0; i < got.nkernels; i++)
		if ((got.kernels[i].lowered = take_line(&p, end)) == NULL)
			goto miss;
	if (p == end)
		goto miss;
	got.image_bytes = (size_t)(end - p);
	got.image = xmalloc(got.image_bytes + 1);
	memcpy(got.image, p, got.image_bytes);
	((char *)got.image)[got.image_bytes] = '\0';	/* PTX read as text */
	b->inputs = got.inputs;
	b->dtype = got.dtype;
	memcpy(b->kernels, got.kernels, sizeof b->kernels);
	b->nkernels = got.nkernels;
	b->reference = got.reference;
	b->image = got.image;
	b->image_bytes = got.image_bytes;
	b->cached = true;
	free(line);
	free(payload);
	return true;
miss:
	opgen_build_free(&got);
	free(line);
	free(payload);
	return false;
}

/* b in the cache (user_cache_entry_store: atomically, never fatal). */
static void
cache_store(const struct opgen_build *b)
{
	char		*head = xasprintf("%u %d %u\n%s\n", b->inputs,
			    (int)b->dtype, b->nkernels, b->reference), *p;
	size_t		 len = strlen(head);
	unsigned	 i;

	for (i = 0; i < b->nkernels; i++)
		len += strlen(b->kernels[i].lowered) + 1;
	head = xrealloc(head, len + 1);
	p = head + strlen(head);
	for (i = 0; i < b->nkernels; i++)
		p += sprintf(p, "%s\n", b->kernels[i].lowered);
	user_cache_entry_store(b->cache_path, CACHE_MAGIC, b->key, head,
	    b->image, b->image_bytes);
	free(head);
}

static int compile(const struct opgen_build *, const char *, bool, bool,
    nvrtcProgram *, int *, char **);

/* What compiles_at tries: the program of b, with its name expressions or
 * the probe's. */
struct at_arch {
	const struct opgen_build	*b;
	const char			*program;
	bool				 image;
};

/* Whether the program compiles for sm_<arch> instead of b's. */
static bool
compiles_at(unsigned arch, void *ctx)
{
	const struct at_arch	*at = ctx;
	struct opgen_build	 other = *at->b;	/* compile() only reads it */
	nvrtcProgram		 prog = NULL;
	char			*cause = NULL;
	int			 code, rc;

	other.arch = arch;
	rc = compile(&other, at->program, at->image, false, &prog, &code,
	    &cause);
	if (prog != NULL)
		nvrtcDestroyProgram(&prog);
	free(cause);
	return rc == 0;
}

/*
 * Compiles program with the op's name expressions (the probe's only when
 * b->nkernels is 0) into prog; -1 with a one-line cause (code
 * EWB_EXIT_USAGE) when it does not compile: with explain, for an op that
 * does compile for a newer architecture than b's (bf16 arithmetic on a
 * GPU older than sm_80), the one that it needs.
 */
static int
compile(const struct opgen_build *b, const char *program, bool image,
    bool explain, nvrtcProgram *prog, int *code, char **cause)
{
	const char	*options[FIXED_OPTIONS + 1];
	char		*arch, *log, *probe = opgen_probe_expr(), *ref = NULL;
	nvrtcResult	 r;
	unsigned	 i;
	int		 rc = -1;

	*code = EWB_EXIT_ERROR;
	options[0] = arch = arch_option(b->arch);
	for (i = 0; i < FIXED_OPTIONS; i++)
		options[i + 1] = fixed_options[i];
	if ((r = nvrtcCreateProgram(prog, program, b->path,
	    (int)opgen_header_count, opgen_header_texts,
	    opgen_header_names)) != NVRTC_SUCCESS) {
		*cause = xasprintf("%s: nvrtcCreateProgram: %s", b->path,
		    nvrtcGetErrorString(r));
		goto out;
	}
	r = nvrtcAddNameExpression(*prog, probe);
	if (image) {
		ref = xstrdup(REFERENCE_EXPR);
		if (r == NVRTC_SUCCESS)
			r = nvrtcAddNameExpression(*prog, ref);
		for (i = 0; i < b->nkernels && r == NVRTC_SUCCESS; i++)
			r = nvrtcAddNameExpression(*prog, b->kernels[i].expr);
	}
	if (r != NVRTC_SUCCESS) {
		*cause = xasprintf("%s: nvrtcAddNameExpression: %s", b->path,
		    nvrtcGetErrorString(r));
		goto out;
	}
	r = nvrtcCompileProgram(*prog, FIXED_OPTIONS + 1, options);
	if (r != NVRTC_SUCCESS) {
		struct at_arch	 at = { b, program, image };
		unsigned	 needs = 0;
		char		*first;

		log = user_nvrtc_log(*prog);
		first = first_error(log);
		*code = r == NVRTC_ERROR_COMPILATION ? EWB_EXIT_USAGE :
		    EWB_EXIT_ERROR;
		/* Not for ewbench's own refusals (a function of another
		 * type): no architecture changes those. */
		if (r == NVRTC_ERROR_COMPILATION && explain && b->arch != 0 &&
		    strncmp(first, "ewbench: ", 9) != 0)
			needs = user_newer_arch_that_compiles(b->arch,
			    compiles_at, &at);
		if (needs != 0)
			*cause = xasprintf("--elementwise %s:%s: needs sm_%u "
			    "or newer: it does not compile for sm_%u and does "
			    "for sm_%u (NVRTC %d.%d; first error: %s)",
			    b->path, b->function, needs, b->arch, needs,
			    b->nvrtc_major, b->nvrtc_minor, first);
		else
			*cause = xasprintf("--elementwise %s:%s: not a "
			    "per-element op NVRTC %d.%d compiles: %s",
			    b->path, b->function, b->nvrtc_major,
			    b->nvrtc_minor, first);
		free(first);
		free(log);
		goto out;
	}
	rc = 0;
out:
	free(arch);
	free(probe);
	free(ref);
	return rc;
}

/* Whether r is success; else the cause, naming what failed. */
static bool
nvrtc_ok(nvrtcResult r, const char *what, const struct opgen_build *b,
    char **cause)
{
	if (r == NVRTC_SUCCESS)
		return true;
	*cause = xasprintf("--elementwise %s: %s: %s", b->path, what,
	    nvrtcGetErrorString(r));
	return false;
}

/* The op's inputs and dtype, from the probe's lowered name,
 * ..._Z16ewb_family_probeILj<inputs>ELj<dtype>EEvv. */
static int
read_probe(struct opgen_build *b, nvrtcProgram prog, char **cause)
{
	char		*probe = opgen_probe_expr();
	const char	*lowered, *p;
	unsigned	 inputs, dtype;
	int		 rc = -1;

	if (!nvrtc_ok(nvrtcGetLoweredName(prog, probe, &lowered),
	    "nvrtcGetLoweredName", b, cause))
		goto out;
	if ((p = strstr(lowered, "ewb_family_probeILj")) == NULL ||
	    sscanf(p + strlen("ewb_family_probeILj"), "%uELj%uE", &inputs,
	    &dtype) != 2 || inputs < 1 || inputs > 4 || dtype > 2) {
		*cause = xasprintf("%s: the op's probe says nothing (%s)",
		    b->path, lowered);
		goto out;
	}
	b->inputs = inputs;
	b->dtype = dtype == 0 ? EWB_F32 : dtype == 1 ? EWB_F16 : EWB_BF16;
	rc = 0;
out:
	free(probe);
	return rc;
}

int
opgen_build(const char *path, const char *function, unsigned arch,
    struct opgen_build *b, int *code, char **cause)
{
	nvrtcProgram	 prog = NULL;
	struct sha256	 h;
	char		*source = NULL, *program = NULL, **names = NULL;
	const char	*lowered;
	size_t		 len, nnames = 0, i;
	double		 t0 = monotonic_seconds();
	bool		 owned = false;
	int		 rc = -1;

	memset(b, 0, sizeof *b);
	b->path = path;
	b->arch = arch;
	*code = EWB_EXIT_USAGE;
	if (user_read_source(&b->path, &owned, &source, &len, cause) != 0)
		goto out;
	if (owned)
		b->path_owned = (char *)b->path;
	path = b->path;
	if (memchr(source, '\0', len) != NULL) {
		*cause = xasprintf("--elementwise %s: holds a NUL byte: not "
		    "CUDA source", path);
		goto out;
	}
	sha256_init(&h);
	sha256_update(&h, source, len);
	sha256_hex(&h, b->source_sha256);
	nnames = device_functions(source, &names);
	if (function != NULL)
		b->function = xstrdup(function);
	else if (nnames == 1)
		b->function = xstrdup(names[0]);
	else {
		*cause = nnames == 0 ? xasprintf("--elementwise %s: no "
		    "__device__ function in it", path) : xasprintf(
		    "--elementwise %s: %zu __device__ functions in it (%s, "
		    "%s...): name one, %s:FUNCTION", path, nnames, names[0],
		    names[1], path);
		goto out;
	}
	/* Its #includes, checked before NVRTC opens them, and their digest
	 * for the key. */
	if (user_includes(path, source, NULL, 0, b->includes_sha256,
	    cause) != 0)
		goto out;
	*code = EWB_EXIT_ERROR;
	if (nvrtcVersion(&b->nvrtc_major, &b->nvrtc_minor) != NVRTC_SUCCESS) {
		*cause = xstrdup("nvrtcVersion failed: NVRTC unusable");
		goto out;
	}
	/* From the cache when it holds this very build. */
	cache_key(b, source);
	b->cache_path = user_cache_path(b->key, ".family");
	if (cache_load(b)) {
		b->compile_s = monotonic_seconds() - t0;
		rc = 0;
		goto out;
	}
	program = opgen_program_text(source, b->function, 0);
	/* First what the op is, from the compiler. */
	if (compile(b, program, false, true, &prog, code, cause) != 0 ||
	    read_probe(b, prog, cause) != 0)
		goto out;
	nvrtcDestroyProgram(&prog);
	prog = NULL;
	/* Then the family of that op, and its reference. */
	free(program);
	program = opgen_program_text(source, b->function, b->inputs);
	opgen_name_kernels(b);
	if (compile(b, program, true, true, &prog, code, cause) != 0)
		goto out;
	*code = EWB_EXIT_ERROR;
	for (i = 0; i < b->nkernels; i++) {
		if (!nvrtc_ok(nvrtcGetLoweredName(prog, b->kernels[i].expr,
		    &lowered), "nvrtcGetLoweredName", b, cause))
			goto out;
		b->kernels[i].lowered = xstrdup(lowered);
	}
	if (!nvrtc_ok(nvrtcGetLoweredName(prog, REFERENCE_EXPR, &lowered),
	    "nvrtcGetLoweredName", b, cause))
		goto out;
	b->reference = xstrdup(lowered);
	if (arch != 0) {
		if (!nvrtc_ok(nvrtcGetCUBINSize(prog, &b->image_bytes),
		    "nvrtcGetCUBINSize", b, cause))
			goto out;
		b->image = xmalloc(b->image_bytes + 1);
		if (!nvrtc_ok(nvrtcGetCUBIN(prog, b->image), "nvrtcGetCUBIN", b,
		    cause))
			goto out;
	} else {
		if (!nvrtc_ok(nvrtcGetPTXSize(prog, &b->image_bytes),
		    "nvrtcGetPTXSize", b, cause))
			goto out;
		b->image = xmalloc(b->image_bytes + 1);
		if (!nvrtc_ok(nvrtcGetPTX(prog, b->image), "nvrtcGetPTX", b,
		    cause))
			goto out;
	}
	b->compile_s = monotonic_seconds() - t0;
	cache_store(b);
	rc = 0;
out:
	if (prog != NULL)
		nvrtcDestroyProgram(&prog);
	if (rc != 0)
		opgen_build_free(b);	/* a failed build holds nothing */
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	free(source);
	free(program);
	return rc;
}

void
opgen_build_free(struct opgen_build *b)
{
	unsigned	i;

	for (i = 0; i < b->nkernels; i++) {
		free(b->kernels[i].expr);
		free(b->kernels[i].lowered);
	}
	free(b->function);
	free(b->reference);
	free(b->image);
	free(b->path_owned);
	free(b->cache_path);
	memset(b, 0, sizeof *b);
}

/*
 * build.c - a user's kernel through NVRTC, no GPU needed: the program
 * compiled for one architecture (its signature checked by the compiler
 * itself), the cache asked first, the log kept.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <nvrtc.h>

#include "config.h"
#include "userkernel/internal.h"

static void
add_option(struct user_build *b, char *option)
{
	b->options = xrealloc(b->options,
	    (b->noptions + 1) * sizeof *b->options);
	b->options[b->noptions++] = option;
}

/* Whether the log's first error is in the appended checks: the user's
 * code compiled, its signature did not match. */
static bool
first_error_is_check(const char *log)
{
	const char	*e = strstr(log, ": error"), *line;

	if (e == NULL)
		return false;
	for (line = e; line > log && line[-1] != '\n'; line--)
		;
	return strncmp(line, CHECK_FILE "(", strlen(CHECK_FILE) + 1) == 0;
}

/* The cause of a failed compile: a signature the op does not take, a
 * function the file lacks, or the compiler's own errors. */
static char *
compile_failure(const struct user_spec *s, const struct user_build *b,
    nvrtcResult r, const char *log)
{
	char	*missing = xasprintf("identifier \"%s\" is undefined",
		    b->function);
	char	*declared = user_expected_declaration(s, b->function), *cause;

	if (r == NVRTC_ERROR_INVALID_OPTION)
		cause = xasprintf("%s: NVRTC refused an option "
		    "(--kernel-flags?):\n%s", s->path, log);
	else if (first_error_is_check(log) && strstr(log, missing) != NULL)
		cause = xasprintf("%s: no function %s in it", s->path,
		    b->function);
	else if (first_error_is_check(log) && s->op == EWB_OP_CUSTOM)
		cause = xasprintf("%s: %s does not have the signature of the "
		    "kernel and its reference (%u input%s, --dtype %s), which "
		    "is\n  %s\nNVRTC:\n%s", s->path, b->function, s->inputs,
		    s->inputs == 1 ? "" : "s", ewb_dtype_name(s->dtype),
		    declared, log);
	else if (first_error_is_check(log))
		cause = xasprintf("%s: %s does not have the signature of --op "
		    "%s --dtype %s, which is\n  %s\nNVRTC:\n%s", s->path,
		    b->function, ewb_op_name(s->op), ewb_dtype_name(s->dtype),
		    declared, log);
	else
		cause = xasprintf("%s: does not compile (NVRTC %d.%d, "
		    "sm_%u):\n%s", s->path, b->nvrtc_major, b->nvrtc_minor,
		    b->arch, log);
	free(missing);
	free(declared);
	return cause;
}

static int
by_value(const void *a, const void *b)
{
	int	x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

struct compiles_ctx {
	const char		*program;
	const struct user_build	*b;
};

/* Whether the program compiles with b's options for sm_<arch> instead. */
static bool
compiles_for(unsigned arch, void *ctx)
{
	const char		*program = ((struct compiles_ctx *)ctx)->program;
	const struct user_build	*b = ((struct compiles_ctx *)ctx)->b;
	nvrtcProgram	 prog;
	char		**options = xmalloc(b->noptions * sizeof *options);
	char		*target = xasprintf("--gpu-architecture=sm_%u", arch);
	bool		 ok = false;
	size_t		 i;

	for (i = 0; i < b->noptions; i++)
		options[i] = strncmp(b->options[i], "--gpu-architecture=",
		    19) == 0 ? target : b->options[i];
	if (nvrtcCreateProgram(&prog, program, "probe", 0, NULL, NULL) ==
	    NVRTC_SUCCESS) {
		ok = nvrtcCompileProgram(prog, (int)b->noptions,
		    (const char *const *)options) == NVRTC_SUCCESS;
		nvrtcDestroyProgram(&prog);
	}
	free(target);
	free(options);
	return ok;
}

unsigned
user_newer_arch_that_compiles(unsigned arch,
    bool (*compiles)(unsigned arch, void *ctx), void *ctx)
{
	int		 n = 0, i;
	int		*archs;
	unsigned	 found = 0, major = arch / 10;

	if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0)
		return 0;
	archs = xmalloc((size_t)n * sizeof *archs);
	if (nvrtcGetSupportedArchs(archs) != NVRTC_SUCCESS)
		n = 0;
	qsort(archs, (size_t)n, sizeof *archs, by_value);
	for (i = 0; i < n && found == 0; i++) {
		unsigned	a = (unsigned)archs[i];

		if (a / 10 <= major)
			continue;
		major = a / 10;
		if (compiles(a, ctx))
			found = a;
	}
	free(archs);
	return found;
}

/* One line when the kernel fails for this GPU's architecture and
 * compiles for a newer one (the log's errors are then that architecture's
 * missing features, not the user's mistakes), else NULL. */
static char *
newer_arch_failure(const struct user_spec *s, const char *program,
    const struct user_build *b, nvrtcResult r)
{
	struct compiles_ctx	 ctx = { program, b };
	const char		*e, *start, *end;
	unsigned		 needs;
	size_t			 len;
	char			*cause;

	if (r != NVRTC_ERROR_COMPILATION || b->log == NULL ||
	    first_error_is_check(b->log) ||
	    (needs = user_newer_arch_that_compiles(b->arch, compiles_for,
	    &ctx)) == 0)
		return NULL;
	e = strstr(b->log, ": error");
	for (start = e != NULL ? e : b->log; start > b->log &&
	    start[-1] != '\n'; start--)
		;
	end = strchr(start, '\n');
	len = end != NULL ? (size_t)(end - start) : strlen(start);
	cause = xasprintf("%s: needs sm_%u or newer: it does not compile for "
	    "sm_%u and does for sm_%u%s (NVRTC %d.%d; first error: %.*s)",
	    s->path, needs, b->arch, needs, s->dtype == EWB_BF16 ?
	    "; bf16 arithmetic (__hfma2 and the like) is sm_80's" : "",
	    b->nvrtc_major, b->nvrtc_minor, (int)len, start);
	return cause;
}

char *
user_nvrtc_log(void *program)
{
	nvrtcProgram	 prog = program;
	size_t	 len = 0;
	char	*log;

	if (nvrtcGetProgramLogSize(prog, &len) != NVRTC_SUCCESS || len <= 1)
		return NULL;
	log = xmalloc(len + 1);
	if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) {
		free(log);
		return NULL;
	}
	log[len] = '\0';
	return log;
}

#define NVRTC_TRY(call, what) do {					\
	nvrtcResult nvrtc_r_ = (call);					\
	if (nvrtc_r_ != NVRTC_SUCCESS) {				\
		*cause = xasprintf("%s: %s: %s", spec->path, what,	\
		    nvrtcGetErrorString(nvrtc_r_));			\
		goto out;						\
	}								\
} while (0)

/* Compiles program into b (lowered name, cubin, log). */
static int
compile(const struct user_spec *spec, const char *program,
    struct user_build *b, int *code, char **cause)
{
	nvrtcProgram	 prog = NULL;
	nvrtcResult	 r;
	const char	*lowered;
	char		*probe = user_count_probe(b->function);
	double		 t0 = monotonic_seconds();
	int		 rc = -1;

	*code = EWB_EXIT_ERROR;
	/* The user's path as the program's name: the log's file:line. */
	NVRTC_TRY(nvrtcCreateProgram(&prog, program, spec->path, 0, NULL,
	    NULL), "nvrtcCreateProgram");
	NVRTC_TRY(nvrtcAddNameExpression(prog, b->function),
	    "nvrtcAddNameExpression");
	NVRTC_TRY(nvrtcAddNameExpression(prog, probe),
	    "nvrtcAddNameExpression");
	r = nvrtcCompileProgram(prog, (int)b->noptions,
	    (const char *const *)b->options);
	b->log = user_nvrtc_log(prog);
	if (r != NVRTC_SUCCESS) {
		*code = EWB_EXIT_USAGE;
		*cause = newer_arch_failure(spec, program, b, r);
		if (*cause == NULL)
			*cause = compile_failure(spec, b, r, b->log != NULL ?
			    b->log : nvrtcGetErrorString(r));
		goto out;
	}
	NVRTC_TRY(nvrtcGetLoweredName(prog, b->function, &lowered),
	    "nvrtcGetLoweredName");
	b->lowered = xstrdup(lowered);
	NVRTC_TRY(nvrtcGetLoweredName(prog, probe, &lowered),
	    "nvrtcGetLoweredName");
	if (user_count_from_probe(lowered, &b->count) != 0) {
		*cause = xasprintf("%s: the type of %s's count is not known "
		    "(probe %s)", spec->path, b->function, lowered);
		goto out;
	}
	NVRTC_TRY(nvrtcGetCUBINSize(prog, &b->cubin_bytes),
	    "nvrtcGetCUBINSize");
	b->cubin = xmalloc(b->cubin_bytes + 1);
	NVRTC_TRY(nvrtcGetCUBIN(prog, b->cubin), "nvrtcGetCUBIN");
	b->compile_s = monotonic_seconds() - t0;
	rc = 0;
out:
	if (prog != NULL)
		nvrtcDestroyProgram(&prog);
	free(probe);
	return rc;
}

unsigned
user_nvrtc_arch(unsigned cc)
{
	int		 n = 0, i;
	int		*archs;
	unsigned	 best = 0;

	if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0)
		return 0;
	archs = xmalloc((size_t)n * sizeof *archs);
	if (nvrtcGetSupportedArchs(archs) != NVRTC_SUCCESS)
		n = 0;
	/* cc itself, else the newest of its major below it: machine code
	 * runs on the later minors of its major. */
	for (i = 0; i < n; i++) {
		unsigned	a = (unsigned)archs[i];

		if (a / 10 == cc / 10 && a <= cc && a > best)
			best = a;
	}
	free(archs);
	return best;
}

int
user_build(const struct user_spec *spec, unsigned arch, struct user_build *b,
    int *code, char **cause)
{
	struct sha256	 h;
	char		*source = NULL, *program = NULL;
	size_t		 len, i;
	int		 rc = -1;

	memset(b, 0, sizeof *b);
	b->device_arch = arch;
	*code = EWB_EXIT_USAGE;
	if (read_user_file(spec->path, SOURCE_MAX, &source, &len, cause) != 0)
		goto out;
	sha256_init(&h);
	sha256_update(&h, source, len);
	sha256_hex(&h, b->source_sha256);
	if (memchr(source, '\0', len) != NULL) {
		*cause = xasprintf("%s: holds a NUL byte: not CUDA source",
		    spec->path);
		goto out;
	}
	if (spec->function != NULL)
		b->function = xstrdup(spec->function);
	else if (user_find_function(source, spec->path, &b->function,
	    cause) != 0)
		goto out;
	if (user_includes(spec->path, source, spec->flags, spec->nflags,
	    b->includes_sha256, cause) != 0)
		goto out;
	*code = EWB_EXIT_ERROR;
	if (nvrtcVersion(&b->nvrtc_major, &b->nvrtc_minor) != NVRTC_SUCCESS) {
		*cause = xstrdup("nvrtcVersion failed: NVRTC unusable");
		goto out;
	}
	/* Machine code (a cubin) for the GPU itself, never PTX: an older
	 * driver's JIT refuses PTX newer than itself. */
	if ((b->arch = user_nvrtc_arch(arch)) == 0) {
		*cause = xasprintf("%s: NVRTC %d.%d (this ewbench's CUDA %d.%d) "
		    "cannot compile for this GPU's sm_%u: ewbench built with a "
		    "toolkit that knows it can", spec->path, b->nvrtc_major,
		    b->nvrtc_minor, EWB_CUDA_BUILD_VERSION / 1000,
		    EWB_CUDA_BUILD_VERSION % 1000 / 10, arch);
		goto out;
	}
	add_option(b, xasprintf("--gpu-architecture=sm_%u", b->arch));
	add_option(b, xstrdup("-std=c++17"));
	add_option(b, xstrdup("-I" EWB_CUDA_INCLUDE));
	add_option(b, xstrdup("--generate-line-info"));
	for (i = 0; i < spec->nflags; i++)
		add_option(b, xstrdup(spec->flags[i]));
	program = user_program_text(spec, source, b->function);
	user_cache_key(b, program);
	b->cache_path = user_cache_path(b->key, ".cubin");
	if (!user_cache_load(b)) {
		if (compile(spec, program, b, code, cause) != 0)
			goto out;
		user_cache_store(b);
	}
	rc = 0;
out:
	free(source);
	free(program);
	return rc;
}

int
user_build_reference(const struct user_spec *spec, unsigned arch,
    struct user_build *b, int *code, char **cause)
{
	struct user_spec	ref = *spec;

	/* Its own file and function, the kernel's signature; none of the
	 * kernel's --kernel-flags (a --use_fast_math meant for the kernel
	 * would change the reference it is checked against). */
	ref.path = spec->ref_path;
	ref.path_owned = false;
	ref.function = spec->ref_function;
	ref.flags = NULL;
	ref.nflags = 0;
	return user_build(&ref, arch, b, code, cause);
}

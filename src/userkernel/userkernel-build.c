/*
 * userkernel-build.c - a user's kernel through NVRTC, no GPU needed: its
 * options from the command line, the file read, the function found, its
 * signature checked against the op's (by static assertions compiled with
 * it, so the compiler itself judges the types), a cubin for one
 * architecture, and the compile cache.
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
#include "base/paths.h"
#include "userkernel/userkernel.h"

/* The name NVRTC gives the appended checks in its messages. */
#define CHECK_FILE	"ewbench signature check"
/* A cache entry: CACHE_MAGIC, the key it answers and the SHA-256 of the
 * key, a NUL and all that follows the first line (entry_digest), then a
 * line of the count's type (user_count as a digit), a space and the
 * lowered name; the cubin follows.  An entry whose key or digest does not
 * match is a miss. */
#define CACHE_MAGIC	"ewbench-cubin 3 "
/* The template kernel whose instance's lowered name says the count's type
 * (program_text). */
#define COUNT_PROBE	"ewb_count_probe_"

/* The most bytes of a kernel's source and of a cache entry: more is
 * refused (a kernel file) or a miss (an entry), never read whole. */
#define SOURCE_MAX	(16u << 20)
#define ENTRY_MAX	(64u << 20)

static bool
is_ident(int c, bool first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (!first && c >= '0' && c <= '9');
}

static bool
identifier(const char *s)
{
	const char	*p;

	if (!is_ident((unsigned char)*s, true))
		return false;
	for (p = s; *p != '\0'; p++) {
		if (!is_ident((unsigned char)*p, false))
			return false;
	}
	return true;
}

/* A template's instance (tadd<float>): an identifier, then its arguments
 * in balanced angle brackets to the end. */
static bool
template_instance(const char *s)
{
	const char	*p;
	int		 depth = 0;

	if (!is_ident((unsigned char)*s, true))
		return false;
	for (p = s; is_ident((unsigned char)*p, false); p++)
		;
	if (*p != '<')
		return false;
	for (; *p != '\0'; p++) {
		depth += (*p == '<') - (*p == '>');
		if (depth == 0)
			return p[1] == '\0';
	}
	return false;
}

/*
 * The next `__global__` of source at or after p that is code: comments
 * ('//', '/ *'), string and character literals are skipped, so a
 * __global__ in them is no kernel.  NULL when there is none.
 */
static const char *
next_global(const char *source, const char *p)
{
	while (*p != '\0') {
		if (p[0] == '/' && p[1] == '/') {
			while (*p != '\0' && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*" "/");
			p = end != NULL ? end + 2 : p + strlen(p);
		} else if (*p == '"' || *p == '\'') {
			char quote = *p++;
			while (*p != '\0' && *p != quote && *p != '\n')
				p += p[0] == '\\' && p[1] != '\0' ? 2 : 1;
			if (*p == quote)
				p++;
		} else if (strncmp(p, "__global__", 10) == 0 &&
		    (p == source || !is_ident((unsigned char)p[-1], false)) &&
		    !is_ident((unsigned char)p[10], false)) {
			return p;
		} else if (is_ident((unsigned char)*p, true)) {
			while (is_ident((unsigned char)*p, false))
				p++;
		} else
			p++;
	}
	return NULL;
}

/* FILE[:FUNCTION] into *path (owned: *owned) and *function. */
static int
split_kernel_arg(const char *option, const char *text, const char **path,
    bool *owned, char **function, char **cause)
{
	const char	*colon = strrchr(text, ':');

	free(*function);
	*function = NULL;
	if (*owned)
		free((char *)*path);
	*owned = false;
	*path = text;
	if (colon != NULL && template_instance(colon + 1)) {
		*cause = xasprintf("%s %s: %s is a template's instance; "
		    "FUNCTION is a C identifier: call the instance from a plain "
		    "__global__ kernel (docs/user-kernels.md)", option, text,
		    colon + 1);
		return -1;
	}
	if (colon != NULL && identifier(colon + 1)) {
		*function = xstrdup(colon + 1);
		/* The path is the text before the colon, kept in argv. */
		*path = xasprintf("%.*s", (int)(colon - text), text);
		*owned = true;
	}
	if (**path == '\0') {
		*cause = xasprintf("%s: '%s' names no file", option, text);
		return -1;
	}
	return 0;
}

int
user_spec_kernel(struct user_spec *s, const char *text, char **cause)
{
	return split_kernel_arg("--kernel", text, &s->path, &s->path_owned,
	    &s->function, cause);
}

int
user_spec_reference(struct user_spec *s, const char *text, char **cause)
{
	return split_kernel_arg("--reference", text, &s->ref_path,
	    &s->ref_path_owned, &s->ref_function, cause);
}

int
user_spec_ulps(struct user_spec *s, const char *text, char **cause)
{
	char			*end;
	unsigned long long	 v;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (*text < '0' || *text > '9' || *end != '\0' || errno != 0 ||
	    v > TOLERANCE_MAX_ULPS) {
		*cause = xasprintf("--ulps: '%s' is not a whole number from 0 "
		    "to %u", text, TOLERANCE_MAX_ULPS);
		return -1;
	}
	s->tol.ulps = (unsigned)v;
	s->tol_given = true;
	return 0;
}

/* A tolerance's number, from 0 to max. */
static int
parse_tolerance(const char *option, const char *text, double max, double *v,
    char **cause)
{
	char	*end;

	errno = 0;
	*v = strtod(text, &end);
	if (end == text || *end != '\0' || errno != 0 || !(*v >= 0) ||
	    !(*v <= max) || strchr(text, ',') != NULL) {
		*cause = xasprintf("%s: '%s' is not a number from 0 to %g",
		    option, text, max);
		return -1;
	}
	return 0;
}

int
user_spec_rel(struct user_spec *s, const char *text, char **cause)
{
	if (parse_tolerance("--rel", text, TOLERANCE_MAX_REL, &s->tol.rel,
	    cause) != 0)
		return -1;
	s->tol_given = true;
	return 0;
}

int
user_spec_atol(struct user_spec *s, const char *text, char **cause)
{
	if (parse_tolerance("--atol", text, TOLERANCE_MAX_ATOL, &s->tol.atol,
	    cause) != 0)
		return -1;
	s->tol_given = s->atol_given = true;
	return 0;
}

int
user_spec_rtol(struct user_spec *s, const char *text, char **cause)
{
	if (parse_tolerance("--rtol", text, TOLERANCE_MAX_REL, &s->tol.rtol,
	    cause) != 0)
		return -1;
	s->tol_given = s->rtol_given = true;
	return 0;
}

unsigned
user_spec_inputs(const struct user_spec *s)
{
	switch (s->op) {
	case EWB_OP_ADD:
		return 2;
	case EWB_OP_RELU:
		return 1;
	case EWB_OP_ABS:
		break;
	case EWB_OP_CUSTOM:
		return s->inputs;
	}
	return 0;
}

int
user_spec_op(struct user_spec *s, const char *text, char **cause)
{
	if (strcmp(text, "add") == 0)
		s->op = EWB_OP_ADD;
	else if (strcmp(text, "relu") == 0)
		s->op = EWB_OP_RELU;
	else if (strcmp(text, "abs") == 0)
		s->op = EWB_OP_ABS;
	else {
		*cause = xasprintf("--op: '%s' is not add, relu or abs", text);
		return -1;
	}
	s->op_given = true;
	return 0;
}

int
user_spec_dtype(struct user_spec *s, const char *text, char **cause)
{
	if (strcmp(text, "f32") == 0)
		s->dtype = EWB_F32;
	else if (strcmp(text, "f16") == 0)
		s->dtype = EWB_F16;
	else if (strcmp(text, "bf16") == 0)
		s->dtype = EWB_BF16;
	else {
		*cause = xasprintf("--dtype: '%s' is not f32, f16 or bf16",
		    text);
		return -1;
	}
	s->dtype_given = true;
	return 0;
}

void
user_spec_flags(struct user_spec *s, const char *text)
{
	const char	*p = text, *start;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		for (start = p; *p != '\0' && *p != ' ' && *p != '\t'; p++)
			;
		s->flags = xrealloc(s->flags, (s->nflags + 1) *
		    sizeof *s->flags);
		s->flags[s->nflags++] = xasprintf("%.*s", (int)(p - start),
		    start);
	}
}

bool
variant_is_user(const struct ewb_variant *v)
{
	return strcmp(v->origin, "user") == 0;
}

void
user_spec_free(struct user_spec *s)
{
	size_t	i;

	if (s->path_owned)
		free((char *)s->path);
	free(s->function);
	if (s->ref_path_owned)
		free((char *)s->ref_path);
	free(s->ref_function);
	for (i = 0; i < s->nflags; i++)
		free(s->flags[i]);
	free(s->flags);
	memset(s, 0, sizeof *s);
}

/* The identifier that names the function declared after a __global__ at
 * s: the first one followed by '(' that is not an attribute; *params: that
 * parenthesis. */
static char *
declared_name(const char *s, const char **params)
{
	static const char *const attributes[] = { "__launch_bounds__",
	    "__attribute__", "__declspec", "alignas", "__cluster_dims__",
	    "__maxnreg__" };
	const char	*p = s, *start;
	size_t		 i, len;

	while (*p != '\0' && *p != ';' && *p != '{') {
		if (!is_ident((unsigned char)*p, true)) {
			p++;
			continue;
		}
		for (start = p; is_ident((unsigned char)*p, false); p++)
			;
		len = (size_t)(p - start);
		/* The next declaration's: this one names nothing (and a scan
		 * to the end from every __global__ would be quadratic). */
		if (len == 10 && strncmp(start, "__global__", 10) == 0)
			return NULL;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p != '(')
			continue;
		for (i = 0; i < sizeof attributes / sizeof *attributes; i++) {
			if (strlen(attributes[i]) == len &&
			    strncmp(start, attributes[i], len) == 0)
				break;
		}
		if (i == sizeof attributes / sizeof *attributes) {
			*params = p;
			return xasprintf("%.*s", (int)len, start);
		}
		/* An attribute's parenthesis: skip it. */
		for (int depth = 0; *p != '\0'; p++) {
			depth += (*p == '(') - (*p == ')');
			if (depth == 0) {
				p++;
				break;
			}
		}
	}
	return NULL;
}

/* Whether name is one of names[0..count). */
static bool
listed(char *const *names, size_t count, const char *name)
{
	size_t	i;

	for (i = 0; i < count; i++) {
		if (strcmp(names[i], name) == 0)
			return true;
	}
	return false;
}

int
user_find_function(const char *source, const char *path, char **function,
    char **cause)
{
	const char	*p = source, *params;
	char		*name, **names = NULL, *list, *next;
	size_t		 count = 0, i;

	*function = NULL;
	while ((p = next_global(source, p)) != NULL) {
		p += 10;
		if ((name = declared_name(p, &params)) == NULL)
			continue;
		if (listed(names, count, name)) {
			free(name);	/* declared, then defined */
			continue;
		}
		names = xrealloc(names, (count + 1) * sizeof *names);
		names[count++] = name;
	}
	if (count == 1) {
		*function = names[0];
		free(names);
		return 0;
	}
	if (count == 0) {
		*cause = xasprintf("%s: no __global__ function found; name it: "
		    "--kernel %s:FUNCTION", path, path);
		free(names);
		return -1;
	}
	/* Several: each named, so that the choice can be copied. */
	list = xstrdup(names[0]);
	for (i = 1; i < count; i++) {
		next = xasprintf("%s, %s", list, names[i]);
		free(list);
		list = next;
	}
	*cause = xasprintf("%s: %zu __global__ functions (%s); say which: "
	    "--kernel %s:FUNCTION", path, count, list, path);
	free(list);
	while (count > 0)
		free(names[--count]);
	free(names);
	return -1;
}

/* Whether the word at q (within params) is `word`, standing alone or
 * after "__" or "nv_" (__half, __nv_bfloat16, nv_bfloat16). */
static bool
type_word(const char *params, const char *q, const char *word)
{
	size_t	len = strlen(word);

	return strncmp(q, word, len) == 0 &&
	    !is_ident((unsigned char)q[len], false) &&
	    (q == params || !is_ident((unsigned char)q[-1], false) ||
	    (q - params >= 2 && strncmp(q - 2, "__", 2) == 0) ||
	    (q - params >= 3 && strncmp(q - 3, "nv_", 3) == 0));
}

/* From the parameter list of function (declared after a __global__): how
 * many parameters it has and the dtype its types say (__half or half:
 * f16; __nv_bfloat16 or nv_bfloat16: bf16; else f32).  A guess from the
 * text: the compiler judges the exact signature (program_text). */
static bool
infer_signature(const char *source, const char *function, unsigned *count,
    enum ewb_dtype *dtype, bool *declared)
{
	const char	*p = source, *params = NULL, *q;
	char		*name;
	unsigned	 commas = 0, depth = 0;
	bool		 half = false, bf16 = false;

	while (params == NULL && (p = next_global(source, p)) != NULL) {
		p += 10;
		if ((name = declared_name(p, &q)) == NULL)
			continue;
		if (strcmp(name, function) == 0)
			params = q;
		free(name);
	}
	if ((*declared = params != NULL) == false)
		return false;
	for (q = params; *q != '\0'; q++) {
		depth += (*q == '(' || *q == '<' || *q == '[') -
		    (*q == ')' || *q == '>' || *q == ']');
		if (depth == 0)
			break;
		commas += depth == 1 && *q == ',';
		half |= type_word(params, q, "half");
		bf16 |= type_word(params, q, "bfloat16");
	}
	*count = commas + 1;
	*dtype = bf16 ? EWB_BF16 : half ? EWB_F16 : EWB_F32;
	return true;
}

/* `examples/FILE` that is not here: ewbench's own examples, where they
 * are installed ($(pkgdatadir)/examples, found from the binary as the
 * metric groups are) or in the source tree of a build tree's ewbench, so
 * that the usage lines of --help and the README run anywhere. */
static void
own_example(const char **given, bool *owned)
{
	char	*dirs[PATHS_MAX], *path = NULL;
	size_t	 n, i;

	if (strncmp(*given, "examples/", 9) != 0 ||
	    access(*given, F_OK) == 0 || errno != ENOENT)
		return;
	n = paths_data_dirs("examples", dirs);
	for (i = 0; i < n && path == NULL; i++) {
		path = xasprintf("%s/%s", dirs[i], *given + 9);
		if (access(path, F_OK) != 0) {
			free(path);
			path = NULL;
		}
	}
	paths_free(dirs, n);
	if (path == NULL)
		return;
	if (*owned)
		free((char *)*given);
	*given = path;
	*owned = true;
}

/* What --reference says: the kernel's op is EWB_OP_CUSTOM, its inputs
 * and dtype from its parameters (the dtype unless given); the reference
 * file readable and its function found. */
static int
finish_reference(struct user_spec *s, const char *source, char **cause)
{
	char		*ref;
	size_t		 len;
	unsigned	 count;
	enum ewb_dtype	 dtype;
	bool		 declared;

	if (s->op_given) {
		*cause = xasprintf("--op %s and --reference: the reference "
		    "kernel says what %s computes; leave out --op",
		    ewb_op_name(s->op), s->path);
		return -1;
	}
	if (!infer_signature(source, s->function, &count, &dtype,
	    &declared)) {
		*cause = xasprintf("--kernel %s: no __global__ function %s in "
		    "it", s->path, s->function);
		return -1;
	}
	if (count < 2 || count > USER_MAX_INPUTS + 2) {
		*cause = xasprintf("--kernel %s: %s must take 1 to %u input "
		    "arrays, an output and a count (or one array in place and "
		    "a count) to be checked against --reference", s->path,
		    s->function, USER_MAX_INPUTS);
		return -1;
	}
	s->op = EWB_OP_CUSTOM;
	s->inputs = count - 2;
	s->tol.nan_equal = true;	/* tolerance.h */
	if (!s->dtype_given) {
		s->dtype = dtype;
		s->params = count;
	}
	/* --atol or --rtol alone: the other as assert_close has it. */
	if (s->atol_given != s->rtol_given) {
		double	atol, rtol;

		tolerance_close_defaults(s->dtype, &atol, &rtol);
		if (!s->atol_given)
			s->tol.atol = atol;
		if (!s->rtol_given)
			s->tol.rtol = rtol;
	}
	own_example(&s->ref_path, &s->ref_path_owned);
	if (read_user_file(s->ref_path, SOURCE_MAX, &ref, &len, cause) != 0)
		return -1;
	if (s->ref_function == NULL && user_find_function(ref, s->ref_path,
	    &s->ref_function, cause) != 0) {
		free(ref);
		return -1;
	}
	free(ref);
	return 0;
}

int
user_spec_finish(struct user_spec *s, char **cause)
{
	char		*source;
	size_t		 len;
	unsigned	 count = 0;
	enum ewb_dtype	 dtype = EWB_F32;
	int		 rc = -1;
	bool		 declared = false;

	if (s->path == NULL) {
		if (s->op_given || s->dtype_given || s->nflags > 0 ||
		    s->per_thread != 0 || s->block != 0 ||
		    s->timeout_s != 0 || s->no_guard || s->ref_path != NULL ||
		    s->tol_given) {
			*cause = xstrdup("--op, --dtype, --reference, --ulps, "
			    "--rel, --atol, --rtol, --elems-per-thread, "
			    "--kernel-block, "
			    "--kernel-flags, --kernel-timeout and --no-guard "
			    "describe a --kernel FILE.cu");
			return -1;
		}
		return 0;
	}
	if (s->tol_given && s->ref_path == NULL) {
		*cause = xstrdup("--ulps, --rel, --atol and --rtol are the "
		    "tolerance of a check against --reference (add, relu and "
		    "abs are checked exactly)");
		return -1;
	}
	/* The file read now, before any GPU work: unreadable, or which op
	 * and dtype its kernel's parameters say, where not given. */
	own_example(&s->path, &s->path_owned);
	if (read_user_file(s->path, SOURCE_MAX, &source, &len, cause) != 0)
		return -1;
	if (s->function == NULL && user_find_function(source, s->path,
	    &s->function, cause) != 0)
		goto out;
	if (strlen(USER_ID_PREFIX) + strlen(s->function) > EWB_NAME_MAX) {
		*cause = xasprintf("--kernel %s: function %s: a name too "
		    "long; a run records a kernel as " USER_ID_PREFIX "NAME in "
		    "at most %d bytes, what the analysis reads: call it from "
		    "a kernel of a shorter name", s->path,
		    shown(s->function, 24), EWB_NAME_MAX);
		goto out;
	}
	if (s->ref_path != NULL) {
		if (finish_reference(s, source, cause) != 0)
			goto out;
	} else if (!s->op_given || !s->dtype_given) {
		if ((!infer_signature(source, s->function, &count, &dtype,
		    &declared) || count < 2 || count > 4) && !s->op_given) {
			*cause = declared ? xasprintf("--kernel %s: cannot "
			    "tell what %s computes from its parameters: say "
			    "--op add|relu|abs, or give its --reference",
			    s->path, s->function) : xasprintf("--kernel %s: "
			    "no __global__ function %s in it", s->path,
			    s->function);
			goto out;
		}
		if (!s->op_given)
			s->op = count == 4 ? EWB_OP_ADD : count == 3 ?
			    EWB_OP_RELU : EWB_OP_ABS;
		if (!s->dtype_given)
			s->dtype = dtype;
		s->params = count;
	}
	/* ewbench's CPU reference has add, relu and abs in f32 and f16. */
	if (s->op != EWB_OP_CUSTOM && s->dtype == EWB_BF16) {
		*cause = xasprintf("--kernel %s: --op %s in bf16 needs a "
		    "reference kernel (--reference REF.cu): ewbench's own "
		    "reference has add, relu and abs in f32 and f16",
		    s->path, ewb_op_name(s->op));
		goto out;
	}
	if (s->per_thread == 0)
		s->per_thread = 1;
	if (s->block == 0)
		s->block = 256;
	if (s->timeout_s == 0)
		s->timeout_s = USER_TIMEOUT_S;
	rc = 0;
out:
	free(source);
	return rc;
}

/* The element type's name in CUDA, and its header. */
static const char *
type_name(enum ewb_dtype dtype)
{
	switch (dtype) {
	case EWB_F16:
		return "__half";
	case EWB_BF16:
		return "__nv_bfloat16";
	case EWB_F32:
		break;
	}
	return "float";
}

static const char *
type_header(enum ewb_dtype dtype)
{
	switch (dtype) {
	case EWB_F16:
		return "#include <cuda_fp16.h>\n";
	case EWB_BF16:
		return "#include <cuda_bf16.h>\n";
	case EWB_F32:
		break;
	}
	return "";
}

/* The op's parameter list as a declaration, for people: the built-in
 * ops' operands a, b, c; a user's op's inputs a, b, c, d and out. */
static char *
params(const struct user_spec *s)
{
	static const char *const names[USER_MAX_INPUTS] = { "a", "b", "c",
	    "d" };
	const char	*t = type_name(s->dtype);
	unsigned	 inputs = user_spec_inputs(s), k;
	char		*text = xstrdup(""), *more;

	for (k = 0; k < inputs; k++) {
		more = xasprintf("%sconst %s *%s, ", text, t, names[k]);
		free(text);
		text = more;
	}
	more = xasprintf("%s%s *%s, size_t n", text, t,
	    s->op == EWB_OP_CUSTOM ? "out" : "c");
	free(text);
	return more;
}

const char *
user_spec_op_from(const struct user_spec *s)
{
	return s->op == EWB_OP_CUSTOM ? "--reference" : s->op_given ? "--op" :
	    "parameters";
}

const char *
user_spec_dtype_from(const struct user_spec *s)
{
	return s->dtype_given ? "--dtype" : "parameters";
}

/* "a relu", "an add", "an abs": the op as a noun, for sentences. */
static const char *
op_noun(enum ewb_op op)
{
	switch (op) {
	case EWB_OP_ADD:
		return "an add";
	case EWB_OP_RELU:
		return "a relu";
	case EWB_OP_ABS:
		return "an abs";
	case EWB_OP_CUSTOM:
		break;
	}
	return "your op";
}

/* "equal", or "equal, or within 1 ulp, or |got - expected| <= 1e-05 +
 * 0.001 |expected|": the rule of tolerance.h as given. */
static char *
tolerance_text(const struct ewb_tolerance *t)
{
	char	*text = xstrdup("equal"), *more;

	if (t->ulps > 0) {
		more = xasprintf("%s, or within %u ulp%s", text, t->ulps,
		    t->ulps == 1 ? "" : "s");
		free(text);
		text = more;
	}
	if (t->rel > 0) {
		more = xasprintf("%s, or |got - expected| <= %g |expected|",
		    text, t->rel);
		free(text);
		text = more;
	}
	if (t->atol > 0 || t->rtol > 0) {
		more = xasprintf("%s, or |got - expected| <= %g + %g "
		    "|expected|", text, t->atol, t->rtol);
		free(text);
		text = more;
	}
	return text;
}

char *
user_spec_describe(const struct user_spec *s, const char *id)
{
	char	*p = params(s), *text, *tol;

	if (s->op == EWB_OP_CUSTOM) {
		tol = tolerance_text(&s->tol);
		text = xasprintf("%s: your own op, checked against --reference "
		    "%s (%s), in %s (%s)", id, s->ref_path, tol,
		    ewb_dtype_name(s->dtype), s->dtype_given ? "--dtype" :
		    "from its parameters");
		free(tol);
	}
	else if (s->op_given)
		text = xasprintf("%s: op %s (--op), dtype %s (%s)", id,
		    ewb_op_name(s->op), ewb_dtype_name(s->dtype),
		    s->dtype_given ? "--dtype" : "from its parameters");
	else
		text = xasprintf("%s: op %s, dtype %s%s, taken from its %u "
		    "parameters (%s): if it is not %s, give --reference REF.cu, "
		    "a kernel that computes it (docs/user-kernels.md)", id,
		    ewb_op_name(s->op), ewb_dtype_name(s->dtype),
		    s->dtype_given ? " (--dtype)" : "", s->params, p,
		    op_noun(s->op));
	free(p);
	return text;
}

char *
user_spec_guess_hint(const struct user_spec *s)
{
	if (s->op == EWB_OP_CUSTOM || s->op_given)
		return NULL;
	return xasprintf("its op, %s, was taken from its %u parameters: if "
	    "it is not %s, give --reference REF.cu, a kernel that computes "
	    "it (docs/user-kernels.md)", ewb_op_name(s->op), s->params,
	    op_noun(s->op));
}

/* The expected declaration, for messages and the docs. */
static char *
expected_declaration(const struct user_spec *s, const char *function)
{
	char	*p = params(s), *d;

	d = xasprintf("__global__ void %s(%s)", function, p);
	free(p);
	return d;
}

const char *
user_count_name(enum user_count c)
{
	static const char *const names[] = { "uint64", "int64", "uint32",
	    "int32" };

	return names[c];
}

uint64_t
user_count_cover(enum user_count c)
{
	return c == USER_COUNT_I32 ? (uint64_t)1 << 31 :
	    c == USER_COUNT_U32 ? (uint64_t)1 << 32 : 0;
}

/*
 * The program NVRTC compiles: the user's source, then a check of its
 * function's type against the op's (the compiler judges it: the inputs
 * pointers to T, const or not, the output a pointer to T, the count an
 * integer type of 32 or 64 bits), and an instance of a probe kernel whose
 * lowered name says the count's width and signedness (compile()).
 */
static char *
program_text(const struct user_spec *s, const char *source,
    const char *function)
{
	const char	*t = type_name(s->dtype);
	char		*declared = expected_declaration(s, function);
	char		*pattern = xstrdup("void("), *inputs = xstrdup("1");
	char		*names = xstrdup(""), *text, *more;
	unsigned	 k, count = user_spec_inputs(s);
	size_t		 len = strlen(source);

	/* Input k is P<k>: a pointer to T, const or not. */
	for (k = 0; k < count; k++) {
		more = xasprintf("%sP%u *, ", pattern, k);
		free(pattern);
		pattern = more;
		more = xasprintf("%s && ewb_input_<P%u, %s>::value", inputs,
		    k, t);
		free(inputs);
		inputs = more;
		more = xasprintf("%stypename P%u, ", names, k);
		free(names);
		names = more;
	}
	more = xasprintf("%s%s *, C)", pattern, t);
	free(pattern);
	pattern = more;
	text = xasprintf("%s%s#line 1 \"" CHECK_FILE "\"\n%s"
	    "template <typename A, typename B> struct ewb_same_ "
	    "{ enum { value = 0 }; };\n"
	    "template <typename A> struct ewb_same_<A, A> "
	    "{ enum { value = 1 }; };\n"
	    "template <typename P, typename T> struct ewb_input_ { enum { "
	    "value = ewb_same_<P, T>::value || ewb_same_<P, const T>::value "
	    "}; };\n"
	    "template <typename C> struct ewb_integer_ { enum { value = "
	    "ewb_same_<C, int>::value || ewb_same_<C, unsigned>::value || "
	    "ewb_same_<C, long>::value || ewb_same_<C, unsigned long>::value "
	    "|| ewb_same_<C, long long>::value || "
	    "ewb_same_<C, unsigned long long>::value }; };\n"
	    "template <typename F> struct ewb_sig_ "
	    "{ enum { ok = 0, bytes = 0, is_signed = 0 }; };\n"
	    "template <%stypename C> struct ewb_sig_<%s> { enum { "
	    "ok = (%s) && ewb_integer_<C>::value, bytes = sizeof(C), "
	    "is_signed = (C)-1 < (C)0 }; };\n"
	    "static_assert(ewb_sig_<decltype(%s)>::ok, "
	    "\"ewbench: --op %s --dtype %s needs %s (the inputs const or not; "
	    "the count size_t, or int as in the article)\");\n"
	    "template <int B, int S> __global__ void " COUNT_PROBE "() {}\n",
	    source, len > 0 && source[len - 1] != '\n' ? "\n" : "",
	    type_header(s->dtype), names, pattern, inputs, function,
	    ewb_op_name(s->op), ewb_dtype_name(s->dtype), declared);
	free(pattern);
	free(inputs);
	free(names);
	free(declared);
	return text;
}

/* The probe instance's name expression for function. */
static char *
count_probe(const char *function)
{
	return xasprintf(COUNT_PROBE "<ewb_sig_<decltype(%s)>::bytes, "
	    "ewb_sig_<decltype(%s)>::is_signed>", function, function);
}

/* The count's type from the probe's lowered name, Itanium-mangled as
 * ..." COUNT_PROBE "ILi<bytes>ELi<signed>EEvv; -1 when it is not so. */
static int
count_from_probe(const char *lowered, enum user_count *count)
{
	const char	*p = strstr(lowered, COUNT_PROBE "ILi");
	int		 bytes, is_signed;

	if (p == NULL || sscanf(p + strlen(COUNT_PROBE "ILi"), "%dELi%dE",
	    &bytes, &is_signed) != 2 || (bytes != 4 && bytes != 8))
		return -1;
	*count = bytes == 8 ? (is_signed ? USER_COUNT_I64 : USER_COUNT_U64) :
	    (is_signed ? USER_COUNT_I32 : USER_COUNT_U32);
	return 0;
}

/* The cache's directory, or NULL (no HOME, no XDG_CACHE_HOME). */
static char *
cache_dir(void)
{
	const char	*xdg = getenv("XDG_CACHE_HOME"), *home;

	if (xdg != NULL && *xdg == '/')
		return xasprintf("%s/ewbench", xdg);
	if ((home = getenv("HOME")) != NULL && *home == '/')
		return xasprintf("%s/.cache/ewbench", home);
	return NULL;
}

/* mkdir -p, each directory made 0700 (the XDG base directories' mode);
 * false when one cannot be made. */
static bool
make_dirs(const char *dir)
{
	char	*path = xstrdup(dir), *s;
	bool	 ok = true;

	for (s = path + 1; ok; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char saved = *s;
		*s = '\0';
		ok = mkdir(path, 0700) == 0 || errno == EEXIST;
		*s = saved;
		if (saved == '\0')
			break;
	}
	free(path);
	return ok;
}

/*
 * The cache directory made (0700) or found, and used only when it is a
 * directory of this user's that no one else may write to (as OpenSSH
 * treats ~/.ssh): an entry planted by another user is never loaded.
 * NULL with the reason said once on stderr: the kernel is compiled and
 * not cached.
 */
static char *
cache_dir_usable(void)
{
	struct stat	 st;
	char		*dir = cache_dir(), *why = NULL;

	if (dir == NULL)
		return NULL;
	if (!make_dirs(dir))
		why = xasprintf("cannot be made: %s", strerror(errno));
	else if (lstat(dir, &st) != 0)
		why = xstrdup(strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		why = xstrdup("not a directory");
	else if (st.st_uid != geteuid())
		why = xasprintf("owned by uid %u, not by you (uid %u)",
		    (unsigned)st.st_uid, (unsigned)geteuid());
	else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		why = xasprintf("writable by others (mode %03o; chmod 700 %s)",
		    (unsigned)(st.st_mode & 0777), dir);
	if (why == NULL)
		return dir;
	fprintf(stderr, "ewbench: kernel cache %s: %s: not used (compiled, "
	    "not cached)\n", dir, why);
	free(why);
	free(dir);
	return NULL;
}

/* The digest an entry carries: the SHA-256 of the key it answers, a NUL
 * and the entry after its first line. */
static void
entry_digest(const char *key, const char *rest, size_t len,
    char hex[SHA256_HEX])
{
	struct sha256	 h;

	sha256_init(&h);
	sha256_update(&h, key, strlen(key) + 1);
	sha256_update(&h, rest, len);
	sha256_hex(&h, hex);
}

static void
key_part(struct sha256 *h, const char *s)
{
	sha256_update(h, s, strlen(s) + 1);	/* the NUL separates parts */
}

/* b->key from everything that shapes the cubin. */
static void
cache_key(struct user_build *b, const char *program)
{
	struct sha256	 h;
	char		 version[32];
	size_t		 i;

	snprintf(version, sizeof version, "nvrtc %d.%d", b->nvrtc_major,
	    b->nvrtc_minor);
	sha256_init(&h);
	key_part(&h, CACHE_MAGIC);
	key_part(&h, version);
	key_part(&h, b->function);
	key_part(&h, program);
	for (i = 0; i < b->noptions; i++)
		key_part(&h, b->options[i]);
	sha256_hex(&h, b->key);
}

/* The cache entry for b->key: its lowered name and cubin, used only when
 * it says it answers b->key and its digest matches what it holds.  Any
 * problem is a miss. */
static bool
cache_load(struct user_build *b)
{
	char	*text = NULL, *cause = NULL, *rest, *nl, digest[SHA256_HEX];
	size_t	 len, magic = strlen(CACHE_MAGIC), first, rest_len;

	if (b->cache_path == NULL ||
	    read_user_file(b->cache_path, ENTRY_MAX, &text, &len,
	    &cause) != 0) {
		free(cause);
		return false;
	}
	/* CACHE_MAGIC KEY SPACE DIGEST NEWLINE */
	first = magic + (SHA256_HEX - 1) * 2 + 2;
	if (len <= first || strncmp(text, CACHE_MAGIC, magic) != 0 ||
	    strncmp(text + magic, b->key, SHA256_HEX - 1) != 0 ||
	    text[magic + SHA256_HEX - 1] != ' ' || text[first - 1] != '\n')
		goto miss;
	rest = text + first;
	rest_len = len - first;
	entry_digest(b->key, rest, rest_len, digest);
	if (strncmp(text + magic + SHA256_HEX, digest, SHA256_HEX - 1) != 0)
		goto miss;
	/* COUNT SPACE LOWERED NEWLINE CUBIN */
	if ((nl = memchr(rest, '\n', rest_len)) == NULL || nl - rest < 3 ||
	    nl + 1 == text + len || rest[0] < '0' || rest[0] > '3' ||
	    rest[1] != ' ')
		goto miss;
	b->count = (enum user_count)(rest[0] - '0');
	b->lowered = xasprintf("%.*s", (int)(nl - rest - 2), rest + 2);
	b->cubin_bytes = len - (size_t)(nl + 1 - text);
	b->cubin = xmalloc(b->cubin_bytes);
	memcpy(b->cubin, nl + 1, b->cubin_bytes);
	free(text);
	b->cached = true;
	return true;
miss:
	free(text);
	return false;
}

/* Stores b in the cache (0600), atomically; a cache that cannot be
 * written is said once on stderr, never fatal. */
static void
cache_store(const struct user_build *b)
{
	char	*data, *rest, *cause = NULL, digest[SHA256_HEX];
	size_t	 first, head;

	if (b->cache_path == NULL)
		return;
	first = strlen(CACHE_MAGIC) + (SHA256_HEX - 1) * 2 + 2;
	head = 2 + strlen(b->lowered) + 1;
	data = xmalloc(first + head + b->cubin_bytes + 1);
	rest = data + first;
	snprintf(rest, head + 1, "%d %s\n", (int)b->count, b->lowered);
	memcpy(rest + head, b->cubin, b->cubin_bytes);
	entry_digest(b->key, rest, head + b->cubin_bytes, digest);
	snprintf(data, first + 1, "%s%s %s\n", CACHE_MAGIC, b->key, digest);
	rest[0] = (char)('0' + (int)b->count);	/* snprintf's NUL overwrote it */
	if (file_write_atomic_mode(b->cache_path, data,
	    first + head + b->cubin_bytes, 0600, &cause) != 0) {
		fprintf(stderr, "ewbench: kernel cache: %s (not cached)\n",
		    cause);
		free(cause);
	}
	free(data);
}

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
	char	*declared = expected_declaration(s, b->function), *cause;

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

/* NVRTC's log, or NULL when it is empty. */
static char *
program_log(nvrtcProgram prog)
{
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
	char		*probe = count_probe(b->function);
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
	b->log = program_log(prog);
	if (r != NVRTC_SUCCESS) {
		*code = EWB_EXIT_USAGE;
		*cause = compile_failure(spec, b, r, b->log != NULL ? b->log :
		    nvrtcGetErrorString(r));
		goto out;
	}
	NVRTC_TRY(nvrtcGetLoweredName(prog, b->function, &lowered),
	    "nvrtcGetLoweredName");
	b->lowered = xstrdup(lowered);
	NVRTC_TRY(nvrtcGetLoweredName(prog, probe, &lowered),
	    "nvrtcGetLoweredName");
	if (count_from_probe(lowered, &b->count) != 0) {
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

/*
 * The files a kernel #includes, checked before NVRTC opens them itself
 * (it would block on a FIFO until killed): every #include "NAME" of the
 * source, resolved as NVRTC resolves it (the including file's directory,
 * then each -I; NVRTC does not look in the working directory), and every
 * #include <NAME> found in a -I of --kernel-flags, must be a regular file
 * of at most SOURCE_MAX bytes, opened without blocking (read_user_file);
 * the headers they include are checked alike, each file once.  One that is
 * nowhere is left to NVRTC's own message, and one in the toolkit's headers
 * is not looked into.  A directive inside a comment or an #if 0 is checked
 * too: the scan is of lines, not of the preprocessor's output.
 */
struct includes {
	const char	**dirs;		/* the -I directories, in order */
	size_t		  ndirs;
	struct stat	 *seen;		/* st_dev and st_ino of files read */
	size_t		  nseen;
};

static bool
include_seen(struct includes *inc, const struct stat *id)
{
	size_t	i;

	for (i = 0; i < inc->nseen; i++) {
		if (inc->seen[i].st_dev == id->st_dev &&
		    inc->seen[i].st_ino == id->st_ino)
			return true;
	}
	inc->seen = xrealloc(inc->seen, (inc->nseen + 1) * sizeof *inc->seen);
	inc->seen[inc->nseen++] = *id;
	return false;
}

/* The directory of path, "." for a bare name. */
static char *
dir_of(const char *path)
{
	const char	*slash = strrchr(path, '/');

	if (slash == NULL)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xasprintf("%.*s", (int)(slash - path), path);
}

static int	check_includes(struct includes *, const char *path,
		    const char *source, char **cause);

/* candidate, where NAME may be: 1 absent, 0 a regular file (its own
 * includes checked), -1 refused. */
static int
include_candidate(struct includes *inc, const char *path, const char *name,
    bool quoted, const char *candidate, char **cause)
{
	struct stat	 id;
	char		*text, *why;
	size_t		 len;
	int		 rc = 0;

	if (read_user_file_id(candidate, SOURCE_MAX, &text, &len, &id,
	    &why) != 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			free(why);
			return 1;
		}
		*cause = xasprintf("%s: #include %c%s%c: %s", path,
		    quoted ? '"' : '<', name, quoted ? '"' : '>', why);
		free(why);
		return -1;
	}
	if (!include_seen(inc, &id) && memchr(text, '\0', len) == NULL)
		rc = check_includes(inc, candidate, text, cause);
	free(text);
	return rc;
}

/* One directive's NAME, included by path (quoted: whether it was "NAME"):
 * the including file's directory (quoted only), the toolkit's headers (not
 * looked into), then each -I of --kernel-flags. */
static int
check_include(struct includes *inc, const char *path, const char *name,
    bool quoted, char **cause)
{
	char	*candidate, *dir;
	size_t	 i;
	int	 rc;

	if (name[0] == '/') {
		rc = include_candidate(inc, path, name, quoted, name, cause);
		return rc < 0 ? -1 : 0;
	}
	for (i = quoted ? 0 : 1; i <= inc->ndirs; i++) {
		if (i == 0) {
			dir = dir_of(path);
			candidate = xasprintf("%s/%s", dir, name);
			free(dir);
		} else
			candidate = xasprintf("%s/%s", inc->dirs[i - 1], name);
		if (i == 1 && access(candidate, F_OK) == 0)
			rc = 0;
		else
			rc = include_candidate(inc, path, name, quoted,
			    candidate, cause);
		free(candidate);
		if (rc <= 0)
			return rc;
	}
	return 0;
}

/* Every #include of source, the text of path (one pass over its lines). */
static int
check_includes(struct includes *inc, const char *path, const char *source,
    char **cause)
{
	const char	*p = source, *name;
	char		*copy, end;
	size_t		 n;
	int		 rc;

	while (*p != '\0') {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#') {
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
			if (strncmp(p, "include", 7) == 0 &&
			    (p[7] == ' ' || p[7] == '\t' || p[7] == '"' ||
			    p[7] == '<')) {
				p += 7;
				while (*p == ' ' || *p == '\t')
					p++;
				end = *p == '"' ? '"' : *p == '<' ? '>' :
				    '\0';
				if (end != '\0') {
					name = ++p;
					while (*p != '\0' && *p != '\n' &&
					    *p != end)
						p++;
					n = (size_t)(p - name);
					if (*p == end && n > 0) {
						copy = xasprintf("%.*s",
						    (int)n, name);
						rc = check_include(inc, path,
						    copy, end == '"', cause);
						free(copy);
						if (rc != 0)
							return -1;
					}
				}
			}
		}
		while (*p != '\0' && *p != '\n')
			p++;
		if (*p == '\n')
			p++;
	}
	return 0;
}

/* The -I directories of flags (-IDIR, -I DIR, --include-path=DIR,
 * --include-path DIR), after the toolkit's; then check_includes. */
static int
user_includes(const struct user_spec *spec, const char *source, char **cause)
{
	struct includes	 inc;
	const char	*f, *dir;
	size_t		 i;
	int		 rc;

	memset(&inc, 0, sizeof inc);
	inc.dirs = xmalloc((spec->nflags + 1) * sizeof *inc.dirs);
	inc.dirs[inc.ndirs++] = EWB_CUDA_INCLUDE;
	for (i = 0; i < spec->nflags; i++) {
		f = spec->flags[i];
		dir = NULL;
		if (strncmp(f, "-I", 2) == 0)
			dir = f[2] != '\0' ? f + 2 : NULL;
		else if (strncmp(f, "--include-path=", 15) == 0)
			dir = f + 15;
		if (dir == NULL && (strcmp(f, "-I") == 0 ||
		    strcmp(f, "--include-path") == 0) && i + 1 < spec->nflags)
			dir = spec->flags[++i];
		if (dir != NULL && *dir != '\0')
			inc.dirs[inc.ndirs++] = dir;
	}
	rc = check_includes(&inc, spec->path, source, cause);
	free(inc.dirs);
	free(inc.seen);
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
	char		*source = NULL, *program = NULL, *dir;
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
	if (user_includes(spec, source, cause) != 0)
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
	program = program_text(spec, source, b->function);
	cache_key(b, program);
	if ((dir = cache_dir_usable()) != NULL) {
		b->cache_path = xasprintf("%s/%s.cubin", dir, b->key);
		free(dir);
	}
	if (!cache_load(b)) {
		if (compile(spec, program, b, code, cause) != 0)
			goto out;
		cache_store(b);
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

void
user_build_free(struct user_build *b)
{
	size_t	i;

	free(b->function);
	free(b->lowered);
	free(b->cache_path);
	for (i = 0; i < b->noptions; i++)
		free(b->options[i]);
	free(b->options);
	free(b->cubin);
	free(b->log);
	memset(b, 0, sizeof *b);
}

/*
 * spec.c - what the command line says of a user's kernel (--kernel,
 * --op, --dtype, --reference, the tolerances, --kernel-flags), finished
 * from its source (the function, the op and dtype from its parameters), and
 * said back in words.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"
#include "userkernel/internal.h"

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
	if (colon != NULL && user_template_instance(colon + 1)) {
		*cause = xasprintf("%s %s: %s is a template's instance; "
		    "FUNCTION is a C identifier: call the instance from a plain "
		    "__global__ kernel (docs/user-kernels.md)", option, text,
		    colon + 1);
		return -1;
	}
	if (colon != NULL && user_identifier(colon + 1)) {
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
		    "to %u", shown(text, SHOWN_MOST), TOLERANCE_MAX_ULPS);
		return -1;
	}
	s->tol.ulps = (unsigned)v;
	s->tol_given = true;
	return 0;
}

/* A tolerance's number, from 0 to max, into *v; *given (if any) set with
 * the spec's tol_given. */
static int
set_tolerance(struct user_spec *s, const char *option, const char *text,
    double max, double *v, bool *given, char **cause)
{
	char	*end;

	errno = 0;
	*v = strtod(text, &end);
	if (end == text || *end != '\0' || errno != 0 || !(*v >= 0) ||
	    !(*v <= max) || strchr(text, ',') != NULL) {
		*cause = xasprintf("%s: '%s' is not a number from 0 to %g",
		    option, shown(text, SHOWN_MOST), max);
		return -1;
	}
	s->tol_given = true;
	if (given != NULL)
		*given = true;
	return 0;
}

int
user_spec_rel(struct user_spec *s, const char *text, char **cause)
{
	return set_tolerance(s, "--rel", text, TOLERANCE_MAX_REL,
	    &s->tol.rel, NULL, cause);
}

int
user_spec_atol(struct user_spec *s, const char *text, char **cause)
{
	return set_tolerance(s, "--atol", text, TOLERANCE_MAX_ATOL,
	    &s->tol.atol, &s->atol_given, cause);
}

int
user_spec_rtol(struct user_spec *s, const char *text, char **cause)
{
	return set_tolerance(s, "--rtol", text, TOLERANCE_MAX_REL,
	    &s->tol.rtol, &s->rtol_given, cause);
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
	static const struct choice ops[] = {
		{ "add", EWB_OP_ADD }, { "relu", EWB_OP_RELU },
		{ "abs", EWB_OP_ABS }, { NULL, 0 }
	};
	int	op;

	if (choice_parse(text, "--op", ops, &op, cause) != 0)
		return -1;
	s->op = (enum ewb_op)op;
	s->op_given = true;
	return 0;
}

int
user_spec_dtype(struct user_spec *s, const char *text, char **cause)
{
	static const struct choice dtypes[] = {
		{ "f32", EWB_F32 }, { "f16", EWB_F16 }, { "bf16", EWB_BF16 },
		{ NULL, 0 }
	};
	int	dtype;

	if (choice_parse(text, "--dtype", dtypes, &dtype, cause) != 0)
		return -1;
	s->dtype = (enum ewb_dtype)dtype;
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
	/* A user's kernel, or a member of the family made for a user's op
	 * (src/opgen/: origin "generated"): both compiled at run time from
	 * the user's source, both checked and guarded alike. */
	return strcmp(v->origin, "user") == 0 ||
	    strcmp(v->origin, "generated") == 0;
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

/* `examples/FILE` that is not here: ewbench's own examples, where they
 * are installed ($(pkgdatadir)/examples, found from the binary as the
 * metric groups are) or in the source tree of a build tree's ewbench, so
 * that the usage lines of --help and the README run anywhere.  Returns
 * NULL, or where it looked in vain (malloc'd), for the message of a file
 * that is nowhere. */
static char *
own_example(const char **given, bool *owned)
{
	char	*dirs[PATHS_MAX], *path = NULL, *searched = NULL;
	size_t	 n, i;

	if (strncmp(*given, "examples/", 9) != 0 ||
	    access(*given, F_OK) == 0 || errno != ENOENT)
		return NULL;
	n = paths_data_dirs("examples", dirs);
	for (i = 0; i < n && path == NULL; i++) {
		path = xasprintf("%s/%s", dirs[i], *given + 9);
		if (access(path, F_OK) != 0) {
			list_append(&searched, " and ", dirs[i]);
			free(path);
			path = NULL;
		}
	}
	paths_free(dirs, n);
	if (path == NULL)
		return searched;
	free(searched);
	if (*owned)
		free((char *)*given);
	*given = path;
	*owned = true;
	return NULL;
}

int
user_read_source(const char **path, bool *owned, char **text, size_t *len,
    char **cause)
{
	char	*searched = own_example(path, owned), *more;
	int	 rc;

	rc = read_user_file(*path, SOURCE_MAX, text, len, cause);
	if (rc != 0 && searched != NULL) {
		more = xasprintf("%s (nor in ewbench's own examples: %s)",
		    *cause, searched);
		free(*cause);
		*cause = more;
	}
	free(searched);
	return rc;
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
	if (!user_infer_signature(source, s->function, &count, &dtype,
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
	if (user_read_source(&s->ref_path, &s->ref_path_owned, &ref, &len,
	    cause) != 0)
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
	if (user_read_source(&s->path, &s->path_owned, &source, &len,
	    cause) != 0)
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
		if ((!user_infer_signature(source, s->function, &count, &dtype,
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

/* The element type's name in CUDA. */
const char *
user_type_name(enum ewb_dtype dtype)
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

/* The op's parameter list as a declaration, for people: the built-in
 * ops' operands a, b, c; a user's op's inputs a, b, c, d and out. */
char *
user_params(const struct user_spec *s)
{
	static const char *const names[USER_MAX_INPUTS] = { "a", "b", "c",
	    "d" };
	const char	*t = user_type_name(s->dtype);
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

char *
user_spec_describe(const struct user_spec *s, const char *id)
{
	char	*p = user_params(s), *text, *tol;

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

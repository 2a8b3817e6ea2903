/*
 * program.c - the program NVRTC compiles for a user's kernel: its source,
 * the check of its signature against the op's, and the probe whose lowered
 * name says its count's type.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userkernel/internal.h"

/* The template kernel whose instance's lowered name says the count's type
 * (user_program_text). */
#define COUNT_PROBE	"ewb_count_probe_"

/* The element type's header. */
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

/* The expected declaration, for messages and the docs. */
char *
user_expected_declaration(const struct user_spec *s, const char *function)
{
	char	*p = user_params(s), *d;

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
char *
user_program_text(const struct user_spec *s, const char *source,
    const char *function)
{
	const char	*t = user_type_name(s->dtype);
	char		*declared = user_expected_declaration(s, function);
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
char *
user_count_probe(const char *function)
{
	return xasprintf(COUNT_PROBE "<ewb_sig_<decltype(%s)>::bytes, "
	    "ewb_sig_<decltype(%s)>::is_signed>", function, function);
}

/* The count's type from the probe's lowered name, Itanium-mangled as
 * ..." COUNT_PROBE "ILi<bytes>ELi<signed>EEvv; -1 when it is not so. */
int
user_count_from_probe(const char *lowered, enum user_count *count)
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

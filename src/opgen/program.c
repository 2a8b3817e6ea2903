/*
 * program.c - the program NVRTC compiles for a user's per-element op: the
 * user's source, then the family's header and, around the user's
 * function, the operation struct tiles.cuh's templates take (its element
 * type and inputs from the function's own type, judged by the compiler);
 * the name expressions of the family's kernels, its reference and the
 * probe that tells the host the op's inputs and dtype.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opgen/opgen.h"

/* The name NVRTC gives the appended part in its messages. */
#define OP_FILE	"ewbench elementwise"

/* The operation struct around function, for an op of `inputs` inputs:
 * tiles.cuh hands a unary op its operand twice. */
static char *
op_struct(const char *function, unsigned inputs)
{
	char		*params = xstrdup(""), *args = xstrdup(""), *more;
	unsigned	 k, handed = inputs < 2 ? 2 : inputs;

	for (k = 0; k < handed; k++) {
		more = xasprintf("%s%selem a%u", params, k ? ", " : "", k);
		free(params);
		params = more;
		if (k >= inputs)
			continue;
		more = xasprintf("%s%sa%u", args, k ? ", " : "", k);
		free(args);
		args = more;
	}
	more = xasprintf("struct ewb_user_op {\n"
	    "\ttypedef ewb_user_signature::elem elem;\n"
	    "\tstatic constexpr unsigned inputs = %u;\n"
	    "\tstatic __device__ __forceinline__ elem\n"
	    "\tone(%s)\n"
	    "\t{\n"
	    "\t\treturn %s(%s);\n"
	    "\t}\n"
	    "};\n", inputs, params, function, args);
	free(params);
	free(args);
	return more;
}

char *
opgen_program_text(const char *source, const char *function,
    unsigned inputs)
{
	size_t	 len = strlen(source);
	char	*op = inputs > 0 ? op_struct(function, inputs) : xstrdup("");
	char	*text;

	text = xasprintf("%s%s#line 1 \"" OP_FILE "\"\n"
	    "#include \"family.cuh\"\n"
	    "typedef ewb_family_signature<decltype(%s)> ewb_user_signature;\n"
	    "static_assert(ewb_user_signature::ok, \"ewbench: --elementwise "
	    "needs T %s(T, ...): one to four operands and the result of one "
	    "type T, float, __half or __nv_bfloat16\");\n%s", source,
	    len > 0 && source[len - 1] != '\n' ? "\n" : "", function,
	    function, op);
	free(op);
	return text;
}

char *
opgen_probe_expr(void)
{
	return xstrdup("ewb_family_probe<ewb_user_signature::inputs, "
	    "ewb_family_dtype<ewb_user_signature::elem>::code>");
}

/* The type of a memory word in tiles.cuh. */
static const char *
word_type(unsigned bytes)
{
	switch (bytes) {
	case 2:
		return "bits16";
	case 4:
		return "bits32";
	case 8:
		return "packet64";
	default:
		return "packet";
	}
}

void
opgen_name_kernels(struct opgen_build *b)
{
	unsigned	i;

	b->nkernels = opgen_family(b->dtype, b->inputs, b->kernels);
	for (i = 0; i < b->nkernels; i++) {
		struct opgen_kernel *g = &b->kernels[i];

		g->expr = xasprintf("ewb_family_%s<ewb_user_op, %uu, %s>",
		    opgen_shape_name(g->shape), g->k, word_type(g->word_bytes));
	}
}

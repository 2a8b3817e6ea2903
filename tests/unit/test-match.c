/* test-match.c - variant selection on a fixture id list (no registry). */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"
#include "check.h"

static const char *const ids[] = {
	"add_f32", "add_f32x4", "add_f32x4_grid", "add_f16", "add_f16x2",
	"add_f16x8", "add_f16x8_pack", "relu_f32", "relu_f32x4", "abs_f32",
	"abs_f32_grid", "cub_add_f32",
};
#define NIDS (sizeof ids / sizeof ids[0])

/* The selected ids, space separated, for readable comparisons. */
static char *
selection(const char *patterns, int *rc, char **cause)
{
	bool	 selected[NIDS];
	char	*out, *next;
	size_t	 i;

	memset(selected, 1, sizeof selected);
	*cause = NULL;
	*rc = ids_select(patterns, ids, NULL, NIDS, selected, cause);
	out = xstrdup("");
	for (i = 0; i < NIDS; i++) {
		if (!selected[i])
			continue;
		next = xasprintf("%s%s%s", out, *out ? " " : "", ids[i]);
		free(out);
		out = next;
	}
	return out;
}

static void
check_selects(const char *patterns, const char *want)
{
	char	*got, *cause;
	int	 rc;

	got = selection(patterns, &rc, &cause);
	if (rc != 0)
		fprintf(stderr, "patterns '%s': %s\n", patterns, cause);
	CHECK(rc == 0);
	CHECK(cause == NULL);
	CHECK_STR(got, want);
	free(got);
	free(cause);
}

static void
check_refuses(const char *patterns, const char *want_cause)
{
	char	*got, *cause;
	int	 rc;

	got = selection(patterns, &rc, &cause);
	CHECK(rc == -1);
	CHECK_STR(cause, want_cause);
	free(got);
	free(cause);
}

int
main(void)
{
	check_selects("add_f32", "add_f32");
	check_selects("add_f16,relu_f32", "add_f16 relu_f32");
	check_selects("add_f16*",
	    "add_f16 add_f16x2 add_f16x8 add_f16x8_pack");
	check_selects("*x4*", "add_f32x4 add_f32x4_grid relu_f32x4");
	check_selects("*_grid, abs_f32", "add_f32x4_grid abs_f32 abs_f32_grid");
	check_selects("add_f16x?", "add_f16x2 add_f16x8");
	check_selects("add_f32,add_f32", "add_f32");
	check_selects("cub_*,add_f32", "add_f32 cub_add_f32");
	check_selects("all",
	    "add_f32 add_f32x4 add_f32x4_grid add_f16 add_f16x2 add_f16x8 "
	    "add_f16x8_pack relu_f32 relu_f32x4 abs_f32 abs_f32_grid "
	    "cub_add_f32");

	check_refuses("add_f3",
	    "unknown variant 'add_f3'; did you mean add_f32, add_f16?");
	check_refuses("add_f32,relu_f23",
	    "unknown variant 'relu_f23'; did you mean relu_f32?");
	check_refuses("add_f16x8pack",
	    "unknown variant 'add_f16x8pack'; did you mean add_f16x8_pack, "
	    "add_f16x8?");
	/* Closest first, not registry order. */
	check_refuses("add_f16x88",
	    "unknown variant 'add_f16x88'; did you mean add_f16x8, "
	    "add_f16x2, add_f16?");
	check_refuses("matmul",
	    "unknown variant 'matmul'; run 'ewbench list' to see the variants");
	check_refuses("mul_*",
	    "no variant matches 'mul_*'; run 'ewbench list' to see the "
	    "variants");
	check_refuses("ADD_F32",
	    "unknown variant 'ADD_F32'; run 'ewbench list' to see the "
	    "variants");
	check_refuses("add_f32,,relu_f32",
	    "empty variant name in 'add_f32,,relu_f32'");
	check_refuses("", "empty variant name in ''");
	check_refuses("add_f32,", "empty variant name in 'add_f32,'");

	/* At most three suggestions, ties in list order. */
	{
		static const char *const near[] = {
			"ba", "aa", "ab", "ac", "ad"
		};
		bool	 sel[5];
		char	*cause = NULL;

		CHECK(ids_select("a", near, NULL, 5, sel, &cause) == -1);
		CHECK_STR(cause,
		    "unknown variant 'a'; did you mean ba, aa, ab?");
		free(cause);
	}

	/* A named-only id (an experiment's probe) is chosen by its own
	 * name, never by a glob or "all". */
	{
		static const char *const some[] = { "add_f32", "add_f32_ilp2" };
		static const bool named[] = { false, true };
		bool	 sel[2];
		char	*cause = NULL;

		CHECK(ids_select("add_*", some, named, 2, sel, &cause) == 0);
		CHECK(sel[0] && !sel[1]);
		CHECK(ids_select("all", some, named, 2, sel, &cause) == 0);
		CHECK(sel[0] && !sel[1]);
		CHECK(ids_select("add_f32_ilp2", some, named, 2, sel,
		    &cause) == 0);
		CHECK(!sel[0] && sel[1]);
	}

	/* Nothing to choose from: even "all" matches nothing. */
	{
		bool	 sel[1];
		char	*cause = NULL;

		CHECK(ids_select("all", ids, NULL, 0, sel, &cause) == -1);
		CHECK(cause != NULL);
		free(cause);
	}

	CHECK(edit_distance("", "") == 0);
	CHECK(edit_distance("abc", "") == 3);
	CHECK(edit_distance("", "abc") == 3);
	CHECK(edit_distance("kitten", "sitting") == 3);
	CHECK(edit_distance("add_f3", "add_f32") == 1);
	CHECK(edit_distance("add_f3", "add_f16") == 2);
	CHECK(edit_distance("flaw", "lawn") == 2);
	CHECK(edit_distance("relu_f32", "relu_f32") == 0);
	return check_exit();
}

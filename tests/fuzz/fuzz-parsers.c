/*
 * fuzz-parsers.c - the parsers of ewbench's command line and metric files
 * under arbitrary input: sizes (sizes_parse, size_parse_one), number
 * lists (uint_list_parse: --block), variant globs (ids_select) and metric
 * sets (metric_set_parse, metric_set_load of a name list).  The first byte
 * chooses the parser, the rest is its text.  Each must either succeed or
 * fail with a message; whatever the input, no crash, no memory error (the
 * sanitizers watch), no output that breaks its own contract (checked
 * below).
 *
 * Built two ways: with libFuzzer (clang -fsanitize=fuzzer) where it is
 * available, and always with fuzz-driver.c, a seeded random mutator.
 */
#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"
#include "counters/counters.h"

int	LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static const char *const ids[] = {
	"add_f32", "add_f32x4", "add_f16", "add_f16x8_pack", "relu_f32",
	"abs_f32", "cub_add_f32", "add_f32_tma_st"
};
#define NIDS	(sizeof ids / sizeof ids[0])

/* The contract's broken: stop, loudly (the fuzzer keeps the input). */
static void
broken(const char *what)
{
	fprintf(stderr, "fuzz-parsers: %s\n", what);
	abort();
}

static void
fuzz_sizes(const char *text)
{
	uint64_t	*sizes = NULL, n;
	size_t		 count = 0, i;
	char		*cause = NULL;

	if (sizes_parse(text, &sizes, &count, &cause) == 0) {
		if (count == 0)
			broken("sizes_parse: success with no size");
		for (i = 0; i < count; i++)
			if (sizes[i] == 0)
				broken("sizes_parse: a size of 0");
		sizes_sort_unique(sizes, &count);
		for (i = 1; i < count; i++)
			if (sizes[i - 1] >= sizes[i])
				broken("sizes_sort_unique: not increasing");
		free(sizes);
	} else if (cause == NULL)
		broken("sizes_parse: failure without a message");
	free(cause);
	cause = NULL;
	if (size_parse_one(text, &n, &cause) == 0 && n == 0)
		broken("size_parse_one: 0");
	free(cause);
}

static void
fuzz_uint_list(const char *text)
{
	unsigned	*v = NULL;
	size_t		 count = 0, i, k;
	char		*cause = NULL;

	if (uint_list_parse(text, "--block", 1, 1024, &v, &count, &cause) == 0) {
		for (i = 0; i < count; i++) {
			if (v[i] < 1 || v[i] > 1024)
				broken("uint_list_parse: out of range");
			for (k = 0; k < i; k++)
				if (v[k] == v[i])
					broken("uint_list_parse: a repeat");
		}
		if (count == 0)
			broken("uint_list_parse: success with no number");
		free(v);
	} else if (cause == NULL)
		broken("uint_list_parse: failure without a message");
	free(cause);
}

static void
fuzz_globs(const char *text)
{
	bool	selected[NIDS];
	char	*cause = NULL;
	size_t	i, any = 0;

	if (ids_select(text, ids, NULL, NIDS, selected, &cause) == 0) {
		for (i = 0; i < NIDS; i++)
			any += selected[i];
		if (any == 0)
			broken("ids_select: success selecting nothing");
	} else if (cause == NULL)
		broken("ids_select: failure without a message");
	free(cause);
}

static void
fuzz_metric_set(const char *text)
{
	struct metric_set	set;
	char			*cause = NULL;

	if (metric_set_parse(text, "fuzz", &set, &cause) == 0) {
		if (set.count == 0)
			broken("metric_set_parse: an empty set");
		metric_set_free(&set);
	} else if (cause == NULL)
		broken("metric_set_parse: failure without a message");
	free(cause);
	cause = NULL;
	/* A comma-separated list of names (no '/': no file is opened). */
	if (strchr(text, '/') == NULL && strchr(text, ',') != NULL) {
		if (metric_set_load(text, &set, &cause) == 0)
			metric_set_free(&set);
		free(cause);
	}
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char	*text;

	if (size == 0)
		return 0;
	/* The parsers take C strings: the text ends at its first NUL. */
	text = xmalloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 4) {
	case 0:
		fuzz_sizes(text);
		break;
	case 1:
		fuzz_uint_list(text);
		break;
	case 2:
		fuzz_globs(text);
		break;
	case 3:
		fuzz_metric_set(text);
		break;
	}
	free(text);
	return 0;
}

/*
 * trace-records.c - trace records (see trace.h) and what is computed from
 * them: NVTX range pairing and nesting, labels by correlation id, a point's
 * kernel durations.  No CUPTI here (trace.c feeds it), so all of it is
 * unit-tested without a GPU; trace-json.c writes the records as JSON.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

#define STRING_BUCKETS	256

struct trace_string {
	char			*text;
	struct trace_string	*next;
};

struct trace_correlation {
	uint32_t	 correlation_id;
	int		 label;
};

/* Room in array (of *size elements of `elem` bytes) for element `count`. */
static void *
reserve(void *array, size_t *size, size_t count, size_t elem)
{
	if (count < *size)
		return array;
	*size = *size == 0 ? 64 : *size * 2;
	return xrealloc(array, *size * elem);
}

/* One copy of each distinct string, freed with the trace. */
static const char *
intern(struct trace *t, const char *s)
{
	struct trace_string	**bucket, *e;
	uint32_t		 h = 2166136261u;	/* FNV-1a */
	const unsigned char	*p;

	if (s == NULL)
		return NULL;
	for (p = (const unsigned char *)s; *p != '\0'; p++)
		h = (h ^ *p) * 16777619u;
	bucket = &t->strings[h % STRING_BUCKETS];
	for (e = *bucket; e != NULL; e = e->next) {
		if (strcmp(e->text, s) == 0)
			return e->text;
	}
	e = xmalloc(sizeof *e);
	e->text = xstrdup(s);
	e->next = *bucket;
	*bucket = e;
	return e->text;
}

struct trace *
trace_new(void)
{
	struct trace	*t = xcalloc(1, sizeof *t);

	t->strings = xcalloc(STRING_BUCKETS, sizeof *t->strings);
	t->correlations_sorted = true;
	t->device_index = -1;
	return t;
}

void
trace_free(struct trace *t)
{
	struct trace_string	*e, *next;
	size_t			 i;

	if (t == NULL)
		return;
	for (i = 0; i < STRING_BUCKETS; i++) {
		for (e = t->strings[i]; e != NULL; e = next) {
			next = e->next;
			free(e->text);
			free(e);
		}
	}
	free(t->strings);
	free(t->kernels);
	free(t->copies);
	free(t->ranges);
	free(t->labels);
	free(t->open);
	free(t->correlations);
	free(t);
}

void
trace_set_run(struct trace *t, const char *run_id, int device_index,
    const char *device_name)
{
	t->run_id = intern(t, run_id);
	t->device_index = device_index;
	t->device_name = intern(t, device_name);
}

int
trace_add_label(struct trace *t, const struct trace_label *l)
{
	struct trace_label	*to;

	t->labels = reserve(t->labels, &t->labels_size, t->nlabels,
	    sizeof *t->labels);
	to = &t->labels[t->nlabels];
	to->variant = intern(t, l->variant);
	to->n = l->n;
	to->cache = intern(t, l->cache);
	to->phase = intern(t, l->phase);
	return (int)t->nlabels++;
}

void
trace_correlate(struct trace *t, uint32_t correlation_id, int label)
{
	struct trace_correlation	*c;

	t->correlations = reserve(t->correlations, &t->correlations_size,
	    t->ncorrelations, sizeof *t->correlations);
	/* They come in launch order: sorting is seldom needed. */
	if (t->ncorrelations != 0 && correlation_id <
	    t->correlations[t->ncorrelations - 1].correlation_id)
		t->correlations_sorted = false;
	c = &t->correlations[t->ncorrelations++];
	c->correlation_id = correlation_id;
	c->label = label;
}

static int
compare_correlations(const void *a, const void *b)
{
	const struct trace_correlation	*x = a, *y = b;

	if (x->correlation_id != y->correlation_id)
		return x->correlation_id < y->correlation_id ? -1 : 1;
	return 0;
}

/* The label of a launch's correlation id, or -1. */
static int
label_of(struct trace *t, uint32_t correlation_id)
{
	size_t	lo = 0, hi = t->ncorrelations, mid;

	if (!t->correlations_sorted) {
		qsort(t->correlations, t->ncorrelations,
		    sizeof *t->correlations, compare_correlations);
		t->correlations_sorted = true;
	}
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->correlations[mid].correlation_id < correlation_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->ncorrelations &&
	    t->correlations[lo].correlation_id == correlation_id)
		return t->correlations[lo].label;
	return -1;
}

/* Labels the records that arrived before their correlation. */
static void
resolve_labels(struct trace *t)
{
	size_t	i;

	for (i = 0; i < t->nkernels; i++) {
		if (t->kernels[i].label < 0)
			t->kernels[i].label = label_of(t,
			    t->kernels[i].correlation_id);
	}
	for (i = 0; i < t->ncopies; i++) {
		if (t->copies[i].label < 0)
			t->copies[i].label = label_of(t,
			    t->copies[i].correlation_id);
	}
}

void
trace_add_kernel(struct trace *t, const struct trace_kernel *k)
{
	struct trace_kernel	*to;

	t->kernels = reserve(t->kernels, &t->kernels_size, t->nkernels,
	    sizeof *t->kernels);
	to = &t->kernels[t->nkernels++];
	*to = *k;
	to->name = intern(t, k->name != NULL ? k->name : "(unnamed kernel)");
	if (to->label < 0)
		to->label = label_of(t, to->correlation_id);
}

void
trace_add_copy(struct trace *t, const struct trace_copy *c)
{
	struct trace_copy	*to;

	t->copies = reserve(t->copies, &t->copies_size, t->ncopies,
	    sizeof *t->copies);
	to = &t->copies[t->ncopies++];
	*to = *c;
	to->direction = intern(t, c->direction);
	if (to->label < 0)
		to->label = label_of(t, to->correlation_id);
}

void
trace_range_start(struct trace *t, uint32_t id, uint64_t ns,
    uint32_t thread_id, const char *name, const char *domain)
{
	struct trace_range	*r;

	t->open = reserve(t->open, &t->open_size, t->nopen, sizeof *t->open);
	r = &t->open[t->nopen++];
	memset(r, 0, sizeof *r);
	r->name = intern(t, name != NULL ? name : "");
	r->domain = intern(t, domain);
	r->start_ns = ns;
	r->thread_id = thread_id;
	r->id = id;
}

static bool
domain_kept(const char *domain)
{
	return domain == NULL || strcmp(domain, TRACE_NVTX_DOMAIN) == 0;
}

void
trace_range_end(struct trace *t, uint32_t id, uint64_t ns)
{
	struct trace_range	 r;
	size_t			 i;

	/* Ranges mostly end in reverse order of start: search from the top. */
	for (i = t->nopen; i > 0; i--) {
		if (t->open[i - 1].id == id)
			break;
	}
	if (i == 0) {
		t->unpaired_ranges++;
		return;
	}
	r = t->open[i - 1];
	memmove(&t->open[i - 1], &t->open[i],
	    (t->nopen - i) * sizeof *t->open);
	t->nopen--;
	if (!domain_kept(r.domain))
		return;
	r.end_ns = ns;
	t->ranges = reserve(t->ranges, &t->ranges_size, t->nranges,
	    sizeof *t->ranges);
	t->ranges[t->nranges++] = r;
}

/* By thread, then start, the enclosing range (the longer one) first. */
static int
compare_ranges(const void *a, const void *b)
{
	const struct trace_range	*x = a, *y = b;

	if (x->thread_id != y->thread_id)
		return x->thread_id < y->thread_id ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->end_ns != y->end_ns)
		return x->end_ns > y->end_ns ? -1 : 1;
	return 0;
}

/* A range's depth: how many ranges of its thread enclose it. */
static void
nest_ranges(struct trace *t)
{
	uint64_t	*ends;
	size_t		 i, depth = 0;

	qsort(t->ranges, t->nranges, sizeof *t->ranges, compare_ranges);
	ends = xcalloc(t->nranges + 1, sizeof *ends);
	for (i = 0; i < t->nranges; i++) {
		struct trace_range	*r = &t->ranges[i];

		if (i > 0 && r->thread_id != t->ranges[i - 1].thread_id)
			depth = 0;
		while (depth > 0 && ends[depth - 1] <= r->start_ns)
			depth--;
		r->depth = (unsigned)depth;
		ends[depth++] = r->end_ns;
	}
	free(ends);
}

size_t
trace_open_ranges(const struct trace *t)
{
	size_t	i, n = 0;

	for (i = 0; i < t->nopen; i++) {
		if (domain_kept(t->open[i].domain))
			n++;
	}
	return n;
}

void
trace_finish(struct trace *t)
{
	resolve_labels(t);
	t->unpaired_ranges += trace_open_ranges(t);
	t->nopen = 0;
	nest_ranges(t);
}

bool
trace_kernel_is_helper(const char *name)
{
	static const char *const helpers[] = TRACE_HELPER_KERNELS;
	size_t	i;

	for (i = 0; name != NULL && i < sizeof helpers / sizeof *helpers; i++)
		if (strstr(name, helpers[i]) != NULL)
			return true;
	return false;
}

bool
trace_timed(uint64_t start, uint64_t end, struct trace_problems *p)
{
	if (start == 0 || end == 0) {
		if (p != NULL)
			p->zero_timestamp++;
		return false;
	}
	if (end < start) {
		if (p != NULL)
			p->end_before_start++;
		return false;
	}
	return true;
}

static int
compare_spans(const void *a, const void *b)
{
	const struct trace_span	*x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return (x->end_ns > y->end_ns) - (x->end_ns < y->end_ns);
}

size_t
trace_label_spans(struct trace *t, int label, struct trace_span **spans)
{
	size_t	i, count = 0;

	*spans = NULL;
	if (label < 0 && label != TRACE_ALL_LABELS)
		return 0;
	resolve_labels(t);
	for (i = 0; i < t->nkernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];

		if ((k->label != label && label != TRACE_ALL_LABELS) ||
		    trace_kernel_is_helper(k->name) ||
		    !trace_timed(k->start_ns, k->end_ns, NULL))
			continue;
		if (*spans == NULL)
			*spans = xcalloc(t->nkernels - i, sizeof **spans);
		(*spans)[count].start_ns = k->start_ns;
		(*spans)[count++].end_ns = k->end_ns;
	}
	/* Records arrive in completion order; on one stream, start order is
	 * launch order (kernels of one graph share a correlation id). */
	if (count != 0)
		qsort(*spans, count, sizeof **spans, compare_spans);
	return count;
}

void
trace_forget_records(struct trace *t)
{
	t->nkernels = 0;
	t->ncopies = 0;
	t->ncorrelations = 0;
	t->correlations_sorted = true;
}


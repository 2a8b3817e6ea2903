/*
 * trace-json.c - trace records (see trace.h) and what is computed from
 * them: NVTX range pairing and nesting, labels by correlation id, a point's
 * kernel durations, and the Chrome trace-event JSON.  No CUPTI here, so
 * all of it is unit-tested without a GPU.
 *
 * The JSON layout: pid 0 is the host (one row per OS thread, NVTX ranges,
 * category = domain), pid 1 the GPU (one row per stream: kernels, memcpy,
 * memset).  Complete events ("X") carry ts and dur in microseconds from
 * the first timestamp of the trace, sorted by ts; metadata events ("M")
 * name the rows.  A record with a 0 time or end before start is left out
 * and counted in otherData.problems.
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

/* Ranges of kept domains still open: unpaired once the trace is over. */
static size_t
open_kept(const struct trace *t)
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
	t->unpaired_ranges += open_kept(t);
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

/* Whether a record's times can be shown; counts the ones that cannot. */
static bool
timed(uint64_t start, uint64_t end, struct trace_problems *p)
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
		    !timed(k->start_ns, k->end_ns, NULL))
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

/* One complete event of the JSON, pointing at its record. */
enum event_kind { EVENT_RANGE, EVENT_KERNEL, EVENT_COPY };

struct event {
	uint64_t	 start, end;
	enum event_kind	 kind;
	size_t		 index;
	int		 pid;
	uint32_t	 tid;
};

#define PID_HOST	0
#define PID_GPU		1

/* By time; at equal starts the enclosing (longer) event first, so viewers
 * nest them; then a fixed order, so the output is reproducible. */
static int
compare_events(const void *a, const void *b)
{
	const struct event	*x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return 0;
}

/* The events that can be shown, sorted; problems counted on the way. */
static struct event *
collect_events(const struct trace *t, size_t *count,
    struct trace_problems *p)
{
	struct event	*events, *e;
	size_t		 i, n = 0;

	memset(p, 0, sizeof *p);
	p->dropped = t->dropped;
	p->unreadable_buffers = t->unreadable_buffers;
	p->unpaired_ranges = t->unpaired_ranges + open_kept(t);
	events = xcalloc(t->nranges + t->nkernels + t->ncopies + 1,
	    sizeof *events);
	for (i = 0; i < t->nranges; i++) {
		const struct trace_range *r = &t->ranges[i];

		if (!timed(r->start_ns, r->end_ns, p))
			continue;
		e = &events[n++];
		e->start = r->start_ns;
		e->end = r->end_ns;
		e->kind = EVENT_RANGE;
		e->index = i;
		e->pid = PID_HOST;
		e->tid = r->thread_id;
	}
	for (i = 0; i < t->nkernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];

		if (!timed(k->start_ns, k->end_ns, p))
			continue;
		e = &events[n++];
		e->start = k->start_ns;
		e->end = k->end_ns;
		e->kind = EVENT_KERNEL;
		e->index = i;
		e->pid = PID_GPU;
		e->tid = k->stream_id;
	}
	for (i = 0; i < t->ncopies; i++) {
		const struct trace_copy *c = &t->copies[i];

		if (!timed(c->start_ns, c->end_ns, p))
			continue;
		e = &events[n++];
		e->start = c->start_ns;
		e->end = c->end_ns;
		e->kind = EVENT_COPY;
		e->index = i;
		e->pid = PID_GPU;
		e->tid = c->stream_id;
	}
	qsort(events, n, sizeof *events, compare_events);
	*count = n;
	return events;
}

void
trace_problems(const struct trace *t, struct trace_problems *p)
{
	size_t	count;

	free(collect_events(t, &count, p));
}

static void
metadata(struct json *j, const char *what, int pid, uint32_t tid,
    const char *key, const char *name, int64_t number)
{
	json_begin_object(j, NULL);
	json_str(j, "name", what);
	json_str(j, "ph", "M");
	json_i64(j, "pid", pid);
	json_u64(j, "tid", tid);
	json_begin_object(j, "args");
	if (name != NULL)
		json_str(j, key, name);
	else
		json_i64(j, key, number);
	json_end_object(j);
	json_end_object(j);
}

static int
compare_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Names the processes and each (pid, tid) row that has events. */
static void
write_metadata(struct json *j, const struct trace *t,
    const struct event *events, size_t count)
{
	uint32_t	*tids;
	size_t		 i, n;
	int		 pid;
	char		 name[320];

	metadata(j, "process_name", PID_HOST, 0, "name", "ewbench host", 0);
	metadata(j, "process_sort_index", PID_HOST, 0, "sort_index", NULL, 0);
	if (t->device_name != NULL)
		snprintf(name, sizeof name, "GPU %d: %s", t->device_index,
		    t->device_name);
	else
		snprintf(name, sizeof name, "GPU");
	metadata(j, "process_name", PID_GPU, 0, "name", name, 0);
	metadata(j, "process_sort_index", PID_GPU, 0, "sort_index", NULL, 1);

	tids = xcalloc(count + 1, sizeof *tids);
	for (pid = PID_HOST; pid <= PID_GPU; pid++) {
		for (n = 0, i = 0; i < count; i++) {
			if (events[i].pid == pid)
				tids[n++] = events[i].tid;
		}
		qsort(tids, n, sizeof *tids, compare_u32);
		for (i = 0; i < n; i++) {
			if (i > 0 && tids[i] == tids[i - 1])
				continue;
			snprintf(name, sizeof name, "%s %u",
			    pid == PID_HOST ? "thread" : "stream", tids[i]);
			metadata(j, "thread_name", pid, tids[i], "name", name, 0);
			metadata(j, "thread_sort_index", pid, tids[i],
			    "sort_index", NULL, tids[i]);
		}
	}
	free(tids);
}

/* What the launch was for; null values when it had no label. */
static void
label_args(struct json *j, const struct trace *t, int label)
{
	const struct trace_label	*l;

	if (label < 0 || (size_t)label >= t->nlabels) {
		json_null(j, "variant");
		json_null(j, "n");
		json_null(j, "cache");
		json_null(j, "phase");
		return;
	}
	l = &t->labels[label];
	json_str(j, "variant", l->variant);
	json_u64(j, "n", l->n);
	json_str(j, "cache", l->cache);
	json_str(j, "phase", l->phase);
}

static void
dims(struct json *j, const char *key, const int32_t d[3])
{
	int	i;

	json_begin_array(j, key);
	for (i = 0; i < 3; i++)
		json_i64(j, NULL, d[i]);
	json_end_array(j);
}

static void
write_event(struct json *j, const struct trace *t, const struct event *e,
    uint64_t origin)
{
	const struct trace_range	*r;
	const struct trace_kernel	*k;
	const struct trace_copy		*c;
	char				 name[64];

	json_begin_object(j, NULL);
	switch (e->kind) {
	case EVENT_RANGE:
		r = &t->ranges[e->index];
		json_str(j, "name", r->name);
		json_str(j, "cat", r->domain != NULL ? r->domain : "default");
		break;
	case EVENT_KERNEL:
		json_str(j, "name", t->kernels[e->index].name);
		json_str(j, "cat", "kernel");
		break;
	case EVENT_COPY:
		c = &t->copies[e->index];
		if (c->kind == TRACE_MEMSET)
			snprintf(name, sizeof name, "memset");
		else
			snprintf(name, sizeof name, "memcpy %s",
			    c->direction != NULL ? c->direction : "?");
		json_str(j, "name", name);
		json_str(j, "cat", c->kind == TRACE_MEMSET ? "memset" :
		    "memcpy");
		break;
	}
	json_str(j, "ph", "X");
	json_i64(j, "pid", e->pid);
	json_u64(j, "tid", e->tid);
	json_f64(j, "ts", (double)(e->start - origin) / 1e3);
	json_f64(j, "dur", (double)(e->end - e->start) / 1e3);
	json_begin_object(j, "args");
	switch (e->kind) {
	case EVENT_RANGE:
		json_u64(j, "depth", t->ranges[e->index].depth);
		break;
	case EVENT_KERNEL:
		k = &t->kernels[e->index];
		label_args(j, t, k->label);
		dims(j, "grid", k->grid);
		dims(j, "block", k->block);
		json_u64(j, "registers_per_thread", k->registers);
		json_u64(j, "correlation_id", k->correlation_id);
		json_u64(j, "device", k->device_id);
		break;
	case EVENT_COPY:
		c = &t->copies[e->index];
		label_args(j, t, c->label);
		json_u64(j, "bytes", c->bytes);
		json_str(j, "direction", c->direction);
		json_u64(j, "correlation_id", c->correlation_id);
		json_u64(j, "device", c->device_id);
		break;
	}
	json_end_object(j);
	json_end_object(j);
}

struct json *
trace_json(const struct trace *t)
{
	struct trace_problems	 p;
	struct event		*events;
	struct json		*j = json_new();
	size_t			 i, count, unlabelled = 0;
	uint64_t		 origin;

	events = collect_events(t, &count, &p);
	origin = count != 0 ? events[0].start : 0;
	for (i = 0; i < t->nkernels; i++) {
		if (t->kernels[i].label < 0)
			unlabelled++;
	}

	json_begin_object(j, NULL);
	json_begin_array(j, "traceEvents");
	write_metadata(j, t, events, count);
	for (i = 0; i < count; i++)
		write_event(j, t, &events[i], origin);
	json_end_array(j);
	json_str(j, "displayTimeUnit", "ns");
	json_begin_object(j, "otherData");
	json_str(j, "producer", "ewbench (CUPTI Activity API)");
	json_str(j, "run_id", t->run_id);
	json_str(j, "device", t->device_name);
	json_str(j, "clock", "CUPTI timestamps, ns; ts is microseconds "
	    "after time_origin_ns");
	json_u64(j, "time_origin_ns", origin);
	json_u64(j, "kernels", t->nkernels);
	json_u64(j, "unlabelled_kernels", unlabelled);
	json_u64(j, "copies", t->ncopies);
	json_u64(j, "ranges", t->nranges);
	json_begin_object(j, "problems");
	json_u64(j, "dropped_records", p.dropped);
	json_u64(j, "unreadable_buffers", p.unreadable_buffers);
	json_u64(j, "unpaired_ranges", p.unpaired_ranges);
	json_u64(j, "zero_timestamp", p.zero_timestamp);
	json_u64(j, "end_before_start", p.end_before_start);
	json_end_object(j);
	json_end_object(j);
	json_end_object(j);
	free(events);
	return j;
}

int
trace_json_write(const struct trace *t, const char *path, char **cause)
{
	struct json	*j = trace_json(t);
	const char	*text = json_text(j);
	int		 rc;

	rc = file_write_atomic(path, text, strlen(text), cause);
	json_free(j);
	return rc;
}

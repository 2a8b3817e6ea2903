/*
 * trace-json.c - a trace's records (trace-records.c) as Chrome trace-event
 * JSON.  Plain C, unit-tested without a GPU.
 *
 * The layout: pid 0 is the host (one row per OS thread, NVTX ranges,
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

/* Adds E to the events unless its times cannot be shown (counted in P). */
static void
add_event(struct event *events, size_t *n, struct event e,
    struct trace_problems *p)
{
	if (trace_timed(e.start, e.end, p))
		events[(*n)++] = e;
}

/* The events that can be shown, sorted; problems counted on the way. */
static struct event *
collect_events(const struct trace *t, size_t *count,
    struct trace_problems *p)
{
	struct event	*events;
	size_t		 i, n = 0;

	memset(p, 0, sizeof *p);
	p->dropped = t->dropped;
	p->unreadable_buffers = t->unreadable_buffers;
	p->unpaired_ranges = t->unpaired_ranges + trace_open_ranges(t);
	events = xcalloc(t->nranges + t->nkernels + t->ncopies + 1,
	    sizeof *events);
	for (i = 0; i < t->nranges; i++) {
		const struct trace_range *r = &t->ranges[i];

		add_event(events, &n, (struct event){ .start = r->start_ns,
		    .end = r->end_ns, .kind = EVENT_RANGE, .index = i,
		    .pid = PID_HOST, .tid = r->thread_id }, p);
	}
	for (i = 0; i < t->nkernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];

		add_event(events, &n, (struct event){ .start = k->start_ns,
		    .end = k->end_ns, .kind = EVENT_KERNEL, .index = i,
		    .pid = PID_GPU, .tid = k->stream_id }, p);
	}
	for (i = 0; i < t->ncopies; i++) {
		const struct trace_copy *c = &t->copies[i];

		add_event(events, &n, (struct event){ .start = c->start_ns,
		    .end = c->end_ns, .kind = EVENT_COPY, .index = i,
		    .pid = PID_GPU, .tid = c->stream_id }, p);
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

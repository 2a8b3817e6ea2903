/*
 * test-trace.c - trace records without a GPU: NVTX range pairing and
 * nesting, labels by correlation id, a point's kernel durations, problem
 * counts, and the Chrome trace JSON, read back with a strict JSON parser
 * of the test's own.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"
#include "check.h"

/* A JSON value, as the parser below reads it. */
enum jtype { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };

struct jv {
	enum jtype	 type;
	bool		 boolean;
	double		 number;
	char		*string;
	char		**keys;		/* J_OBJECT */
	struct jv	**items;	/* J_ARRAY, J_OBJECT */
	size_t		 count;
};

static void
jfree(struct jv *v)
{
	size_t	i;

	if (v == NULL)
		return;
	for (i = 0; i < v->count; i++) {
		if (v->keys != NULL)
			free(v->keys[i]);
		jfree(v->items[i]);
	}
	free(v->keys);
	free(v->items);
	free(v->string);
	free(v);
}

static void
skip_space(const char **p)
{
	while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
		(*p)++;
}

static bool
literal(const char **p, const char *word)
{
	size_t	len = strlen(word);

	if (strncmp(*p, word, len) != 0)
		return false;
	*p += len;
	return true;
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* RFC 8259 number grammar, exactly. */
static bool
parse_number(const char **p, double *out)
{
	const char	*s = *p;

	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (is_digit(*s))
			s++;
	else
		return false;
	if (*s == '.') {
		if (!is_digit(*++s))
			return false;
		while (is_digit(*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!is_digit(*s))
			return false;
		while (is_digit(*s))
			s++;
	}
	*out = strtod(*p, NULL);
	*p = s;
	return true;
}

/* Strings: escapes checked; \uXXXX kept as '?', enough for the tests. */
static char *
parse_string(const char **p)
{
	const char	*s = *p;
	char		*out = xmalloc(strlen(s) + 1);
	size_t		 n = 0, i;

	if (*s++ != '"')
		goto bad;
	for (;;) {
		unsigned char c = (unsigned char)*s++;

		if (c == '"')
			break;
		if (c < 0x20)
			goto bad;	/* also the NUL at the end of the text */
		if (c != '\\') {
			out[n++] = (char)c;
			continue;
		}
		switch (*s++) {
		case '"':  out[n++] = '"'; break;
		case '\\': out[n++] = '\\'; break;
		case '/':  out[n++] = '/'; break;
		case 'b':  out[n++] = '\b'; break;
		case 'f':  out[n++] = '\f'; break;
		case 'n':  out[n++] = '\n'; break;
		case 'r':  out[n++] = '\r'; break;
		case 't':  out[n++] = '\t'; break;
		case 'u':
			for (i = 0; i < 4; i++, s++) {
				if (!is_digit(*s) && !strchr("abcdefABCDEF", *s))
					goto bad;
			}
			out[n++] = '?';
			break;
		default:
			goto bad;
		}
	}
	out[n] = '\0';
	*p = s;
	return out;
bad:
	free(out);
	return NULL;
}

static struct jv *parse_value(const char **);

/* Objects and arrays: items separated by commas, no trailing comma. */
static bool
parse_container(const char **p, struct jv *v, bool object)
{
	char	 close = object ? '}' : ']';
	char	*key = NULL;

	(*p)++;
	skip_space(p);
	if (**p == close) {
		(*p)++;
		return true;
	}
	for (;;) {
		struct jv *item;

		skip_space(p);
		if (object) {
			if ((key = parse_string(p)) == NULL)
				return false;
			skip_space(p);
			if (*(*p)++ != ':') {
				free(key);
				return false;
			}
		}
		if ((item = parse_value(p)) == NULL) {
			free(key);
			return false;
		}
		v->items = xrealloc(v->items, (v->count + 1) * sizeof *v->items);
		if (object) {
			v->keys = xrealloc(v->keys,
			    (v->count + 1) * sizeof *v->keys);
			v->keys[v->count] = key;
		}
		v->items[v->count++] = item;
		skip_space(p);
		if (**p == ',') {
			(*p)++;
			continue;
		}
		if (**p != close)
			return false;
		(*p)++;
		return true;
	}
}

static struct jv *
parse_value(const char **p)
{
	struct jv	*v = xcalloc(1, sizeof *v);
	bool		 ok;

	skip_space(p);
	switch (**p) {
	case '{':
	case '[':
		v->type = **p == '{' ? J_OBJECT : J_ARRAY;
		ok = parse_container(p, v, v->type == J_OBJECT);
		break;
	case '"':
		v->type = J_STRING;
		ok = (v->string = parse_string(p)) != NULL;
		break;
	case 't':
	case 'f':
		v->type = J_BOOL;
		v->boolean = **p == 't';
		ok = literal(p, v->boolean ? "true" : "false");
		break;
	case 'n':
		v->type = J_NULL;
		ok = literal(p, "null");
		break;
	default:
		v->type = J_NUMBER;
		ok = parse_number(p, &v->number);
		break;
	}
	if (!ok) {
		jfree(v);
		return NULL;
	}
	return v;
}

/* The whole text is one value, or NULL. */
static struct jv *
parse(const char *text)
{
	const char	*p = text;
	struct jv	*v = parse_value(&p);

	if (v == NULL)
		return NULL;
	skip_space(&p);
	if (*p != '\0') {
		jfree(v);
		return NULL;
	}
	return v;
}

static struct jv *
get(const struct jv *v, const char *key)
{
	size_t	i;

	if (v == NULL || v->type != J_OBJECT)
		return NULL;
	for (i = 0; i < v->count; i++) {
		if (strcmp(v->keys[i], key) == 0)
			return v->items[i];
	}
	return NULL;
}

static const char *
get_str(const struct jv *v, const char *key)
{
	const struct jv	*s = get(v, key);

	return s != NULL && s->type == J_STRING ? s->string : NULL;
}

static double
get_num(const struct jv *v, const char *key)
{
	const struct jv	*n = get(v, key);

	return n != NULL && n->type == J_NUMBER ? n->number : NAN;
}

static void
test_parser(void)
{
	static const char *const bad[] = {
		"{\"a\": [1, 2,]}", "{\"a\" 1}", "[01]", "[1.]", "{\"a\": tru}",
		"[\"x\\q\"]", "[1] [2]", "{\"a\": 1", "[\"\t\"]", "",
	};
	struct jv	*v;
	size_t		 i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		v = parse(bad[i]);
		if (v != NULL)
			fprintf(stderr, "accepted bad JSON: %s\n", bad[i]);
		CHECK(v == NULL);
		jfree(v);
	}
	v = parse(" {\"a\": [1, -2.5e3, \"q\\\"\\u00e9\"], \"b\": {}, "
	    "\"c\": null, \"d\": false} ");
	CHECK(v != NULL);
	CHECK(get(v, "a")->items[0]->number == 1);
	CHECK(get(v, "a")->items[1]->number == -2500);
	CHECK_STR(get(v, "a")->items[2]->string, "q\"?");
	CHECK(get(v, "c")->type == J_NULL);
	jfree(v);
}

/*
 * The synthetic run.  Host thread 777: "run" encloses "add_f32 point" and
 * "relu_f16 point"; thread 2: "check" in NVTX's default domain; a range of
 * another domain (dropped), an end without start and a start without end
 * (2 unpaired).  Stream 13: the add point (one L2 flush, three kernels,
 * handed over out of launch order); stream 14: the relu point, with a 0
 * start and a reversed record; stream 7: a copy outside any point.
 */
enum { ADD, RELU };

static const uint64_t	origin = 1000000000000000000ull;

static void
add_kernel(struct trace *t, const char *name, uint32_t stream,
    uint32_t correlation, uint64_t start, uint64_t end)
{
	struct trace_kernel	k;

	memset(&k, 0, sizeof k);
	k.name = name;
	k.start_ns = start != 0 ? origin + start : 0;
	k.end_ns = end != 0 ? origin + end : 0;
	k.stream_id = stream;
	k.correlation_id = correlation;
	k.grid[0] = 4096;
	k.grid[1] = k.grid[2] = 1;
	k.block[0] = 256;
	k.block[1] = k.block[2] = 1;
	k.registers = 16;
	k.label = -1;
	trace_add_kernel(t, &k);
}

static struct trace *
synthetic(void)
{
	struct trace		*t = trace_new();
	struct trace_label	 add = { "add_f32", 1024, "cold", "timing" };
	struct trace_label	 relu = { "relu_f16", 2048, "warm", "timing" };
	struct trace_copy	 c;
	char			 name[32];
	uint32_t		 i;

	trace_set_run(t, "run-1", 0, "NVIDIA H100 80GB HBM3");
	CHECK(trace_add_label(t, &add) == ADD);
	CHECK(trace_add_label(t, &relu) == RELU);

	trace_range_start(t, 1, origin + 100, 777, "run", TRACE_NVTX_DOMAIN);
	trace_range_start(t, 2, origin + 200, 777, "add_f32 \"point\"\\",
	    TRACE_NVTX_DOMAIN);
	trace_range_start(t, 9, origin + 250, 777, "theirs", "otherlib");
	trace_range_end(t, 9, origin + 260);
	trace_range_end(t, 2, origin + 900);
	trace_range_start(t, 3, origin + 1000, 777, "relu_f16 point",
	    TRACE_NVTX_DOMAIN);
	trace_range_end(t, 3, origin + 1800);
	trace_range_end(t, 42, origin + 1850);		/* never started */
	trace_range_start(t, 4, origin + 150, 2, "check", NULL);
	trace_range_end(t, 4, origin + 180);
	trace_range_end(t, 1, origin + 2000);
	trace_range_start(t, 50, origin + 1900, 777, "cut", TRACE_NVTX_DOMAIN);

	/* The add point: correlations 10..13 come before their kernels. */
	for (i = 10; i <= 13; i++)
		trace_correlate(t, i, ADD);
	add_kernel(t, "_Z19ewb_l2_flush_kernelPhmj", 13, 10, 210, 300);
	add_kernel(t, "add_f32_kernel", 13, 12, 420, 520);	/* 100 */
	add_kernel(t, "add_f32_kernel", 13, 11, 310, 410);	/* 100 */
	add_kernel(t, "add_f32_kernel", 13, 13, 530, 650);	/* 120 */

	/* The relu point: kernel 24 arrives before its correlation. */
	add_kernel(t, "relu_f16_kernel", 14, 24, 1500, 1540);	/* 40 */
	for (i = 20; i <= 24; i++)
		trace_correlate(t, i, RELU);
	add_kernel(t, "relu_f16_kernel", 14, 21, 1100, 1150);	/* 50 */
	add_kernel(t, "relu_f16_kernel", 14, 22, 0, 1250);	/* 0 start */
	add_kernel(t, "relu_f16_kernel", 14, 23, 1400, 1300);	/* reversed */
	add_kernel(t, "relu_f16_kernel", 14, 20, 1010, 1070);	/* 60 */

	memset(&c, 0, sizeof c);
	c.kind = TRACE_MEMCPY;
	c.direction = "HtoD";
	c.bytes = 4096;
	c.start_ns = origin + 120;
	c.end_ns = origin + 190;
	c.stream_id = 7;
	c.correlation_id = 5;
	c.label = -1;
	trace_add_copy(t, &c);
	c.kind = TRACE_MEMSET;
	c.direction = "device";
	c.start_ns = origin + 1020;
	c.end_ns = origin + 1030;
	c.stream_id = 14;
	c.correlation_id = 19;
	c.label = RELU;
	trace_add_copy(t, &c);

	t->dropped = 3;
	/* Names are copied: the caller's buffer can change. */
	snprintf(name, sizeof name, "scratch");
	trace_range_start(t, 60, origin + 1950, 2, name, NULL);
	trace_range_end(t, 60, origin + 1960);
	snprintf(name, sizeof name, "garbage");
	trace_finish(t);
	return t;
}

static const struct trace_range *
find_range(const struct trace *t, const char *name)
{
	size_t	i;

	for (i = 0; i < t->nranges; i++) {
		if (strcmp(t->ranges[i].name, name) == 0)
			return &t->ranges[i];
	}
	return NULL;
}

static void
test_records(void)
{
	struct trace		*t = synthetic();
	struct trace_problems	 p;
	const struct trace_range *r;
	struct trace_span	*s;
	size_t			 n, i;

	/* Ranges: other domain dropped, unpaired counted, depths. */
	CHECK(t->nranges == 5);
	CHECK(find_range(t, "theirs") == NULL);
	CHECK(find_range(t, "cut") == NULL);
	CHECK((r = find_range(t, "run")) != NULL && r->depth == 0 &&
	    r->end_ns == origin + 2000 && r->thread_id == 777);
	CHECK((r = find_range(t, "add_f32 \"point\"\\")) != NULL &&
	    r->depth == 1);
	CHECK((r = find_range(t, "relu_f16 point")) != NULL && r->depth == 1);
	CHECK((r = find_range(t, "check")) != NULL && r->depth == 0 &&
	    r->domain == NULL && r->thread_id == 2);
	CHECK(find_range(t, "scratch") != NULL);

	/* Labels, by correlation whichever came first. */
	for (i = 0; i < t->nkernels; i++)
		CHECK(t->kernels[i].label ==
		    (t->kernels[i].stream_id == 13 ? ADD : RELU));
	CHECK(t->copies[0].label == -1);
	CHECK(t->copies[1].label == RELU);

	/* Spans: start (launch) order, no flush kernel, no bad record. */
	n = trace_label_spans(t, ADD, &s);
	CHECK(n == 3);
	if (n == 3)
		CHECK(s[0].start_ns == origin + 310 &&
		    s[0].end_ns == origin + 410 &&
		    s[1].start_ns == origin + 420 &&
		    s[2].start_ns == origin + 530 &&
		    s[2].end_ns == origin + 650);
	free(s);
	n = trace_label_spans(t, RELU, &s);
	CHECK(n == 3);
	if (n == 3)
		CHECK(s[0].end_ns - s[0].start_ns == 60 &&
		    s[1].end_ns - s[1].start_ns == 50 &&
		    s[2].end_ns - s[2].start_ns == 40);
	free(s);
	CHECK(trace_label_spans(t, 7, &s) == 0 && s == NULL);
	CHECK(trace_label_spans(t, -1, &s) == 0 && s == NULL);

	CHECK(trace_kernel_is_helper("_Z19ewb_l2_flush_kernelPhmj"));
	CHECK(trace_kernel_is_helper("ewb_l2_flush_kernel(unsigned char*)"));
	CHECK(trace_kernel_is_helper("ewb_spin_kernel(volatile unsigned int*, "
	    "unsigned long long)"));
	CHECK(!trace_kernel_is_helper("add_f32_kernel"));
	CHECK(!trace_kernel_is_helper(NULL));

	trace_problems(t, &p);
	CHECK(p.dropped == 3);
	CHECK(p.zero_timestamp == 1);
	CHECK(p.end_before_start == 1);
	CHECK(p.unpaired_ranges == 2);
	CHECK(p.unreadable_buffers == 0);

	/* A collector that only times points forgets each point's records;
	 * the next point's are labelled afresh. */
	trace_forget_records(t);
	CHECK(t->nkernels == 0 && t->ncopies == 0);
	CHECK(trace_label_spans(t, ADD, &s) == 0 && s == NULL);
	add_kernel(t, "add_f32_kernel", 13, 30, 700, 790);
	trace_correlate(t, 30, ADD);
	CHECK(trace_label_spans(t, ADD, &s) == 1 && s != NULL &&
	    s[0].end_ns - s[0].start_ns == 90);
	free(s);
	trace_free(t);
}

/* Whether the M events name (pid, tid) "name". */
static bool
named(const struct jv *events, const char *what, int pid, double tid,
    const char *name)
{
	size_t	i;

	for (i = 0; i < events->count; i++) {
		const struct jv	*e = events->items[i];
		const char	*ph = get_str(e, "ph"), *kind = get_str(e, "name");
		const char	*row = get_str(get(e, "args"), "name");

		if (ph != NULL && strcmp(ph, "M") == 0 && kind != NULL &&
		    strcmp(kind, what) == 0 && get_num(e, "pid") == pid &&
		    get_num(e, "tid") == tid && row != NULL &&
		    strcmp(row, name) == 0)
			return true;
	}
	return false;
}

static void
test_json(void)
{
	struct trace	*t = synthetic();
	struct json	*j = trace_json(t);
	struct jv	*doc, *events, *problems;
	size_t		 i, complete = 0, kernels = 0, metadata_after = 0;
	double		 last_ts = -1;
	bool		 seen_x = false;

	doc = parse(json_text(j));
	CHECK(doc != NULL && doc->type == J_OBJECT);
	if (doc == NULL)
		goto out;
	CHECK_STR(get_str(doc, "displayTimeUnit"), "ns");
	events = get(doc, "traceEvents");
	CHECK(events != NULL && events->type == J_ARRAY);
	if (events == NULL || events->type != J_ARRAY)
		goto out;

	for (i = 0; i < events->count; i++) {
		const struct jv	*e = events->items[i], *args = get(e, "args");
		const char	*ph = get_str(e, "ph"), *cat = get_str(e, "cat");
		double		 ts = get_num(e, "ts"), dur = get_num(e, "dur");

		CHECK(ph != NULL && get_str(e, "name") != NULL);
		CHECK(args != NULL && args->type == J_OBJECT);
		if (ph == NULL || strcmp(ph, "M") == 0) {
			metadata_after += seen_x;
			continue;
		}
		CHECK_STR(ph, "X");
		seen_x = true;
		complete++;
		CHECK(ts >= last_ts);		/* sorted; NaN fails */
		CHECK(dur >= 0);
		last_ts = ts;
		if (complete == 1)
			CHECK(ts == 0);		/* from the first timestamp */
		CHECK(cat != NULL);
		if (cat == NULL)
			continue;
		if (strcmp(cat, "kernel") == 0) {
			const struct jv *grid = get(args, "grid");

			kernels++;
			CHECK(get_num(e, "pid") == 1);
			CHECK(get_str(args, "variant") != NULL);
			CHECK(get_num(args, "n") == 1024 ||
			    get_num(args, "n") == 2048);
			CHECK(grid != NULL && grid->type == J_ARRAY &&
			    grid->count == 3 && grid->items[0]->number == 4096);
			CHECK(get_num(args, "registers_per_thread") == 16);
			/* The bad records are left out. */
			CHECK(get_num(args, "correlation_id") != 22 &&
			    get_num(args, "correlation_id") != 23);
			/* 1.1 us after the first timestamp, 50 ns long. */
			if (get_num(args, "correlation_id") == 21) {
				CHECK(fabs(ts - 1.0) < 1e-9);
				CHECK(fabs(dur - 0.05) < 1e-9);
				CHECK(get_num(e, "tid") == 14);
				CHECK_STR(get_str(args, "phase"), "timing");
				CHECK_STR(get_str(args, "cache"), "warm");
			}
		} else if (strcmp(cat, TRACE_NVTX_DOMAIN) == 0 ||
		    strcmp(cat, "default") == 0) {
			CHECK(get_num(e, "pid") == 0);
			CHECK(get_num(e, "tid") == 777 || get_num(e, "tid") == 2);
		} else {
			CHECK(strcmp(cat, "memcpy") == 0 ||
			    strcmp(cat, "memset") == 0);
			CHECK(get(args, "variant") != NULL);	/* maybe null */
			CHECK(get_num(args, "bytes") == 4096);
		}
	}
	CHECK(metadata_after == 0);
	/* 5 ranges + 7 timed kernels + 2 copies. */
	CHECK(complete == 14);
	CHECK(kernels == 7);
	CHECK(named(events, "process_name", 0, 0, "ewbench host"));
	CHECK(named(events, "process_name", 1, 0,
	    "GPU 0: NVIDIA H100 80GB HBM3"));
	CHECK(named(events, "thread_name", 1, 13, "stream 13"));
	CHECK(named(events, "thread_name", 1, 14, "stream 14"));
	CHECK(named(events, "thread_name", 1, 7, "stream 7"));
	CHECK(named(events, "thread_name", 0, 777, "thread 777"));
	CHECK(named(events, "thread_name", 0, 2, "thread 2"));
	CHECK(!named(events, "thread_name", 1, 15, "stream 15"));

	CHECK_STR(get_str(get(doc, "otherData"), "run_id"), "run-1");
	CHECK(get_num(get(doc, "otherData"), "time_origin_ns") ==
	    (double)(origin + 100));
	problems = get(get(doc, "otherData"), "problems");
	CHECK(get_num(problems, "dropped_records") == 3);
	CHECK(get_num(problems, "zero_timestamp") == 1);
	CHECK(get_num(problems, "end_before_start") == 1);
	CHECK(get_num(problems, "unpaired_ranges") == 2);
	CHECK(get_num(problems, "unreadable_buffers") == 0);
out:
	jfree(doc);
	json_free(j);
	trace_free(t);
}

/* An empty trace is still a valid document; a file is what trace_json
 * says; a bad path fails with a cause. */
static void
test_write(void)
{
	struct trace	*t = trace_new();
	struct json	*j = trace_json(t);
	struct jv	*doc = parse(json_text(j));
	char		 path[] = "/tmp/ewb-test-trace.XXXXXX";
	char		*cause = NULL, *text;
	FILE		*f;
	long		 len;
	int		 fd;

	CHECK(doc != NULL && get(doc, "traceEvents") != NULL);
	CHECK(get_str(get(doc, "otherData"), "run_id") == NULL);
	jfree(doc);
	json_free(j);
	trace_free(t);

	t = synthetic();
	j = trace_json(t);
	CHECK((fd = mkstemp(path)) != -1);
	close(fd);
	CHECK(trace_json_write(t, path, &cause) == 0);
	CHECK((f = fopen(path, "r")) != NULL);
	if (f != NULL) {
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		rewind(f);
		text = xcalloc((size_t)len + 1, 1);
		CHECK(fread(text, 1, (size_t)len, f) == (size_t)len);
		CHECK_STR(text, json_text(j));
		free(text);
		fclose(f);
	}
	unlink(path);
	CHECK(trace_json_write(t, "/nonexistent-dir/x/trace.json",
	    &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "/nonexistent-dir") != NULL);
	free(cause);
	json_free(j);
	trace_free(t);
}

int
main(void)
{
	test_parser();
	test_records();
	test_json();
	test_write();
	return check_exit();
}

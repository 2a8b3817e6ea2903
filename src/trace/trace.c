/*
 * trace.c - the collector behind `ewbench run --trace`: CUPTI's Activity
 * API records kernels, memcpy, memset, NVTX ranges (marker records) and
 * external correlations, which tie each launch (through the runtime API
 * call that made it) to the label the caller set with trace_point_begin.
 * The records go into a struct trace (trace.h).
 *
 * Kernels are recorded with the CONCURRENT_KERNEL kind, whose records
 * time back-to-back launches as they overlap, stream and graph alike.  Its
 * instrumentation slows the kernels that keep few bytes in flight (a
 * scalar fp16 add 6-13 % on an H200; those that saturate DRAM are
 * untouched), so measure-events.c pauses the records (trace_pause) and times
 * warm points by an uninstrumented graph replay, and measures what the
 * records make of them beside it.  The KERNEL kind leaves the kernels'
 * speed alone but serialises
 * them: its records carry 1.0-1.5 us more than the kernel (44 % of a
 * 1Mi add) and graph-launched kernels get no timestamps at all, so it is
 * only a switch, EWBENCH_CUPTI_KERNEL_KIND=kernel, for measuring that.
 * docs/analysis.md, "The timer's own cost", has the measurements.
 * NVTX reaches CUPTI only through NVTX's injection: at
 * its first call NVTX dlopens $NVTX_INJECTION64_PATH and calls its
 * InitializeInjectionNvtx2, which libcupti exports; so trace_start points
 * it at the libcupti this process has loaded, before any NVTX call.
 *
 * CUPTI hands records over in buffers, maybe from its own thread: the
 * trace is locked while a buffer is read and while the caller touches it.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cupti_activity.h>
#include <cupti_result.h>

#include "device/device.h"
#include "counters/counters.h"
#include "trace/trace.h"

/* Few large buffers: CUPTI asks again when one is full. */
#define BUFFER_SIZE	(8u << 20)
#define BUFFER_ALIGN	8

/* Launches are labelled under this external-correlation kind. */
#define LABEL_KIND	CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0

/* The C++ runtime's demangler, there when the program links it (ewbench
 * does, for its kernels); without it kernel names stay mangled. */
extern char	*__cxa_demangle(const char *, char *, size_t *, int *)
		    __attribute__((weak));

/*
 * External-correlation records come only with API records, and kernel
 * correlation ids are the runtime API's (with the DRIVER kind instead, no
 * kernel matched, on an H200 with CUDA 13.0): so RUNTIME is enabled too,
 * and its records are read for nothing else.
 */
struct kind {
	CUpti_ActivityKind	 kind;
	const char		*enable;	/* for messages */
	const char		*disable;
};
#define KIND(k) { CUPTI_ACTIVITY_KIND_ ## k,				\
	"cuptiActivityEnable(CUPTI_ACTIVITY_KIND_" #k ")",		\
	"cuptiActivityDisable(CUPTI_ACTIVITY_KIND_" #k ")" }
static struct kind kinds[] = {
	KIND(CONCURRENT_KERNEL),	/* or KERNEL: choose_kernel_kind() */
	KIND(MEMCPY),
	KIND(MEMSET),
	KIND(MARKER),
	KIND(RUNTIME),
	KIND(EXTERNAL_CORRELATION),
};
static const struct kind serialised_kernels = KIND(KERNEL);
#undef KIND
#define NKINDS	(sizeof kinds / sizeof kinds[0])

/* TRACE_KERNELS enables only the first: kernel records alone, no API
 * records (which cost host time at every CUDA call) and no NVTX. */
#define KERNEL_KINDS	1

static struct {
	pthread_mutex_t	 lock;
	struct trace	*trace;		/* NULL: not started */
	enum trace_mode	 mode;
	int		 point;		/* the open point's label, or -1 */
	char		*error;		/* the first failure inside a callback */
} collector = { PTHREAD_MUTEX_INITIALIZER, NULL, TRACE_FULL, -1, NULL };

/* EWBENCH_CUPTI_KERNEL_KIND=kernel: kernels recorded with the KERNEL
 * kind instead (to measure what each kind does to the kernels). */
static void
choose_kernel_kind(void)
{
	const char	*v = getenv("EWBENCH_CUPTI_KERNEL_KIND");

	if (v != NULL && strcmp(v, "kernel") == 0)
		kinds[0] = serialised_kernels;
}

const char *
trace_kernel_kind(void)
{
	return kinds[0].kind == serialised_kernels.kind ? "kernel" :
	    "concurrent_kernel";
}

static size_t
enabled_kinds(void)
{
	return collector.mode == TRACE_KERNELS ? KERNEL_KINDS : NKINDS;
}

/* "fn: CUPTI_ERROR_NAME (code)". */
/* Inside a callback nobody can be told: keep the first failure for the
 * next trace_flush. */
static void
callback_failed(CUptiResult rc, const char *fn)
{
	if (collector.error == NULL)
		collector.error = cupti_error(fn, rc);
}

static const char *
memcpy_direction(uint8_t kind)
{
	switch ((CUpti_ActivityMemcpyKind)kind) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
		return "HtoD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
		return "DtoH";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
		return "DtoD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
		return "HtoH";
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
		return "PtoP";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
		return "array";
	default:
		return "unknown";
	}
}

static const char *
memory_kind(uint16_t kind)
{
	switch ((CUpti_ActivityMemoryKind)kind) {
	case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
	case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
		return "device";
	case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
	case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
		return "managed";
	case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
		return "pinned";
	case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
		return "pageable";
	default:
		return "unknown";
	}
}

/* The kernel record CUPTI fills is the newest its headers declare
 * (configure: CUpti_ActivityKernel9 in 12.x, Kernel10 in 13.0, ...). */
typedef EWB_CUPTI_KERNEL_RECORD kernel_record;

static void
add_kernel(struct trace *t, const kernel_record *a)
{
	struct trace_kernel	 k;
	char			*demangled = NULL;
	int			 status;

	memset(&k, 0, sizeof k);
	/* Only a trace shows names to people; helpers are found mangled. */
	if (a->name != NULL && __cxa_demangle != NULL &&
	    collector.mode == TRACE_FULL)
		demangled = __cxa_demangle(a->name, NULL, NULL, &status);
	k.name = demangled != NULL ? demangled : a->name;
	k.start_ns = a->start;
	k.end_ns = a->end;
	k.device_id = a->deviceId;
	k.stream_id = a->streamId;
	k.correlation_id = a->correlationId;
	k.grid[0] = a->gridX;
	k.grid[1] = a->gridY;
	k.grid[2] = a->gridZ;
	k.block[0] = a->blockX;
	k.block[1] = a->blockY;
	k.block[2] = a->blockZ;
	k.registers = a->registersPerThread;
	k.label = -1;
	trace_add_kernel(t, &k);
	free(demangled);
}

/* A memcpy's and a memset's records name their shared fields alike. */
#define COPY_RECORD_FIELDS(c, a) do {					\
	(c).bytes = (a)->bytes;						\
	(c).start_ns = (a)->start;					\
	(c).end_ns = (a)->end;						\
	(c).device_id = (a)->deviceId;					\
	(c).stream_id = (a)->streamId;					\
	(c).correlation_id = (a)->correlationId;			\
} while (0)

/* A copy (a memcpy record) or a fill (a memset record). */
static void
add_copy(struct trace *t, const CUpti_Activity *r)
{
	const CUpti_ActivityMemcpy6	*copy = (const void *)r;
	const CUpti_ActivityMemset4	*fill = (const void *)r;
	struct trace_copy		 c;

	memset(&c, 0, sizeof c);
	if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
		c.kind = TRACE_MEMCPY;
		c.direction = memcpy_direction(copy->copyKind);
		COPY_RECORD_FIELDS(c, copy);
	} else {
		c.kind = TRACE_MEMSET;
		c.direction = memory_kind(fill->memoryKind);
		COPY_RECORD_FIELDS(c, fill);
	}
	c.label = -1;
	trace_add_copy(t, &c);
}

/* Push/start records carry the name, pop/end records only the id. */
static void
add_marker(struct trace *t, const CUpti_ActivityMarker2 *a)
{
	uint32_t	thread = 0;

	if (a->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD)
		thread = a->objectId.pt.threadId;
	if (a->flags & CUPTI_ACTIVITY_FLAG_MARKER_START)
		trace_range_start(t, a->id, a->timestamp, thread, a->name,
		    a->domain);
	else if (a->flags & CUPTI_ACTIVITY_FLAG_MARKER_END)
		trace_range_end(t, a->id, a->timestamp);
	/* Instantaneous marks: ewbench makes none. */
}

static void
add_record(struct trace *t, const CUpti_Activity *r)
{
	const CUpti_ActivityExternalCorrelation	*x;

	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		add_kernel(t, (const kernel_record *)r);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
	case CUPTI_ACTIVITY_KIND_MEMSET:
		add_copy(t, r);
		break;
	case CUPTI_ACTIVITY_KIND_MARKER:
		add_marker(t, (const CUpti_ActivityMarker2 *)r);
		break;
	case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
		x = (const CUpti_ActivityExternalCorrelation *)r;
		if (x->externalKind == LABEL_KIND)
			trace_correlate(t, x->correlationId,
			    (int)x->externalId);
		break;
	default:
		break;
	}
}

/*
 * Buffers CUPTI handed back, kept for its next request: a point's records
 * are read back after every round of launches, and a fresh buffer costs
 * its page faults on the host (about half a millisecond for 8 MiB) just
 * as the next round's launches are being issued.
 */
#define SPARE_BUFFERS	8
static struct {
	pthread_mutex_t	 lock;
	void		*buffers[SPARE_BUFFERS];
	size_t		 count;
} spares = { PTHREAD_MUTEX_INITIALIZER, { NULL }, 0 };

static void CUPTIAPI
buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	void	*p = NULL;

	pthread_mutex_lock(&spares.lock);
	if (spares.count > 0)
		p = spares.buffers[--spares.count];
	pthread_mutex_unlock(&spares.lock);
	/* No buffer: CUPTI drops the records, and counts them. */
	if (p == NULL && posix_memalign(&p, BUFFER_ALIGN, BUFFER_SIZE) != 0)
		p = NULL;
	*buffer = p;
	*size = p != NULL ? BUFFER_SIZE : 0;
	*max_records = 0;
}

static void
buffer_release(uint8_t *buffer)
{
	pthread_mutex_lock(&spares.lock);
	if (spares.count < SPARE_BUFFERS) {
		spares.buffers[spares.count++] = buffer;
		buffer = NULL;
	}
	pthread_mutex_unlock(&spares.lock);
	free(buffer);
}

static void CUPTIAPI
buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer,
    size_t size, size_t valid)
{
	CUpti_Activity	*record = NULL;
	CUptiResult	 rc;
	size_t		 dropped = 0;

	(void)size;
	pthread_mutex_lock(&collector.lock);
	if (collector.trace != NULL) {
		while ((rc = cuptiActivityGetNextRecord(buffer, valid,
		    &record)) == CUPTI_SUCCESS)
			add_record(collector.trace, record);
		if (rc != CUPTI_ERROR_MAX_LIMIT_REACHED)
			collector.trace->unreadable_buffers++;
		rc = cuptiActivityGetNumDroppedRecords(context, stream,
		    &dropped);
		if (rc == CUPTI_SUCCESS)
			collector.trace->dropped += dropped;
		else
			callback_failed(rc, "cuptiActivityGetNumDroppedRecords");
	}
	pthread_mutex_unlock(&collector.lock);
	buffer_release(buffer);
}

/* Disables the first n kinds of kinds[]; the first failure goes to cause
 * unless one is there already. */
static int
disable_kinds(size_t n, char **cause)
{
	CUptiResult	rc;
	size_t		i;
	int		failed = 0;

	for (i = 0; i < n; i++) {
		rc = cuptiActivityDisable(kinds[i].kind);
		if (rc != CUPTI_SUCCESS && !failed && *cause == NULL)
			*cause = cupti_error(kinds[i].disable, rc);
		failed |= rc != CUPTI_SUCCESS;
	}
	return failed ? -1 : 0;
}

/* Another tool (nsys, ncu, compute-sanitizer) injected into CUDA or NVTX
 * owns CUPTI: there can be only one subscriber. */
static int
check_no_tool(const char *cupti_path, char **cause)
{
	const char	*v;

	if ((v = getenv("CUDA_INJECTION64_PATH")) != NULL && *v != '\0') {
		*cause = xasprintf("a CUDA tool is attached "
		    "(CUDA_INJECTION64_PATH=%s) and CUPTI takes one client", v);
		return -1;
	}
	if ((v = getenv("NVTX_INJECTION64_PATH")) != NULL && *v != '\0' &&
	    strcmp(v, cupti_path) != 0) {
		*cause = xasprintf("an NVTX tool is attached "
		    "(NVTX_INJECTION64_PATH=%s)", v);
		return -1;
	}
	return 0;
}

int
trace_start(enum trace_mode mode, char **cause)
{
	Dl_info		info;
	size_t		i;
	CUptiResult	rc;

	if (collector.trace != NULL) {
		*cause = xstrdup("trace_start: tracing already started");
		return -1;
	}
	/* The libcupti this process uses, found from one of its symbols. */
	if (dladdr((void *)cuptiActivityEnable, &info) == 0 ||
	    info.dli_fname == NULL) {
		*cause = xstrdup("cannot find the loaded libcupti (dladdr)");
		return -1;
	}
	if (check_no_tool(info.dli_fname, cause) != 0)
		return -1;
	if (mode == TRACE_FULL &&
	    setenv("NVTX_INJECTION64_PATH", info.dli_fname, 1) != 0) {
		*cause = xasprintf("setenv NVTX_INJECTION64_PATH: %s",
		    strerror(errno));
		return -1;
	}
	collector.mode = mode;
	choose_kernel_kind();
	if (cupti_check(cuptiActivityRegisterCallbacks(buffer_requested,
	    buffer_completed), "cuptiActivityRegisterCallbacks", cause) != 0)
		return -1;

	pthread_mutex_lock(&collector.lock);
	collector.trace = trace_new();
	collector.point = -1;
	pthread_mutex_unlock(&collector.lock);
	for (i = 0; i < enabled_kinds(); i++) {
		if ((rc = cuptiActivityEnable(kinds[i].kind)) != CUPTI_SUCCESS) {
			*cause = cupti_error(kinds[i].enable, rc);
			disable_kinds(i, cause);
			pthread_mutex_lock(&collector.lock);
			trace_free(collector.trace);
			collector.trace = NULL;
			pthread_mutex_unlock(&collector.lock);
			return -1;
		}
	}
	return 0;
}

bool
trace_started(void)
{
	return collector.trace != NULL;
}

int
trace_point_begin(const struct trace_label *label, char **cause)
{
	int	id;

	if (collector.trace == NULL)
		return 0;
	if (collector.point >= 0) {
		*cause = xasprintf("trace_point_begin: point %s is still open",
		    collector.trace->labels[collector.point].variant);
		return -1;
	}
	pthread_mutex_lock(&collector.lock);
	id = trace_add_label(collector.trace, label);
	pthread_mutex_unlock(&collector.lock);
	if (collector.mode == TRACE_FULL &&
	    cupti_check(cuptiActivityPushExternalCorrelationId(LABEL_KIND,
	    (uint64_t)id), "cuptiActivityPushExternalCorrelationId",
	    cause) != 0)
		return -1;
	collector.point = id;
	return 0;
}

int
trace_point_end(struct trace_span **spans, size_t *count, char **cause)
{
	int	id = collector.point;

	if (spans != NULL) {
		*spans = NULL;
		*count = 0;
	}
	if (collector.trace == NULL)
		return 0;
	if (id < 0) {
		*cause = xstrdup("trace_point_end: no point is open");
		return -1;
	}
	collector.point = -1;
	if (collector.mode == TRACE_FULL) {
		if (cupti_check(cuptiActivityPopExternalCorrelationId(
		    LABEL_KIND, NULL), "cuptiActivityPopExternalCorrelationId",
		    cause) != 0)
			return -1;
		if (spans == NULL)
			return 0;
	}
	if (trace_flush(cause) != 0)
		return -1;
	pthread_mutex_lock(&collector.lock);
	if (collector.mode == TRACE_FULL)
		*count = trace_label_spans(collector.trace, id, spans);
	else {
		/* No labels without API records: the kernels since the last
		 * point ended are this point's. */
		if (spans != NULL)
			*count = trace_label_spans(collector.trace,
			    TRACE_ALL_LABELS, spans);
		trace_forget_records(collector.trace);
	}
	pthread_mutex_unlock(&collector.lock);
	return 0;
}

enum trace_mode
trace_mode(void)
{
	return collector.mode;
}

int
trace_pause(bool pause, char **cause)
{
	size_t	i;

	if (collector.trace == NULL || collector.mode != TRACE_KERNELS)
		return 0;
	for (i = 0; i < KERNEL_KINDS; i++) {
		if (cupti_check(pause ? cuptiActivityDisable(kinds[i].kind) :
		    cuptiActivityEnable(kinds[i].kind), pause ?
		    kinds[i].disable : kinds[i].enable, cause) != 0)
			return -1;
	}
	return 0;
}

int
trace_flush(char **cause)
{
	cudaError_t	e;
	CUptiResult	rc;
	char		*failed;

	if (collector.trace == NULL)
		return 0;
	/* FlushAll does not wait for the GPU; without the sync, records of
	 * kernels still running come later or with 0 timestamps. */
	e = cudaDeviceSynchronize();
	rc = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	pthread_mutex_lock(&collector.lock);
	failed = collector.error;
	collector.error = NULL;
	pthread_mutex_unlock(&collector.lock);
	if (e != cudaSuccess) {
		free(failed);
		return cuda_fail(e, "cudaDeviceSynchronize", cause);
	}
	if (rc != CUPTI_SUCCESS) {
		free(failed);
		return cupti_check(rc, "cuptiActivityFlushAll", cause);
	}
	if (failed != NULL) {
		*cause = failed;
		return -1;
	}
	return 0;
}

int
trace_stop(struct trace **out, char **cause)
{
	struct trace	*t;
	int		 rc;

	*out = NULL;
	if (collector.trace == NULL)
		return 0;
	*cause = NULL;
	if (collector.point >= 0) {
		cuptiActivityPopExternalCorrelationId(LABEL_KIND, NULL);
		collector.point = -1;
	}
	rc = trace_flush(cause);
	if (disable_kinds(enabled_kinds(), cause) != 0)
		rc = -1;
	pthread_mutex_lock(&collector.lock);
	t = collector.trace;
	collector.trace = NULL;
	pthread_mutex_unlock(&collector.lock);
	trace_finish(t);
	*out = t;
	return rc;
}

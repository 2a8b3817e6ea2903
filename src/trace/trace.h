/*
 * trace.h - ewbench's own timeline: kernels, copies and NVTX ranges from
 * the CUPTI Activity API, written as a Chrome trace-event JSON (opens in
 * ui.perfetto.dev and chrome://tracing), and the GPU-side duration of
 * each timed launch, without launch overhead.
 *
 * Two halves:
 *  - the records and all that is computed from them (trace-records.c)
 *    and their JSON (trace-json.c): plain C in libewb.a, no CUPTI,
 *    unit-tested;
 *  - the collector: trace.c, CUPTI's Activity API, one per process.
 *
 * How cmd-run.c uses the collector (docs/trace.md says why each step is where
 * it is):
 *
 *	trace_start(TRACE_FULL, &cause);			before device_open(), nvtx_init()
 *						and any other CUDA or NVTX call
 *	trace_point_begin(&label, &cause);	before the launches of a point
 *	...launches...
 *	trace_point_end(&spans, &n, &cause);	after they have been issued;
 *						with &spans it syncs and
 *						returns their GPU times
 *	trace_stop(&trace, &cause);		after the study loop
 *	trace_set_run(trace, run_id, index, device name);
 *	trace_json_write(trace, path, &cause);
 *	trace_free(trace);
 *
 * CUPTI takes one tool per process: the collector cannot run under ncu,
 * nsys or compute-sanitizer.  Activity timestamps are 0 while the Range
 * Profiler (counters.c) collects, so points are timed outside its
 * sessions.
 */
#ifndef EWB_TRACE_H
#define EWB_TRACE_H

#include "base/ewbench.h"

/* The NVTX domain the trace keeps, besides NVTX's default domain. */
#define TRACE_NVTX_DOMAIN	"ewbench"
/* Kernels whose name contains one of these are the harness's own (the L2
 * flush, the spin that holds a queue): shown in the trace, never counted
 * as a point's duration. */
#define TRACE_HELPER_KERNELS	{ "ewb_l2_flush", "ewb_spin" }

/* What a group of launches is for.  Strings are copied. */
struct trace_label {
	const char	*variant;	/* registry id */
	uint64_t	 n;		/* elements */
	const char	*cache;		/* "warm", "cold" */
	const char	*phase;		/* "check", "warmup", "timing" */
};

/*
 * Records.  Times are nanoseconds on CUPTI's clock (CLOCK_REALTIME unless
 * told otherwise), GPU times mapped onto it; 0 means CUPTI could not
 * measure it.  Strings belong to the trace.
 */
struct trace_kernel {
	const char	*name;		/* demangled when the C++ runtime is linked */
	uint64_t	 start_ns, end_ns;
	uint32_t	 device_id;
	uint32_t	 stream_id;
	uint32_t	 correlation_id;	/* CUPTI's: launch order */
	int32_t		 grid[3];
	int32_t		 block[3];
	uint16_t	 registers;	/* per thread */
	int		 label;		/* index in trace->labels; -1: none */
};

enum trace_copy_kind { TRACE_MEMCPY, TRACE_MEMSET };

struct trace_copy {
	enum trace_copy_kind kind;
	const char	*direction;	/* memcpy: "HtoD", "DtoH", "DtoD", ...;
					   memset: "device" */
	uint64_t	 bytes;
	uint64_t	 start_ns, end_ns;
	uint32_t	 device_id;
	uint32_t	 stream_id;
	uint32_t	 correlation_id;
	int		 label;
};

struct trace_range {
	const char	*name;
	const char	*domain;	/* NULL: NVTX's default domain */
	uint64_t	 start_ns, end_ns;	/* host */
	uint32_t	 thread_id;	/* as CUPTI reports it */
	uint32_t	 id;		/* NVTX/CUPTI range id */
	unsigned	 depth;		/* 0: outermost on its thread; set by
					   trace_finish() */
};

/* Everything that makes a trace less than complete.  Nothing is left out
 * of the JSON silently: each record left out is counted here. */
struct trace_problems {
	uint64_t	 dropped;		/* CUPTI had no buffer space */
	size_t		 unreadable_buffers;	/* a buffer CUPTI could not walk
						   to its end */
	size_t		 unpaired_ranges;	/* an NVTX start without end, or
						   end without start */
	size_t		 zero_timestamp;	/* a record with a 0 time */
	size_t		 end_before_start;
};

/*
 * A trace: read the arrays freely, change them only through the functions
 * below (they own the strings).  Not thread-safe: the collector locks.
 */
struct trace_string;
struct trace_correlation;
struct trace {
	struct trace_kernel	*kernels;
	size_t			 nkernels;
	struct trace_copy	*copies;
	size_t			 ncopies;
	struct trace_range	*ranges;	/* complete, kept domains */
	size_t			 nranges;
	struct trace_label	*labels;
	size_t			 nlabels;

	const char		*run_id;	/* NULL until trace_set_run */
	const char		*device_name;
	int			 device_index;

	/* Counted by the collector; the rest of trace_problems is computed
	 * from the records. */
	uint64_t		 dropped;
	size_t			 unreadable_buffers;
	size_t			 unpaired_ranges;

	/* Private. */
	size_t			 kernels_size, copies_size, ranges_size;
	size_t			 labels_size;
	struct trace_range	*open;		/* started, not yet ended */
	size_t			 nopen, open_size;
	struct trace_correlation *correlations;
	size_t			 ncorrelations, correlations_size;
	bool			 correlations_sorted;
	struct trace_string	**strings;	/* interned, hashed */
};

/* trace-records.c: building. */
struct trace	*trace_new(void);
void		 trace_free(struct trace *);
void		 trace_set_run(struct trace *, const char *run_id,
		    int device_index, const char *device_name);
/* Returns the new label's index. */
int		 trace_add_label(struct trace *, const struct trace_label *);
/* A launch with this correlation id was made under label `label`. */
void		 trace_correlate(struct trace *, uint32_t correlation_id,
		    int label);
/* Copies the record; a label of -1 is looked up by correlation id. */
void		 trace_add_kernel(struct trace *, const struct trace_kernel *);
void		 trace_add_copy(struct trace *, const struct trace_copy *);
/* NVTX ranges arrive as a start (with a name) and an end (without), paired
 * by id.  Ranges of domains other than TRACE_NVTX_DOMAIN and the default
 * one are dropped once paired. */
void		 trace_range_start(struct trace *, uint32_t id, uint64_t ns,
		    uint32_t thread_id, const char *name, const char *domain);
void		 trace_range_end(struct trace *, uint32_t id, uint64_t ns);
/* After the last record: labels records by correlation, counts ranges
 * left open as unpaired, sets range depths. */
void		 trace_finish(struct trace *);

/* trace-records.c: reading. */
bool		 trace_kernel_is_helper(const char *name);
/* Ranges of kept domains still open: unpaired once the trace is over. */
size_t		 trace_open_ranges(const struct trace *);
/* Whether a record's times can be shown (neither 0, end not before
 * start); counts the ones that cannot in *p when p is not NULL. */
bool		 trace_timed(uint64_t start, uint64_t end,
		    struct trace_problems *p);
/*
 * GPU start and end (ns) of the kernels made under `label`, in start
 * order (launch order on one stream), helper kernels and records with a 0
 * or reversed time left out; *spans is malloc'd (NULL when none).  Returns
 * the count, which is below the number of kernels launched when CUPTI lost
 * or could not time some.
 */
struct trace_span {
	uint64_t	 start_ns, end_ns;
};
/* As a label: every kernel, labelled or not. */
#define TRACE_ALL_LABELS	(-2)
size_t		 trace_label_spans(struct trace *, int label,
		    struct trace_span **spans);
/* Drops the kernel, copy and correlation records kept so far (labels and
 * ranges stay): a collector that only times points keeps none past its
 * point. */
void		 trace_forget_records(struct trace *);
void		 trace_problems(const struct trace *, struct trace_problems *);
/* The Chrome trace document (caller frees with json_free). */
struct json	*trace_json(const struct trace *);
int		 trace_json_write(const struct trace *, const char *path,
		    char **cause);

/*
 * trace.c: the collector.  All calls from one host thread.  Every function
 * but trace_start does nothing and succeeds when tracing is not started,
 * so callers need not test for --trace at each point.
 *
 * Two modes:
 *  - TRACE_FULL (`--trace`): kernels, copies, NVTX ranges and runtime API
 *    records (to label launches by point); everything is kept for the JSON.
 *  - TRACE_KERNELS (every timed run without --no-cupti): kernel records
 *    only, so no CUDA call pays for an API record; nothing is kept past
 *    the point that reads it.  Without labels, a point's kernels are all
 *    those since the previous trace_point_end.
 */
enum trace_mode { TRACE_FULL, TRACE_KERNELS };
/* TRACE_FULL also sets NVTX_INJECTION64_PATH to this process's libcupti
 * (so NVTX ranges reach CUPTI as marker records).  Must come before the
 * first CUDA and NVTX call of the process.  Fails when another CUDA tool
 * is injected. */
int		 trace_start(enum trace_mode, char **cause);
bool		 trace_started(void);
enum trace_mode	 trace_mode(void);
/* The activity kind kernels are recorded with: "concurrent_kernel"
 * (CUPTI's CONCURRENT_KERNEL kind) or "kernel" (the KERNEL kind, with
 * EWBENCH_CUPTI_KERNEL_KIND=kernel). */
const char	*trace_kernel_kind(void);
/* Launches (and copies) issued from now until trace_point_end carry the
 * label.  Points do not nest. */
int		 trace_point_begin(const struct trace_label *, char **cause);
/* Ends the point.  With spans non-NULL, also synchronises the device,
 * flushes CUPTI and hands back trace_label_spans() of the point's kernels
 * (count 0 when tracing is off).  In TRACE_KERNELS mode it always
 * synchronises and flushes, and forgets what it read. */
int		 trace_point_end(struct trace_span **spans, size_t *count,
		    char **cause);
/* TRACE_KERNELS: stops recording kernels (pause true) while nothing is
 * timed, e.g. during the counters' replays, and starts again (false);
 * nothing in TRACE_FULL, whose trace shows everything. */
int		 trace_pause(bool pause, char **cause);
/* cudaDeviceSynchronize, then a forced flush of CUPTI's buffers. */
int		 trace_flush(char **cause);
/* Flushes, stops collecting, and hands over the finished trace (NULL when
 * tracing was not started), also when it fails: what was collected is
 * still worth writing. */
int		 trace_stop(struct trace **out, char **cause);

#endif

/*
 * bench.h - the measuring core: device buffers, the correctness check,
 * timing and counters.  Each returns results and prints nothing; the
 * printers (printers.h) turn results into the console table and files.
 *
 *   bench.c     buffers, streams, events; one launch of a case
 *   checker.c   inputs, the CPU reference, the comparison on the GPU
 *   measure.c   timed launches: stream and graph, warm and cold; the
 *               kernels' own times, launch intervals (the timers:
 *               measure-records.c, measure-events.c; their launches:
 *               measure-launch.c)
 *   profile.c   counters of a group of points in one profiler session
 *   residency.c --residency: the padding that caps a case's resident
 *               blocks per SM
 */
#ifndef EWB_BENCH_H
#define EWB_BENCH_H

#include <cuda_runtime_api.h>

#include "counters/counters.h"
#include "device/hostfacts.h"
#include "run/plan.h"

/* The device state every case uses.  Operands start 4 bytes past a
 * 16-byte boundary with --misalign. */
struct bench {
	const struct device_facts *dev;
	cudaStream_t		 stream;
	void			*d_a, *d_b, *d_c, *d_expected, *d_flush;
	void			*d_more[2];	/* a user's op's third and
						   fourth inputs, or NULL */
	void			*base[6];	/* as allocated */
	size_t			 array_bytes;	/* of each, the plan's largest */
	char			*d_guarded;	/* a user kernel's guarded
						   output (checker.c), kept */
	size_t			 flush_bytes;
	void			*h_expected;	/* pinned when it can be */
	bool			 h_pinned;
	struct ewb_compare_result *d_result;

	/* Timing (measure.c). */
	struct sampling_rule	 rule;		/* min_samples: --iters */
	unsigned		 warmup;
	cudaEvent_t		*events;	/* 2 per sample without CUPTI */
	double			*samples;	/* capacity of each */
	double			*intervals;
	size_t			 capacity;	/* a multiple of GRAPH_LAUNCHES */
	double			 timer_step_ns;	/* of kernel times; 0: unknown */
	bool			 records_short;	/* measure_time failed for want
						   of kernel records */
	double			 wall_warmup, wall_readback;	/* seconds */
	unsigned		*spin_word;	/* mapped host memory */
	unsigned		*spin_word_device;
	unsigned		 queue_launches;	/* behind a spin */
	struct host_facts	*host;		/* NVML's readings after each
						   round; NULL: none */
	bool			 profile_window;
	uint64_t		 seed;

	/* What the device buffers hold now (checker.c). */
	bool			 have_inputs, have_expected;
	enum ewb_dtype		 dtype;
	uint64_t		 n;
	enum ewb_op		 op;
	double			 wall_fill, wall_reference, wall_upload;
};

/* One launch of a case, as the timing loop and the counters issue it. */
struct launch {
	struct bench		*b;
	const struct ewb_variant *v;
	struct ewb_launch_args	 args;
	unsigned		 kernels;	/* per launch; 0: not yet
						   counted (bench_kernels) */
};

/* bench.c */
/* Buffers for the plan's largest case; -1 with *code EWB_EXIT_NOMEM when
 * they cannot fit in free memory. */
int		 bench_open(struct bench *, const struct plan *,
		    const struct run_options *, const struct device_facts *,
		    int *code, char **cause);
void		 bench_close(struct bench *);
/* The launch of case c, and the point it fills for the CSV rows. */
void		 bench_case(struct bench *, const struct plan_case *c,
		    struct launch *, struct point *);
int		 bench_launch(const struct launch *, char **cause);
int		 bench_flush(struct bench *, char **cause);
/* Waits until everything issued on b's stream has run. */
int		 bench_sync(struct bench *, char **cause);
/* Captures into *graph (not run) what issue(ctx, cause) launches on b's
 * stream; the caller destroys the graph. */
int		 bench_capture(struct bench *, int (*issue)(void *ctx,
		    char **cause), void *ctx, cudaGraph_t *graph, char **cause);
/* How many kernels one launch of l issues (captured into a graph, not
 * run): the counters map ranges to points by it. */
int		 bench_kernels(const struct launch *, unsigned *count,
		    char **cause);

/* checker.c */
/* The inputs of case c's size and dtype on the device (drawn from the
 * run's seed, so the same values each time), unless they are there. */
int		 checker_inputs(struct bench *, const struct plan_case *c,
		    char **cause);
/* Those inputs, and the expected output of its op; computed only when
 * they change. */
int		 checker_prepare(struct bench *, const struct plan_case *c,
		    char **cause);
/* One launch on a poisoned output (or restored in-place input), compared
 * element by element on the GPU.  Returns 1 pass, 0 fail (*bad filled),
 * -1 error. */
int		 checker_run(struct bench *, const struct launch *,
		    struct mismatch *bad, char **cause);

/* measure.c */
/* Launches in one graph of the sampling rounds (a round replays it); in
 * the probes of the queued and graph intervals, and how often each runs.
 * 32 launches behind a spin stay far below the launch queue's depth. */
#define MEASURE_GRAPH_LAUNCHES	16u
#define MEASURE_PROBE_LAUNCHES	32u
#define MEASURE_PROBE_ROUNDS	4u
/* struct timed, struct interval: output.h (what a row carries).  With
 * cross, a warm point also gets crosscheck_ns (the independent timer):
 * the runner asks for it at up to CROSSCHECK_SIZES sizes of a run (the
 * article's three; a sweep's smallest and largest). */
#define CROSSCHECK_SIZES	3u
int		 measure_time(struct bench *, const struct launch *,
		    enum cache_mode, enum launch_mode, bool cross,
		    struct timed *, char **cause);
/* A graph of `launches` launches of l (each after a flush when cold),
 * instantiated and uploaded, so its first replay costs no more than the
 * next; the caller destroys *exec. */
int		 measure_graph(struct bench *, const struct launch *,
		    enum cache_mode, unsigned launches, cudaGraphExec_t *exec,
		    char **cause);
/* Registers per thread and theoretical occupancy from the runtime; false
 * when a library owns the kernel. */
struct occupancy {
	int			 registers;
	double			 max_warps_pct;
};
int		 measure_occupancy(const struct bench *,
		    const struct point *, struct occupancy *, bool *known,
		    char **cause);

/* residency.c */
/* Each case of p given the least dynamic shared memory (its shared_pad)
 * with which the occupancy calculator holds exactly `want` of its blocks
 * per SM; a case it cannot cap so is left out, saying why.  -1 on a CUDA
 * error, PLAN_NOTHING_LEFT (with the cause) when no case is left. */
int		 residency_plan(struct plan *p, unsigned want, char **cause);
/* The theoretical occupancy of l with its padding, into occ (its
 * registers left as they are). */
int		 residency_occupancy(const struct launch *, struct occupancy *,
		    char **cause);

/* profile.c */
/* Counters of points[0..count) (each a case's launch and cache state) in
 * as few profiler sessions as fit; values[i * set count + m]. */
struct profiled {
	struct launch		 l;
	struct point		 p;
};
int		 profile_points(struct counters *, size_t nmetrics,
		    const struct profiled *, size_t count, double *values,
		    char **cause);

#endif

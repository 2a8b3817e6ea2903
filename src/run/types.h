/*
 * types.h - the run's shared vocabulary: a measured point, what timing it
 * gives, and what run.json records of the plan (why a size, a variant
 * left out, a failed check, where the wall time went).  The plan, the
 * measuring core and the run's files all speak it; none of them owns it.
 */
#ifndef EWB_RUN_TYPES_H
#define EWB_RUN_TYPES_H

#include "base/ewbench.h"
#include "run/settings.h"

/* One measured point: what the CSV key columns say. */
struct point {
	const struct ewb_variant *v;
	uint64_t		 n;
	unsigned		 block;		/* 0: a library decides */
	unsigned long long	 grid;		/* 0: a library decides */
	enum cache_mode		 cache;		/* CACHE_WARM or CACHE_COLD */
	const char		*launch;	/* "stream" */
};

struct check_failure {
	const char	*variant;
	uint64_t	 n;
	struct mismatch	 bad;
};

/* Why a size was measured (--preset tiers), for run.json. */
struct size_choice {
	unsigned	 footprint_per_element;	/* bytes */
	const char	*tier;			/* "latency", "l2", "dram" */
	uint64_t	 n;
	char		 reason[160];
};

/* A selected variant the run leaves out, and why (run.json "skipped"). */
struct skipped_variant {
	const char	*variant;
	char		 reason[320];
};

/* A variant's primary block: the one plots and findings judge it at
 * (run.json "primary_blocks"); 0: a library's, which picks its own. */
struct primary_block {
	const char	*variant;
	unsigned	 block;
};

/* Where a run's wall time went, in seconds (run.json "wall_s"). */
struct run_wall {
	double	 setup;		/* device, counters, plan, buffers */
	double	 inputs;	/* fill, CPU reference, uploads */
	double	 fill;		/* of which: the inputs, on the device */
	double	 reference;	/* the CPU reference (inputs regenerated) */
	double	 upload;	/* the expected outputs to the device */
	double	 checks;	/* checked launches and GPU compares */
	double	 timing;	/* warm-up and timed launches */
	double	 warmup;	/* of which: warm-ups */
	double	 readback;	/* of which: waiting for the GPU and
				   reading CUPTI's kernel records back */
	double	 counters;	/* counter sessions */
	double	 energy;	/* --energy's windows */
	double	 total;		/* the whole command */
};

/* What measure.c gives a timed point (bench.h): */
/* A launch interval: the median start-to-start time and the larger side
 * of its confidence interval; NaN when not measured. */
struct interval {
	double			 median_ns, ci_ns;
};
struct timed {
	struct stats		 st;		/* of the samples */
	unsigned		 launches;	/* launches timed */
	const char		*source;	/* "kernel": CUPTI's kernel
						   times; "replay": per
						   launch of an uninstrumented
						   graph replay; "events": an
						   event pair per launch;
						   "batch": per replay of a
						   graph (no CUPTI) */
	const char		*stop;		/* sampling_name(), or "count" */
	double			 batch_ns;	/* events around the rounds,
						   per launch */
	double			 activity_median_ns;	/* a replay-timed
						   point's kernel records:
						   their median span; NaN:
						   none */
	double			 crosscheck_ns;	/* stream launches queued
						   behind a spin, records
						   off, per launch; NaN: not
						   cross-checked */
	struct interval		 interval;	/* in the row's launch mode */
	struct interval		 queued;	/* behind a spin kernel */
	struct interval		 graph;		/* replayed from a graph */
	bool			 queue_unfilled;	/* the spin timed out */
	unsigned long long	 throttle;	/* NVML clock event reasons */
	double			 sm_clock_min_mhz;	/* the lowest NVML read
						   during the rounds; NaN:
						   none read */
	double			 memory_clock_min_mhz;
};

/* Bytes a point moves and touches, from the registry
 * (output.c). */
uint64_t	 point_bytes_moved(const struct point *);
uint64_t	 point_footprint(const struct point *);
const char	*cache_name(enum cache_mode);

#endif

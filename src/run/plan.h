/*
 * plan.h - what a measuring command will do, decided before the first
 * launch.
 *
 * A plan is a list of cases (variant x size x block: one correctness check
 * each) and the axes every case is timed along (cache state x launch
 * mode), in the order they run: size ascending, then dtype, op, registry
 * order and block, so that cases sharing inputs (size, dtype) and an
 * expected output (op) are neighbours.  Counting, estimating and printing
 * a plan need no GPU: only the device's facts and its free memory.
 */
#ifndef EWB_PLAN_H
#define EWB_PLAN_H

#include "run/types.h"

struct device_facts;

struct plan_case {
	const struct ewb_variant *v;
	uint64_t		 n;
	unsigned		 block;	/* threads per block, resolved by the
					   plan; 0: a peer's, which picks its
					   own */
	size_t			 shared_pad;	/* dynamic shared memory its
					   blocks are given, unused:
					   --residency's cap (residency.c);
					   0: none */
	size_t			 added;	/* its place in the order the plan
					   added cases: the sort's last key,
					   which keeps a variant's blocks in
					   --block order */
};

struct plan {
	enum command		 command;
	struct plan_case	*cases;
	size_t			 ncases;
	/* The axes each case is timed along, in the order they run. */
	enum cache_mode		 caches[2];
	size_t			 ncaches;
	enum launch_mode	 launches[2];
	size_t			 nlaunches;
	bool			 counters;	/* a counter pass is planned */

	uint64_t		*sizes;		/* distinct, ascending */
	size_t			 nsizes;
	struct size_choice	*choices;	/* why each tier size */
	size_t			 nchoices;
	struct skipped_variant	*skipped;
	size_t			 nskipped;
	struct skipped_variant	*fallbacks;	/* run as their fallback */
	size_t			 nfallbacks;

	size_t			 array_bytes;	/* the largest operand array */
	uint64_t		 largest_n;
	size_t			 flush_bytes;	/* the L2 flush buffer */
	size_t			 guarded_bytes;	/* a user kernel's guarded
						   output (checker.c); 0:
						   none */
	unsigned		 more_inputs;	/* input arrays past a and
						   b: a user's op of 3 or 4
						   inputs (args.more) */
};

/*
 * Builds the plan of opts for a device with free_bytes of free memory.
 * Sweep and tier sizes are chosen here from the L2; variants whose
 * technique the device lacks are skipped with the reason (unless
 * --allow-fallback).  counters says whether a counter pass will run.
 * Returns -1 with a cause when no size fits; PLAN_NOTHING_LEFT when every
 * case asked for was left out (a size no launch of it can measure at its
 * block: plan.c's unlaunchable; a --block xK past EWB_MAX_BLOCK threads),
 * or none was asked for: a refusal of what was asked.
 */
#define PLAN_NOTHING_LEFT	(-2)
int		 plan_build(const struct run_options *,
		    const struct device_facts *, size_t free_bytes,
		    bool counters, struct plan *, char **cause);
void		 plan_free(struct plan *);
/* Case i left out of p, `reason` saying why in its skipped list (a
 * case the run finds it cannot measure as asked, before the first
 * launch: residency.c). */
void		 plan_leave_out(struct plan *, size_t i, const char *reason);

/* Timed points (rows of timing.csv) and counter points. */
size_t		 plan_timed_points(const struct plan *);
size_t		 plan_profiled_points(const struct plan *);
/* GPU memory the run allocates: three operand arrays (and a user's op's
 * third and fourth inputs), the expected output, the flush buffer, and a
 * user kernel's guarded output. */
size_t		 plan_device_bytes(const struct plan *);
/* The bytes of expected output the plan's checks upload from the host:
 * a CPU reference for each run of cases of one size, dtype and op (a
 * user's op computes its own on the GPU; checker.c). */
size_t		 plan_expected_bytes(const struct plan *);
/* Whether the plan's GPU memory (plan_device_bytes) fits in have bytes:
 * the GPU's free memory, or for a dry run planned by name (chip: its
 * name, else NULL) the chip's whole memory.  -1 with the cause the run
 * refuses it with (exit 4, EWB_EXIT_NOMEM), so that a dry run refuses
 * what the run would. */
int		 plan_fits(const struct plan *, size_t have,
		    const char *chip, char **cause);
/* A rough estimate of the run's wall time, in seconds, for --dry-run and
 * the progress line: kernels at 90 % of the spec bandwidth or the launch
 * floor, checks, the host's share, and `passes` counter passes. */
double		 plan_estimate_seconds(const struct plan *,
		    const struct run_options *, const struct device_facts *,
		    int passes);
/* The compute capability of the code a build for arch_list (EWB_CUDA_ARCH:
 * "75 80 90", PTX for the last) gives a GPU of compute capability cc: its
 * newest SASS of cc's major not above cc, else its PTX when not above cc
 * (JIT-compiled by the driver); 0 when it has none. */
unsigned	 plan_code_arch(const char *arch_list, unsigned cc);
/* Each variant's primary block into out (room for p->ncases): its
 * published block where the plan runs it with it, else the first it runs
 * with (cases keep a variant's blocks in --block order); 0 for a
 * library's.  Returns how many. */
size_t		 plan_primary_blocks(const struct plan *,
		    struct primary_block *out);
/* --dry-run: the plan, one line per case group, and its cost. */
void		 plan_print(const struct plan *, const struct run_options *,
		    const struct device_facts *, int passes, FILE *);

/* A timed point's warm-up with the kernel clock: --warmup launches and at
 * least this long (measure.c; the plan's estimate counts it too). */
#define TIMING_WARMUP_MIN_S	1e-3
/* A warm point is timed by replays of a graph of its launches, the kernel
 * records paused (measure.c): each replay covers TIMING_REPLAY_NS of the
 * GPU's time in at least TIMING_REPLAY_MIN_LAUNCHES launches (its event
 * pair costs about 2.4 us on an H200: 0.5 % of it at most; docs/
 * analysis.md, "The timer's own cost"), and a point takes at least
 * TIMING_REPLAY_MIN_SAMPLES replays and never fewer launches than
 * --iters. */
#define TIMING_REPLAY_NS		0.5e6
#define TIMING_REPLAY_MIN_LAUNCHES	2u
#define TIMING_REPLAY_MIN_SAMPLES	5u
/* Warm rows whose kernels are shorter get their launch intervals (and a
 * round of kernel records for them): beyond it the launch path cannot set
 * the time. */
#define TIMING_PROBE_MAX_NS		20e3
/* That round of records covers TIMING_REPLAY_NS in at least this many
 * launches, and at most --iters. */
#define TIMING_RECORDS_MIN_LAUNCHES	3u
/* The stopping rule of a run's timed points (measure.c), from its
 * options. */
struct sampling_rule timing_rule(const struct run_options *);

#endif

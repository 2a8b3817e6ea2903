/*
 * runner.h - the runner, one per run of run, check, sweep and tune: what
 * runner.c (its directory, files and end), setup.c (before the walk) and
 * walk.c (the walk of the plan) share with the command that drives them
 * (src/cmd/cmd-run.c).
 */
#ifndef EWB_RUNNER_H
#define EWB_RUNNER_H

#include "run/bench.h"
#include "device/chips.h"
#include "run/energy.h"
#include "device/hostfacts.h"
#include "run/nvtx.h"
#include "run/output.h"
#include "run/printers.h"
#include "run/sass.h"
#include "trace/trace.h"
#include "device/watchdog.h"
#include "opgen/opgen.h"

struct runner {
	struct run_options	 opts;
	struct device_facts	 dev;
	struct host_facts	 host;		/* run.json "placement" */
	struct manifest		 man;
	struct plan		 plan;
	struct bench		 bench;
	struct printers		 pr;
	struct counters		*counters;
	struct metric_set	 mset;
	bool			 have_mset;
	bool			 pause_counters;	/* before each group:
							   counters_in_the_way */
	struct energy		 energy;	/* --energy (energy.h) */
	struct user_kernel	 user;		/* --kernel (id NULL: none) */
	bool			 user_failed;	/* its check failed: no more
						   timing or counters */
	struct opgen_op		 gen;		/* --elementwise (count 0:
						   none) */
	char			*gen_path;	/* its file */
	bool			 gen_failed[OPGEN_KERNELS];	/* a
						   member's check failed:
						   never timed, never
						   ranked */
	struct point		 at;		/* the point at work, and */
	const char		*at_phase;	/* what of it: "check", ... */
	const char		*dir;		/* claimed; NULL: none */
	char			*created;	/* what the claim made */
	double			 started;
	char			 default_dir[256];
	char			 sass_note[256];	/* run.json "sass" */
	struct primary_block	*primary;	/* man.primary */
};

/* runner.c */
/* Claims dir for this run; a directory that holds a run is refused
 * before anything is written to it (*code: the claim's status). */
int	 runner_claim(struct runner *, const char *dir, int *code,
	    char **cause);
/* The run directory's files (the default --out claimed when none was),
 * sass.csv, then the first run.json.  On failure nothing of them stays:
 * *code says why (the claim's status, or 1). */
int	 runner_begin_output(struct runner *, int *code, char **cause);
/* Closes the CSVs (flushed to disk) before run.json says they are
 * whole. */
int	 runner_close_files(struct runner *, char **cause);
/* Undoes the claim of a run that has written no manifest yet. */
void	 runner_release_claim(struct runner *);
/* Writes the --trace file, also after a failure or an interrupt; -1 when
 * it could not be written (said on stderr). */
int	 runner_write_trace(struct runner *);
/* After a failure: a kernel's fault on the GPU named in *cause, with
 * the point at work and the compute-sanitizer command that finds it. */
void	 runner_name_fault(struct runner *, char **cause);
void	 runner_free(struct runner *);
/* run.json's primary_blocks from the plan, and for tune from the blocks
 * it found fastest (printers_tuned_block). */
void	 runner_primary_blocks(struct runner *);

/* setup.c */
void	 runner_start_counters(struct runner *);
int	 runner_check_metric_names(const struct run_options *, char **cause);
void	 runner_stop_kernel_clock(void);
int	 runner_open_device(struct runner *, char **cause);
void	 runner_plan_print_sass(const struct run_options *);
int	 runner_plan_without_gpu(struct runner *, const char *command,
	    const char *no_gpu);
int	 runner_start_user_kernel(struct runner *, char **cause);
int	 runner_start_elementwise(struct runner *, char **cause);

/* walk.c */
int	 runner_walk_plan(struct runner *, char **cause);

#endif

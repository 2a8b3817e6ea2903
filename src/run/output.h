/*
 * output.h - a run directory: run.json, timing.csv, metrics.csv.
 * The format is docs/data-format.md; keep the two in step.
 */
#ifndef EWB_OUTPUT_H
#define EWB_OUTPUT_H

#include "run/types.h"
#include "counters/counters.h"
#include "device/device.h"

struct host_facts;
struct energy;

/* Everything run.json records. */
struct manifest {
	const char		*command;
	int			 argc;
	char			**argv;
	char			 run_id[128];
	char			 started_utc[32];
	char			 finished_utc[32];
	const struct device_facts *device;
	const struct run_options *opts;
	size_t			 flush_bytes;
	const uint64_t		*sizes;		/* every size measured */
	size_t			 nsizes;
	const struct size_choice *choices;
	size_t			 nchoices;
	const struct skipped_variant *skipped;
	size_t			 nskipped;
	const struct primary_block *primary;	/* each variant's */
	size_t			 nprimary;
	const struct skipped_variant *fallbacks;
	size_t			 nfallbacks;
	const char		*timer;		/* "graph_replay+" (warm
						   points) beside the kind
						   of records that time the
						   rest: "cupti_kernel_
						   activity" (CONCURRENT_
						   KERNEL), "cupti_kernel_
						   records" (KERNEL);
						   "cuda_events" */
	double			 timer_step_ns;	/* kernel times' step; 0:
						   unknown */
	const char		*counters_status;	/* ok, off, unavailable */
	char			*counters_reason;
	const char		*metric_set;
	/* The set as collected (resolved for the chip), or NULL. */
	const struct metric_set	*metrics;
	int			 passes;
	const char		*replay;	/* "user" or "kernel" */
	const char		*range;		/* "auto" or "user" */
	const struct counters_wall *counters_wall;
	struct run_wall		 wall;
	const char		*chip;
	unsigned		 cupti_version;
	size_t			 checks_passed;
	struct check_failure	*failures;
	size_t			 nfailures;
	/* run.json's "placement" (placement.h), or NULL. */
	const struct host_facts	*host_facts;
	/* run.json "sass": "recorded for sm_NN" or "not recorded: why";
	 * NULL: not written (a run of no kernel of this build). */
	const char		*sass;
	/* run.json "energy" (run --energy), or NULL. */
	const struct energy	*energy;
	/* More members of run.json, written last (e.g. "ceilings"). */
	void			(*extra_json)(struct json *, const void *);
	const void		*extra_ctx;
	/* run.json "elementwise" (--elementwise, src/opgen/), or NULL. */
	void			(*op_json)(struct json *, const void *);
	const void		*op_ctx;
};

/* Claims dir for a run before anything is written to it: creates it and
 * its parents if needed (*created: the outermost directory made, or NULL;
 * free it), refuses one that holds any run file, and creates run.json
 * exclusively, under a lock file every claim takes (run directories and
 * fleet parents alike), so of two claims of one directory only one wins.
 * Returns 0, EWB_EXIT_USAGE (refused: the directory holds a run, the name
 * is unusable) or EWB_EXIT_ERROR (the file system failed), with *cause;
 * a failed claim leaves nothing behind.  output_release_claim undoes the
 * claim of a run that wrote no manifest yet (its files and the directories
 * made) and frees created. */
int		 output_claim_dir(const char *dir, char **created, char **cause);
void		 output_release_claim(const char *dir, char *created);
/* What output_claim_dir would refuse of dir before it writes anything
 * (its name; a run already there), checked without claiming it: for a
 * dry run, which refuses what the run would.  0 or EWB_EXIT_USAGE with
 * *cause. */
int		 output_check_claimable(const char *dir, char **cause);
/* The same with another marker file than run.json (a fleet's parent
 * claims its directory with fleet.json). */
int		 output_claim_as(const char *dir, const char *marker,
		    char **created, char **cause);
void		 output_release_as(const char *dir, const char *marker,
		    char *created);
/* Can a file be written at path (atomically, beside it)?  Refuses an
 * empty name, a directory, and a directory that is missing or not
 * writable, before any GPU work; -1 with *cause ("what path: why"). */
int		 output_check_writable(const char *path, const char *what,
		    char **cause);
/* Refuses a --trace that names one of a run's own files (run.json,
 * timing.csv, ...) in the run's --out directory: the trace and the run
 * would write over each other.  -1 with *cause. */
int		 output_check_trace(const char *trace, const char *out,
		    char **cause);
void		 output_utc_now(char *buf, size_t len);
int		 manifest_write(const char *dir, const struct manifest *,
		    const char *status, char **cause);
/* manifest_write with the finish time set for any status but "running";
 * 0 without a directory.  A failure (*cause names the file and the error)
 * leaves the previous run.json whole: the command must stop with
 * EWB_EXIT_ERROR, since run.json cannot say what it did. */
int		 manifest_update(const char *dir, struct manifest *,
		    const char *status, char **cause);
/* "<prefix>-<gpu slug>-YYYYmmdd-HHMMSS", the default --out. */
void		 output_default_dir(const struct device_facts *,
		    const char *prefix, char *buf, size_t len);
/* "YYYYmmddTHHMMSSZ-<gpu slug>-<pid in hex>". */
void		 output_run_id(const struct device_facts *, char *buf,
		    size_t len);

struct csv	*timing_csv_open(const char *dir, char **cause);
int		 timing_csv_row(struct csv *, const char *run_id,
		    const struct point *, const struct timed *,
		    double spec_bandwidth, bool check_passed, char **cause);
struct csv	*metrics_csv_open(const char *dir, char **cause);
int		 metrics_csv_row(struct csv *, const char *run_id,
		    const struct point *, const char *metric, double value,
		    const char *unit, const char *source, char **cause);

/* energy.csv: one row per window of launches of point p (energy.h),
 * its idle window's readings beside it. */
struct energy_window;
struct csv	*energy_csv_open(const char *dir, char **cause);
int		 energy_csv_row(struct csv *, const char *run_id,
		    const struct point *, unsigned window,
		    const struct energy_window *idle,
		    const struct energy_window *busy, unsigned per_replay,
		    char **cause);

/* sass.csv in dir: the given rows of the build's table (src/run/sass.h),
 * complete rows only (csv.c). */
struct sass_row;
int		 sass_csv_write(const char *dir, const char *run_id,
		    const struct sass_row *const *rows, size_t count,
		    char **cause);

#endif

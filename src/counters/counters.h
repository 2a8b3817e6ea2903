/*
 * counters.h - hardware counters through the CUPTI Range Profiler
 * (CUDA 12.6 Update 2 and newer), metric sets as data, and `ewbench metrics`.
 *
 * Two halves:
 *  - metric-sets.c, metric-groups.c and counters-derive.c (in libewb.a,
 *    no CUDA, no CUPTI): metric sets read from metrics/<group>.txt; unit
 *    strings and the derived rows of metrics.csv (docs/data-format.md);
 *  - counters.c (CUPTI host and target APIs): validation against a chip
 *    offline (no GPU needed), and per-kernel collection on a GPU with
 *    AutoRange and user replay, many points per session.
 * docs/metrics.md describes the sets, the pass counts and the messages.
 *
 * Nothing here exposes a CUPTI type, so callers need neither the CUPTI
 * headers nor src/counters/cupti-shim.  Conventions are those of ewbench.h.
 */
#ifndef EWB_COUNTERS_H
#define EWB_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>

/* metric-sets.c, metric-groups.c *********************************************/

/*
 * A metric set: a group file (metrics/default.txt ...) or a list given on
 * the command line.  The group file format, likwid-style:
 *
 *	# comment (a '#' starts a comment anywhere outside LONG)
 *	SHORT one-line description
 *	METRICS
 *	gpu__time_duration.sum
 *	dram__bytes_read.sum | dram__bytes_op_read.sum | -
 *	...			(one entry per line)
 *	LONG
 *	free prose up to the end of the file (kept verbatim)
 *
 * SHORT and METRICS are required, each once; LONG is optional and last.
 * An entry is one quantity: the CUPTI names it goes by on different chips,
 * '|' between them.  Its first name is its meaning: the name in
 * metrics.csv, the derived formulas and the report, whatever the chip
 * calls it.  On a chip the first name it knows is collected
 * (metric_set_resolve).  A last alternative '-' says that some chips have
 * none of the names: `ewbench metrics --check` accepts the entry's absence
 * there, and refuses any other absent entry (a name is missing from the
 * file).  At run time an absent entry never fails the set: it is left out,
 * with the reason.
 */
struct metric_gap {
	char	 *metric;	/* the entry's meaning (first name) */
	char	 *reason;	/* "GB202 knows none of its names (a, b)" */
};

struct metric_set {
	char	 *name;		/* group name ("default"); "custom" for a list */
	char	 *short_desc;	/* the SHORT line; NULL for a list */
	char	 *long_desc;	/* the LONG prose; NULL when absent */
	char	 *path;		/* the file read; NULL for a list or a string */
	char	**metrics;	/* each entry's meaning: its first name, exactly
				   as CUPTI and ncu spell it */
	char	***names;	/* names[i]: every name of entry i, metrics[i]
				   first, NULL-terminated */
	bool	 *optional;	/* entry i ends with '| -' */
	size_t	  count;	/* >= 1 in a loaded set */
	/* Set by metric_set_resolve for one chip, NULL/0 before: */
	char	 *chip;
	char	**collected;	/* the name collected for entry i on chip */
	struct metric_gap *left_out;	/* entries the chip has no name for */
	size_t	  nleft_out;
};

/* Parses the group format from a string; `name` becomes set->name.  Errors
 * name the line: "line 7: metric 'x' listed twice". */
int		 metric_set_parse(const char *text, const char *name,
		    struct metric_set *, char **cause);
/* A comma-separated list of metric names, as --metrics gives it: the set
 * "custom", each name checked (errors start "--metrics: "). */
int		 metric_set_parse_list(const char *spec, struct metric_set *,
		    char **cause);
/*
 * Returns 0; -1 when spec names no set (no such group, a bad name or
 * list); METRIC_SET_BROKEN when it names a file that cannot be read or
 * parsed (cause says which line).  spec is one of:
 *  - a group name: metrics/<spec>.txt, searched in $EWBENCH_METRICS_DIR,
 *    then EWB_PKGDATADIR "/metrics", then EWB_SRCDIR "/metrics" (both
 *    compile-time -D macros; either may be absent);
 *  - a path containing '/': that file, in the group format;
 *  - a comma-separated list of metric names ("dram__bytes_read.sum,...").
 * Names are checked for syntax and duplicates here, not against a chip
 * (counters_validate does that).
 */
#define METRIC_SET_BROKEN	(-2)
int		 metric_set_load(const char *spec, struct metric_set *,
		    char **cause);
void		 metric_set_free(struct metric_set *);
/* Index of metric (an entry's meaning) in the set, or -1. */
int		 metric_set_index(const struct metric_set *, const char *metric);
/* A deep copy of src into dst. */
void		 metric_set_copy(struct metric_set *dst,
		    const struct metric_set *src);
/*
 * Resolves the set for one chip: entry i is collected under its first
 * name known(ctx, name) accepts (collected[i]); an entry with none is
 * moved to left_out with the reason.  The remaining entries keep their
 * order.  Returns -1 with a cause when no entry is left.  Pure: the CUPTI
 * side is counters_resolve.
 */
int		 metric_set_resolve(struct metric_set *, const char *chip,
		    bool (*known)(void *ctx, const char *name), void *ctx,
		    char **cause);
/* dst: every name of src's entries as an entry of its own. */
void		 metric_set_flatten(struct metric_set *dst,
		    const struct metric_set *src);
/* The name CUPTI is asked for: collected[i] once resolved, else
 * metrics[i]. */
const char	*metric_set_cupti_name(const struct metric_set *, size_t i);
/* Group names found in the search path, sorted, each once (unreadable
 * directories are skipped).  Free each name and the array. */
void		 metric_set_groups(char ***names, size_t *count);
/* The directories searched, in order, for messages: "a, b, c". */
char		*metric_set_search_path(void);

/* counters-derive.c **********************************************************/

/*
 * The unit column of metrics.csv for a metric: "%", "byte", "ns", "Hz",
 * "byte/s", "inst", "inst/cycle", "sector", "request", "cycle", "warp",
 * "block", "ratio", ...  Taken from the name (suffix and counter words, see
 * counters-derive.c); cupti_dim, the dimension CUPTI reports for the
 * metric ("byte", "l2_sector", ...; may be NULL), is used only when the
 * name says nothing.  Returns "" when neither does.  Pure.
 */
const char	*metric_unit(const char *metric, const char *cupti_dim);
/* CUPTI's dimension strings in the same vocabulary, or NULL when unknown. */
const char	*metric_unit_of_dim(const char *cupti_dim);

/* Derived rows: metrics/derived.def, computed here, read again by the
 * analysis. */
struct derived_metric {
	const char	*name;		/* "derived__dram_bandwidth" */
	const char	*unit;		/* metrics.csv `unit` */
	const char	*formula;	/* formula.h's grammar */
};
extern const struct derived_metric	derived_metrics[];
extern const size_t			derived_count;
/*
 * Fills out[derived_count] from the values of a set (values[i] belongs to
 * set->metrics[i]; NaN is "not measured"), the point's algorithmic bytes
 * (bytes_moved) and bytes read (n * read_bytes); pass NaN for an unknown
 * byte count.  A derived value whose inputs are absent, NaN or a zero
 * divisor is NaN (the row is not written).  Returns how many are not NaN.
 */
int		 counters_derive(const struct metric_set *, const double *values,
		    double bytes_moved, double read_bytes, double *out);

/* counters.c *****************************************************************/

/* The unknown metric names a message lists, and suggests a close name for
 * (each suggestion searches every metric of the chip): the rest are
 * counted ("and 5995 more"), so that 6000 wrong names are one line and a
 * fraction of a second, not 700 KB and minutes. */
#define METRICS_SHOWN	5

/* What CUPTI's host API says about one metric for a chip. */
struct metric_info {
	bool	 valid;
	char	*description;	/* NULL when !valid */
	char	*dim_unit;	/* CUPTI's dimension: "byte", "percent", ... */
	char	*hw_unit;	/* "dram", "lts", "sm", ... */
	const char *type;	/* "counter", "ratio" or "throughput" */
	char	*suggestion;	/* for !valid: a close valid name, or NULL
				   (looked for for the first METRICS_SHOWN
				   unknown names only) */
};

/*
 * Offline, no GPU: initialises the CUPTI profiler host API for `chip`
 * ("GH100"), fills info[set->count], and when every metric is valid sets
 * *passes to the pass count of the whole set (else 0).  Returns -1 only
 * when CUPTI itself fails (an unknown chip: cause lists the known ones).
 */
int		 counters_inspect(const char *chip, const struct metric_set *,
		    struct metric_info *info, int *passes, char **cause);
void		 metric_info_free(struct metric_info *, size_t count);
/*
 * Offline validation.  Returns 0 with *passes set when every metric is
 * valid for chip.  Otherwise returns -1: with unknown metrics, *bad holds
 * one string per unknown metric ("name" or "name (did you mean x?)"),
 * *nbad their count and cause a one-line summary naming them; on other
 * errors *nbad is 0.  Free each bad string and the array.
 */
int		 counters_validate(const char *chip, const struct metric_set *,
		    int *passes, char ***bad, size_t *nbad, char **cause);
/* metric_set_resolve with CUPTI's host API for chip (no GPU needed);
 * -1 with a cause when CUPTI fails or no entry is left. */
int		 counters_resolve(const char *chip, struct metric_set *,
		    char **cause);
/* 0 when CUPTI's host API can open chip (no GPU needed), else -1 with
 * CUPTI's cause (some chips it lists, it cannot profile). */
int		 counters_chip_usable(const char *chip, char **cause);
/* Every chip CUPTI's host API knows, in its order (newest last); NULL and
 * 0 when it cannot tell.  Free each name and the array. */
void		 counters_chips(char ***chips, size_t *count);
/* Before any GPU work: 0 when each name of each entry of set is known on
 * some chip CUPTI knows (or CUPTI cannot tell here), else -1 with a cause
 * naming the unknown ones and a close valid name. */
int		 counters_check_names(const struct metric_set *, char **cause);
/* 0 when the CUPTI host API knows chip (exact spelling, "GH100");
 * else -1 with a cause listing the chips it knows.  No GPU needed. */
int		 counters_chip_check(const char *chip, char **cause);
/* The CUPTI chip name of a CUDA device ("GH100"); -1 with a cause when
 * there is no usable device or CUPTI cannot be used. */
int		 counters_device_chip(int cuda_device, char **chip, char **cause);

/*
 * counters_open prepares collection of `set` on a CUDA device (made
 * current; the primary context is used): refuses when another CUPTI client
 * is attached (CUDA_INJECTION64_PATH set), checks device support (the
 * cause names the failing condition and the fix), resolves the set for
 * the device's chip unless it is resolved (metric_set_resolve: entries the
 * chip has no name for leave it, with their reason), builds the config
 * image and counts passes.  Values come back in the resolved set's order.
 * The set may be freed after this call.  Every CUPTI
 * failure message names the function, CUPTI's result name and number,
 * and a fix where one is known (permissions, MIG, vGPU, ...).
 *
 * counters_measure profiles npoints points in one session (AutoRange:
 * every kernel is a range; with EWBENCH_CUPTI_RANGE=user, what
 * counters_range_begin and _end enclose).  issue(ctx, i) launches point
 * i's kernels — ranges[i] of them, for example an L2 flush or a warm-up
 * launch and then the measured one, which is the last — and returns 0, or
 * -1 to abandon the collection.  With user replay (the default) ewbench issues the whole
 * sequence once per pass itself: no device memory is saved or restored,
 * so a warm point stays warm in every pass and each kernel must be safe
 * to run again as it is (ewbench's are: add and relu write a separate
 * output, abs is idempotent).  EWBENCH_CUPTI_REPLAY=kernel asks for
 * CUPTI's kernel replay instead (memory saved and restored around each
 * pass).  Values come back in values[i * set count + m]; NaN where CUPTI
 * gave none.  The decoded ranges must number exactly the sum of ranges[]
 * (with one point: its values are the last range's), except with user
 * ranges, where each point's range is also found by its name (one range
 * a point, whatever else was decoded).  Dropped or missing ranges are
 * re-collected up to 3 times before failing.  At most
 * counters_max_ranges() ranges fit in one call.
 *
 * By default one range profiler object is kept and SetConfig is called
 * again for each measurement (measured on an H200: half the time of fresh
 * objects, the same counts).  EWBENCH_CUPTI_REUSE=0 asks for a fresh
 * object (Enable, SetConfig, Start/Stop, Decode, Disable) per measurement;
 * any failure on a reused object switches to fresh objects for the rest
 * of the run (counters_mode says which).
 */
struct counters;
int		 counters_open(struct counters **, int cuda_device,
		    struct metric_set *, char **cause);
int		 counters_measure(struct counters *, size_t npoints,
		    const unsigned *ranges, int (*issue)(void *ctx, size_t point),
		    void *ctx, double *values, char **cause);
size_t		 counters_max_ranges(void);
/* Wall time of the counters so far, in seconds, by phase. */
struct counters_wall {
	double	 open;		/* counters_open: CUPTI, host object, config */
	double	 config;	/* per session: image initialise, SetConfig */
	double	 passes;	/* Start, the launches, Stop, every pass */
	double	 decode;	/* DecodeData, GetCounterDataInfo */
	double	 evaluate;	/* EvaluateToGpuValues, every range measured */
	size_t	 sessions;
	size_t	 ranges;	/* kernels profiled, each once per pass */
};
const struct counters_wall *counters_wall(const struct counters *);
/* "user" or "kernel": how passes are replayed. */
const char	*counters_replay(const struct counters *);
/* "auto" (every kernel a range) or "user" (EWBENCH_CUPTI_RANGE=user: only
 * what counters_range_begin and _end enclose, one range a point). */
const char	*counters_range(const struct counters *);
bool		 counters_user_ranges(const struct counters *);
/* Around a point's measured launch, inside issue(): push and pop its
 * range in user-range mode, named "<name>#<point>" (the point being
 * issued); nothing otherwise. */
int		 counters_range_begin(struct counters *, const char *name,
		    char **cause);
int		 counters_range_end(struct counters *, char **cause);
void		 counters_close(struct counters *);
/* Gives the range profiler object back until the next measurement: while
 * one is enabled, CUPTI's activity records carry no timestamps, and the
 * points are timed from those. */
void		 counters_pause(struct counters *);
int		 counters_passes(const struct counters *);
const char	*counters_chip(const struct counters *);
/* metric_unit() of metric i, with CUPTI's dimension for the chip. */
const char	*counters_unit(const struct counters *, size_t i);
/* "fresh", "reuse", or "reuse-fallback" once reuse has failed. */
const char	*counters_mode(const struct counters *);
/* CUPTI's run-time API version (130001 for CUDA 13.0); 0 if unknown. */
unsigned	 counters_cupti_version(void);

/* "fn: CUPTI_ERROR_NAME (code): fix" for a CUptiResult, with the fix where
 * one is known (permissions, another profiler, MIG, vGPU, ...); also used
 * by trace.c.  cupti_check returns 0 on CUPTI_SUCCESS, else -1 with it. */
char		*cupti_error(const char *fn, int rc);
int		 cupti_check(int rc, const char *fn, char **cause);

#endif

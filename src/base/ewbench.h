/*
 * ewbench.h - the one internal header of the ewbench host program.
 *
 * Prototypes are grouped by the file that defines them.  Conventions:
 *  - functions that can fail return 0 on success and -1 on failure, and
 *    hand back a malloc'd message through `char **cause` (the caller prints
 *    it, or not);
 *  - x* allocators never return NULL (they exit with EWB_EXIT_ERROR);
 *  - only main.c and the command functions decide exit codes.
 */
#ifndef EWBENCH_H
#define EWBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "kernels/registry.h"

/* Exit codes, documented in --help and README. */
enum ewb_exit {
	EWB_EXIT_OK = 0,
	EWB_EXIT_ERROR = 1,	/* CUDA, I/O or internal failure */
	EWB_EXIT_USAGE = 2,	/* bad command line: option, variant, size */
	EWB_EXIT_CHECK = 3,	/* a variant produced a wrong result */
	EWB_EXIT_NOMEM = 4,	/* a size does not fit in free GPU memory */
	EWB_EXIT_NODEV = 5,	/* no usable CUDA device or driver */
	/* 6: compare --fail-on-slower (python/ewbench/analysis/cli.py) */
	EWB_EXIT_INTERRUPTED = 130	/* SIGINT/SIGTERM: output kept, complete rows */
};

#define EWB_SCHEMA_VERSION 2

/* util.c */
void		*xmalloc(size_t);
void		*xcalloc(size_t, size_t);
void		*xrealloc(void *, size_t);
char		*xstrdup(const char *);
/* xstrdup, or NULL for NULL. */
char		*dup_or_null(const char *);
char		*xasprintf(const char *, ...)
		    __attribute__((format(printf, 1, 2)));
/* Frees the COUNT strings of LIST, then LIST. */
void		 strings_free(char **list, size_t count);
/* Says "ewbench: CAUSE" on standard error and frees CAUSE. */
void		 say_cause(char *cause);
/* A word of a fixed set and its value; a list of them ends with a NULL
 * name. */
struct choice {
	const char	*name;
	int		 value;
};
/* *value for the choice TEXT names, or -1 with *cause: "WHAT: 'TEXT' is
 * not a, b or c". */
int		 choice_parse(const char *text, const char *what,
		    const struct choice *choices, int *value, char **cause);
/* A value from the command line or a file, for a message on a terminal:
 * printable ASCII as it is, every other byte as \xNN (no escape sequence,
 * no newline), at most `most` bytes of it, then how long it was.  The
 * result lives until SHOWN_SLOTS more calls (no free). */
#define SHOWN_MOST	80
#define SHOWN_SLOTS	4
const char	*shown(const char *text, size_t most);
void		 fatalx(const char *, ...)
		    __attribute__((format(printf, 1, 2), noreturn));
/* The first SIGINT/SIGTERM sets a flag instead of ending the process, so a
 * measuring command can finish its point and leave complete rows and a
 * manifest; a second one ends the process at once. */
void		 interrupt_catch(void);
bool		 interrupt_pending(void);
/* The whole of a file the user names (a kernel, a cache entry, a metric
 * group), NUL-terminated: refused without blocking unless it is a regular
 * file, and when it is longer than max_bytes; -1 with a cause that names
 * path. */
int		 read_user_file(const char *path, size_t max_bytes, char **text,
		    size_t *len, char **cause);
/* read_user_file, and the file's st_dev and st_ino into *id (where not
 * NULL); on -1, errno says why: the open's own (ENOENT: no such file),
 * EINVAL not a regular file, EFBIG longer than max_bytes. */
struct stat;
int		 read_user_file_id(const char *path, size_t max_bytes,
		    char **text, size_t *len, struct stat *id, char **cause);
/* mkdir -p: dir (not empty) and its parents, each one made with mode
 * (before the umask).  *top, where top is not NULL, is the first
 * (outermost) directory made, malloc'd, or NULL.  -1 with errno set when
 * one cannot be made; *failed, where not NULL, is then that directory,
 * malloc'd.  What was made stays: the caller decides. */
int		 make_dirs(const char *dir, mode_t mode, char **top,
		    char **failed);
/* ewbench's private cache directory ($XDG_CACHE_HOME/ewbench, else
 * ~/.cache/ewbench), made (0700) or found, and used only when it is a
 * directory of this user's that no one else may write to (as OpenSSH
 * treats ~/.ssh): what another user planted is never read.  Malloc'd; NULL
 * with *why ("DIR: the reason", malloc'd) when it may not be used, or with
 * *why NULL when neither variable names a home for it. */
char		*private_cache_dir(char **why);
/* Appends item to a malloc'd list (*list NULL: empty), after sep. */
void		 list_append(char **list, const char *sep, const char *item);
/* CLOCK_MONOTONIC in seconds, for wall-time breakdowns and progress. */
double		 monotonic_seconds(void);
/* %.17g in the C locale whatever the process locale; 32 bytes suffice. */
void		 format_f64(double, char *buf, size_t len);

/* sizes.c: element counts such as "1M" (10^6), "16Mi" (2^24), "2^24",
 * "268435456", "1Mi,16Mi" (lists).  Suffixes: K M G T (decimal), Ki Mi Gi
 * Ti (binary), case-sensitive; 0 and overflow are refused. */
int		 sizes_parse(const char *text, uint64_t **sizes, size_t *count,
		    char **cause);
int		 size_parse_one(const char *text, uint64_t *n, char **cause);
/* Shortest exact spelling of n: "256Mi", "1M", "1000003". */
void		 size_format(uint64_t n, char *buf, size_t len);
/* A point's block for people: "256", or "auto" for 0 (a library such as
 * cub chooses its own).  buf holds at least 16 bytes. */
const char	*block_text(unsigned block, char *buf);
/* "32,64,128": whole numbers from min to max, comma separated, no empty
 * item; a repeat is kept once, at its first place.  what names the option
 * in messages ("--block"). */
int		 uint_list_parse(const char *text, const char *what,
		    unsigned min, unsigned max, unsigned **values,
		    size_t *count, char **cause);
/* Sorts ascending and drops repeats, in place. */
void		 sizes_sort_unique(uint64_t *sizes, size_t *count);
/* Bytes for humans: "12.0 MiB". */
void		 bytes_format(double bytes, char *buf, size_t len);

/* match.c: variant selection by comma-separated ids or globs. */
/* The registry-free core of variants_select: selected[] (n entries) is
 * cleared, then set where ids[i] matches a pattern ("all" matches all);
 * an id whose named_only[i] is true (named_only may be NULL: none) only
 * where a pattern is that id itself. */
int		 ids_select(const char *patterns, const char *const *ids,
		    const bool *named_only, size_t n, bool *selected,
		    char **cause);
/* Edit distance, for suggestions. */
size_t		 edit_distance(const char *, const char *);

/* select.c (links the registry, so not in libewb.a): ids_select over
 * ewb_variants[], the experiments' probes by name only (probe.def).  Sets
 * selected[i] for each matching registry row; returns
 * -1 with a cause naming the first pattern that matched nothing and its
 * closest ids. */
int		 variants_select(const char *patterns, bool *selected,
		    char **cause);
/* An experiments' probe (probe.def): run only where named, never through
 * a pattern, a default or --kernel's family. */
bool		 variant_named_only(const struct ewb_variant *);
/* Bytes one element adds to a variant's footprint (add f32: 12): each
 * operand array once (in place: one array). */
unsigned	 variant_footprint_per_element(const struct ewb_variant *);

/* stats.c */
struct stats {
	size_t	 count;
	double	 min, max, mean, median, stddev;	/* stddev: sample (n-1) */
	double	 q1, q3;		/* quartiles: q3 - q1 is the IQR */
	double	 ci_low, ci_high;	/* STATS_CI_PCT confidence interval
					   of the median */
	bool	 step_limited;		/* stats_compute_steps: the interval
					   is one whole step (see there) */
};
/* The median's interval is distribution-free: the order statistics at
 * ranks n/2 -+ z sqrt(n)/2 (the binomial's normal approximation).  Below
 * STATS_CI_MIN samples it is [min, max]. */
#define STATS_CI_PCT	95
#define STATS_CI_Z	1.959963984540054
#define STATS_CI_MIN	6
void		 stats_compute(const double *values, size_t count,
		    struct stats *out);
/*
 * The same for samples that come in steps of `step` (kernel timestamps:
 * 32 ns on an H100), each sample standing for any time within its step:
 * the quantiles are those of the grouped data, each step's samples spread
 * evenly across it, which is exact on average when the kernel's own jitter
 * spreads it over several steps.  When one step holds more than
 * STATS_STEP_LIMITED of the samples, the jitter cannot show where in that
 * step the median lies: the interval is then the whole step, and
 * step_limited is set (more samples would not narrow it).  min, max,
 * mean and stddev are those of the samples as given; step 0 is
 * stats_compute.
 */
#define STATS_STEP_LIMITED	0.8
void		 stats_compute_steps(const double *values, size_t count,
		    double step, struct stats *out);
/* The larger side of the median's interval in % of the median. */
double		 stats_ci_pct(const struct stats *);

/* sampling.c: when to stop timing a point.  Samples are taken in rounds;
 * after each the rule says whether the median is known well enough. */
struct sampling_rule {
	unsigned	 min_samples;	/* never fewer */
	double		 min_gpu_s;	/* nor less GPU time in the samples */
	double		 target_pct;	/* stop: CI half-width <= this % */
	unsigned	 max_samples;	/* stop: cap */
	double		 max_wall_s;	/* stop: wall time spent sampling */
};
enum sampling_state {
	SAMPLING_MORE,		/* go on */
	SAMPLING_CI,		/* stopped: the interval is tight */
	SAMPLING_STEP,		/* stopped: the interval is one timer step */
	SAMPLING_CAP,		/* stopped: max_samples reached */
	SAMPLING_TIME		/* stopped: max_wall_s spent */
};
/* The state after samples summed in *st (gpu_s: their GPU time; wall_s:
 * the wall time sampling took so far). */
enum sampling_state sampling_decide(const struct sampling_rule *,
		    const struct stats *st, double gpu_s, double wall_s);
/* How many samples the next round should take: enough to reach the
 * target at the present scatter (the interval narrows as 1/sqrt(n)) and
 * min_gpu_s at the mean so far (gpu_s: the samples' GPU time), at least
 * min_samples in all, within the cap and the wall time left at sample_s
 * of wall time a sample. */
unsigned	 sampling_next(const struct sampling_rule *,
		    const struct stats *st, double gpu_s, double sample_s,
		    double wall_s);
/* "ci", "step", "cap", "time" ("" for SAMPLING_MORE). */
const char	*sampling_name(enum sampling_state);

/* half.c: IEEE binary16 on the host, round to nearest even. */
uint16_t	 half_from_float(float);
float		 half_to_float(uint16_t);
/* The same over arrays, fast enough for every element of a big buffer. */
void		 halves_from_floats(const float *, uint16_t *, size_t);
void		 halves_to_floats(const uint16_t *, float *, size_t);
/* bfloat16 (fp32's top 16 bits) on the host: exact widening, and
 * rounding to nearest even. */
float		 bf16_to_float(uint16_t);
uint16_t	 bf16_from_float(float);
/* Element i of an array of dtype, widened to float. */
float		 element_to_float(const void *array, enum ewb_dtype, size_t i);

/* parallel.c: body(ctx, start, count) over [0, n) in contiguous slices,
 * one per host core (EWBENCH_THREADS overrides), each a multiple of grain
 * elements but the last; returns when all are done.  Small n runs on the
 * calling thread. */
void		 parallel_for(size_t n, size_t grain,
		    void (*body)(void *ctx, size_t start, size_t count),
		    void *ctx);
unsigned	 parallel_threads(void);

/* fill.c: reproducible random inputs.  Values are finite, non-zero,
 * of both signs, in [-range, range], and representable in the dtype. */
uint64_t	 fill_seed(uint64_t seed, uint64_t stream);
void		 fill_random(void *buf, enum ewb_dtype, size_t n, uint64_t seed);
/* Elements [start, start + count) of that buffer into buf[0, count);
 * start must be even (a draw yields two elements). */
void		 fill_random_range(void *buf, enum ewb_dtype, size_t start,
		    size_t count, uint64_t seed);

/* reference.c: CPU reference and comparison, every element. */
struct mismatch {
	size_t	 index;		/* first bad element */
	double	 got;
	double	 expected;
	size_t	 bad_count;	/* how many elements differ */
	int	 outside;	/* a user kernel wrote past its output's
				   end (1: index is n + k) or before its
				   start (-1: index is k elements before);
				   0: a wrong element inside */
	unsigned char poison;	/* outside: the byte the guards held */
};
/* Returns 0 when all n elements of `got` equal the reference computed from
 * a and b (a only for unary ops; for in-place ops `a` is the input before
 * the kernel).  fp16 is rounded exactly as the GPU rounds.  NaN never
 * matches.  On mismatch returns -1 and fills *bad. */
int		 reference_check(const struct ewb_variant *, const void *a,
		    const void *b, const void *got, size_t n,
		    struct mismatch *bad);
/* The expected output of op over n elements of a (and b for add), in the
 * dtype, exactly as reference_check computes it; uses every host core. */
void		 reference_compute(enum ewb_op, enum ewb_dtype, const void *a,
		    const void *b, void *out, size_t n);
/* The same for the inputs fill_random(seed_a) and fill_random(seed_b)
 * would make, generated chunk by chunk and never stored whole. */
void		 reference_generate(enum ewb_op, enum ewb_dtype, size_t n,
		    uint64_t seed_a, uint64_t seed_b, void *out);

/* sha256.c: SHA-256, as `sha256sum` prints it (64 hex digits). */
#define SHA256_HEX	65
struct sha256 {
	uint32_t	 h[8];
	uint64_t	 length;	/* bytes so far */
	unsigned char	 block[64];
};
void		 sha256_init(struct sha256 *);
void		 sha256_update(struct sha256 *, const void *, size_t);
void		 sha256_hex(struct sha256 *, char hex[SHA256_HEX]);

/* csv.c: RFC 4180 rows, '.' decimals, full precision, no locale.
 * A row is built in memory and written with one write(2) on an O_APPEND
 * descriptor, so an interrupted run leaves complete rows only. */
struct csv;
struct csv	*csv_open(const char *path, const char *const *header,
		    size_t columns, char **cause);
void		 csv_str(struct csv *, const char *);
void		 csv_u64(struct csv *, uint64_t);
void		 csv_i64(struct csv *, int64_t);
void		 csv_f64(struct csv *, double);		/* %.17g; NaN -> empty */
void		 csv_empty(struct csv *);
int		 csv_end_row(struct csv *, char **cause);	/* checks column count */
int		 csv_close(struct csv *, char **cause);

/* json.c: a small JSON writer into a growing buffer. */
struct json;
struct json	*json_new(void);
void		 json_begin_object(struct json *, const char *key);
void		 json_end_object(struct json *);
void		 json_begin_array(struct json *, const char *key);
void		 json_end_array(struct json *);
void		 json_str(struct json *, const char *key,
		    const char *value);	/* NULL -> null */
void		 json_u64(struct json *, const char *key, uint64_t);
void		 json_i64(struct json *, const char *key, int64_t);
void		 json_f64(struct json *, const char *key, double);  /* NaN -> null */
void		 json_bool(struct json *, const char *key, bool);
void		 json_null(struct json *, const char *key);
const char	*json_text(struct json *);	/* NUL-terminated, valid once all
						   containers are closed */
void		 json_free(struct json *);
/* Write path atomically: a temporary file in the same directory, fsync,
 * rename.  Readers see the old or the new file, never a mix. */
int		 file_write_atomic(const char *path, const char *data,
		    size_t len, char **cause);
/* The same with the file's mode (before the umask); the above's is 0666. */
int		 file_write_atomic_mode(const char *path, const char *data,
		    size_t len, mode_t mode, char **cause);

#endif

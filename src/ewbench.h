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

#include "kernels/registry.h"

/* Exit codes, documented in --help and README. */
enum ewb_exit {
	EWB_EXIT_OK = 0,
	EWB_EXIT_ERROR = 1,	/* CUDA, I/O or internal failure */
	EWB_EXIT_USAGE = 2,	/* bad command line: option, variant, size */
	EWB_EXIT_CHECK = 3,	/* a variant produced a wrong result */
	EWB_EXIT_NOMEM = 4,	/* a size does not fit in free GPU memory */
	EWB_EXIT_NODEV = 5,	/* no usable CUDA device or driver */
	EWB_EXIT_INTERRUPTED = 130	/* SIGINT/SIGTERM: output kept, complete rows */
};

#define EWB_SCHEMA_VERSION 1

/* util.c */
void		*xmalloc(size_t);
void		*xcalloc(size_t, size_t);
void		*xrealloc(void *, size_t);
char		*xstrdup(const char *);
char		*xasprintf(const char *, ...)
		    __attribute__((format(printf, 1, 2)));
void		 fatalx(const char *, ...)
		    __attribute__((format(printf, 1, 2), noreturn));
/* The first SIGINT/SIGTERM sets a flag instead of ending the process, so a
 * measuring command can finish its point and leave complete rows and a
 * manifest; a second one ends the process at once. */
void		 interrupt_catch(void);
bool		 interrupt_pending(void);
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
 * cleared, then set where ids[i] matches a pattern ("all" matches all). */
int		 ids_select(const char *patterns, const char *const *ids,
		    size_t n, bool *selected, char **cause);
/* Edit distance, for suggestions. */
size_t		 edit_distance(const char *, const char *);

/* select.c (links the registry, so not in libewb.a): ids_select over
 * ewb_variants[].  Sets selected[i] for each matching registry row; returns
 * -1 with a cause naming the first pattern that matched nothing and its
 * closest ids. */
int		 variants_select(const char *patterns, bool *selected,
		    char **cause);

/* stats.c */
struct stats {
	size_t	 count;
	double	 min, max, mean, median, stddev;	/* stddev: sample (n-1) */
};
void		 stats_compute(const double *values, size_t count,
		    struct stats *out);

/* half.c: IEEE binary16 on the host, round to nearest even. */
uint16_t	 half_from_float(float);
float		 half_to_float(uint16_t);
/* The same over arrays, fast enough for every element of a big buffer. */
void		 halves_from_floats(const float *, uint16_t *, size_t);
void		 halves_to_floats(const uint16_t *, float *, size_t);

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
void		 json_str(struct json *, const char *key, const char *value);
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

#endif

/*
 * output.c - writes a run directory (docs/data-format.md).
 *
 * CSV rows go out one complete line at a time (csv.c), so an interrupted
 * run always leaves complete rows; run.json is manifest.c's, the
 * directory's claim claim.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "run/energy.h"
#include "run/output.h"
#include "device/placement.h"
#include "run/sass.h"

/* Header rows from columns.def: the key, then each file's own columns. */
#define NAME(name, ...)		#name,
static const char *const timing_header[] = {
#define KEY		NAME
#define TIMING		NAME
#include "run/columns.def"
};

static const char *const metrics_header[] = {
#define KEY		NAME
#define METRICS		NAME
#include "run/columns.def"
};

static const char *const sass_header[] = {
#define SASS		NAME
#include "run/columns.def"
};

static const char *const energy_header[] = {
#define KEY		NAME
#define ENERGY		NAME
#include "run/columns.def"
};

#define COUNT(a) (sizeof (a) / sizeof (a)[0])

const char *
cache_name(enum cache_mode c)
{
	return c == CACHE_COLD ? "cold" : "warm";
}

uint64_t
point_bytes_moved(const struct point *p)
{
	return p->n * (uint64_t)(p->v->read_bytes + p->v->write_bytes);
}

uint64_t
point_footprint(const struct point *p)
{
	return p->n * variant_footprint_per_element(p->v);
}

static struct csv *
open_in(const char *dir, const char *name, const char *const *header,
    size_t columns, char **cause)
{
	char		*path = xasprintf("%s/%s", dir, name);
	struct csv	*csv = csv_open(path, header, columns, cause);

	free(path);
	return csv;
}

struct csv *
timing_csv_open(const char *dir, char **cause)
{
	return open_in(dir, "timing.csv", timing_header, COUNT(timing_header),
	    cause);
}

struct csv *
metrics_csv_open(const char *dir, char **cause)
{
	return open_in(dir, "metrics.csv", metrics_header,
	    COUNT(metrics_header), cause);
}

struct csv *
energy_csv_open(const char *dir, char **cause)
{
	return open_in(dir, "energy.csv", energy_header, COUNT(energy_header),
	    cause);
}

/* The key columns every file starts with. */
static void
point_keys(struct csv *csv, const char *run_id, const struct point *p)
{
	csv_str(csv, run_id);
	csv_str(csv, p->v->id);
	csv_str(csv, ewb_op_name(p->v->op));
	csv_str(csv, ewb_dtype_name(p->v->dtype));
	csv_u64(csv, p->n);
	if (p->block != 0)
		csv_u64(csv, p->block);
	else
		csv_empty(csv);
	csv_str(csv, cache_name(p->cache));
	csv_str(csv, p->launch);
}

/* An interval's median and CI half-width; NaN (empty fields) when not
 * measured. */
static void
csv_interval(struct csv *csv, const struct interval *v)
{
	csv_f64(csv, v->median_ns);
	csv_f64(csv, v->ci_ns);
}

int
timing_csv_row(struct csv *csv, const char *run_id, const struct point *p,
    const struct timed *t, double spec_bandwidth, bool check_passed,
    char **cause)
{
	const struct stats *s = &t->st;
	double	moved = (double)point_bytes_moved(p);
	double	bw = moved / (s->median * 1e-9);
	char	throttle[96];

	point_keys(csv, run_id, p);
	if (p->grid != 0)
		csv_u64(csv, p->grid);
	else
		csv_empty(csv);
	csv_u64(csv, point_footprint(p));
	csv_u64(csv, point_bytes_moved(p));
	csv_u64(csv, p->n * p->v->flops);
	csv_u64(csv, t->launches);
	csv_f64(csv, s->median);
	csv_f64(csv, s->min);
	csv_f64(csv, s->max);
	csv_f64(csv, s->mean);
	csv_f64(csv, s->stddev);
	csv_f64(csv, t->activity_median_ns);
	csv_f64(csv, bw);
	csv_f64(csv, moved / (s->min * 1e-9));
	csv_f64(csv, spec_bandwidth > 0 ? 100.0 * bw / spec_bandwidth : NAN);
	csv_str(csv, check_passed ? "pass" : "fail");
	csv_str(csv, t->source);
	csv_f64(csv, s->ci_low);
	csv_f64(csv, s->ci_high);
	csv_f64(csv, s->q3 - s->q1);
	csv_str(csv, t->stop);
	gpu_throttle_names(t->throttle, throttle, sizeof throttle);
	csv_str(csv, throttle);
	csv_interval(csv, &t->interval);
	csv_interval(csv, &t->queued);
	csv_interval(csv, &t->graph);
	csv_f64(csv, t->batch_ns);
	csv_f64(csv, t->sm_clock_min_mhz);
	csv_f64(csv, t->memory_clock_min_mhz);
	csv_f64(csv, t->crosscheck_ns);
	return csv_end_row(csv, cause);
}

int
sass_csv_write(const char *dir, const char *run_id,
    const struct sass_row *const *rows, size_t count, char **cause)
{
	struct csv	*csv;
	size_t		 i;

	if ((csv = open_in(dir, "sass.csv", sass_header, COUNT(sass_header),
	    cause)) == NULL)
		return -1;
	for (i = 0; i < count; i++) {
		csv_str(csv, run_id);
		csv_str(csv, rows[i]->variant);
		csv_str(csv, rows[i]->arch);
		csv_str(csv, rows[i]->kind);
		csv_str(csv, rows[i]->instruction);
		if (rows[i]->bits != 0)
			csv_u64(csv, rows[i]->bits);
		else
			csv_empty(csv);
		csv_u64(csv, rows[i]->count);
		if (csv_end_row(csv, cause) != 0) {
			csv_close(csv, NULL);
			return -1;
		}
	}
	return csv_close(csv, cause);
}

int
metrics_csv_row(struct csv *csv, const char *run_id, const struct point *p,
    const char *metric, double value, const char *unit, const char *source,
    char **cause)
{
	point_keys(csv, run_id, p);
	csv_str(csv, metric);
	csv_f64(csv, value);
	csv_str(csv, unit);
	csv_str(csv, source);
	return csv_end_row(csv, cause);
}

int
energy_csv_row(struct csv *csv, const char *run_id, const struct point *p,
    unsigned window, const struct energy_window *idle,
    const struct energy_window *busy, unsigned per_replay, char **cause)
{
	struct energy_result	r;
	char			throttle[96];

	energy_result(busy, idle, point_bytes_moved(p), &r);
	point_keys(csv, run_id, p);
	csv_u64(csv, window);
	if (p->grid != 0)
		csv_u64(csv, p->grid);
	else
		csv_empty(csv);
	csv_u64(csv, point_bytes_moved(p));
	csv_u64(csv, per_replay);
	csv_f64(csv, busy->launches);
	csv_f64(csv, busy->seconds);
	csv_u64(csv, busy->energy_mj);
	csv_f64(csv, idle->seconds);
	csv_u64(csv, idle->energy_mj);
	csv_f64(csv, r.board_w);
	csv_f64(csv, r.idle_w);
	csv_f64(csv, r.net_w);
	csv_f64(csv, r.pj_per_byte);
	csv_f64(csv, r.bandwidth);
	csv_u64(csv, busy->updates);
	csv_u64(csv, idle->updates);
	csv_u64(csv, busy->drained);
	csv_f64(csv, busy->sm_clock_min_mhz);
	csv_f64(csv, busy->memory_clock_min_mhz);
	csv_f64(csv, busy->temperature_max_c);
	gpu_throttle_names(busy->throttle, throttle, sizeof throttle);
	csv_str(csv, throttle);
	csv_f64(csv, busy->power_limit_w);
	csv_f64(csv, idle->sm_clock_min_mhz);
	csv_f64(csv, idle->temperature_max_c);
	return csv_end_row(csv, cause);
}


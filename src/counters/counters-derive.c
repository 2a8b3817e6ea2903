/*
 * counters-derive.c - what the counters' rows say beyond their values,
 * without a GPU or CUPTI: the unit strings of the metrics.csv `unit`
 * column and the derived rows (metrics/derived.def).  See counters.h.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"
#include "counters/counters.h"
#include "counters/formula.h"

/* Units **********************************************************************/

/* Rows ewbench writes from the occupancy API: fixed units (derived rows
 * carry theirs in derived.def). */
static const struct {
	const char	*metric;
	const char	*unit;
} fixed_units[] = {
	{ "launch__registers_per_thread",	"register" },
	{ "sm__maximum_warps_per_active_cycle_pct", "%" },
};

/*
 * What a counter counts, from the words of its name (the part before the
 * first '.', after "__", split at '_'), in this order of priority, with
 * the unit of its rate per second and per cycle.  "warps_active" and the
 * warp stall counters accumulate warps every cycle: per cycle they are
 * warps, not warps per cycle.
 */
static const struct {
	const char	*word;
	const char	*unit;
	const char	*per_second;
	const char	*per_cycle;
} counter_units[] = {
	{ "bytes",	"byte",		"byte/s",	"byte/cycle" },
	{ "byte",	"byte",		"byte/s",	"byte/cycle" },
	{ "inst",	"inst",		"inst/s",	"inst/cycle" },
	{ "sectors",	"sector",	"sector/s",	"sector/cycle" },
	{ "sector",	"sector",	"sector/s",	"sector/cycle" },
	{ "requests",	"request",	"request/s",	"request/cycle" },
	{ "request",	"request",	"request/s",	"request/cycle" },
	{ "cycles",	"cycle",	"Hz",		"ratio" },
	{ "ctas",	"block",	"block/s",	"block/cycle" },
	{ "warps",	"warp",		"warp/s",	"warp/cycle" },
	{ "threads",	"thread",	"thread/s",	"thread/cycle" },
};

/* CUPTI dimension strings (cuptiProfilerHostGetMetricProperties). */
static const struct {
	const char	*dim;
	const char	*unit;
} dim_units[] = {
	{ "nanosecond",			"ns" },
	{ "byte",			"byte" },
	{ "byte/second",		"byte/s" },
	{ "percent",			"%" },
	{ "instruction",		"inst" },
	{ "instruction/second",		"inst/s" },
	{ "instruction/gpc_cycle",	"inst/cycle" },
	{ "l2_sector",			"sector" },
	{ "l1tex_request",		"request" },
	{ "gpc_cycle",			"cycle" },
	{ "dram_cycle",			"cycle" },
	{ "gpc_cycle/second",		"Hz" },
	{ "dram_cycle/second",		"Hz" },
	{ "warp",			"warp" },
	{ "cta",			"block" },
	{ "thread",			"thread" },
	{ "register",			"register" },
};

const char *
metric_unit_of_dim(const char *dim)
{
	size_t	i;

	if (dim == NULL)
		return NULL;
	for (i = 0; i < sizeof dim_units / sizeof dim_units[0]; i++) {
		if (strcmp(dim, dim_units[i].dim) == 0)
			return dim_units[i].unit;
	}
	return NULL;
}

/* Does the counter part of metric (up to the first '.') contain `word` as
 * a whole '_'-separated word? */
static bool
counter_has_word(const char *metric, const char *word)
{
	const char	*start, *end, *p;
	size_t		 len = strlen(word);

	if ((start = strstr(metric, "__")) == NULL)
		return false;
	start += 2;
	if ((end = strchr(start, '.')) == NULL)
		end = start + strlen(start);
	for (p = start; p + len <= end; p++) {
		if ((p == start || p[-1] == '_') && strncmp(p, word, len) == 0 &&
		    (p + len == end || p[len] == '_'))
			return true;
	}
	return false;
}

/* Is `sub` one of the '.'-separated parts after the counter? */
static bool
has_part(const char *metric, const char *sub)
{
	const char	*p = strchr(metric, '.');
	size_t		 len = strlen(sub);

	while (p != NULL) {
		p++;
		if (strncmp(p, sub, len) == 0 && (p[len] == '\0' || p[len] == '.'))
			return true;
		p = strchr(p, '.');
	}
	return false;
}

const char *
metric_unit(const char *metric, const char *cupti_dim)
{
	const char	*last, *unit;
	size_t		 i;
	bool		 per_cycle;

	for (i = 0; i < sizeof fixed_units / sizeof fixed_units[0]; i++) {
		if (strcmp(metric, fixed_units[i].metric) == 0)
			return fixed_units[i].unit;
	}
	for (i = 0; i < derived_count; i++) {
		if (strcmp(metric, derived_metrics[i].name) == 0)
			return derived_metrics[i].unit;
	}

	last = strrchr(metric, '.');
	last = last == NULL ? "" : last + 1;
	if (strcmp(last, "pct") == 0 || strncmp(last, "pct_of_peak", 11) == 0)
		return "%";
	if (strcmp(last, "ratio") == 0 || strcmp(last, "max_rate") == 0)
		return "ratio";
	if (counter_has_word(metric, "time") &&
	    counter_has_word(metric, "duration"))
		return "ns";

	per_cycle = has_part(metric, "per_cycle_active") ||
	    has_part(metric, "per_cycle_elapsed");
	/* Warps counted every cycle (occupancy, stall reasons). */
	if (counter_has_word(metric, "warps") &&
	    !counter_has_word(metric, "launched") && per_cycle)
		return "warp";
	for (i = 0; i < sizeof counter_units / sizeof counter_units[0]; i++) {
		if (!counter_has_word(metric, counter_units[i].word))
			continue;
		if (has_part(metric, "per_second"))
			return counter_units[i].per_second;
		if (per_cycle)
			return counter_units[i].per_cycle;
		return counter_units[i].unit;
	}

	if ((unit = metric_unit_of_dim(cupti_dim)) != NULL)
		return unit;
	return "";
}

/* Derived values *************************************************************/

const struct derived_metric derived_metrics[] = {
#define DERIVED(name, unit, formula, meaning)	{ #name, unit, formula },
#include "metrics/derived.def"
#undef DERIVED
};
const size_t derived_count = sizeof derived_metrics / sizeof derived_metrics[0];

struct derive_inputs {
	const struct metric_set	*set;
	const double		*values;
	double			 bytes_moved;
	double			 read_bytes;
};

/* A name in a formula: the point's byte counts, or a metric of the set
 * (NaN when absent). */
static double
derive_lookup(const char *name, size_t len, void *arg)
{
	const struct derive_inputs	*in = arg;
	size_t				 i;

	if (len == 11 && strncmp(name, "bytes_moved", len) == 0)
		return in->bytes_moved;
	if (len == 10 && strncmp(name, "read_bytes", len) == 0)
		return in->read_bytes;
	for (i = 0; i < in->set->count; i++) {
		if (strlen(in->set->metrics[i]) == len &&
		    strncmp(in->set->metrics[i], name, len) == 0)
			return in->values[i];
	}
	return NAN;
}

int
counters_derive(const struct metric_set *set, const double *values,
    double bytes_moved, double read_bytes, double *out)
{
	struct derive_inputs	 in = { set, values, bytes_moved, read_bytes };
	char			*cause;
	size_t			 i;
	int			 present = 0;

	for (i = 0; i < derived_count; i++) {
		/* tests/unit/test-derived parses every formula. */
		if (formula_eval(derived_metrics[i].formula, derive_lookup, &in,
		    &out[i], &cause) != 0)
			free(cause);
		present += !isnan(out[i]);
	}
	return present;
}

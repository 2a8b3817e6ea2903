/*
 * stats.c - summary statistics of timing samples.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ewbench.h"

static int
compare_doubles(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The q-quantile of sorted[0..n), interpolated between neighbours (the
 * definition numpy and R use by default). */
static double
quantile(const double *sorted, size_t n, double q)
{
	double	pos = q * (double)(n - 1), frac;
	size_t	lo = (size_t)floor(pos);

	if (lo + 1 >= n)
		return sorted[n - 1];
	frac = pos - (double)lo;
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

/*
 * The median's confidence interval from order statistics: the number of
 * samples below the true median is Binomial(n, 1/2), so the ranks
 * n/2 -+ z sqrt(n)/2 bracket it with the chosen confidence, whatever the
 * distribution of the samples (no normality assumed: one slow launch moves
 * the interval by at most one rank).  1-based ranks j and k, rounded
 * outwards.
 */
static void
median_interval(const double *sorted, size_t n, double *low, double *high)
{
	double	half = STATS_CI_Z * sqrt((double)n) / 2;
	double	j, k;

	if (n < STATS_CI_MIN) {
		*low = sorted[0];
		*high = sorted[n - 1];
		return;
	}
	j = floor((double)n / 2 - half);
	k = ceil((double)n / 2 + half + 1);
	if (j < 1)
		j = 1;
	if (k > (double)n)
		k = (double)n;
	*low = sorted[(size_t)j - 1];
	*high = sorted[(size_t)k - 1];
}

double
stats_ci_pct(const struct stats *s)
{
	double	half;

	if (!(s->median > 0) || isnan(s->ci_low) || isnan(s->ci_high))
		return NAN;
	half = fmax(s->median - s->ci_low, s->ci_high - s->median);
	return 100.0 * half / s->median;
}

/*
 * With no values every field is NaN; with one the standard deviation is NaN
 * (a sample of one says nothing about spread), which the writers turn into
 * an empty CSV field and a JSON null.
 */
void
stats_compute(const double *values, size_t count, struct stats *out)
{
	double	*sorted, sum = 0, squares = 0;
	size_t	 i;

	out->count = count;
	out->min = out->max = out->mean = out->median = out->stddev = NAN;
	out->q1 = out->q3 = out->ci_low = out->ci_high = NAN;
	if (count == 0)
		return;

	/* Sort a copy: the caller's samples keep their launch order. */
	sorted = xcalloc(count, sizeof *sorted);
	memcpy(sorted, values, count * sizeof *sorted);
	qsort(sorted, count, sizeof *sorted, compare_doubles);

	out->min = sorted[0];
	out->max = sorted[count - 1];
	if (count % 2 == 1)
		out->median = sorted[count / 2];
	else
		out->median = (sorted[count / 2 - 1] + sorted[count / 2]) / 2;

	out->q1 = quantile(sorted, count, 0.25);
	out->q3 = quantile(sorted, count, 0.75);
	median_interval(sorted, count, &out->ci_low, &out->ci_high);

	for (i = 0; i < count; i++)
		sum += sorted[i];
	out->mean = sum / (double)count;
	if (count > 1) {
		/* Two passes: no cancellation from sum of squares. */
		for (i = 0; i < count; i++)
			squares += (sorted[i] - out->mean) *
			    (sorted[i] - out->mean);
		out->stddev = sqrt(squares / (double)(count - 1));
	}
	free(sorted);
}

/*
 * stats.c - summary statistics of timing samples.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"

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
static double
median_ranks_half(size_t n)
{
	return STATS_CI_Z * sqrt((double)n) / 2;
}

static void
median_interval(const double *sorted, size_t n, double *low, double *high)
{
	double	half = median_ranks_half(n);
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

/* Sorted, a copy: the caller's samples keep their launch order. */
static double *
sorted_copy(const double *values, size_t count)
{
	double	*sorted = xcalloc(count, sizeof *sorted);

	memcpy(sorted, values, count * sizeof *sorted);
	qsort(sorted, count, sizeof *sorted, compare_doubles);
	return sorted;
}

/* Every field from sorted[0..count), count >= 1. */
static void
summarise_sorted(const double *sorted, size_t count, struct stats *out)
{
	double	sum = 0, squares = 0;
	size_t	i;

	out->count = count;
	out->stddev = NAN;
	out->step_limited = false;
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
}

/*
 * With no values every field is NaN; with one the standard deviation is NaN
 * (a sample of one says nothing about spread), which the writers turn into
 * an empty CSV field and a JSON null.
 */
void
stats_compute(const double *values, size_t count, struct stats *out)
{
	double	*sorted;

	out->count = count;
	out->min = out->max = out->mean = out->median = out->stddev = NAN;
	out->q1 = out->q3 = out->ci_low = out->ci_high = NAN;
	out->step_limited = false;
	if (count == 0)
		return;
	sorted = sorted_copy(values, count);
	summarise_sorted(sorted, count, out);
	free(sorted);
}

/* The steps' grouped data: the value below which a fraction `rank` / n
 * of the samples lie, each step k (samples within half a step of k x
 * step) spread evenly over [(k - 1/2) step, (k + 1/2) step). */
static double
grouped_quantile(const long *steps, size_t n, double step, double rank)
{
	size_t	i = 0, j;

	if (rank <= 0)
		return ((double)steps[0] - 0.5) * step;
	while (i < n) {
		for (j = i; j < n && steps[j] == steps[i]; j++)
			;
		if (rank <= (double)j || j == n)
			return ((double)steps[i] - 0.5 +
			    (rank - (double)i) / (double)(j - i)) * step;
		i = j;
	}
	return ((double)steps[n - 1] + 0.5) * step;
}

void
stats_compute_steps(const double *values, size_t count, double step,
    struct stats *out)
{
	double	*sorted, half, lo, hi;
	long	*steps;
	size_t	 i, run = 0, longest = 0, at = 0;

	if (count == 0) {
		stats_compute(values, count, out);
		return;
	}
	sorted = sorted_copy(values, count);
	summarise_sorted(sorted, count, out);
	if (!(step > 0) || count < STATS_CI_MIN) {
		free(sorted);
		return;
	}
	steps = xcalloc(count, sizeof *steps);
	for (i = 0; i < count; i++) {
		steps[i] = lround(sorted[i] / step);
		run = i > 0 && steps[i] == steps[i - 1] ? run + 1 : 1;
		if (run > longest) {
			longest = run;
			at = i;
		}
	}
	/* Within [min, max]: the groups sit on multiples of the step, the
	 * samples a nanosecond or two off them (CUPTI maps GPU times onto the
	 * host's clock). */
	out->median = fmin(fmax(grouped_quantile(steps, count, step,
	    count / 2.0), out->min), out->max);
	out->q1 = fmin(fmax(grouped_quantile(steps, count, step,
	    count / 4.0), out->min), out->max);
	out->q3 = fmin(fmax(grouped_quantile(steps, count, step,
	    count * 3 / 4.0), out->min), out->max);
	/* The same ranks as stats_compute's interval, read off the groups,
	 * and an eighth of a step more each side: a step's samples are not
	 * quite spread evenly across it (the density slopes), which moves the
	 * estimate by up to a few percent of a step. */
	half = median_ranks_half(count);
	lo = grouped_quantile(steps, count, step, count / 2.0 - half) -
	    step / 8;
	hi = grouped_quantile(steps, count, step, count / 2.0 + half) +
	    step / 8;
	if ((double)longest > STATS_STEP_LIMITED * (double)count) {
		lo = fmin(lo, ((double)steps[at] - 0.5) * step);
		hi = fmax(hi, ((double)steps[at] + 0.5) * step);
		out->step_limited = true;
	}
	out->ci_low = lo;
	out->ci_high = hi;
	free(steps);
	free(sorted);
}

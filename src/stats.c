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

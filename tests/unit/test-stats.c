/* test-stats.c - summary statistics. */
#include <math.h>
#include <string.h>

#include "ewbench.h"
#include "check.h"

static bool
near(double got, double want)
{
	return fabs(got - want) <= 1e-12 * fabs(want);
}

int
main(void)
{
	double		odd[] = { 5, 1, 4, 2, 3 };
	double		odd_copy[sizeof odd / sizeof odd[0]];
	double		even[] = { 10, 2, 8, 4 };
	double		one[] = { 7.5 };
	double		same[] = { 3, 3, 3, 3 };
	double		big[1001];
	struct stats	s;
	size_t		i;

	memcpy(odd_copy, odd, sizeof odd);
	stats_compute(odd, 5, &s);
	CHECK(s.count == 5);
	CHECK(s.min == 1 && s.max == 5);
	CHECK(s.median == 3);
	CHECK(s.mean == 3);
	CHECK(near(s.stddev, sqrt(2.5)));	/* (4+1+0+1+4)/4 */
	CHECK(memcmp(odd, odd_copy, sizeof odd) == 0);	/* not reordered */

	stats_compute(even, 4, &s);
	CHECK(s.median == 6);			/* mean of 4 and 8 */
	CHECK(s.mean == 6);
	CHECK(s.min == 2 && s.max == 10);
	CHECK(near(s.stddev, sqrt(40.0 / 3)));	/* (16+16+4+4)/3 */
	CHECK(even[0] == 10 && even[1] == 2);

	stats_compute(one, 1, &s);
	CHECK(s.count == 1);
	CHECK(s.min == 7.5 && s.max == 7.5 && s.median == 7.5 &&
	    s.mean == 7.5);
	CHECK(isnan(s.stddev));

	stats_compute(same, 4, &s);
	CHECK(s.stddev == 0);

	stats_compute(NULL, 0, &s);
	CHECK(s.count == 0);
	CHECK(isnan(s.min) && isnan(s.max) && isnan(s.mean) &&
	    isnan(s.median) && isnan(s.stddev));

	/* Large offset, small spread: a one-pass sum of squares would lose
	 * the spread to cancellation. */
	for (i = 0; i < 1001; i++)
		big[i] = 1e9 + (double)((i * 7919) % 1001);
	stats_compute(big, 1001, &s);
	CHECK(s.min == 1e9 && s.max == 1e9 + 1000);
	CHECK(s.median == 1e9 + 500);
	CHECK(near(s.mean, 1e9 + 500));
	/* 0..1000 uniform: variance n(n+1)/12 with n = 1001 values. */
	CHECK(near(s.stddev, sqrt(1001.0 * 1002 / 12)));
	return check_exit();
}

/* test-stats.c - summary statistics. */
#define _GNU_SOURCE		/* M_PI */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/ewbench.h"
#include "check.h"

static bool
near(double got, double want)
{
	return fabs(got - want) <= 1e-12 * fabs(want);
}

/* A reproducible draw from N(mean, sd): Box-Muller on an LCG. */
static double
normal(uint64_t *state, double mean, double sd)
{
	double	u1, u2;

	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	u1 = ((double)(*state >> 11) + 1) / 9007199254740994.0;
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	u2 = (double)(*state >> 11) / 9007199254740992.0;
	return mean + sd * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* The median's interval: order statistics at n/2 -+ 1.96 sqrt(n)/2, and
 * the quartiles. */
static void
test_interval(void)
{
	double		v[100];
	struct stats	s;
	size_t		i;

	for (i = 0; i < 100; i++)
		v[i] = (double)(100 - i);	/* 100 .. 1, unsorted order */
	stats_compute(v, 100, &s);
	CHECK(s.median == 50.5);
	/* ranks floor(50 - 9.8) = 40 and ceil(51 + 9.8) = 61 */
	CHECK(s.ci_low == 40 && s.ci_high == 61);
	CHECK(near(s.q1, 25.75) && near(s.q3, 75.25));
	CHECK(near(stats_ci_pct(&s), 100.0 * 10.5 / 50.5));

	/* Too few samples for an interval: [min, max]. */
	stats_compute(v, 5, &s);
	CHECK(s.ci_low == 96 && s.ci_high == 100);

	/* Coverage: over 2,000 draws of 50 samples from N(100, 1), the
	 * interval holds the true median 100 about 95 % of the time (the
	 * order statistics make it at least 95 %). */
	{
		uint64_t	state = 42;
		double		draw[50];
		int		held = 0, trial;

		for (trial = 0; trial < 2000; trial++) {
			for (i = 0; i < 50; i++)
				draw[i] = normal(&state, 100, 1);
			stats_compute(draw, 50, &s);
			held += s.ci_low <= 100 && 100 <= s.ci_high;
		}
		CHECK(held >= 1880 && held <= 1990);	/* 94-99.5 % */
	}
}

/* Samples in 32 ns steps, as kernel timestamps come on an H100. */
static void
test_steps(void)
{
	static double	v[2000];
	struct stats	plain, s;
	uint64_t	state = 11;
	size_t		i;
	double		mu;
	int		covered = 0, trials = 0;

	/* The kernel's jitter (20 ns) spreads it over steps: the grouped
	 * median finds 3510 between the steps 3488 and 3520, where the plain
	 * median is stuck on a step; its interval holds it, tightly.  A
	 * nanosecond of jitter off the steps (CUPTI's clock mapping) changes
	 * nothing. */
	for (i = 0; i < 2000; i++)
		v[i] = 32 * floor(normal(&state, 3510, 20) / 32 + 0.5) +
		    (double)(i % 3) - 1;
	stats_compute(v, 2000, &plain);
	stats_compute_steps(v, 2000, 32, &s);
	CHECK(fabs(plain.median - 3510) > 8);
	CHECK(fabs(s.median - 3510) < 3);
	CHECK(s.ci_low <= 3510 && 3510 <= s.ci_high);
	CHECK(stats_ci_pct(&s) < 0.2 && !s.step_limited);
	CHECK(s.min <= s.median && s.median <= s.max);
	CHECK(s.mean == plain.mean && s.stddev == plain.stddev);

	/* Coverage across the step: kernels at every offset within it. */
	for (mu = 3488; mu < 3520; mu += 2) {
		for (i = 0; i < 400; i++)
			v[i] = 32 * floor(normal(&state, mu, 16) / 32 + 0.5);
		stats_compute_steps(v, 400, 32, &s);
		covered += s.ci_low <= mu && mu <= s.ci_high;
		trials++;
	}
	CHECK(covered >= trials - 2);

	/* Jitter far below the step: nearly every sample on one step, and
	 * where in it the median lies cannot be known: the interval is the
	 * whole step, and says so. */
	for (i = 0; i < 2000; i++)
		v[i] = 32 * floor(normal(&state, 3510, 3) / 32 + 0.5);
	stats_compute_steps(v, 2000, 32, &s);
	CHECK(s.step_limited);
	CHECK(s.ci_low <= 3504 && s.ci_high >= 3536);
	CHECK(s.ci_low <= 3510 && 3510 <= s.ci_high);

	/* step 0, or too few samples: the plain statistics */
	stats_compute_steps(v, 2000, 0, &s);
	stats_compute(v, 2000, &plain);
	CHECK(s.median == plain.median && s.ci_low == plain.ci_low);
}

/* One launch 1000x slower (a host stall, a context switch) moves the mean
 * and the standard deviation, not the median or its interval. */
static void
test_planted_outlier(void)
{
	double		v[200];
	struct stats	clean, planted;
	uint64_t	state = 7;
	size_t		i;

	for (i = 0; i < 200; i++)
		v[i] = normal(&state, 3552, 3552 * 0.005);
	stats_compute(v, 200, &clean);
	v[100] = 3552e3;
	stats_compute(v, 200, &planted);
	CHECK(fabs(planted.median - clean.median) <= 0.001 * clean.median);
	CHECK(fabs(planted.ci_high - clean.ci_high) <= 0.002 * clean.median);
	CHECK(stats_ci_pct(&planted) < 0.5);
	CHECK(planted.mean > 1.5 * clean.mean);		/* the mean moved */
	CHECK(planted.stddev > 100 * clean.stddev);
}

/* The rule on synthetic samples: it stops on the interval when the
 * scatter allows, at the cap or the time limit when not, never before
 * min_samples and min_gpu_s. */
static void
test_stopping_rule(void)
{
	struct sampling_rule	r = { 20, 0.5e-3, 0.5, 2000, 0.02 };
	struct stats		s;
	static double		v[2000];
	uint64_t		state = 3;
	size_t			n = 0, rounds = 0, i;
	double			gpu = 0;
	enum sampling_state	st = SAMPLING_MORE;
	unsigned		want = r.min_samples;

	/* 3.5 us kernels, 0.5 % scatter: min_gpu_s (143 samples) decides,
	 * then the interval is tight at once. */
	while (st == SAMPLING_MORE && n < 2000) {
		for (i = 0; i < want && n < 2000; i++, n++) {
			v[n] = normal(&state, 3500, 17.5);
			gpu += v[n] * 1e-9;
		}
		stats_compute(v, n, &s);
		st = sampling_decide(&r, &s, gpu, 0);
		want = sampling_next(&r, &s, gpu, 1e-6, 0);
		rounds++;
	}
	CHECK(st == SAMPLING_CI);
	CHECK(gpu >= r.min_gpu_s && n >= 143 && n < 400);
	CHECK(rounds <= 3);
	CHECK(stats_ci_pct(&s) <= 0.5);

	/* 5 % scatter needs about 1.96 x 1.25 x 5 / 0.5 squared = 600: the
	 * rule asks for about that many in its second round. */
	n = 0;
	gpu = 0;
	for (i = 0; i < 20; i++, n++) {
		v[n] = normal(&state, 1e6, 5e4);
		gpu += v[n] * 1e-9;
	}
	stats_compute(v, n, &s);
	CHECK(sampling_decide(&r, &s, gpu, 0) == SAMPLING_MORE);
	want = sampling_next(&r, &s, gpu, 1e-6, 0);
	CHECK(want > 150 && want <= 1980);
	/* ... but not beyond the 20 ms of wall time left at 1 ms a sample */
	want = sampling_next(&r, &s, gpu, 1e-3, 0.01);
	CHECK(want <= 10);
	CHECK(sampling_decide(&r, &s, gpu, 0.02) == SAMPLING_TIME);
	/* never before min_samples, even out of time */
	stats_compute(v, 10, &s);
	CHECK(sampling_decide(&r, &s, 1, 1) == SAMPLING_MORE);
	CHECK(sampling_next(&r, &s, 1, 1, 1) == 10);
	/* the cap */
	r.max_samples = 20;
	stats_compute(v, 20, &s);
	CHECK(sampling_decide(&r, &s, gpu, 0) == SAMPLING_CAP);
	/* an interval one timer step wide stops as "step" */
	r.max_samples = 2000;
	for (i = 0; i < 200; i++)
		v[i] = 32 * floor(normal(&state, 1010, 2) / 32 + 0.5);
	stats_compute_steps(v, 200, 32, &s);
	CHECK(s.step_limited && stats_ci_pct(&s) > 0.5);
	CHECK(sampling_decide(&r, &s, 1e-3, 0) == SAMPLING_STEP);
	CHECK(sampling_decide(&r, &s, 1e-4, 0) == SAMPLING_MORE);
	CHECK(strcmp(sampling_name(SAMPLING_STEP), "step") == 0);
	CHECK(strcmp(sampling_name(SAMPLING_CAP), "cap") == 0 &&
	    strcmp(sampling_name(SAMPLING_CI), "ci") == 0 &&
	    strcmp(sampling_name(SAMPLING_TIME), "time") == 0);
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
	test_interval();
	test_steps();
	test_planted_outlier();
	test_stopping_rule();
	return check_exit();
}

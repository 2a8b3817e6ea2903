/*
 * sampling.c - the stopping rule of a timed point: sample until the median
 * is known to target_pct, never fewer than min_samples and min_gpu_s, never
 * more than max_samples or max_wall_s.  Pure arithmetic on the samples'
 * statistics, so it is unit-tested without a GPU (tests/unit/test-stats.c).
 */
#include <math.h>

#include "base/ewbench.h"

enum sampling_state
sampling_decide(const struct sampling_rule *r, const struct stats *st,
    double gpu_s, double wall_s)
{
	double	ci = stats_ci_pct(st);

	if (st->count < r->min_samples)
		return st->count >= r->max_samples ? SAMPLING_CAP :
		    SAMPLING_MORE;
	if (ci <= r->target_pct && gpu_s >= r->min_gpu_s)
		return SAMPLING_CI;
	/* The timer's step bounds the interval: more samples cannot help. */
	if (st->step_limited && gpu_s >= r->min_gpu_s)
		return SAMPLING_STEP;
	if (st->count >= r->max_samples)
		return SAMPLING_CAP;
	if (wall_s >= r->max_wall_s)
		return SAMPLING_TIME;
	return SAMPLING_MORE;
}

unsigned
sampling_next(const struct sampling_rule *r, const struct stats *st,
    double gpu_s, double sample_s, double wall_s)
{
	double	n = (double)st->count, ci = stats_ci_pct(st), want, left;

	if (st->count < r->min_samples)
		want = (double)r->min_samples - n;
	else if (ci > r->target_pct && ci > 0)
		/* The half-width shrinks as 1/sqrt(n); 20 % more for luck. */
		want = n * (ci / r->target_pct) * (ci / r->target_pct) * 1.2
		    - n;
	else
		want = 0;
	/* Enough GPU time too, at the samples' mean so far. */
	if (gpu_s > 0 && gpu_s < r->min_gpu_s &&
	    want < (r->min_gpu_s - gpu_s) / (gpu_s / n))
		want = (r->min_gpu_s - gpu_s) / (gpu_s / n);
	/* Rounds of fewer than 8 cost more in synchronisation than they
	 * add; none beyond the cap or the time left. */
	if (want < 8)
		want = 8;
	if (want > (double)r->max_samples - n)
		want = (double)r->max_samples - n;
	if (sample_s > 0) {
		left = (r->max_wall_s - wall_s) / sample_s;
		if (st->count >= r->min_samples && want > left)
			want = left > 1 ? left : 1;
	}
	return want < 1 ? 1 : (unsigned)ceil(want);
}

const char *
sampling_name(enum sampling_state s)
{
	switch (s) {
	case SAMPLING_CI:
		return "ci";
	case SAMPLING_STEP:
		return "step";
	case SAMPLING_CAP:
		return "cap";
	case SAMPLING_TIME:
		return "time";
	case SAMPLING_MORE:
		break;
	}
	return "";
}

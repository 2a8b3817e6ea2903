/*
 * profile.c - counters of many points, in as few profiler sessions as fit.
 *
 * Each point issues two launches: cold, an L2 flush and the kernel; warm,
 * the kernel twice, so the measured (second) one finds L2 as the first
 * left it.  Counters do not depend on the launch path: their rows say
 * "stream".  A session holds up to counters_max_ranges() kernels; if one
 * decodes a different number of ranges than the points should have made,
 * its points are measured again one per session, where the measured
 * kernel is simply the last.
 */
#include <stdlib.h>

#include "bench.h"
#include "nvtx.h"

/* flush.cu launches one kernel. */
#define FLUSH_KERNELS	1

struct session {
	const struct profiled	*points;
	char			**cause;
};

static int
issue_point(void *ctx, size_t i)
{
	struct session		*s = ctx;
	const struct profiled	*pp = &s->points[i];
	int			 rc;

	nvtx_push_point(&pp->p);
	if (pp->p.cache == CACHE_COLD)
		rc = bench_flush(pp->l.b, s->cause);
	else
		rc = bench_launch(&pp->l, s->cause);
	if (rc == 0)
		rc = bench_launch(&pp->l, s->cause);
	nvtx_pop();
	return rc;
}

static int
profile_session(struct counters *c, size_t nmetrics,
    const struct profiled *points, const unsigned *ranges, size_t count,
    double *values, char **cause)
{
	struct session	s = { points, cause };
	char		*why = NULL;
	size_t		 i;

	if (counters_measure(c, count, ranges, issue_point, &s, values,
	    &why) == 0)
		return 0;
	if (count == 1 || *cause != NULL) {
		if (*cause == NULL)
			*cause = why;
		else
			free(why);
		return -1;
	}
	/* The ranges did not map onto the points: one point a session. */
	free(why);
	for (i = 0; i < count; i++) {
		if (profile_session(c, nmetrics, &points[i], &ranges[i], 1,
		    values + i * nmetrics, cause) != 0)
			return -1;
	}
	return 0;
}

int
profile_points(struct bench *b, struct counters *c, size_t nmetrics,
    const struct profiled *points, size_t count, double *values,
    char **cause)
{
	unsigned	*ranges = xcalloc(count + 1, sizeof *ranges), kernels;
	size_t		 i, start, total, max = counters_max_ranges();
	int		 rc = 0;

	(void)b;
	for (i = 0; i < count; i++) {
		if (bench_kernels(&points[i].l, &kernels, cause) != 0) {
			free(ranges);
			return -1;
		}
		ranges[i] = kernels + (points[i].p.cache == CACHE_COLD ?
		    FLUSH_KERNELS : kernels);
	}
	for (start = 0; start < count && rc == 0; start = i) {
		for (i = start, total = 0; i < count &&
		    (i == start || total + ranges[i] <= max); i++)
			total += ranges[i];
		rc = profile_session(c, nmetrics, &points[start],
		    &ranges[start], i - start, values + start * nmetrics,
		    cause);
	}
	free(ranges);
	return rc;
}

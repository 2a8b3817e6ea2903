/*
 * profile.c - counters of many points, in as few profiler sessions as fit.
 *
 * A cold point issues an L2 flush and the kernel.  A warm point's kernel
 * must find L2 as its own previous launch left it: the points of one case
 * are issued cold first, so the warm one right after it needs nothing
 * more; a warm point with no cold twin launches the kernel twice.  With
 * user ranges every point issues a launch before its range (the flush, or
 * the kernel, cold twin or not), and it has finished when the range is
 * pushed: the range holds the measured launch only.  The
 * measured kernel is always the point's last.  Counters do not depend on
 * the launch path: their rows say "stream".  A session holds up to
 * counters_max_ranges() kernels; if one decodes a different number of
 * ranges than the points should have made, its points are measured again
 * one per session, where the measured kernel is simply the last.
 */
#include <stdlib.h>
#include <string.h>

#include "run/bench.h"
#include "run/nvtx.h"

/* flush.cu launches one kernel. */
#define FLUSH_KERNELS	1

/* A point in issue order. */
struct issued {
	const struct profiled	*pp;
	bool			 warmed;	/* its case's kernel ran just
						   before: no warm-up launch */
	unsigned		 ranges;
};

struct session {
	struct counters		*c;
	const struct issued	*points;
	char			**cause;
};

static bool
same_case(const struct profiled *a, const struct profiled *b)
{
	return a->l.v == b->l.v && a->l.args.n == b->l.args.n &&
	    a->l.args.block == b->l.args.block;
}

/* The ranges a point makes, its measured launch issuing `kernels`: every
 * kernel it issues (AutoRange) or its measured launch only (user ranges,
 * counters_range_begin). */
static unsigned
point_ranges(const struct counters *c, const struct issued *is,
    unsigned kernels)
{
	if (counters_user_ranges(c))
		return 1;
	if (is->pp->p.cache == CACHE_COLD)
		return FLUSH_KERNELS + kernels;
	return is->warmed ? kernels : 2 * kernels;
}

static int
issue_point(void *ctx, size_t i)
{
	struct session		*s = ctx;
	const struct issued	*is = &s->points[i];
	const struct profiled	*pp = is->pp;
	char			*ignored = NULL;	/* after a failure */
	int			 rc = 0;

	nvtx_push_point(&pp->p);
	if (pp->p.cache == CACHE_COLD)
		rc = bench_flush(pp->l.b, s->cause);
	else if (!is->warmed)
		rc = bench_launch(&pp->l, s->cause);
	/* User ranges: the range opens on an idle GPU.  Its counters run
	 * from the push to the pop on the GPU, whatever runs there, and the
	 * flush (or warm-up) was only issued: left in flight it would be
	 * inside the range, counted and waited for there, once a pass
	 * (docs/metrics.md, "What a cold point costs"). */
	if (rc == 0 && counters_user_ranges(s->c))
		rc = bench_sync(pp->l.b, s->cause);
	if (rc == 0)
		rc = counters_range_begin(s->c, pp->l.v->id, s->cause);
	if (rc == 0) {
		rc = bench_launch(&pp->l, s->cause);
		if (counters_range_end(s->c, rc == 0 ? s->cause : &ignored) != 0)
			rc = -1;
	}
	nvtx_pop();
	free(ignored);
	return rc;
}

static int
profile_session(struct counters *c, size_t nmetrics,
    const struct issued *points, size_t count, double *values, char **cause)
{
	struct session	 s = { c, points, cause };
	unsigned	*ranges = xcalloc(count + 1, sizeof *ranges);
	char		*why = NULL;
	size_t		 i;
	int		 rc = 0;

	for (i = 0; i < count; i++)
		ranges[i] = points[i].ranges;
	if (counters_measure(c, count, ranges, issue_point, &s, values,
	    &why) == 0)
		goto out;
	if (count == 1 || *cause != NULL) {
		if (*cause == NULL)
			*cause = why;
		else
			free(why);
		why = NULL;
		rc = -1;
		goto out;
	}
	/* The ranges did not map onto the points: one point a session (a
	 * warm point then warms up itself). */
	for (i = 0; i < count && rc == 0; i++) {
		struct issued alone = points[i];

		if (alone.warmed) {
			alone.warmed = false;
			alone.ranges = point_ranges(c, &alone, alone.ranges);
		}
		rc = profile_session(c, nmetrics, &alone, 1,
		    values + i * nmetrics, cause);
	}
out:
	free(why);
	free(ranges);
	return rc;
}

int
profile_points(struct counters *c, size_t nmetrics,
    const struct profiled *points, size_t count, double *values,
    char **cause)
{
	struct issued	*order = xcalloc(count + 1, sizeof *order);
	double		*got = xcalloc(count * nmetrics + 1, sizeof *got);
	unsigned	 kernels;
	size_t		 i, j, start, total, max = counters_max_ranges();
	int		 rc = -1;

	/* Issue order: each case's cold point before its warm one. */
	for (i = 0; i < count; i++)
		order[i].pp = &points[i];
	for (i = 0; i + 1 < count; i++) {
		if (order[i].pp->p.cache == CACHE_WARM &&
		    order[i + 1].pp->p.cache == CACHE_COLD &&
		    same_case(order[i].pp, order[i + 1].pp)) {
			const struct profiled *warm = order[i].pp;

			order[i].pp = order[i + 1].pp;
			order[++i].pp = warm;
		}
	}
	for (i = 0; i < count; i++) {
		if (bench_kernels(&order[i].pp->l, &kernels, cause) != 0)
			goto out;
		/* With user ranges a warm point launches its kernel before
		 * its range even right after its cold twin: no range is
		 * pushed straight after the previous one's pop, the order
		 * warm-only runs issue (docs/metrics.md, "What a cold point
		 * costs"). */
		order[i].warmed = order[i].pp->p.cache == CACHE_WARM &&
		    i > 0 && same_case(order[i - 1].pp, order[i].pp) &&
		    !counters_user_ranges(c);
		order[i].ranges = point_ranges(c, &order[i], kernels);
	}
	for (start = 0; start < count; start = i) {
		if (order[start].warmed) {	/* its twin is in the last */
			order[start].warmed = false;
			order[start].ranges = point_ranges(c, &order[start],
			    order[start].ranges);
		}
		for (i = start, total = 0; i < count &&
		    (i == start || total + order[i].ranges <= max); i++)
			total += order[i].ranges;
		/* A warm point keeps the launch before it in its session. */
		if (i < count && order[i].warmed && i - start > 1)
			i--;
		if (profile_session(c, nmetrics, &order[start], i - start,
		    got + start * nmetrics, cause) != 0)
			goto out;
	}
	/* Values back in the order the points were given. */
	for (i = 0; i < count; i++) {
		j = (size_t)(order[i].pp - points);
		memcpy(values + j * nmetrics, got + i * nmetrics,
		    nmetrics * sizeof *values);
	}
	rc = 0;
out:
	free(order);
	free(got);
	return rc;
}

/*
 * counters-collect.c - a collection of the CUPTI Range Profiler on the
 * GPU: the caller's launches issued once per pass, the ranges decoded and
 * evaluated into one value per metric and point, collected again when
 * CUPTI says the data is not complete.  The session it runs in is
 * counters.c's.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"
#include "counters/counters-cupti.h"

static void
values_nan(double *values, size_t count)
{
	size_t	i;

	for (i = 0; i < count; i++)
		values[i] = NAN;
}

/* Values of one range; metric by metric when the whole set fails, so
 * that one bad evaluation costs one NaN, not the row. */
static int
evaluate(struct counters *c, size_t range, double *values, char **cause)
{
	PARAMS(p, CUpti_Profiler_Host_EvaluateToGpuValues_Params);
	CUptiResult	rc, first = CUPTI_SUCCESS;
	size_t		i, good = 0;

	p.pHostObject = c->host;
	p.pCounterDataImage = c->data;
	p.counterDataImageSize = c->data_size;
	p.rangeIndex = range;
	p.ppMetricNames = c->names;
	p.numMetrics = c->count;
	p.pMetricValues = values;
	if (cuptiProfilerHostEvaluateToGpuValues(&p) == CUPTI_SUCCESS)
		return 0;

	values_nan(values, c->count);
	for (i = 0; i < c->count; i++) {
		p.ppMetricNames = &c->names[i];
		p.numMetrics = 1;
		p.pMetricValues = &values[i];
		rc = cuptiProfilerHostEvaluateToGpuValues(&p);
		if (rc == CUPTI_SUCCESS)
			good++;
		else {
			values[i] = NAN;
			if (first == CUPTI_SUCCESS)
				first = rc;
		}
	}
	if (good == 0)
		return cupti_check(first, "cuptiProfilerHostEvaluateToGpuValues",
		    cause);
	return 0;
}

/*
 * User ranges: each point's values from the decoded range named for it
 * ("<variant>#<point>", counters_range_begin), whatever else was decoded:
 * a session that decodes other than one range a point need not be
 * collected again point by point.  -1 unless every point has exactly
 * one range.
 */
static int
evaluate_by_name(struct counters *c, size_t npoints, size_t decoded,
    double *values, char **cause)
{
	PARAMS(p, CUpti_RangeProfiler_CounterData_GetRangeInfo_Params);
	size_t		*range = xcalloc(npoints + 1, sizeof *range);
	size_t		 r, i, found = 0;
	const char	*hash;
	char		*end;
	int		 rc = -1;

	for (i = 0; i < npoints; i++)
		range[i] = SIZE_MAX;
	for (r = 0; r < decoded; r++) {
		p.pCounterDataImage = c->data;
		p.counterDataImageSize = c->data_size;
		p.rangeIndex = r;
		p.rangeDelimiter = "/";
		p.rangeName = NULL;
		if (cuptiRangeProfilerCounterDataGetRangeInfo(&p) !=
		    CUPTI_SUCCESS || p.rangeName == NULL ||
		    (hash = strrchr(p.rangeName, '#')) == NULL)
			continue;
		i = (size_t)strtoul(hash + 1, &end, 10);
		if (end == hash + 1 || *end != '\0' || i >= npoints)
			continue;
		if (range[i] != SIZE_MAX) {
			*cause = xasprintf("a counter session decoded point "
			    "%zu's range twice", i);
			goto out;
		}
		range[i] = r;
		found++;
	}
	if (found != npoints) {
		*cause = xasprintf("a counter session decoded %zu ranges, %zu "
		    "of them named for its %zu points", decoded, found,
		    npoints);
		goto out;
	}
	for (i = 0; i < npoints; i++)
		if (evaluate(c, range[i], values + i * c->count, cause) != 0)
			goto out;
	rc = 0;
out:
	free(range);
	return rc;
}

/*
 * The caller's launches of npoints points (collect's issue and ctx)
 * between a start and a stop of the profiler, once in kernel replay (it
 * submits every pass within each launch), once per pass in user replay,
 * until CUPTI has them all.  On failure *retry says whether collecting
 * again may help (passes left to submit).
 */
static int
issue_passes(struct counters *c, size_t npoints,
    int (*issue)(void *, size_t), void *ctx, bool *retry, char **cause)
{
	PARAMS(start, CUpti_RangeProfiler_Start_Params);
	PARAMS(stop, CUpti_RangeProfiler_Stop_Params);
	cudaError_t	 sync;
	size_t		 i;
	int		 launched = 0, pass;

	for (pass = 0; pass <= c->passes; pass++) {
		start.pRangeProfilerObject = c->profiler;
		if (cupti_check(cuptiRangeProfilerStart(&start),
		    "cuptiRangeProfilerStart", cause) != 0)
			return -1;
		for (i = 0; i < npoints && launched == 0; i++) {
			c->issuing = i;
			launched = issue(ctx, i);
		}
		sync = cudaDeviceSynchronize();
		stop.pRangeProfilerObject = c->profiler;
		if (cupti_check(cuptiRangeProfilerStop(&stop),
		    "cuptiRangeProfilerStop", cause) != 0)
			return -1;
		if (launched != 0) {
			*cause = xstrdup("a profiled launch failed");
			return -1;
		}
		if (counters_cuda_check(sync, "cudaDeviceSynchronize (after the "
		    "profiled launches)", cause) != 0)
			return -1;
		if (stop.isAllPassSubmitted)
			return 0;
	}
	*cause = xasprintf("cuptiRangeProfilerStop: passes still to "
	    "submit after %d rounds (next pass %zu of %d)", pass,
	    stop.passIndex, c->passes);
	*retry = true;
	return -1;
}

/* Each point's values from the decoded ranges (of total issued, ranges[i]
 * of them point i's, its last the measured one; collect says how ranges
 * are matched to points). */
static int
evaluate_points(struct counters *c, size_t npoints, const unsigned *ranges,
    size_t total, size_t decoded, double *values, char **cause)
{
	size_t	i, range;

	if (npoints == 1)
		/* The profiled launch is the last range. */
		return evaluate(c, decoded - 1, values, cause);
	if (decoded != total) {
		if (c->range != CUPTI_UserRange) {
			*cause = xasprintf("a counter session decoded %zu "
			    "ranges, %zu expected", decoded, total);
			return -1;
		}
		return evaluate_by_name(c, npoints, decoded, values, cause);
	}
	for (i = 0, range = 0; i < npoints; i++) {
		range += ranges[i];
		if (evaluate(c, range - 1, values + i * c->count, cause) != 0)
			return -1;
	}
	return 0;
}

/*
 * One collection of npoints points in one session (AutoRange: every
 * kernel is a range).  issue(ctx, i) launches point i's kernels, ranges[i]
 * of them, the last one measured; with user replay the whole sequence is
 * issued once per pass.  When npoints is 1, the last range decoded is the
 * measured one whatever ranges[0] says; with user ranges, a session that
 * decodes other than sum(ranges) ranges is mapped by name.  On failure
 * *retry says whether collecting again may help: dropped or missing
 * ranges, or any failure on a reused object (which also turns reuse
 * off).  The object is disabled
 * after a failure, and after every collection in fresh mode.
 */
static int
collect(struct counters *c, size_t npoints, const unsigned *ranges,
    int (*issue)(void *, size_t), void *ctx, double *values, bool *retry,
    char **cause)
{
	PARAMS(init, CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
	PARAMS(config, CUpti_RangeProfiler_SetConfig_Params);
	PARAMS(decode, CUpti_RangeProfiler_DecodeData_Params);
	PARAMS(info, CUpti_RangeProfiler_GetCounterDataInfo_Params);
	const char	*fn;
	CUptiResult	 rc;
	size_t		 i, total = 0;
	bool		 reused;
	double		 t0 = monotonic_seconds(), t1;

	*retry = false;
	for (i = 0; i < npoints; i++)
		total += ranges[i];
	if (total == 0 || total > COUNTERS_MAX_RANGES) {
		*cause = xasprintf("a counter session of %zu ranges (1 to %d "
		    "fit)", total, COUNTERS_MAX_RANGES);
		return -1;
	}
	if (c->profiler == NULL && counters_profiler_enable(c, cause) != 0)
		return -1;
	reused = c->profiler_used;
	c->profiler_used = true;

	/* A clean image every time: no range of an earlier collection. */
	init.pRangeProfilerObject = c->profiler;
	init.counterDataSize = c->data_size;
	init.pCounterData = c->data;
	fn = "cuptiRangeProfilerCounterDataImageInitialize";
	if ((rc = cuptiRangeProfilerCounterDataImageInitialize(&init)) !=
	    CUPTI_SUCCESS)
		goto cupti_fail;

	config.pRangeProfilerObject = c->profiler;
	config.configSize = c->config_size;
	config.pConfig = c->config;
	config.counterDataImageSize = c->data_size;
	config.pCounterDataImage = c->data;
	config.range = c->range;
	config.replayMode = c->replay;
	config.maxRangesPerPass = COUNTERS_MAX_RANGES;
	config.numNestingLevels = 1;
	config.minNestingLevel = 1;
	config.passIndex = 0;
	config.targetNestingLevel = 1;
	fn = "cuptiRangeProfilerSetConfig";
	if ((rc = cuptiRangeProfilerSetConfig(&config)) != CUPTI_SUCCESS)
		goto cupti_fail;

	t1 = monotonic_seconds();
	c->wall.config += t1 - t0;
	c->wall.sessions++;
	if (issue_passes(c, npoints, issue, ctx, retry, cause) != 0)
		goto fail;

	t0 = monotonic_seconds();
	c->wall.passes += t0 - t1;
	c->wall.ranges += total;
	decode.pRangeProfilerObject = c->profiler;
	fn = "cuptiRangeProfilerDecodeData";
	if ((rc = cuptiRangeProfilerDecodeData(&decode)) != CUPTI_SUCCESS)
		goto cupti_fail;
	info.pCounterDataImage = c->data;
	info.counterDataImageSize = c->data_size;
	fn = "cuptiRangeProfilerGetCounterDataInfo";
	if ((rc = cuptiRangeProfilerGetCounterDataInfo(&info)) != CUPTI_SUCCESS)
		goto cupti_fail;
	if (decode.numOfRangeDropped != 0 || info.numTotalRanges == 0) {
		*cause = xasprintf("cuptiRangeProfilerDecodeData: %zu range(s) "
		    "dropped, %zu decoded", decode.numOfRangeDropped,
		    info.numTotalRanges);
		*retry = true;
		goto fail;
	}
	t1 = monotonic_seconds();
	c->wall.decode += t1 - t0;
	if (evaluate_points(c, npoints, ranges, total, info.numTotalRanges,
	    values, cause) != 0)
		goto fail;
	c->wall.evaluate += monotonic_seconds() - t1;
	if (!c->reuse)
		counters_profiler_disable(c);
	return 0;

cupti_fail:
	*cause = cupti_error(fn, rc);
fail:
	if (reused && c->reuse) {
		/* SetConfig again on a used object did not work: fall back
		 * to the pattern measured on the H100. */
		c->reuse = false;
		c->fell_back = true;
		*retry = true;
	}
	counters_profiler_disable(c);
	return -1;
}

void
counters_pause(struct counters *c)
{
	if (c != NULL)
		counters_profiler_disable(c);
}

int
counters_measure(struct counters *c, size_t npoints, const unsigned *ranges,
    int (*issue)(void *ctx, size_t point), void *ctx, double *values,
    char **cause)
{
	char	*last = NULL;
	bool	 retry;
	int	 try;

	values_nan(values, npoints * c->count);
	for (try = 0; try < COUNTERS_TRIES; try++) {
		if (collect(c, npoints, ranges, issue, ctx, values, &retry,
		    &last) == 0)
			return 0;
		values_nan(values, npoints * c->count);
		if (!retry)
			break;
		if (try + 1 < COUNTERS_TRIES)
			free(last);
	}
	if (retry)
		*cause = xasprintf("no counter data after %d tries: %s",
		    COUNTERS_TRIES, last);
	else
		*cause = xstrdup(last);
	free(last);
	return -1;
}

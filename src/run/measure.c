/*
 * measure.c - timed launches of one point (docs/analysis.md, "How a point
 * is timed").
 *
 * A point's time is the GPU's own, without the host's launch path or a
 * timer's own cost in it.  A cold point's is from CUPTI's activity records
 * (trace.c, TRACE_KERNELS): the start and end of every timed kernel, each
 * after its flush.  A warm point's is from replays of its launches
 * captured in a graph, with the kernel records paused and an event pair
 * around each replay: CUPTI's instrumentation slows the kernels that keep
 * few bytes in flight by up to 11 % (docs/analysis.md, "The timer's own
 * cost"), the replay leaves them alone.  Warm-up first, by count and by
 * time; then rounds, each read back, until the median's confidence
 * interval is tight enough or a cap is reached (sampling.c).  Helper
 * kernels (the L2 flush before each cold launch, the spin that holds a
 * queue) are recorded but never counted.
 *
 * A warm point whose kernels take under TIMING_PROBE_MAX_NS, or that the
 * caller cross-checks, also gets one round of --iters launches under the
 * kernel records, in its own launch mode: the records' median span
 * (activity_median_ns, the instrumented timer beside the replay), the
 * interval from one kernel's start to the next one's (stream: as the host
 * issues them; graph: replayed), an event pair around the round
 * (batch_ns), and for short stream kernels two more intervals: launches
 * queued behind a spin kernel (the GPU's own launch rate, the host out of
 * the way) and launches replayed from a graph.  The cross-checked points
 * get a second, independent time (crosscheck): stream launches queued
 * behind a spin kernel, the records paused, an event pair around them.
 * NVML is read once a round, while its launches run: the run's clock,
 * power and temperature summary, and the row's lowest clocks and any
 * throttling reason.
 *
 * Without CUPTI (--no-cupti, or another tool attached) the old protocol
 * stands in: an event pair around each stream launch, or around each
 * replay of a graph of launches, a fixed number of times. *
 * This file walks that protocol; the timers are measure-records.c's (the
 * kernel records, the interval probes) and measure-events.c's (the
 * replay, the cross-check, the protocol without CUPTI), their launches
 * measure-launch.c's (measure-internal.h).
 */
#include <math.h>
#include <string.h>

#include "run/measure-internal.h"
#include "trace/trace.h"

/* --warmup launches, and with the kernel clock also TIMING_WARMUP_MIN_S (the
 * event protocols keep an exact count: ncu and nsys users count on it);
 * --warmup 0: none.  *per_launch_ns: the last round's time per launch
 * by an event pair around it, the host's issue included (so never less
 * than the kernel); NaN without a warm-up. */
static int
warm_up(struct bench *b, const struct launch *l, enum cache_mode cache,
    double *per_launch_ns, char **cause)
{
	double		start = monotonic_seconds();
	double		min_s = trace_started() ? TIMING_WARMUP_MIN_S : 0;
	unsigned	done = 0, chunk = b->warmup;
	float		ms;

	*per_launch_ns = NAN;
	while (b->warmup > 0 && (done < b->warmup ||
	    monotonic_seconds() - start < min_s)) {
		CUDA_TRY(cudaEventRecord(b->events[0], b->stream), cause);
		if (issue_round(b, l, cache, NULL, chunk, cause) != 0)
			return -1;
		CUDA_TRY(cudaEventRecord(b->events[1], b->stream), cause);
		CUDA_TRY(cudaStreamSynchronize(b->stream), cause);
		CUDA_TRY(cudaEventElapsedTime(&ms, b->events[0],
		    b->events[1]), cause);
		*per_launch_ns = (double)ms * 1e6 / chunk;
		done += chunk;
	}
	return 0;
}

/* A warm point's round of launches under the kernel records, in its
 * launch mode, beside its replay: the records' median span
 * (activity_median_ns), the launch interval, the events around the round
 * (batch_ns) and NVML's clocks.  As many launches as cover
 * TIMING_REPLAY_NS, at least TIMING_RECORDS_MIN_LAUNCHES and at most
 * --iters. */
static int
records_round(struct bench *b, const struct launch *l, enum launch_mode how,
    struct timed *out, char **cause)
{
	struct timed	rec;
	double		want = ceil(TIMING_REPLAY_NS / out->st.median);
	unsigned	launches = b->rule.min_samples;

	if (want < launches)
		launches = want > TIMING_RECORDS_MIN_LAUNCHES ?
		    (unsigned)want : TIMING_RECORDS_MIN_LAUNCHES;

	memset(&rec, 0, sizeof rec);
	rec.batch_ns = NAN;
	rec.sm_clock_min_mhz = rec.memory_clock_min_mhz = NAN;
	rec.interval = out->interval;
	if (sample_kernels(b, l, CACHE_WARM, how, launches, &rec, cause) != 0)
		return -1;
	out->activity_median_ns = rec.st.median;
	out->interval = rec.interval;
	out->batch_ns = rec.batch_ns;
	out->throttle |= rec.throttle;
	out->sm_clock_min_mhz = fmin(out->sm_clock_min_mhz,
	    rec.sm_clock_min_mhz);
	out->memory_clock_min_mhz = fmin(out->memory_clock_min_mhz,
	    rec.memory_clock_min_mhz);
	return 0;
}

int
measure_time(struct bench *b, const struct launch *l, enum cache_mode cache,
    enum launch_mode how, bool cross, struct timed *out, char **cause)
{
	struct trace_label	 label = { l->v->id, l->args.n,
				     cache_name(cache), "warmup" };
	static bool		 replayed_before;
	bool			 filled, replay;
	double			 t0, estimate_ns;

	memset(out, 0, sizeof *out);
	if (l->kernels == 0) {
		*cause = xasprintf("%s: kernels per launch not counted (or "
		    "none)", l->v->id);
		return -1;
	}
	out->batch_ns = out->crosscheck_ns = out->activity_median_ns = NAN;
	out->sm_clock_min_mhz = out->memory_clock_min_mhz = NAN;
	out->interval.median_ns = out->interval.ci_ns = NAN;
	out->queued = out->graph = out->interval;
	/* The warm-up's kernels are read back and dropped with it. */
	t0 = monotonic_seconds();
	if (trace_point_begin(&label, cause) != 0 ||
	    warm_up(b, l, cache, &estimate_ns, cause) != 0 ||
	    trace_point_end(NULL, NULL, cause) != 0)
		return -1;
	b->wall_warmup += monotonic_seconds() - t0;
	if (!trace_started())
		return sample_events(b, l, cache, how, out, cause);
	/* A traced run's records cannot be paused: they time it. */
	replay = cache == CACHE_WARM && trace_mode() == TRACE_KERNELS;
	/* A process's first replay is made twice and the first dropped: on
	 * H200s (CUDA 13.0) the first replay of a process that had not
	 * paused the records before (no counters' session, which pauses
	 * them) ran at the records' speed, the later ones did not (add_f32
	 * at 2^28 on two boards: 992.8 us against 934.8 later in the same
	 * study; 977.6 against its own cross-check's 920.6). */
	if (replay && !replayed_before) {
		if (sample_replay(b, l, estimate_ns, out, cause) != 0)
			return -1;
		replayed_before = true;
	}
	if (!replay) {
		if (sample_kernels(b, l, cache, how, 0, out, cause) != 0)
			return -1;
	} else if (sample_replay(b, l, estimate_ns, out, cause) != 0 ||
	    /* One round of records where they are needed: the launch
	     * intervals of short kernels, and at the cross-checked sizes
	     * their own median beside the replay (what the instrumentation
	     * costs). */
	    ((out->st.median < TIMING_PROBE_MAX_NS || cross) &&
	    records_round(b, l, how, out, cause) != 0))
		return -1;
	if (cross && cache == CACHE_WARM &&
	    crosscheck(b, l, out->st.median, &out->crosscheck_ns, cause) != 0)
		return -1;
	if (cache != CACHE_WARM || how != LAUNCH_STREAM ||
	    !(out->st.median < TIMING_PROBE_MAX_NS))
		return 0;
	if (probe_queued(b, l, &out->queued, &filled, cause) != 0 ||
	    probe_graph(b, l, &out->graph, cause) != 0)
		return -1;
	out->queue_unfilled = !filled;
	return 0;
}

int
measure_occupancy(const struct bench *b, const struct point *p,
    struct occupancy *occ, bool *known, char **cause)
{
	struct cudaFuncAttributes	attr;
	int				blocks = 0, warps_per_block;

	*known = false;
	if (p->v->kernel == NULL || p->block == 0)
		return 0;
	CUDA_TRY(cudaFuncGetAttributes(&attr, p->v->kernel), cause);
	CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks,
	    p->v->kernel, (int)p->block, 0), cause);
	warps_per_block = ((int)p->block + 31) / 32;
	occ->registers = attr.numRegs;
	occ->max_warps_pct = 100.0 * blocks * warps_per_block /
	    (b->dev->max_threads_per_sm / 32.0);
	*known = true;
	return 0;
}

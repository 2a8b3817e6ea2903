/*
 * energy.c - a point's energy windows on the GPU (energy.h says the
 * method; energy-math.c does its arithmetic).
 *
 * One host thread loops: it collects the replays that ended (an event
 * after each), queues one more while fewer than ENERGY_QUEUED are ahead
 * of the GPU, reads the energy counter, and every ENERGY_SAMPLE_S reads
 * NVML's clocks and temperature.  A window opens at a counter step and
 * closes at the first step after --energy-window seconds, so both its
 * ends are readings the counter has just made, and the next window opens
 * where it closed.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/bench.h"
#include "run/energy.h"
#include "device/nvml.h"
#include "trace/trace.h"

/* Events: one after each replay queued, and the one before the oldest,
 * from which that replay's GPU time is measured. */
#define SLOTS		(ENERGY_QUEUED + 2)
/* A counter that has not stepped this long past when a window was due to
 * close (or to open) is not counting. */
#define STUCK_S		2.0

/* Replays of one graph, queued ahead of the GPU. */
struct queue {
	cudaStream_t	 stream;
	cudaGraphExec_t	 graph;
	cudaEvent_t	*events;	/* SLOTS */
	uint64_t	 issued, done;	/* replays queued, and ended */
	uint64_t	 first;		/* the first replay of the present
					   run of launches */
	bool		 busy;		/* keep it full */
	/* The window being measured. */
	uint64_t	 counted;	/* replays that ended in it */
	double		 gpu_ms;	/* their GPU time */
	unsigned	 drained;
};

/* The energy counter as last read. */
struct counter {
	unsigned long long	 mj;
	double			 at;	/* when it last stepped (host) */
	unsigned		 steps;	/* since the window opened */
};

static void
pause_seconds(double s)
{
	struct timespec	ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

int
energy_open(struct energy *en, struct host_facts *h, double window_s,
    char **why)
{
	memset(en, 0, sizeof *en);
	en->host = h;
	en->window_s = window_s;
	en->other_processes = -1;
	if (h->nvml == NULL) {
		*why = xasprintf("NVML is unavailable (%s): it holds the "
		    "GPU's energy counter", h->nvml_reason[0] != '\0' ?
		    h->nvml_reason : "not loaded");
		return -1;
	}
	return nvml_energy_usable(h->nvml, why);
}

int
energy_alone(struct energy *en, char **why)
{
	long	mps = -1, others = nvml_other_processes(en->host->nvml, &mps);

	en->other_processes = others;
	if (mps > 0) {
		*why = xasprintf("the GPU is shared through MPS (%ld client "
		    "process%s): the board's energy counter holds every "
		    "client's draw", mps, mps == 1 ? "" : "es");
		return -1;
	}
	if (others > 0) {
		*why = xasprintf("%ld other process%s use%s the GPU (NVML's "
		    "process lists): the board's energy counter would add "
		    "their draw to this run's", others, others == 1 ? "" :
		    "es", others == 1 ? "s" : "");
		return -1;
	}
	return 0;
}

/* Collects the replays that ended, each one's GPU time measured from the
 * end of the one before; then, while the queue is kept full, queues one
 * more (the loop comes back long before ENERGY_QUEUED replays run out). */
static int
queue_step(struct queue *q, bool counting, char **cause)
{
	cudaError_t	e;
	float		ms;

	while (q->done < q->issued) {
		e = cudaEventQuery(q->events[q->done % SLOTS]);
		if (e == cudaErrorNotReady)
			break;
		if (e != cudaSuccess)
			return cuda_fail(e, "cudaEventQuery", cause);
		if (counting && q->done > q->first) {
			CUDA_TRY(cudaEventElapsedTime(&ms,
			    q->events[(q->done - 1) % SLOTS],
			    q->events[q->done % SLOTS]), cause);
			q->gpu_ms += ms;
			q->counted++;
		}
		q->done++;
	}
	if (!q->busy)
		return 0;
	if (counting && q->done == q->issued)
		q->drained++;
	if (q->issued - q->done < ENERGY_QUEUED) {
		CUDA_TRY(cudaGraphLaunch(q->graph, q->stream), cause);
		CUDA_TRY(cudaEventRecord(q->events[q->issued % SLOTS],
		    q->stream), cause);
		q->issued++;
	}
	return 0;
}

/* NVML's clocks, temperature and throttling reasons now, into the run's
 * summary and the window's lowest clocks, highest temperature and
 * reasons. */
static void
sample(struct energy *en, struct energy_window *w)
{
	struct gpu_reading	r;

	if (!host_facts_sample(en->host, &r))
		return;
	w->sm_clock_min_mhz = fmin(w->sm_clock_min_mhz, r.sm_clock_mhz);
	w->memory_clock_min_mhz = fmin(w->memory_clock_min_mhz,
	    r.memory_clock_mhz);
	w->temperature_max_c = fmax(w->temperature_max_c, r.temperature_c);
	if (r.event_reasons > 0)
		w->throttle |= (unsigned long long)r.event_reasons &
		    gpu_throttle_mask();
}

/* Runs the queue until the counter steps at or after `until` (host
 * clock); c then holds that step.  w (may be NULL) gets NVML's readings
 * meanwhile. */
static int
run_until_step(struct energy *en, struct queue *q, bool counting,
    double until, struct counter *c, struct energy_window *w, char **cause)
{
	unsigned long long	 mj;
	double			 now, sampled = 0;
	double			 due = fmax(until, monotonic_seconds());

	for (;;) {
		if (queue_step(q, counting, cause) != 0 ||
		    nvml_energy_mj(en->host->nvml, &mj, cause) != 0)
			return -1;
		now = monotonic_seconds();
		if (mj != c->mj) {
			c->mj = mj;
			c->at = now;
			c->steps++;
			if (now >= until)
				return 0;
		}
		if (now - due > STUCK_S) {
			*cause = xasprintf("the GPU's energy counter did not "
			    "change in %.0f s (nvmlDeviceGetTotalEnergyConsumption "
			    "reads %llu mJ): it is not counting", STUCK_S, mj);
			return -1;
		}
		if (w != NULL && now - sampled >= ENERGY_SAMPLE_S) {
			sample(en, w);
			sampled = now;
		}
		/* Edges to a tenth of a millisecond; NVML not hammered. */
		pause_seconds(1e-4);
	}
}

/* One window from the step c holds to the first step window_s later. */
static int
window(struct energy *en, struct queue *q, unsigned per_replay,
    struct counter *c, struct energy_window *w, char **cause)
{
	unsigned long long	start_mj = c->mj;
	double			start = c->at;

	memset(w, 0, sizeof *w);
	w->sm_clock_min_mhz = w->memory_clock_min_mhz = INFINITY;
	w->temperature_max_c = -INFINITY;
	q->counted = 0;
	q->gpu_ms = 0;
	q->drained = 0;
	c->steps = 0;
	if (run_until_step(en, q, true, start + en->window_s, c, w,
	    cause) != 0)
		return -1;
	sample(en, w);
	w->seconds = c->at - start;
	w->energy_mj = c->mj - start_mj;
	w->updates = c->steps;
	w->drained = q->busy ? q->drained : 0;
	w->launches = q->busy ? energy_launches(q->counted, per_replay,
	    q->gpu_ms * 1e-3, w->seconds) : 0;
	w->power_limit_w = nvml_power_limit_w(en->host->nvml);
	if (isinf(w->sm_clock_min_mhz))
		w->sm_clock_min_mhz = NAN;
	if (isinf(w->memory_clock_min_mhz))
		w->memory_clock_min_mhz = NAN;
	if (isinf(w->temperature_max_c))
		w->temperature_max_c = NAN;
	if (q->busy && !(w->launches > 0)) {
		*cause = xasprintf("no replay ended inside a %.2f s energy "
		    "window: a replay of %u launches outlasts it (a longer "
		    "--energy-window measures it)", w->seconds, per_replay);
		return -1;
	}
	return 0;
}

/* How long one launch of l takes replayed from a graph of `launches`,
 * replayed `replays` times between two events (after one untimed). */
static int
launch_seconds(struct bench *b, const struct launch *l, cudaEvent_t *ev,
    unsigned launches, unsigned replays, double *seconds, char **cause)
{
	cudaGraphExec_t	graph;
	float		ms = 0;
	unsigned	i;
	int		rc = -1;

	if (measure_graph(b, l, CACHE_WARM, launches, &graph, cause) != 0)
		return -1;
	if (cudaGraphLaunch(graph, b->stream) != cudaSuccess ||
	    cudaEventRecord(ev[0], b->stream) != cudaSuccess)
		goto fail;
	for (i = 0; i < replays; i++) {
		if (cudaGraphLaunch(graph, b->stream) != cudaSuccess)
			goto fail;
	}
	if (cudaEventRecord(ev[1], b->stream) != cudaSuccess ||
	    cudaStreamSynchronize(b->stream) != cudaSuccess ||
	    cudaEventElapsedTime(&ms, ev[0], ev[1]) != cudaSuccess)
		goto fail;
	*seconds = ms * 1e-3 / ((double)replays * launches);
	rc = 0;
	goto out;
fail:
	cuda_fail(cudaGetLastError(), "the energy windows' calibration",
	    cause);
out:
	cudaGraphExecDestroy(graph);
	return rc;
}

/* The launches a replay of about ENERGY_REPLAY_S holds: a graph of one
 * launch times a long kernel in a few of them; a short one is timed
 * again in a graph of MEASURE_GRAPH_LAUNCHES, so that the graph's own
 * start is not taken for the kernel's. */
static int
size_replay(struct bench *b, const struct launch *l, cudaEvent_t *ev,
    unsigned *launches, char **cause)
{
	double	s;

	if (launch_seconds(b, l, ev, 1, 2, &s, cause) != 0)
		return -1;
	if (s < ENERGY_REPLAY_S / MEASURE_GRAPH_LAUNCHES &&
	    launch_seconds(b, l, ev, MEASURE_GRAPH_LAUNCHES, 4, &s,
	    cause) != 0)
		return -1;
	*launches = energy_launches_per_replay(s);
	return 0;
}

/* Another process on the GPU now: its draw would be in the windows. */
static int
still_alone(struct energy *en, const struct launch *l, char **cause)
{
	char	*why = NULL;

	if (energy_alone(en, &why) == 0)
		return 0;
	*cause = xasprintf("%s: energy windows not measured: %s", l->v->id,
	    why);
	free(why);
	return -1;
}

static int
windows(struct energy *en, struct queue *q, unsigned per_replay,
    struct energy_window *idle, struct energy_window *busy, char **cause)
{
	struct counter	c = { 0, 0, 0 };
	int		k;

	/* Idle: the GPU has nothing queued; open at the first step. */
	pause_seconds(ENERGY_SETTLE_S);
	if (nvml_energy_mj(en->host->nvml, &c.mj, cause) != 0 ||
	    run_until_step(en, q, false, 0, &c, NULL, cause) != 0 ||
	    window(en, q, per_replay, &c, idle, cause) != 0)
		return -1;
	/* Launches: the warm-up closes at a step, where the first window
	 * opens. */
	q->busy = true;
	q->first = q->issued;
	if (run_until_step(en, q, false, monotonic_seconds() +
	    ENERGY_WARMUP_S, &c, NULL, cause) != 0)
		return -1;
	for (k = 0; k < ENERGY_WINDOWS; k++) {
		if (window(en, q, per_replay, &c, &busy[k], cause) != 0)
			return -1;
	}
	return 0;
}

int
energy_measure(struct energy *en, struct bench *b, const struct launch *l,
    struct energy_window *idle, struct energy_window *busy,
    unsigned *per_replay, char **cause)
{
	struct queue	 q;
	char		*ignored = NULL;
	int		 rc = -1;

	memset(&q, 0, sizeof q);
	q.stream = b->stream;
	if (trace_pause(true, cause) != 0)
		return -1;
	if (events_create(&q.events, SLOTS / 2, cause) != 0 ||
	    size_replay(b, l, q.events, per_replay, cause) != 0)
		goto out;
	if (measure_graph(b, l, CACHE_WARM, *per_replay, &q.graph,
	    cause) != 0 || still_alone(en, l, cause) != 0)
		goto out;
	rc = windows(en, &q, *per_replay, idle, busy, cause);
	q.busy = false;
	/* What is still queued runs out before anything else is timed. */
	if (cudaStreamSynchronize(b->stream) != cudaSuccess && rc == 0)
		rc = cuda_fail(cudaGetLastError(), "cudaStreamSynchronize",
		    cause);
	/* cudaEventQuery's "not ready" is no error for what follows. */
	if (cudaPeekAtLastError() == cudaErrorNotReady)
		(void)cudaGetLastError();
	if (rc == 0)
		rc = still_alone(en, l, cause);
	if (rc == 0)
		en->points++;
out:
	if (q.graph != NULL)
		cudaGraphExecDestroy(q.graph);
	events_destroy(q.events, SLOTS / 2);
	if (trace_pause(false, rc == 0 ? cause : &ignored) != 0)
		rc = -1;
	free(ignored);
	return rc;
}

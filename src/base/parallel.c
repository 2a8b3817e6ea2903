/*
 * parallel.c - a loop over a range, split across the host's cores.
 *
 * Filling inputs and computing the reference are the host's share of a
 * check: at 2^28 elements they take seconds on one core.  Each worker gets
 * one contiguous slice (a multiple of `grain` elements, so a slice never
 * splits what the body treats as a unit); no work is shared after that,
 * so the result cannot depend on the number of threads.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/ewbench.h"

/* Below this many elements a thread costs more than it saves. */
#define PARALLEL_MIN	(1u << 18)
#define PARALLEL_MAX_THREADS	64

struct slice {
	void		(*body)(void *, size_t, size_t);
	void		*ctx;
	size_t		 start, count;
};

static void *
run_slice(void *arg)
{
	struct slice	*s = arg;

	s->body(s->ctx, s->start, s->count);
	return NULL;
}

unsigned
parallel_threads(void)
{
	const char	*env = getenv("EWBENCH_THREADS");
	long		 n;

	if (env != NULL && (n = strtol(env, NULL, 10)) >= 1)
		return n > PARALLEL_MAX_THREADS ? PARALLEL_MAX_THREADS :
		    (unsigned)n;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		return 1;
	return n > PARALLEL_MAX_THREADS ? PARALLEL_MAX_THREADS : (unsigned)n;
}

void
parallel_for(size_t n, size_t grain, void (*body)(void *ctx, size_t start,
    size_t count), void *ctx)
{
	struct slice	 slices[PARALLEL_MAX_THREADS];
	pthread_t	 threads[PARALLEL_MAX_THREADS];
	bool		 started[PARALLEL_MAX_THREADS] = { false };
	size_t		 per, start, i, units;
	unsigned	 nthreads = parallel_threads();

	if (grain == 0)
		grain = 1;
	units = (n + grain - 1) / grain;
	if (n < PARALLEL_MIN || nthreads == 1 || units < 2) {
		body(ctx, 0, n);
		return;
	}
	if (nthreads > units)
		nthreads = (unsigned)units;
	per = (units + nthreads - 1) / nthreads * grain;
	for (i = 0, start = 0; i < nthreads && start < n; i++, start += per) {
		slices[i].body = body;
		slices[i].ctx = ctx;
		slices[i].start = start;
		slices[i].count = n - start < per ? n - start : per;
		/* The first slice runs on this thread, after the others
		 * are started; a thread that cannot start runs here too. */
		if (i > 0)
			started[i] = pthread_create(&threads[i], NULL,
			    run_slice, &slices[i]) == 0;
	}
	nthreads = (unsigned)i;
	run_slice(&slices[0]);
	for (i = 1; i < nthreads; i++) {
		if (started[i])
			pthread_join(threads[i], NULL);
		else
			run_slice(&slices[i]);
	}
}

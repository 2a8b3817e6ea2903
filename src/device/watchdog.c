/*
 * watchdog.c - a thread that ends the process when an armed stretch of
 * the main thread outlasts its limit (watchdog.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "device/watchdog.h"

static struct {
	pthread_mutex_t	 lock;
	pthread_cond_t	 changed;
	pthread_t	 thread;
	bool		 running, stopping, armed;
	unsigned long	 generation;	/* counts arms */
	struct timespec	 deadline;	/* CLOCK_MONOTONIC */
	unsigned	 seconds;
	char		 what[200];
	watchdog_fire	 fire;
	void		*ctx;
} w = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.changed = PTHREAD_COND_INITIALIZER,
};

static void *
watch(void *unused)
{
	unsigned long	gen;

	(void)unused;
	pthread_mutex_lock(&w.lock);
	while (!w.stopping) {
		if (!w.armed) {
			pthread_cond_wait(&w.changed, &w.lock);
			continue;
		}
		gen = w.generation;
		if (pthread_cond_timedwait(&w.changed, &w.lock,
		    &w.deadline) != ETIMEDOUT || !w.armed ||
		    w.generation != gen)
			continue;
		/* Still in the same stretch, past its limit. */
		w.fire(w.ctx, w.what, w.seconds);
		fflush(stdout);
		fflush(stderr);
		_exit(EWB_EXIT_ERROR);
	}
	pthread_mutex_unlock(&w.lock);
	return NULL;
}

int
watchdog_start(watchdog_fire fire, void *ctx, char **cause)
{
	pthread_condattr_t	attr;
	int			e;

	w.fire = fire;
	w.ctx = ctx;
	/* Deadlines on the monotonic clock: a clock step cannot fire it. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_destroy(&w.changed);
	pthread_cond_init(&w.changed, &attr);
	pthread_condattr_destroy(&attr);
	if ((e = pthread_create(&w.thread, NULL, watch, NULL)) != 0) {
		*cause = xasprintf("watchdog thread: %s", strerror(e));
		return -1;
	}
	w.running = true;
	return 0;
}

void
watchdog_arm(const char *what, unsigned seconds)
{
	pthread_mutex_lock(&w.lock);
	clock_gettime(CLOCK_MONOTONIC, &w.deadline);
	w.deadline.tv_sec += seconds;
	w.seconds = seconds;
	snprintf(w.what, sizeof w.what, "%s", what);
	w.armed = true;
	w.generation++;
	pthread_cond_signal(&w.changed);
	pthread_mutex_unlock(&w.lock);
}

void
watchdog_disarm(void)
{
	pthread_mutex_lock(&w.lock);
	w.armed = false;
	pthread_cond_signal(&w.changed);
	pthread_mutex_unlock(&w.lock);
}

void
watchdog_stop(void)
{
	if (!w.running)
		return;
	pthread_mutex_lock(&w.lock);
	w.stopping = true;
	pthread_cond_signal(&w.changed);
	pthread_mutex_unlock(&w.lock);
	pthread_join(w.thread, NULL);
	w.running = w.stopping = w.armed = false;
}

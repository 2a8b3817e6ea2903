/*
 * watchdog.h - stops a run whose kernel never returns.
 *
 * A thread waits while the main thread is inside an armed stretch (a
 * user kernel's check, timed points or counters: GPU waits, and nothing
 * that changes the manifest).  When a stretch outlasts its limit the
 * thread calls fire(ctx, what, seconds) (which says so and marks
 * run.json) and ends the process with EWB_EXIT_ERROR without another
 * CUDA call: a context whose kernel never returns cannot be torn down.
 * The lock is held from the decision to fire to the exit, so a disarm
 * that comes too late waits for the end instead of racing it.
 */
#ifndef EWB_WATCHDOG_H
#define EWB_WATCHDOG_H

#include "base/ewbench.h"

typedef void	(*watchdog_fire)(void *ctx, const char *what,
		    unsigned seconds);

int		 watchdog_start(watchdog_fire, void *ctx, char **cause);
/* what is copied; an armed watchdog is re-armed. */
void		 watchdog_arm(const char *what, unsigned seconds);
void		 watchdog_disarm(void);
/* Joins the thread; harmless when it never started. */
void		 watchdog_stop(void);

#endif

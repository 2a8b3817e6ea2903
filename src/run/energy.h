/*
 * energy.h - what a kernel costs in energy per byte moved (`ewbench run
 * --energy`; docs/data-format.md, energy.csv; docs/analysis.md, "Energy
 * per byte").
 *
 * No interface gives the joules of one launch: NVML's energy counter
 * (nvmlDeviceGetTotalEnergyConsumption, millijoules, the whole board) moves
 * in steps tens of milliseconds apart.  So one kernel is replayed back to
 * back from a CUDA graph, replays queued ahead of the GPU, through windows
 * of --energy-window seconds that open and close where the counter steps;
 * a window's energy, less what the board draws idle over an idle window of
 * the same length just before, over the bytes its launches moved.  The
 * launches in a window come from the replays' GPU time (CUDA events), not
 * from a count: the window's edges fall inside replays.
 *
 * Two halves:
 *   energy-math.c  the arithmetic of a window and run.json's "energy",
 *                  plain C (libewb.a, unit-tested)
 *   energy.c       the windows on the GPU: CUDA graphs and events, NVML
 */
#ifndef EWB_ENERGY_H
#define EWB_ENERGY_H

#include "base/ewbench.h"

/* Windows of launches per point, after the idle window: their spread is
 * the measurement's. */
#define ENERGY_WINDOWS		3
/* --energy-window's default and bounds, in seconds.  Below a second the
 * counter's steps (20-100 ms) become a large part of a window. */
#define ENERGY_WINDOW_S		1.0
#define ENERGY_WINDOW_MIN_S	1.0
#define ENERGY_WINDOW_MAX_S	60.0
/* After the point's timing, before its idle window: the last launches'
 * power has drained, the GPU still in the state it runs kernels in. */
#define ENERGY_SETTLE_S		0.25
/* Launches before the first window: clocks and power at their level. */
#define ENERGY_WARMUP_S		0.5
/* A replay of the graph lasts about this long, and this many are queued
 * ahead of the GPU: the host tops the queue up long before it runs dry. */
#define ENERGY_REPLAY_S		0.025
#define ENERGY_QUEUED		8
#define ENERGY_MAX_LAUNCHES	16384	/* in one graph */
/* NVML's clocks, temperature and throttling reasons are read this often
 * through a window. */
#define ENERGY_SAMPLE_S		0.1
/* The longest counter step seen on recent GPUs, for the plan's estimate:
 * a window closes at the first step past its length. */
#define ENERGY_STEP_S		0.1

/* One window's readings. */
struct energy_window {
	double			 seconds;	/* counter step to counter
						   step, host clock */
	unsigned long long	 energy_mj;	/* the counter's difference */
	double			 launches;	/* of the kernel in it; 0 for
						   the idle window */
	unsigned		 updates;	/* counter steps in it, the
						   closing one included */
	unsigned		 drained;	/* times the host found the
						   queue empty: the GPU may
						   have waited */
	double			 sm_clock_min_mhz;	/* NaN: none read */
	double			 memory_clock_min_mhz;
	double			 temperature_max_c;
	double			 power_limit_w;
	unsigned long long	 throttle;	/* NVML's throttling reasons,
						   ORed over its readings */
};

/* What a window of launches gives, its idle window subtracted. */
struct energy_result {
	double	 board_w;	/* the window's average: energy / seconds */
	double	 idle_w;	/* the idle window's */
	double	 net_w;		/* board_w - idle_w */
	double	 bytes;		/* launches x bytes per launch */
	double	 pj_per_byte;	/* net_w x seconds / bytes, in pJ */
	double	 bandwidth;	/* bytes / seconds */
};

/* energy-math.c */
void	 energy_result(const struct energy_window *busy,
	    const struct energy_window *idle, uint64_t bytes_per_launch,
	    struct energy_result *);
/* Launches of the kernel in a window of `seconds`: `replays` replays of
 * `per_replay` launches each took gpu_seconds on the GPU's clock.  NaN
 * without replays or GPU time. */
double	 energy_launches(uint64_t replays, unsigned per_replay,
	    double gpu_seconds, double seconds);
/* Launches in one graph: enough for ENERGY_REPLAY_S at launch_s each,
 * from 1 to ENERGY_MAX_LAUNCHES. */
unsigned energy_launches_per_replay(double launch_s);
/* One point's energy windows, in seconds, for the plan's estimate: the
 * settling, the idle window, the warm-up and the windows, each closed up
 * to a counter step late. */
double	 energy_point_seconds(double window_s);
/* run.json's "energy": the method's settings (struct energy below). */
struct energy;
struct json;
void	 energy_json(const struct energy *, struct json *);

/* energy.c: the windows on the GPU. */
struct bench;
struct host_facts;
struct launch;

struct energy {
	struct host_facts	*host;		/* NVML, open */
	double			 window_s;
	long			 other_processes;	/* at the start; -1:
						   NVML cannot list them */
	size_t			 points;	/* measured so far */
};

/* Whether --energy can measure on this GPU (before the plan): 0, or -1
 * with why not (no NVML, no counter, MIG, shared among virtual
 * machines). */
int	 energy_open(struct energy *, struct host_facts *, double window_s,
	    char **why);
/* With the run's buffers allocated (this process holds its context):
 * -1 with why when another process uses the GPU, whose draw the board's
 * counter would add to the run's. */
int	 energy_alone(struct energy *, char **why);
/* One point: the idle window, then ENERGY_WINDOWS windows of launches of
 * l replayed from a graph of *per_replay launches.  The GPU must be
 * otherwise idle; kernel records are paused meanwhile (trace.h). */
int	 energy_measure(struct energy *, struct bench *, const struct launch *,
	    struct energy_window *idle, struct energy_window *busy,
	    unsigned *per_replay, char **cause);

#endif

/*
 * energy-math.c - the arithmetic of an energy window and run.json's record
 * of the method (energy.h): plain C, no GPU, so that every number of
 * energy.csv is unit-tested.
 */
#include <math.h>

#include "run/energy.h"

void
energy_result(const struct energy_window *busy,
    const struct energy_window *idle, uint64_t bytes_per_launch,
    struct energy_result *r)
{
	r->board_w = (double)busy->energy_mj * 1e-3 / busy->seconds;
	r->idle_w = (double)idle->energy_mj * 1e-3 / idle->seconds;
	r->net_w = r->board_w - r->idle_w;
	r->bytes = busy->launches * (double)bytes_per_launch;
	r->pj_per_byte = r->net_w * busy->seconds / r->bytes * 1e12;
	r->bandwidth = r->bytes / busy->seconds;
}

double
energy_launches(uint64_t replays, unsigned per_replay, double gpu_seconds,
    double seconds)
{
	if (replays == 0 || !(gpu_seconds > 0))
		return NAN;
	return (double)replays * per_replay / gpu_seconds * seconds;
}

unsigned
energy_launches_per_replay(double launch_s)
{
	double	n;

	if (!(launch_s > 0))
		return ENERGY_MAX_LAUNCHES;
	n = ceil(ENERGY_REPLAY_S / launch_s);
	return n < 1 ? 1 : n > ENERGY_MAX_LAUNCHES ? ENERGY_MAX_LAUNCHES :
	    (unsigned)n;
}

double
energy_point_seconds(double window_s)
{
	return ENERGY_SETTLE_S + ENERGY_WARMUP_S + (ENERGY_WINDOWS + 1) *
	    (window_s + ENERGY_STEP_S) + ENERGY_STEP_S;
}

void
energy_json(const struct energy *en, struct json *j)
{
	json_begin_object(j, "energy");
	json_str(j, "counter", "nvmlDeviceGetTotalEnergyConsumption");
	json_str(j, "covers", "board");
	json_f64(j, "window_s", en->window_s);
	json_u64(j, "windows", ENERGY_WINDOWS);
	json_f64(j, "settle_s", ENERGY_SETTLE_S);
	json_f64(j, "warmup_s", ENERGY_WARMUP_S);
	json_f64(j, "replay_s", ENERGY_REPLAY_S);
	json_u64(j, "queued_replays", ENERGY_QUEUED);
	json_f64(j, "sample_s", ENERGY_SAMPLE_S);
	if (en->other_processes >= 0)
		json_i64(j, "other_processes", en->other_processes);
	else
		json_null(j, "other_processes");
	json_u64(j, "points", en->points);
	json_end_object(j);
}

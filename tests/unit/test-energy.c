/*
 * test-energy.c - the arithmetic of an energy window (energy-math.c): the
 * board's draw, the idle draw subtracted, the bytes of the launches in the
 * window from the replays' GPU time, picojoules per byte; the graph's
 * launches; the plan's estimate; run.json's record of the method.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/energy.h"
#include "check.h"

static bool
near(double got, double want)
{
	return fabs(got - want) <= 1e-9 * fabs(want);
}

/* A DRAM-bound point: 1.2 s at 402.5 J (335.4 W), idle 1.1 s at 88 J
 * (80 W), 1000 launches of 3 GiB: (335.41666 - 80) W x 1.2 s over them. */
static void
test_result(void)
{
	struct energy_window	busy, idle;
	struct energy_result	r;
	uint64_t		per_launch = 3ULL << 30;
	double			bytes = 1000.0 * (3ULL << 30);

	memset(&busy, 0, sizeof busy);
	memset(&idle, 0, sizeof idle);
	busy.seconds = 1.2;
	busy.energy_mj = 402500;
	busy.launches = 1000;
	idle.seconds = 1.1;
	idle.energy_mj = 88000;
	energy_result(&busy, &idle, per_launch, &r);
	CHECK(near(r.board_w, 402.5 / 1.2));
	CHECK(near(r.idle_w, 80));
	CHECK(near(r.net_w, 402.5 / 1.2 - 80));
	CHECK(near(r.bytes, bytes));
	CHECK(near(r.bandwidth, bytes / 1.2));
	/* The idle draw over the window's own length, not the idle
	 * window's: (402.5 - 80 x 1.2) J = 306.5 J. */
	CHECK(near(r.pj_per_byte, 306.5 / bytes * 1e12));
	CHECK(r.pj_per_byte > 95.1 && r.pj_per_byte < 95.2);

	/* A kernel that adds nothing costs nothing; one that draws less
	 * than the idle board (a noisy idle window) shows negative, never
	 * clipped. */
	busy.energy_mj = 96000;
	energy_result(&busy, &idle, per_launch, &r);
	CHECK(fabs(r.net_w) < 1e-9 && fabs(r.pj_per_byte) < 1e-9);
	busy.energy_mj = 90000;
	energy_result(&busy, &idle, per_launch, &r);
	CHECK(r.net_w < 0 && r.pj_per_byte < 0);
}

/* Launches in a window from the replays that ended in it: 40 replays of
 * 25 launches in 1.0 s of GPU time is 1000 launches a second, 1050 in a
 * window of 1.05 s; none without replays or GPU time. */
static void
test_launches(void)
{
	CHECK(near(energy_launches(40, 25, 1.0, 1.05), 1050));
	CHECK(near(energy_launches(3, 16384, 0.075, 1.0), 3 * 16384 / 0.075));
	CHECK(isnan(energy_launches(0, 25, 1.0, 1.0)));
	CHECK(isnan(energy_launches(40, 25, 0, 1.0)));
	CHECK(isnan(energy_launches(40, 25, NAN, 1.0)));
}

/* A replay lasts ENERGY_REPLAY_S: a 1 ms launch 25 of them, a 3 us one
 * 8334 (rounded up), a 1 ns one the cap, a 1 s one a graph of one. */
static void
test_per_replay(void)
{
	CHECK(energy_launches_per_replay(1e-3) == 25);
	CHECK(energy_launches_per_replay(3e-6) == 8334);
	CHECK(energy_launches_per_replay(1e-9) == ENERGY_MAX_LAUNCHES);
	CHECK(energy_launches_per_replay(1.0) == 1);
	CHECK(energy_launches_per_replay(0) == ENERGY_MAX_LAUNCHES);
	CHECK(energy_launches_per_replay(NAN) == ENERGY_MAX_LAUNCHES);
}

/* A point: settling, warm-up, the idle window and three more, each up
 * to a step late; longer windows, longer points. */
static void
test_point_seconds(void)
{
	double	one = energy_point_seconds(1.0);

	CHECK(one >= ENERGY_SETTLE_S + ENERGY_WARMUP_S + 4 * 1.0);
	CHECK(one <= ENERGY_SETTLE_S + ENERGY_WARMUP_S + 4 * 1.1 + 0.2);
	CHECK(near(energy_point_seconds(2.0) - one, 4.0));
}

/* run.json "energy": the method's settings; other_processes null when
 * NVML could not list them. */
static void
test_json(void)
{
	struct energy	 en;
	struct json	*j;
	const char	*text;

	memset(&en, 0, sizeof en);
	en.window_s = 2.5;
	en.other_processes = 0;
	en.points = 7;
	JSON_OBJECT(j, energy_json, &en);
	text = json_text(j);
	CHECK(strstr(text, "\"window_s\": 2.5") != NULL);
	CHECK(strstr(text, "\"windows\": 3") != NULL);
	CHECK(strstr(text, "\"covers\": \"board\"") != NULL);
	CHECK(strstr(text, "\"other_processes\": 0") != NULL);
	CHECK(strstr(text, "\"points\": 7") != NULL);
	json_free(j);
	en.other_processes = -1;
	JSON_OBJECT(j, energy_json, &en);
	CHECK(strstr(json_text(j), "\"other_processes\": null") != NULL);
	json_free(j);
}

int
main(void)
{
	test_result();
	test_launches();
	test_per_replay();
	test_point_seconds();
	test_json();
	return check_exit();
}

/*
 * write-run.c DIR - writes a run directory with ewbench's own writers
 * (src/run/: claim.c the claim, output.c timing.csv, metrics.csv, sass.csv,
 * energy.csv, manifest.c run.json) for a device
 * described by hand, no GPU needed, and prints every value it wrote, one
 * "variant n cache column value" line each, for tests/contract.sh to
 * compare with what the Python loader reads back.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "run/energy.h"
#include "run/output.h"
#include "run/sass.h"

static void
die(const char *what, char *cause)
{
	fprintf(stderr, "write-run: %s: %s\n", what, cause ? cause : "?");
	exit(1);
}

int
main(int argc, char **argv)
{
	static char		 arg0[] = "run";
	char			*args[] = { arg0, NULL };
	struct device_facts	 dev;
	struct run_options	 opts;
	struct manifest		 man;
	struct csv		*timing, *metrics, *energy;
	struct energy		 en;
	struct energy_window	 idle, busy;
	struct energy_result	 r;
	unsigned		 k;
	struct stats		 st;
	struct timed		 t;
	struct point		 p;
	struct primary_block	 primary[3];
	char			*cause = NULL, *created = NULL;
	size_t			 i;
	double			 samples[5];
	uint64_t		 sizes[] = { 1000003, 1u << 24 };

	if (argc != 2)
		die("usage", "write-run DIR");
	memset(&dev, 0, sizeof dev);
	snprintf(dev.name, sizeof dev.name, "Contract GPU");
	dev.cc_major = 9;
	dev.sm_count = 132;
	dev.l2_bytes = 50u << 20;
	dev.memory_bytes = 80ULL << 30;
	dev.dram_bandwidth = 3.35232e12;
	dev.max_threads_per_sm = 2048;
	dev.max_blocks_per_sm = 32;
	dev.memory_clock_khz = 2619000;
	dev.sm_clock_khz = 1980000;
	dev.bus_width_bits = 5120;
	dev.shared_memory_per_sm = 228u << 10;
	dev.registers_per_sm = 0;	/* unknown: written as null */
	dev.driver_version = 13000;
	dev.runtime_version = 13000;
	snprintf(dev.uuid, sizeof dev.uuid, "GPU-contract");
	snprintf(dev.pci_bus_id, sizeof dev.pci_bus_id, "0000:00:00.0");
	if (cli_parse_run(1, args, &opts, &cause) != 0)
		die("options", cause);
	opts.residency = 5;	/* run.json's settings.residency */
	if (output_claim_dir(argv[1], &created, &cause) != 0)
		die("claim", cause);
	free(created);
	memset(&man, 0, sizeof man);
	man.command = "run";
	man.argc = 1;
	man.argv = args;
	man.device = &dev;
	man.opts = &opts;
	man.counters_status = "off";
	man.sizes = sizes;
	man.nsizes = 2;
	/* run.json's primary_blocks (plan_primary_blocks decides them:
	 * tests/unit/test-plan.c): a block, and a library's null. */
	primary[0].variant = ewb_variants[0].id;
	primary[0].block = ewb_variants[0].default_block;
	primary[1].variant = ewb_variants[1].id;
	primary[1].block = 2 * ewb_variants[1].default_block;
	primary[2].variant = "cub_add_f32";
	primary[2].block = 0;
	man.primary = primary;
	man.nprimary = 3;
	printf("primary_blocks %s %u %s %u cub_add_f32 null\n",
	    ewb_variants[0].id, ewb_variants[0].default_block,
	    ewb_variants[1].id, 2 * ewb_variants[1].default_block);
	output_utc_now(man.started_utc, sizeof man.started_utc);
	snprintf(man.run_id, sizeof man.run_id, "contract-run");
	if ((timing = timing_csv_open(argv[1], &cause)) == NULL ||
	    (metrics = metrics_csv_open(argv[1], &cause)) == NULL ||
	    (energy = energy_csv_open(argv[1], &cause)) == NULL)
		die("open", cause);
	for (i = 0; i < 4; i++) {
		memset(&p, 0, sizeof p);
		p.v = &ewb_variants[i];
		p.n = sizes[i % 2];
		p.block = 256;
		p.grid = (p.n + 255) / 256;
		p.cache = i < 2 ? CACHE_WARM : CACHE_COLD;
		p.launch = "stream";
		/* Values that do not round-trip by luck: thirds and an odd
		 * count of samples. */
		samples[0] = 1e4 / 3 * (i + 1);
		samples[1] = samples[0] * 1.001;
		samples[2] = samples[0] * 0.999;
		samples[3] = samples[0] * 1.25;
		samples[4] = samples[0] * 1.0000001;
		memset(&t, 0, sizeof t);
		stats_compute(samples, 5, &t.st);
		st = t.st;
		t.launches = 5;
		/* Warm rows timed by the replay, beside the records' median;
		 * cold ones by the records. */
		t.source = p.cache == CACHE_WARM ? "replay" : "kernel";
		t.activity_median_ns = p.cache == CACHE_WARM ?
		    samples[0] * 1.09 : NAN;
		t.stop = i % 2 ? "ci" : "cap";
		t.throttle = i == 3 ? 0x4 : 0;
		t.interval.median_ns = samples[0] * 1.5;
		t.interval.ci_ns = samples[0] / 100;
		t.queued.median_ns = t.queued.ci_ns = NAN;
		t.graph = i == 0 ? t.interval : t.queued;
		t.batch_ns = samples[0] * 1.3;
		/* The timer cross-check: one row without. */
		t.crosscheck_ns = i == 1 ? NAN : samples[0] * 0.99;
		/* NVML's lowest clocks: one row without (no NVML). */
		t.sm_clock_min_mhz = i == 2 ? NAN : 1980 - i / 3.0;
		t.memory_clock_min_mhz = i == 2 ? NAN : 2619;
		if (timing_csv_row(timing, man.run_id, &p, &t,
		    dev.dram_bandwidth, true, &cause) != 0 ||
		    metrics_csv_row(metrics, man.run_id, &p,
		    "dram__bytes_read.sum", 2.0 / 3 * p.n * 8, "byte", "cupti",
		    &cause) != 0)
			die("row", cause);
		printf("%s %llu %s time_median_ns %.17g\n", p.v->id,
		    (unsigned long long)p.n, cache_name(p.cache), st.median);
		printf("%s %llu %s time_stddev_ns %.17g\n", p.v->id,
		    (unsigned long long)p.n, cache_name(p.cache), st.stddev);
		printf("%s %llu %s dram__bytes_read.sum %.17g\n", p.v->id,
		    (unsigned long long)p.n, cache_name(p.cache),
		    2.0 / 3 * p.n * 8);
		/* Schema 2: the interval of the median, the launch interval,
		 * the batch cross-check. */
		printf("%s %llu %s time_ci_high_ns %.17g\n", p.v->id,
		    (unsigned long long)p.n, cache_name(p.cache),
		    st.ci_high);
		printf("%s %llu %s interval_ns %.17g\n", p.v->id,
		    (unsigned long long)p.n, cache_name(p.cache),
		    t.interval.median_ns);
		printf("%s %llu %s batch_ns %.17g\n", p.v->id,
		    (unsigned long long)p.n, cache_name(p.cache), t.batch_ns);
		if (!isnan(t.crosscheck_ns))
			printf("%s %llu %s crosscheck_ns %.17g\n", p.v->id,
			    (unsigned long long)p.n, cache_name(p.cache),
			    t.crosscheck_ns);
		if (!isnan(t.activity_median_ns))
			printf("%s %llu %s activity_median_ns %.17g\n",
			    p.v->id, (unsigned long long)p.n,
			    cache_name(p.cache), t.activity_median_ns);
		printf("%s %llu %s sm_clock_min_mhz %.17g\n", p.v->id,
		    (unsigned long long)p.n, cache_name(p.cache),
		    t.sm_clock_min_mhz);
		if (p.cache != CACHE_WARM)
			continue;
		/* energy.csv: the warm points' windows, in thirds; the
		 * second point's idle window read no clock. */
		p.launch = "graph";
		memset(&idle, 0, sizeof idle);
		idle.seconds = 1.0 + 1.0 / 3;
		idle.energy_mj = 100001;
		idle.updates = 67;
		idle.sm_clock_min_mhz = i == 1 ? NAN : 1980;
		idle.temperature_max_c = 40.5;
		idle.memory_clock_min_mhz = NAN;
		for (k = 1; k <= ENERGY_WINDOWS; k++) {
			busy = idle;
			busy.seconds = 1.0 + k / 3.0;
			busy.energy_mj = 400000 + 7 * k;
			busy.launches = 1e4 / 3 * k;
			busy.drained = k == 3;
			busy.power_limit_w = 700;
			busy.throttle = k == 2 ? 0x4 : 0;
			if (energy_csv_row(energy, man.run_id, &p, k, &idle,
			    &busy, 25, &cause) != 0)
				die("energy row", cause);
			energy_result(&busy, &idle, point_bytes_moved(&p), &r);
			printf("%s %llu warm energy.%u.pj_per_byte %.17g\n",
			    p.v->id, (unsigned long long)p.n, k, r.pj_per_byte);
			printf("%s %llu warm energy.%u.board_w %.17g\n",
			    p.v->id, (unsigned long long)p.n, k, r.board_w);
			printf("%s %llu warm energy.%u.launches %.17g\n",
			    p.v->id, (unsigned long long)p.n, k, busy.launches);
			printf("%s %llu warm energy.%u.idle_sm_clock_min_mhz "
			    "%.17g\n", p.v->id, (unsigned long long)p.n, k,
			    idle.sm_clock_min_mhz);
		}
	}
	if (csv_close(timing, &cause) != 0 || csv_close(metrics, &cause) != 0 ||
	    csv_close(energy, &cause) != 0)
		die("close", cause);
	memset(&en, 0, sizeof en);
	en.window_s = 1;
	en.other_processes = 0;
	en.points = 2;
	man.energy = &en;
	/* sass.csv: a 128-bit load and a bulk copy of no named width (an
	 * empty bits field) of the first variant timed. */
	{
		static const struct sass_row	rows[] = {
			{ NULL, "sm_90", "load", "LDG.E.128", 128, 2 },
			{ NULL, "sm_90", "load", "UBLKCP.S.G", 0, 4 },
		};
		struct sass_row			 mine[2];
		const struct sass_row		*list[2];

		for (i = 0; i < 2; i++) {
			mine[i] = rows[i];
			mine[i].variant = ewb_variants[0].id;
			list[i] = &mine[i];
		}
		if (sass_csv_write(argv[1], man.run_id, list, 2, &cause) != 0)
			die("sass", cause);
		man.sass = "recorded for sm_90";
		printf("%s %llu warm sass %s,%s,%s,%u,%u %s,%s,%s,-,%u\n",
		    ewb_variants[0].id, (unsigned long long)sizes[0],
		    mine[0].arch, mine[0].kind, mine[0].instruction,
		    mine[0].bits, mine[0].count, mine[1].arch, mine[1].kind,
		    mine[1].instruction, mine[1].count);
	}
	if (manifest_write(argv[1], &man, "complete", &cause) != 0)
		die("manifest", cause);
	settings_free(&opts);
	return 0;
}

/* test-placement.c - launcher variables to rank facts, member names and
 * the GPU a task measures; device lists; the NUMA node from a fake sysfs;
 * unknown facts written as null. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/placement.h"
#include "check.h"

/* The environment a case sees: NAME=value strings, NULL-terminated. */
static const char *const *fake_env;

static const char *
fake_getenv(const char *name)
{
	size_t	len = strlen(name);
	size_t	i;

	for (i = 0; fake_env != NULL && fake_env[i] != NULL; i++) {
		if (strncmp(fake_env[i], name, len) == 0 &&
		    fake_env[i][len] == '=')
			return fake_env[i] + len + 1;
	}
	return NULL;
}

struct env_case {
	const char	*env[6];
	int		 rc;		/* placement_from_env */
	const char	*launcher;
	long		 rank, local_rank;
	const char	*node;
	const char	*member;	/* after placement_member_name, or
					   the fleet child's own */
	int		 visible;	/* devices the runtime shows */
	int		 device;	/* placement_device; -1: refused */
};

static const struct env_case env_cases[] = {
	/* Nothing: an ordinary run. */
	{ { NULL }, 0, NULL, -1, -1, "host", NULL, 4, 0 },
	/* srun --ntasks-per-node=4: local rank picks among 4 GPUs. */
	{ { "SLURM_PROCID=3", "SLURM_LOCALID=1",
	    "SLURMD_NODENAME=nodeA.cluster", NULL },
	  0, "slurm", 3, 1, "nodeA", "nodeA-rank3", 4, 1 },
	/* --gpus-per-task=1: each task sees one GPU, device 0. */
	{ { "SLURM_PROCID=7", "SLURM_LOCALID=3", "SLURMD_NODENAME=n2", NULL },
	  0, "slurm", 7, 3, "n2", "n2-rank7", 1, 0 },
	/* More tasks than GPUs: round robin. */
	{ { "SLURM_PROCID=13", "SLURM_LOCALID=5", NULL },
	  0, "slurm", 13, 5, "host", "host-rank13", 4, 1 },
	/* No GPU here: the local rank itself, device_open will tell. */
	{ { "SLURM_PROCID=3", "SLURM_LOCALID=1", "SLURMD_NODENAME=nodeA",
	    NULL }, 0, "slurm", 3, 1, "nodeA", "nodeA-rank3", 0, 1 },
	/* mpirun inside an sbatch script: the batch step's SLURM_PROCID=0
	 * is inherited; Open MPI's own ranks count. */
	{ { "SLURM_PROCID=0", "SLURM_LOCALID=0", "SLURMD_NODENAME=batch",
	    "OMPI_COMM_WORLD_RANK=5", "OMPI_COMM_WORLD_LOCAL_RANK=2", NULL },
	  0, "openmpi", 5, 2, "host", "host-rank5", 8, 2 },
	{ { "PMIX_RANK=4", "PMIX_LOCAL_RANK=0", NULL },
	  0, "pmix", 4, 0, "host", "host-rank4", 2, 0 },
	/* PMIx without a local rank: fine with one visible GPU, refused
	 * with several (all tasks would share device 0). */
	{ { "PMIX_RANK=4", NULL }, 0, "pmix", 4, -1, "host", "host-rank4",
	  1, 0 },
	{ { "PMIX_RANK=4", NULL }, 0, "pmix", 4, -1, "host", "host-rank4",
	  2, -1 },
	/* A child of --device LIST: named by its parent, not a task. */
	{ { "EWBENCH_FLEET_MEMBER=host-gpu2", "SLURM_PROCID=1", NULL },
	  0, "ewbench", -1, -1, "host", "host-gpu2", 4, -1 },
	/* Malformed ranks are refused, empty ones unknown. */
	{ { "SLURM_PROCID=x", NULL }, -1, NULL, -1, -1, NULL, NULL, 0, 0 },
	{ { "SLURM_PROCID=-1", NULL }, -1, NULL, -1, -1, NULL, NULL, 0, 0 },
	{ { "SLURM_PROCID=2", "SLURM_LOCALID=1a", NULL }, -1, NULL, -1, -1,
	  NULL, NULL, 0, 0 },
	{ { "SLURM_PROCID=", NULL }, 0, NULL, -1, -1, "host", NULL, 4, 0 },
};

static void
test_env(void)
{
	struct placement	 p;
	char			*cause;
	size_t			 i;
	int			 rc, device;

	for (i = 0; i < sizeof env_cases / sizeof env_cases[0]; i++) {
		const struct env_case *c = &env_cases[i];

		fake_env = c->env;
		cause = NULL;
		rc = placement_from_env(fake_getenv, "host", &p, &cause);
		if (rc != c->rc)
			fprintf(stderr, "case %zu: rc %d\n", i, rc);
		CHECK(rc == c->rc);
		if (rc != 0) {
			CHECK(cause != NULL && strstr(cause, "rank") != NULL);
			free(cause);
			continue;
		}
		CHECK_STR(p.launcher, c->launcher);
		CHECK(p.rank == c->rank);
		CHECK(p.local_rank == c->local_rank);
		CHECK_STR(p.node, c->node);
		if (c->launcher == NULL) {
			CHECK(!placement_scheduled(&p));
			continue;
		}
		if (strcmp(c->launcher, "ewbench") == 0) {
			CHECK(!placement_scheduled(&p));
			CHECK_STR(p.member, c->member);
			continue;
		}
		CHECK(placement_scheduled(&p));
		placement_member_name(&p);
		CHECK_STR(p.member, c->member);
		device = placement_device(&p, c->visible, &cause);
		if (device != c->device)
			fprintf(stderr, "case %zu: device %d\n", i, device);
		CHECK(device == c->device);
		if (device < 0) {
			CHECK(cause != NULL &&
			    strstr(cause, "--device") != NULL);
			free(cause);
		}
	}
}

static void
test_visible(void)
{
	static const char *const unset[] = { NULL };
	static const char *const empty[] = { "CUDA_VISIBLE_DEVICES=", NULL };
	static const char *const one[] = { "CUDA_VISIBLE_DEVICES=3", NULL };
	static const char *const uuids[] = {
		"CUDA_VISIBLE_DEVICES=GPU-1a,GPU-2b,GPU-3c", NULL
	};

	fake_env = unset;
	CHECK(placement_visible_count(fake_getenv) == -1);
	fake_env = empty;
	CHECK(placement_visible_count(fake_getenv) == 0);
	fake_env = one;
	CHECK(placement_visible_count(fake_getenv) == 1);
	fake_env = uuids;
	CHECK(placement_visible_count(fake_getenv) == 3);
}

static void
test_names(void)
{
	char	buf[64];

	host_short_name("node1.example.org", buf, sizeof buf);
	CHECK_STR(buf, "node1");
	host_short_name("gpu box/7", buf, sizeof buf);
	CHECK_STR(buf, "gpu-box-7");
	host_short_name("", buf, sizeof buf);
	CHECK_STR(buf, "h");
	host_short_name("abcdefgh", buf, 4);
	CHECK_STR(buf, "abc");
	fleet_member_name("nodeA", 2, buf, sizeof buf);
	CHECK_STR(buf, "nodeA-gpu2");
}

static void
test_device_lists(void)
{
	static const struct {
		const char	*text;
		int		 rc;
		bool		 all, fleet;
		size_t		 count;
		unsigned	 first;
		const char	*cause;
	} cases[] = {
		{ "all", 0, true, true, 0, 0, NULL },
		{ "3", 0, false, false, 1, 3, NULL },
		{ "0,2,3", 0, false, true, 3, 0, NULL },
		{ "2,2", 0, false, true, 1, 2, NULL },
		{ "0,,1", -1, false, false, 0, 0, "empty item in '0,,1'" },
		{ "1,", -1, false, false, 0, 0, "empty item" },
		{ "", -1, false, false, 0, 0, "empty item" },
		{ "1024", -1, false, false, 0, 0, "from 0 to 1023" },
		{ "ALL", -1, false, false, 0, 0, "'ALL'" },
		{ "-1", -1, false, false, 0, 0, "'-1'" },
	};
	unsigned	*devices;
	size_t		 count, i;
	bool		 all, fleet;
	char		*cause;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cause = NULL;
		devices = NULL;
		if (device_list_parse(cases[i].text, &all, &devices, &count,
		    &fleet, &cause) != 0) {
			CHECK(cases[i].rc == -1);
			CHECK(cause != NULL && cases[i].cause != NULL &&
			    strstr(cause, cases[i].cause) != NULL);
			free(cause);
			continue;
		}
		CHECK(cases[i].rc == 0);
		CHECK(all == cases[i].all);
		CHECK(fleet == cases[i].fleet);
		CHECK(count == cases[i].count);
		if (count > 0)
			CHECK(devices[0] == cases[i].first);
		free(devices);
	}
}

static void
put(const char *path, const char *text)
{
	FILE	*f = fopen(path, "w");

	CHECK(f != NULL);
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

static void
test_numa(void)
{
	char	 root[] = "/tmp/ewb-sysfs.XXXXXX", *dir, *file, *cmd;

	CHECK(mkdtemp(root) != NULL);
	dir = xasprintf("%s/bus/pci/devices/0000:3b:00.0", root);
	file = xasprintf("%s/numa_node", dir);
	cmd = xasprintf("mkdir -p '%s'", dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	put(file, "1\n");
	/* CUDA spells the bus id in upper case. */
	CHECK(numa_node_of(root, "0000:3B:00.0") == 1);
	put(file, "-1\n");
	CHECK(numa_node_of(root, "0000:3B:00.0") == -1);
	put(file, "");
	CHECK(numa_node_of(root, "0000:3B:00.0") == -1);
	CHECK(numa_node_of(root, "0000:00:05.0") == -1);
	CHECK(numa_node_of(root, "") == -1);
	cmd = xasprintf("rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	free(cmd);
	free(dir);
	free(file);
}

/* Unknown facts are null, never 0; known ones are written. */
static void
test_json(void)
{
	struct host_facts	 h;
	struct json		*j;
	const char		*text;

	host_facts_init(&h);
	snprintf(h.hostname, sizeof h.hostname, "nodeA");
	JSON_OBJECT(j, placement_json, &h);
	text = json_text(j);
	CHECK(strstr(text, "\"hostname\": \"nodeA\"") != NULL);
	CHECK(strstr(text, "\"numa_node\": null") != NULL);
	CHECK(strstr(text, "\"pci_bus_id\": null") != NULL);
	CHECK(strstr(text, "\"launcher\": null") != NULL);
	CHECK(strstr(text, "\"rank\": null") != NULL);
	CHECK(strstr(text, "\"status\": \"unavailable\"") != NULL);
	CHECK(strstr(text, "\"max_sm_clock_mhz\": null") != NULL);
	CHECK(strstr(text, "\"start\": null") != NULL);
	CHECK(strstr(text, ": 0") == NULL);
	json_free(j);

	h.numa_node = 0;
	h.place.launcher = "slurm";
	h.place.rank = 3;
	h.place.local_rank = 1;
	snprintf(h.place.node, sizeof h.place.node, "nodeA");
	snprintf(h.place.member, sizeof h.place.member, "nodeA-rank3");
	h.nvml_status = "ok";
	h.max_sm_clock_mhz = 1980;
	h.start.taken = true;
	snprintf(h.start.utc, sizeof h.start.utc, "2026-01-01T00:00:00Z");
	h.start.sm_clock_mhz = 1755;
	h.start.memory_clock_mhz = 2619;
	h.start.power_w = 71.5;
	h.start.temperature_c = 33;
	h.start.event_reasons = 1;
	JSON_OBJECT(j, placement_json, &h);
	text = json_text(j);
	CHECK(strstr(text, "\"numa_node\": 0") != NULL);
	CHECK(strstr(text, "\"launcher\": \"slurm\"") != NULL);
	CHECK(strstr(text, "\"rank\": 3") != NULL);
	CHECK(strstr(text, "\"local_rank\": 1") != NULL);
	CHECK(strstr(text, "\"member\": \"nodeA-rank3\"") != NULL);
	CHECK(strstr(text, "\"max_sm_clock_mhz\": 1980") != NULL);
	CHECK(strstr(text, "\"power_w\": 71.5") != NULL);
	CHECK(strstr(text, "\"clock_event_reasons\": 1") != NULL);
	CHECK(strstr(text, "\"end\": null") != NULL);
	json_free(j);
}

static struct gpu_reading
reading_of(double sm, double power, long long reasons)
{
	struct gpu_reading	r = { .taken = true, .sm_clock_mhz = sm,
				    .memory_clock_mhz = 2619, .power_w = power,
				    .temperature_c = NAN,
				    .event_reasons = reasons };

	return r;
}

/* The summary through a run: exact extremes, the median from whole-unit
 * bins (the lower one of an even count, never outside [min, max]),
 * readings NVML did not give left out of their quantity's count. */
static void
test_sampled(void)
{
	struct gpu_sampled	 s;
	struct gpu_reading	 r;
	struct host_facts	 h;
	struct json		*j;
	int			 i;

	memset(&s, 0, sizeof s);
	CHECK(isnan(gpu_quantity_median(&s.sm_clock)));
	for (i = 0; i < 5; i++) {
		r = reading_of(1980, 72.4, 0);
		gpu_sampled_add(&s, &r);
	}
	r = reading_of(1755, 72.4, 0x1);	/* idle: no throttling */
	gpu_sampled_add(&s, &r);
	r = reading_of(1755, 72.4, 0x4);	/* software power cap */
	gpu_sampled_add(&s, &r);
	r = reading_of(NAN, NAN, -1);		/* NVML gave nothing */
	gpu_sampled_add(&s, &r);
	CHECK(s.samples == 8);
	CHECK(s.sm_clock.count == 7 && s.power.count == 7);
	CHECK(s.temperature.count == 0);
	CHECK(s.sm_clock.min == 1755 && s.sm_clock.max == 1980);
	CHECK(gpu_quantity_median(&s.sm_clock) == 1980);
	/* 72.4 W falls in the 72 W bin; the median stays within [min, max]. */
	CHECK(gpu_quantity_median(&s.power) == 72.4);
	CHECK(s.reasons == 0x5 && s.throttled == 1);
	gpu_sampled_free(&s);

	/* Even count: the lower median; past the last bin: max exact. */
	memset(&s, 0, sizeof s);
	for (i = 1; i <= 4; i++) {
		r = reading_of(i * 100.0, 1e5, 0);
		gpu_sampled_add(&s, &r);
	}
	CHECK(gpu_quantity_median(&s.sm_clock) == 200);
	CHECK(s.power.max == 1e5);
	CHECK(gpu_quantity_median(&s.power) == 1e5);
	gpu_sampled_free(&s);

	/* In run.json: null without readings, the settings null when not
	 * read; with readings, min, median, max and count. */
	host_facts_init(&h);
	h.nvml_status = "ok";
	JSON_OBJECT(j, placement_json, &h);
	CHECK(strstr(json_text(j), "\"sampled\": null") != NULL);
	CHECK(strstr(json_text(j), "\"ecc_enabled\": null") != NULL);
	CHECK(strstr(json_text(j), "\"power_limit_w\": null") != NULL);
	CHECK(strstr(json_text(j), "\"persistence_mode\": null") != NULL);
	json_free(j);
	h.settings.ecc_current = 1;
	h.settings.ecc_pending = 0;
	h.settings.power_limit_w = 650;
	r = reading_of(1980, 300, 0);
	gpu_sampled_add(&h.sampled, &r);
	JSON_OBJECT(j, placement_json, &h);
	CHECK(strstr(json_text(j), "\"ecc_enabled\": true") != NULL);
	CHECK(strstr(json_text(j), "\"ecc_pending_enabled\": false") !=
	    NULL);
	CHECK(strstr(json_text(j), "\"power_limit_w\": 650") != NULL);
	CHECK(strstr(json_text(j), "\"samples\": 1") != NULL);
	CHECK(strstr(json_text(j), "\"median\": 1980") != NULL);
	CHECK(strstr(json_text(j), "\"temperature_c\": null") != NULL);
	json_free(j);
	gpu_sampled_free(&h.sampled);
}

int
main(void)
{
	test_env();
	test_visible();
	test_names();
	test_device_lists();
	test_numa();
	test_json();
	test_sampled();
	return check_exit();
}

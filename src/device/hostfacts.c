/*
 * hostfacts.c - gathers run.json's "placement" facts: host name and
 * launcher from the environment, the GPU's NUMA node from sysfs, its
 * settings from NVML at the start of a run, and its clocks, power and
 * temperature at the start, through the run (host_facts_sample) and at
 * its end.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/hostfacts.h"
#include "device/nvml.h"

int
host_facts_env(struct host_facts *h, char **cause)
{
	char	host[256] = "";

	host_facts_init(h);
	gethostname(host, sizeof host - 1);
	host_short_name(host, h->hostname, sizeof h->hostname);
	return placement_from_env(placement_getenv, h->hostname, &h->place, cause);
}

void
host_facts_begin(struct host_facts *h, const struct device_facts *d)
{
	char	*cause = NULL;

	snprintf(h->pci_bus_id, sizeof h->pci_bus_id, "%s", d->pci_bus_id);
	h->numa_node = numa_node_of("/sys", d->pci_bus_id);
	if (nvml_open(d->pci_bus_id, &h->nvml, &cause) != 0) {
		h->nvml_status = "unavailable";
		snprintf(h->nvml_reason, sizeof h->nvml_reason, "%s", cause);
		free(cause);
		return;
	}
	h->nvml_status = "ok";
	nvml_max_clocks(h->nvml, &h->max_sm_clock_mhz,
	    &h->max_memory_clock_mhz);
	nvml_settings(h->nvml, &h->settings);
	nvml_sample(h->nvml, &h->start);
}

bool
host_facts_sample(struct host_facts *h, struct gpu_reading *r)
{
	struct gpu_reading	 mine;
	double			 t0;

	if (r == NULL)
		r = &mine;
	if (h == NULL || h->nvml == NULL)
		return false;
	t0 = monotonic_seconds();
	nvml_sample(h->nvml, r);
	gpu_sampled_add(&h->sampled, r);
	h->sampled.wall_s += monotonic_seconds() - t0;
	return true;
}

void
host_facts_end(struct host_facts *h)
{
	if (h->nvml == NULL)
		return;
	nvml_sample(h->nvml, &h->end);
	nvml_close(h->nvml);
	h->nvml = NULL;
}

void
host_facts_free(struct host_facts *h)
{
	if (h->nvml != NULL) {
		nvml_close(h->nvml);
		h->nvml = NULL;
	}
	free(h->member_dir);
	h->member_dir = NULL;
	gpu_sampled_free(&h->sampled);
}

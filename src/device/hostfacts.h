/*
 * hostfacts.h - gathering run.json's "placement" facts around a run: the
 * host and launcher before, the GPU's NUMA node, NVML's settings and a
 * reading at the start, readings through the run, NVML again at the end.
 */
#ifndef EWB_HOSTFACTS_H
#define EWB_HOSTFACTS_H

#include "device/device.h"
#include "device/placement.h"

/* The short host name and the launcher's facts (before any GPU work).
 * -1 with a cause when a launcher variable is malformed. */
int	 host_facts_env(struct host_facts *, char **cause);
/* After the device is open: its bus id, NUMA node, NVML's maximum clocks,
 * its settings and a first reading (or why NVML is unavailable). */
void	 host_facts_begin(struct host_facts *, const struct device_facts *);
/* One reading now into *r (r may be NULL) and into the run's summary
 * (run.json placement.nvml.sampled), its time counted there; false, *r
 * untouched, when NVML is not open (h may be NULL). */
bool	 host_facts_sample(struct host_facts *, struct gpu_reading *r);
/* The closing reading; NVML is let go. */
void	 host_facts_end(struct host_facts *);
/* Frees what the facts hold, also when the run never began. */
void	 host_facts_free(struct host_facts *);

#endif

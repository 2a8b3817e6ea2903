/*
 * hostfacts.h - gathering run.json's "placement" facts around a run: the
 * host and launcher before, the GPU's NUMA node and NVML readings at the
 * start, NVML again at the end.
 */
#ifndef EWB_HOSTFACTS_H
#define EWB_HOSTFACTS_H

#include "device.h"
#include "placement.h"

/* The short host name and the launcher's facts (before any GPU work).
 * -1 with a cause when a launcher variable is malformed. */
int	 host_facts_env(struct host_facts *, char **cause);
/* After the device is open: its bus id, NUMA node, NVML's maximum clocks
 * and a first reading (or why NVML is unavailable). */
void	 host_facts_begin(struct host_facts *, const struct device_facts *);
/* The closing reading; NVML is let go. */
void	 host_facts_end(struct host_facts *);
/* Frees what the facts hold, also when the run never began. */
void	 host_facts_free(struct host_facts *);

#endif

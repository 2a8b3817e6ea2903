/*
 * nvml.h - the GPU's clocks, power, temperature and clock event reasons
 * through NVML, loaded at run time (never linked): a machine without the
 * driver's libnvidia-ml.so.1 still runs ewbench, its readings null.
 */
#ifndef EWB_NVML_H
#define EWB_NVML_H

#include "placement.h"

struct nvml;

/* Loads NVML and finds the GPU at pci_bus_id ("0000:3B:00.0", as CUDA
 * gives it).  -1 with a cause when either fails. */
int	 nvml_open(const char *pci_bus_id, struct nvml **, char **cause);
/* Maximum SM and memory clocks in MHz; NaN where NVML has none. */
void	 nvml_max_clocks(struct nvml *, double *sm_mhz, double *memory_mhz);
/* One reading now: each value NaN (-1 for the bitmask) where NVML has
 * none. */
void	 nvml_sample(struct nvml *, struct gpu_reading *);
/* The clock event (throttle) reasons bitmask now, -1 when NVML has none:
 * cheap enough to read after every round of timed launches. */
long long nvml_event_reasons(struct nvml *);
void	 nvml_close(struct nvml *);

#endif

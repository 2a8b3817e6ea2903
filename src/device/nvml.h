/*
 * nvml.h - the GPU's clocks, power, temperature and clock event reasons
 * through NVML, loaded at run time (never linked): a machine without the
 * driver's libnvidia-ml.so.1 still runs ewbench, its readings null.
 */
#ifndef EWB_NVML_H
#define EWB_NVML_H

#include "device/placement.h"

struct nvml;

/* Loads NVML and finds the GPU at pci_bus_id ("0000:3B:00.0", as CUDA
 * gives it).  -1 with a cause when either fails. */
int	 nvml_open(const char *pci_bus_id, struct nvml **, char **cause);
/* Maximum SM and memory clocks in MHz; NaN where NVML has none. */
void	 nvml_max_clocks(struct nvml *, double *sm_mhz, double *memory_mhz);
/* The GPU's settings (driver release, ECC, persistence, power limits,
 * application clocks): each left unknown where NVML gives none. */
void	 nvml_settings(struct nvml *, struct gpu_settings *);
/* One reading now: each value NaN (-1 for the clock event reasons
 * bitmask) where NVML has none.  A handful of NVML calls: read once a
 * round of timed launches (measure.c), not once a launch. */
void	 nvml_sample(struct nvml *, struct gpu_reading *);
/* The power limit in force now, in watts; NaN where NVML has none. */
double	 nvml_power_limit_w(struct nvml *);
/* Whether the GPU's energy counter (nvmlDeviceGetTotalEnergyConsumption,
 * millijoules since the driver loaded, Volta and later) can measure a
 * run: -1 with why not where the driver or GPU has none, the GPU is in
 * MIG mode or shared among virtual machines (the counter is the whole
 * board's). */
int	 nvml_energy_usable(struct nvml *, char **why);
/* The counter now, in millijoules; -1 with a cause. */
int	 nvml_energy_mj(struct nvml *, unsigned long long *mj, char **cause);
/* Processes on the GPU besides this one (compute, this one not counted,
 * and graphics); -1 when NVML cannot list them.  *mps_clients: the MPS
 * clients listed (this one among them under MPS), -1 when NVML cannot
 * say.  Call it while this process holds a context on the GPU. */
long	 nvml_other_processes(struct nvml *, long *mps_clients);
void	 nvml_close(struct nvml *);

#endif

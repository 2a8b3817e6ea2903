/*
 * device.h - the GPU a run measures: its facts, and CUDA error handling.
 */
#ifndef EWB_DEVICE_H
#define EWB_DEVICE_H

#include <cuda_runtime_api.h>

#include "base/ewbench.h"

struct device_facts {
	int		 index;
	char		 name[256];
	char		 uuid[48];
	char		 pci_bus_id[32];
	int		 cc_major, cc_minor;
	int		 sm_count;
	size_t		 l2_bytes;
	size_t		 memory_bytes;
	int		 bus_width_bits;
	int		 memory_clock_khz;
	int		 sm_clock_khz;
	double		 dram_bandwidth;	/* theoretical, bytes/s */
	int		 max_threads_per_sm;
	int		 max_blocks_per_sm;
	size_t		 shared_memory_per_sm;
	int		 registers_per_sm;
	int		 driver_version;
	int		 runtime_version;
};

/* Selects device `index` and reads its facts.  On failure returns the exit
 * code to use (EWB_EXIT_NODEV when there is no usable GPU or driver) and a
 * cause. */
int	 device_open(int index, struct device_facts *, char **cause);
/* The CUDA devices visible; EWB_EXIT_NODEV with a cause that says why
 * none is usable (no driver, a driver too old, no device). */
int	 device_count(int *count, char **cause);
void	 device_print(const struct device_facts *, FILE *);
/* Theoretical DRAM bandwidth in bytes/s: 2 x clock x bus width. */
double	 device_dram_bandwidth(int memory_clock_khz, int bus_width_bits);
void	 device_json(const struct device_facts *, struct json *);
/* FP32 lanes per SM (FMAs per clock) where the compute capability's
 * documentation states them; 0 where it does not. */
int	 device_fp32_lanes_per_sm(const struct device_facts *);
/* A short lower-case name for directories: "nvidia-h100-80gb-hbm3". */
void	 device_slug(const struct device_facts *, char *buf, size_t len);

/* `pairs` start/stop event pairs for per-sample timing: events[2i] and
 * events[2i + 1].  events_destroy takes what events_create left, also
 * after a failure (unset events are NULL). */
int	 events_create(cudaEvent_t **events, unsigned pairs, char **cause);
void	 events_destroy(cudaEvent_t *events, unsigned pairs);

/* Turns a CUDA error into a cause naming the call.  Returns -1. */
int	 cuda_fail(int error, const char *call, char **cause);
/* Whether error is a kernel's fault on the GPU (an illegal address, an
 * illegal instruction, a device-side assert, ...): sticky, the context
 * lost, every later call fails with it. */
bool	 cuda_is_fault(int error);

#define CUDA_TRY(call, cause) do {					\
	cudaError_t ewb_e_ = (call);					\
	if (ewb_e_ != cudaSuccess)					\
		return cuda_fail(ewb_e_, #call, (cause));		\
} while (0)

#endif

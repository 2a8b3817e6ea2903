/*
 * nvml.c - NVML through dlopen: the few functions ewbench reads, declared
 * here by hand with the types of the NVML API, so that neither the NVML
 * header nor the library is needed to build, and a machine without the
 * driver's library runs with null readings and the reason.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvml.h"

/* From the NVML API: return codes are an enum whose success is 0; a device
 * handle is an opaque pointer; clock types and the GPU temperature sensor
 * are these enum values. */
typedef int nvml_return;
typedef void *nvml_device;
#define NVML_OK			0
#define NVML_CLOCK_SM		1
#define NVML_CLOCK_MEM		2
#define NVML_TEMPERATURE_GPU	0

struct nvml {
	void		 *lib;
	nvml_device	  dev;
	nvml_return	(*shutdown)(void);
	nvml_return	(*clock)(nvml_device, int, unsigned *);
	nvml_return	(*max_clock)(nvml_device, int, unsigned *);
	nvml_return	(*power)(nvml_device, unsigned *);	/* mW */
	nvml_return	(*temperature)(nvml_device, int, unsigned *);
	nvml_return	(*reasons)(nvml_device, unsigned long long *);
};

static void *
symbol(void *lib, const char *name)
{
	return dlsym(lib, name);
}

int
nvml_open(const char *pci_bus_id, struct nvml **out, char **cause)
{
	struct nvml	 *n;
	nvml_return	(*init)(void);
	nvml_return	(*by_bus)(const char *, nvml_device *);
	const char	*(*error)(nvml_return);
	nvml_return	  rc;
	void		 *lib;

	*out = NULL;
	if ((lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL)) ==
	    NULL) {
		*cause = xasprintf("cannot load libnvidia-ml.so.1 (%s)",
		    dlerror());
		return -1;
	}
	n = xcalloc(1, sizeof *n);
	n->lib = lib;
	*(void **)&init = symbol(lib, "nvmlInit_v2");
	*(void **)&by_bus = symbol(lib, "nvmlDeviceGetHandleByPciBusId_v2");
	*(void **)&error = symbol(lib, "nvmlErrorString");
	*(void **)&n->shutdown = symbol(lib, "nvmlShutdown");
	*(void **)&n->clock = symbol(lib, "nvmlDeviceGetClockInfo");
	*(void **)&n->max_clock = symbol(lib, "nvmlDeviceGetMaxClockInfo");
	*(void **)&n->power = symbol(lib, "nvmlDeviceGetPowerUsage");
	*(void **)&n->temperature = symbol(lib, "nvmlDeviceGetTemperature");
	/* Called "throttle reasons" before CUDA 12.2's drivers. */
	*(void **)&n->reasons = symbol(lib,
	    "nvmlDeviceGetCurrentClocksEventReasons");
	if (n->reasons == NULL)
		*(void **)&n->reasons = symbol(lib,
		    "nvmlDeviceGetCurrentClocksThrottleReasons");
	if (init == NULL || by_bus == NULL || n->shutdown == NULL) {
		*cause = xstrdup("libnvidia-ml.so.1 lacks nvmlInit_v2 or "
		    "nvmlDeviceGetHandleByPciBusId_v2");
		dlclose(lib);
		free(n);
		return -1;
	}
	if ((rc = init()) != NVML_OK) {
		*cause = xasprintf("nvmlInit: %s (%d)", error != NULL ?
		    error(rc) : "error", rc);
		dlclose(lib);
		free(n);
		return -1;
	}
	if ((rc = by_bus(pci_bus_id, &n->dev)) != NVML_OK) {
		*cause = xasprintf("NVML has no GPU at PCI bus id %s: %s (%d)",
		    pci_bus_id, error != NULL ? error(rc) : "error", rc);
		nvml_close(n);
		return -1;
	}
	*out = n;
	return 0;
}

static double
clock_mhz(nvml_return (*fn)(nvml_device, int, unsigned *), nvml_device dev,
    int type)
{
	unsigned	v;

	if (fn == NULL || fn(dev, type, &v) != NVML_OK || v == 0)
		return NAN;
	return v;
}

void
nvml_max_clocks(struct nvml *n, double *sm_mhz, double *memory_mhz)
{
	*sm_mhz = clock_mhz(n->max_clock, n->dev, NVML_CLOCK_SM);
	*memory_mhz = clock_mhz(n->max_clock, n->dev, NVML_CLOCK_MEM);
}

void
nvml_sample(struct nvml *n, struct gpu_reading *r)
{
	unsigned		v;
	time_t			now = time(NULL);
	struct tm		tm;

	r->taken = true;
	gmtime_r(&now, &tm);
	strftime(r->utc, sizeof r->utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
	r->sm_clock_mhz = clock_mhz(n->clock, n->dev, NVML_CLOCK_SM);
	r->memory_clock_mhz = clock_mhz(n->clock, n->dev, NVML_CLOCK_MEM);
	r->power_w = n->power != NULL && n->power(n->dev, &v) == NVML_OK ?
	    v / 1e3 : NAN;
	r->temperature_c = n->temperature != NULL &&
	    n->temperature(n->dev, NVML_TEMPERATURE_GPU, &v) == NVML_OK ?
	    (double)v : NAN;
	r->event_reasons = nvml_event_reasons(n);
}

long long
nvml_event_reasons(struct nvml *n)
{
	unsigned long long	mask;

	return n->reasons != NULL && n->reasons(n->dev, &mask) == NVML_OK &&
	    mask <= (1ULL << 62) ? (long long)mask : -1;
}

void
nvml_close(struct nvml *n)
{
	if (n == NULL)
		return;
	n->shutdown();
	dlclose(n->lib);
	free(n);
}

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

#include "device/nvml.h"

/* From the NVML API: return codes are an enum whose success is 0; a device
 * handle is an opaque pointer; clock types and the GPU temperature sensor
 * are these enum values. */
typedef int nvml_return;
typedef void *nvml_device;
#define NVML_OK			0
#define NVML_NOT_SUPPORTED	3
#define NVML_INSUFFICIENT_SIZE	7
#define NVML_CLOCK_SM		1
#define NVML_CLOCK_MEM		2
#define NVML_TEMPERATURE_GPU	0
/* nvmlGpuVirtualizationMode_t: a vGPU guest, or a host that shares the
 * GPU among guests (1, pass-through, gives a guest the whole board). */
#define NVML_VIRTUALIZATION_VGPU	2
#define NVML_VIRTUALIZATION_HOST_VGPU	3
#define NVML_VIRTUALIZATION_HOST_VSGA	4

struct nvml {
	void		 *lib;
	nvml_device	  dev;
	nvml_return	(*shutdown)(void);
	nvml_return	(*clock)(nvml_device, int, unsigned *);
	nvml_return	(*max_clock)(nvml_device, int, unsigned *);
	nvml_return	(*power)(nvml_device, unsigned *);	/* mW */
	nvml_return	(*temperature)(nvml_device, int, unsigned *);
	nvml_return	(*reasons)(nvml_device, unsigned long long *);
	/* Settings, read once (nvml_settings); any may be missing. */
	nvml_return	(*driver)(char *, unsigned);
	nvml_return	(*ecc)(nvml_device, int *, int *);
	nvml_return	(*persistence)(nvml_device, int *);
	nvml_return	(*enforced_limit)(nvml_device, unsigned *);	/* mW */
	nvml_return	(*default_limit)(nvml_device, unsigned *);
	nvml_return	(*limit_range)(nvml_device, unsigned *, unsigned *);
	nvml_return	(*app_clock)(nvml_device, int, unsigned *);
	nvml_return	(*default_app_clock)(nvml_device, int, unsigned *);
	/* The energy counter and what decides whether it is this run's
	 * alone (nvml_energy_usable); any may be missing. */
	nvml_return	(*energy)(nvml_device, unsigned long long *);	/* mJ */
	nvml_return	(*mig_mode)(nvml_device, unsigned *, unsigned *);
	nvml_return	(*virtualization)(nvml_device, int *);
	nvml_return	(*compute_procs)(nvml_device, unsigned *, void *);
	nvml_return	(*graphics_procs)(nvml_device, unsigned *, void *);
	nvml_return	(*mps_procs)(nvml_device, unsigned *, void *);
	const char	*(*error)(nvml_return);
};

static void *
symbol(void *lib, const char *name)
{
	return dlsym(lib, name);
}

/* The newest version of a function NVML has given new numbers (_v3,
 * _v2, then the first).  Only its count is read (nvml_other_processes),
 * which every version gives alike. */
static void *
newest(void *lib, const char *name)
{
	static const char *const tails[] = { "_v3", "_v2", "" };
	char	 versioned[96];
	void	*fn = NULL;
	size_t	 i;

	for (i = 0; i < sizeof tails / sizeof tails[0] && fn == NULL; i++) {
		snprintf(versioned, sizeof versioned, "%s%s", name, tails[i]);
		fn = dlsym(lib, versioned);
	}
	return fn;
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
	*(void **)&n->driver = symbol(lib, "nvmlSystemGetDriverVersion");
	*(void **)&n->ecc = symbol(lib, "nvmlDeviceGetEccMode");
	*(void **)&n->persistence = symbol(lib,
	    "nvmlDeviceGetPersistenceMode");
	*(void **)&n->enforced_limit = symbol(lib,
	    "nvmlDeviceGetEnforcedPowerLimit");
	*(void **)&n->default_limit = symbol(lib,
	    "nvmlDeviceGetPowerManagementDefaultLimit");
	*(void **)&n->limit_range = symbol(lib,
	    "nvmlDeviceGetPowerManagementLimitConstraints");
	*(void **)&n->app_clock = symbol(lib, "nvmlDeviceGetApplicationsClock");
	*(void **)&n->default_app_clock = symbol(lib,
	    "nvmlDeviceGetDefaultApplicationsClock");
	*(void **)&n->energy = symbol(lib,
	    "nvmlDeviceGetTotalEnergyConsumption");
	*(void **)&n->mig_mode = symbol(lib, "nvmlDeviceGetMigMode");
	*(void **)&n->virtualization = symbol(lib,
	    "nvmlDeviceGetVirtualizationMode");
	*(void **)&n->compute_procs = newest(lib,
	    "nvmlDeviceGetComputeRunningProcesses");
	*(void **)&n->graphics_procs = newest(lib,
	    "nvmlDeviceGetGraphicsRunningProcesses");
	*(void **)&n->mps_procs = newest(lib,
	    "nvmlDeviceGetMPSComputeRunningProcesses");
	n->error = error;
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

/* A power that fn reads in milliwatts, as watts; NaN when not given (or
 * 0: no GPU runs on no power, so 0 is a missing reading, never a
 * measurement). */
static double
watts(nvml_return (*fn)(nvml_device, unsigned *), nvml_device dev)
{
	unsigned	mw = 0;

	return fn != NULL && fn(dev, &mw) == NVML_OK && mw > 0 ? mw / 1e3 :
	    NAN;
}

/* An nvmlEnableState_t NVML gave: 0 disabled, 1 enabled; -1 (unknown)
 * for anything else. */
static int
state(int value)
{
	return value == 0 || value == 1 ? value : -1;
}

void
nvml_settings(struct nvml *n, struct gpu_settings *g)
{
	unsigned	lo = 0, hi = 0;
	int		current = -1, pending = -1;
	char		version[96] = "";

	if (n->driver != NULL && n->driver(version, sizeof version) ==
	    NVML_OK) {
		version[sizeof version - 1] = '\0';
		snprintf(g->driver_version, sizeof g->driver_version, "%s",
		    version);
	}
	if (n->ecc != NULL && n->ecc(n->dev, &current, &pending) == NVML_OK) {
		g->ecc_current = state(current);
		g->ecc_pending = state(pending);
	}
	if (n->persistence != NULL &&
	    n->persistence(n->dev, &current) == NVML_OK)
		g->persistence = state(current);
	g->power_limit_w = watts(n->enforced_limit, n->dev);
	g->power_limit_default_w = watts(n->default_limit, n->dev);
	if (n->limit_range != NULL && n->limit_range(n->dev, &lo, &hi) ==
	    NVML_OK && hi > 0)
		g->power_limit_max_w = hi / 1e3;
	g->app_sm_clock_mhz = clock_mhz(n->app_clock, n->dev, NVML_CLOCK_SM);
	g->app_memory_clock_mhz = clock_mhz(n->app_clock, n->dev,
	    NVML_CLOCK_MEM);
	g->default_app_sm_clock_mhz = clock_mhz(n->default_app_clock, n->dev,
	    NVML_CLOCK_SM);
	g->default_app_memory_clock_mhz = clock_mhz(n->default_app_clock,
	    n->dev, NVML_CLOCK_MEM);
}

/* The clock event (throttle) reasons bitmask now, -1 when NVML has none. */
static long long
nvml_event_reasons(struct nvml *n)
{
	unsigned long long	mask;

	return n->reasons != NULL && n->reasons(n->dev, &mask) == NVML_OK &&
	    mask <= (1ULL << 62) ? (long long)mask : -1;
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
	r->power_w = watts(n->power, n->dev);
	r->temperature_c = n->temperature != NULL &&
	    n->temperature(n->dev, NVML_TEMPERATURE_GPU, &v) == NVML_OK ?
	    (double)v : NAN;
	r->event_reasons = nvml_event_reasons(n);
}

double
nvml_power_limit_w(struct nvml *n)
{
	return watts(n->enforced_limit, n->dev);
}

/* NVML's name for rc, or "error N". */
static const char *
nvml_error(struct nvml *n, nvml_return rc, char *buf, size_t len)
{
	if (n->error != NULL)
		return n->error(rc);
	snprintf(buf, len, "error %d", rc);
	return buf;
}

int
nvml_energy_usable(struct nvml *n, char **why)
{
	unsigned long long	mj;
	unsigned		current = 0, pending = 0;
	int			mode = 0;
	nvml_return		rc;
	char			buf[32];

	if (n->energy == NULL) {
		*why = xstrdup("this driver's NVML has no energy counter "
		    "(no nvmlDeviceGetTotalEnergyConsumption)");
		return -1;
	}
	if ((rc = n->energy(n->dev, &mj)) != NVML_OK) {
		*why = xasprintf("this GPU has no energy counter "
		    "(nvmlDeviceGetTotalEnergyConsumption: %s; Volta and "
		    "later GPUs have one)", nvml_error(n, rc, buf,
		    sizeof buf));
		return -1;
	}
	if (n->mig_mode != NULL && n->mig_mode(n->dev, &current,
	    &pending) == NVML_OK && current == 1) {
		*why = xstrdup("the GPU is in MIG mode: its energy counter "
		    "is the whole board's, every instance's draw in it");
		return -1;
	}
	if (n->virtualization != NULL && n->virtualization(n->dev,
	    &mode) == NVML_OK && (mode == NVML_VIRTUALIZATION_VGPU ||
	    mode == NVML_VIRTUALIZATION_HOST_VGPU ||
	    mode == NVML_VIRTUALIZATION_HOST_VSGA)) {
		*why = xasprintf("the GPU is shared among virtual machines "
		    "(NVML virtualization mode %d): its energy counter is the "
		    "whole board's", mode);
		return -1;
	}
	return 0;
}

int
nvml_energy_mj(struct nvml *n, unsigned long long *mj, char **cause)
{
	nvml_return	rc;
	char		buf[32];

	if (n->energy == NULL)
		rc = NVML_NOT_SUPPORTED;
	else if ((rc = n->energy(n->dev, mj)) == NVML_OK)
		return 0;
	*cause = xasprintf("nvmlDeviceGetTotalEnergyConsumption: %s",
	    nvml_error(n, rc, buf, sizeof buf));
	return -1;
}

/* How many processes fn lists on the GPU; -1 when NVML cannot say.
 * Asked for none, NVML answers with the count. */
static long
process_count(nvml_return (*fn)(nvml_device, unsigned *, void *),
    nvml_device dev)
{
	unsigned	count = 0;
	nvml_return	rc;

	if (fn == NULL)
		return -1;
	rc = fn(dev, &count, NULL);
	return rc == NVML_OK || rc == NVML_INSUFFICIENT_SIZE ? (long)count :
	    -1;
}

long
nvml_other_processes(struct nvml *n, long *mps_clients)
{
	long	compute = process_count(n->compute_procs, n->dev);
	long	graphics = process_count(n->graphics_procs, n->dev);

	*mps_clients = process_count(n->mps_procs, n->dev);
	if (compute < 0)
		return -1;
	/* This process, which holds a context on the GPU, is one of the
	 * compute processes, under its own pid or, in a container's PID
	 * namespace, another: so any beyond one is someone else's.  (Under
	 * MPS the one listed is the MPS server, and the clients, this one
	 * among them, are listed apart: *mps_clients.) */
	return (compute > 0 ? compute - 1 : 0) + (graphics > 0 ? graphics : 0);
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

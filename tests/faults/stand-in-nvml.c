/*
 * stand-in-nvml.c - a stand-in for the driver's NVML, built as
 * tests/faults/nvml/libnvidia-ml.so.1 and found by ewbench's dlopen
 * through LD_LIBRARY_PATH (tests/environment.sh), so that the settings,
 * the readings through a run and the rows' clocks reach run.json and
 * timing.csv on a machine without a GPU.  Nothing it returns is a
 * measurement: the values are fixed, chosen to be told apart.
 *
 * Every GPU, whatever its PCI bus id, reads:
 *   driver "999.1.2", ECC enabled (pending disabled), persistence on,
 *   power limit 650 W in force (default 700 W, max 700 W), application
 *   clocks SM 1755 / memory 2619 MHz (default 1980 / 2619), maximum SM
 *   1980 / memory 2619 MHz, power 400.5 W, temperature 50 C.
 * The SM clock reads 1980 MHz and no clock event reason, except:
 *
 * EWB_STANDIN_NVML_SLOW_AFTER=N	readings of the SM clock after the Nth
 *			read 1500 MHz with the software power cap (0x4)
 * EWB_STANDIN_NVML_BARE=1	only what the oldest NVML has (init, the
 *			handle, clocks, power, temperature): every setting
 *			reads "not supported", so run.json says null, and
 *			there is no energy counter
 *
 * The energy counter (tests/energy.sh) starts at 1000 J and counts the
 * board drawing EWB_STANDIN_NVML_IDLE_W (default 60 W) all the time, and
 * EWB_STANDIN_NVML_BUSY_W (default 360 W) instead while the stand-in GPU
 * replays a graph (its ewb_standin_busy_seconds(), when it is loaded); it
 * steps every EWB_STANDIN_NVML_ENERGY_MS (default 20 ms): a step's value
 * is the energy at the first reading after it, as a real counter's is at
 * its update.  One process (this one) uses the GPU, in no MIG mode and
 * no virtual machine, except:
 *
 * EWB_STANDIN_NVML_NO_ENERGY=1	the counter reads "not supported"
 * EWB_STANDIN_NVML_MIG=1	MIG mode is on
 * EWB_STANDIN_NVML_VGPU=1	the GPU is a vGPU guest's
 * EWB_STANDIN_NVML_PROCESSES=N	N compute processes use the GPU
 * EWB_STANDIN_NVML_MPS=N	N MPS clients use it
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STANDIN	__attribute__((visibility("default")))

/* NVML's return codes and enums, as the NVML API defines them. */
#define OK		0
#define NOT_SUPPORTED	3
#define INSUFFICIENT_SIZE 7
#define CLOCK_SM	1
#define CLOCK_MEM	2

typedef void *device_t;

static int	device_word;
static unsigned long sm_reads;

static int
bare(void)
{
	const char	*v = getenv("EWB_STANDIN_NVML_BARE");

	return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

/* Past EWB_STANDIN_NVML_SLOW_AFTER reads of the SM clock: slowed. */
static int
slowed(void)
{
	const char	*v = getenv("EWB_STANDIN_NVML_SLOW_AFTER");

	return v != NULL && *v != '\0' && sm_reads > strtoul(v, NULL, 10);
}

STANDIN int nvmlInit_v2(void) { return OK; }
STANDIN int nvmlShutdown(void) { return OK; }

STANDIN const char *
nvmlErrorString(int rc)
{
	return rc == NOT_SUPPORTED ? "Not Supported" : "stand-in error";
}

STANDIN int
nvmlDeviceGetHandleByPciBusId_v2(const char *bus, device_t *dev)
{
	(void)bus;
	*dev = &device_word;
	return OK;
}

STANDIN int
nvmlDeviceGetClockInfo(device_t dev, int type, unsigned *mhz)
{
	(void)dev;
	if (type == CLOCK_SM) {
		sm_reads++;
		*mhz = slowed() ? 1500 : 1980;
	} else
		*mhz = 2619;
	return OK;
}

STANDIN int
nvmlDeviceGetMaxClockInfo(device_t dev, int type, unsigned *mhz)
{
	(void)dev;
	*mhz = type == CLOCK_SM ? 1980 : 2619;
	return OK;
}

STANDIN int
nvmlDeviceGetPowerUsage(device_t dev, unsigned *mw)
{
	(void)dev;
	*mw = 400500;
	return OK;
}

STANDIN int
nvmlDeviceGetTemperature(device_t dev, int sensor, unsigned *c)
{
	(void)dev;
	(void)sensor;
	*c = 50;
	return OK;
}

STANDIN int
nvmlDeviceGetCurrentClocksEventReasons(device_t dev, unsigned long long *m)
{
	(void)dev;
	*m = slowed() ? 0x4 : 0;
	return OK;
}

/* A setting: v into *out, or "not supported" when bare. */
static int
setting(unsigned *out, unsigned v)
{
	if (bare())
		return NOT_SUPPORTED;
	*out = v;
	return OK;
}

STANDIN int
nvmlSystemGetDriverVersion(char *buf, unsigned len)
{
	if (bare())
		return NOT_SUPPORTED;
	snprintf(buf, len, "999.1.2");
	return OK;
}

/* nvmlEnableState_t: 1 enabled, 0 disabled. */
STANDIN int
nvmlDeviceGetEccMode(device_t dev, unsigned *current, unsigned *pending)
{
	(void)dev;
	return setting(current, 1) != OK ? NOT_SUPPORTED : setting(pending, 0);
}

STANDIN int
nvmlDeviceGetPersistenceMode(device_t dev, unsigned *mode)
{
	(void)dev;
	return setting(mode, 1);
}

STANDIN int
nvmlDeviceGetEnforcedPowerLimit(device_t dev, unsigned *mw)
{
	(void)dev;
	return setting(mw, 650000);
}

STANDIN int
nvmlDeviceGetPowerManagementDefaultLimit(device_t dev, unsigned *mw)
{
	(void)dev;
	return setting(mw, 700000);
}

STANDIN int
nvmlDeviceGetPowerManagementLimitConstraints(device_t dev, unsigned *lo,
    unsigned *hi)
{
	(void)dev;
	return setting(lo, 200000) != OK ? NOT_SUPPORTED : setting(hi, 700000);
}

STANDIN int
nvmlDeviceGetApplicationsClock(device_t dev, int type, unsigned *mhz)
{
	(void)dev;
	return setting(mhz, type == CLOCK_SM ? 1755 : 2619);
}

STANDIN int
nvmlDeviceGetDefaultApplicationsClock(device_t dev, int type, unsigned *mhz)
{
	(void)dev;
	return setting(mhz, type == CLOCK_SM ? 1980 : 2619);
}

static double
env_number(const char *name, double fallback)
{
	const char	*v = getenv(name);

	return v != NULL && *v != '\0' ? strtod(v, NULL) : fallback;
}

static int
flag(const char *name)
{
	const char	*v = getenv(name);

	return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

static double
seconds_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The stand-in GPU's busy seconds, 0 without it. */
static double
busy_seconds(void)
{
	double	(*busy)(void);

	*(void **)&busy = dlsym(RTLD_DEFAULT, "ewb_standin_busy_seconds");
	return busy != NULL ? busy() : 0;
}

STANDIN int
nvmlDeviceGetTotalEnergyConsumption(device_t dev, unsigned long long *mj)
{
	static double			 start = -1;
	static long long		 step = -1;
	static unsigned long long	 value;
	double				 now = seconds_now();
	double				 idle, busy, s, period;

	(void)dev;
	if (bare() || flag("EWB_STANDIN_NVML_NO_ENERGY"))
		return NOT_SUPPORTED;
	idle = env_number("EWB_STANDIN_NVML_IDLE_W", 60);
	busy = env_number("EWB_STANDIN_NVML_BUSY_W", 360);
	period = env_number("EWB_STANDIN_NVML_ENERGY_MS", 20) * 1e-3;
	if (start < 0)
		start = now;
	if ((long long)(now / period) != step) {
		step = (long long)(now / period);
		s = busy_seconds();
		value = (unsigned long long)(1e6 + 1e3 * (idle * (now - start) +
		    (busy - idle) * s));
	}
	*mj = value;
	return OK;
}

/* nvmlDeviceGetMigMode: current and pending, 1 enabled. */
STANDIN int
nvmlDeviceGetMigMode(device_t dev, unsigned *current, unsigned *pending)
{
	(void)dev;
	if (bare())
		return NOT_SUPPORTED;
	*current = *pending = flag("EWB_STANDIN_NVML_MIG") ? 1 : 0;
	return OK;
}

/* nvmlGpuVirtualizationMode_t: 0 none, 2 a vGPU guest. */
STANDIN int
nvmlDeviceGetVirtualizationMode(device_t dev, int *mode)
{
	(void)dev;
	if (bare())
		return NOT_SUPPORTED;
	*mode = flag("EWB_STANDIN_NVML_VGPU") ? 2 : 0;
	return OK;
}

/* The process lists: their count, as NVML gives it to a caller with no
 * room for the entries: $env's number, else fallback (env NULL: none). */
static int
processes(unsigned *count, void *infos, const char *env, unsigned fallback)
{
	unsigned	listed = 0;

	if (env != NULL)
		listed = (unsigned)env_number(env, fallback);
	if (bare())
		return NOT_SUPPORTED;
	if (listed == 0) {
		*count = 0;
		return OK;
	}
	if (infos == NULL || *count < listed) {
		*count = listed;
		return INSUFFICIENT_SIZE;
	}
	return NOT_SUPPORTED;	/* entries: not modelled */
}

STANDIN int
nvmlDeviceGetComputeRunningProcesses_v3(device_t dev, unsigned *count,
    void *infos)
{
	(void)dev;
	return processes(count, infos, "EWB_STANDIN_NVML_PROCESSES", 1);
}

STANDIN int
nvmlDeviceGetGraphicsRunningProcesses_v3(device_t dev, unsigned *count,
    void *infos)
{
	(void)dev;
	return processes(count, infos, NULL, 0);
}

STANDIN int
nvmlDeviceGetMPSComputeRunningProcesses_v3(device_t dev, unsigned *count,
    void *infos)
{
	(void)dev;
	return processes(count, infos, "EWB_STANDIN_NVML_MPS", 0);
}

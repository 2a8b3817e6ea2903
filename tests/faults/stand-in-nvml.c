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
 *			reads "not supported", so run.json says null
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STANDIN	__attribute__((visibility("default")))

/* NVML's return codes and enums, as the NVML API defines them. */
#define OK		0
#define NOT_SUPPORTED	3
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

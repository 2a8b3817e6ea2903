/*
 * device.c - the GPU's facts, read once, for `ewbench info` and run.json.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "device/device.h"

int
cuda_fail(int error, const char *call, char **cause)
{
	*cause = xasprintf("%s: %s (%s, %d)", call,
	    cudaGetErrorString((cudaError_t)error),
	    cudaGetErrorName((cudaError_t)error), error);
	return -1;
}

bool
cuda_is_fault(int error)
{
	switch ((cudaError_t)error) {
	case cudaErrorIllegalAddress:
	case cudaErrorLaunchTimeout:
	case cudaErrorAssert:
	case cudaErrorHardwareStackError:
	case cudaErrorIllegalInstruction:
	case cudaErrorMisalignedAddress:
	case cudaErrorInvalidAddressSpace:
	case cudaErrorInvalidPc:
	case cudaErrorLaunchFailure:
		return true;
	default:
		return false;
	}
}

int
events_create(cudaEvent_t **events, unsigned pairs, char **cause)
{
	unsigned	i;

	*events = xcalloc(2 * (size_t)pairs, sizeof **events);
	for (i = 0; i < 2 * pairs; i++)
		CUDA_TRY(cudaEventCreate(&(*events)[i]), cause);
	return 0;
}

void
events_destroy(cudaEvent_t *events, unsigned pairs)
{
	unsigned	i;

	if (events == NULL)
		return;
	for (i = 0; i < 2 * pairs; i++) {
		if (events[i] != NULL)
			cudaEventDestroy(events[i]);
	}
	free(events);
}

static int
attribute(enum cudaDeviceAttr what, int device)
{
	int	value = 0;

	if (cudaDeviceGetAttribute(&value, what, device) != cudaSuccess)
		return 0;
	return value;
}

int
device_count(int *count, char **cause)
{
	cudaError_t	e;
	int		driver = 0, runtime = 0;

	*count = 0;
	cudaDriverGetVersion(&driver);
	cudaRuntimeGetVersion(&runtime);
	e = cudaGetDeviceCount(count);
	/* Without a driver the runtime says "insufficient driver" too; the
	 * driver's version (0: none loaded) tells the two apart. */
	if (e == cudaErrorInsufficientDriver && driver == 0) {
		*cause = xstrdup("no CUDA GPU is usable here: no NVIDIA "
		    "driver is installed (libcuda.so.1 not found)");
		return EWB_EXIT_NODEV;
	}
	if (e == cudaErrorInsufficientDriver) {
		*cause = xasprintf("no CUDA GPU is usable here: the NVIDIA "
		    "driver is too old (it supports CUDA %d.%d, this ewbench "
		    "needs CUDA %d.%d: update the driver)", driver / 1000,
		    driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
		return EWB_EXIT_NODEV;
	}
	if (e == cudaErrorNoDevice || (e == cudaSuccess && *count <= 0)) {
		*cause = xasprintf("no CUDA GPU is usable here (the NVIDIA "
		    "driver, CUDA %d.%d, sees none)", driver / 1000,
		    driver % 1000 / 10);
		return EWB_EXIT_NODEV;
	}
	if (e != cudaSuccess) {
		cuda_fail(e, "cudaGetDeviceCount", cause);
		return EWB_EXIT_NODEV;
	}
	return EWB_EXIT_OK;
}

int
device_open(int index, struct device_facts *f, char **cause)
{
	struct cudaDeviceProp	 p;
	cudaError_t		 e;
	int			 count = 0, i, code;

	memset(f, 0, sizeof *f);
	cudaDriverGetVersion(&f->driver_version);
	cudaRuntimeGetVersion(&f->runtime_version);
	if ((code = device_count(&count, cause)) != EWB_EXIT_OK)
		return code;
	if (index < 0 || index >= count) {
		*cause = xasprintf("--device %d: this machine has %d CUDA "
		    "device%s (0 to %d)", index, count, count == 1 ? "" : "s",
		    count - 1);
		return EWB_EXIT_USAGE;
	}
	if ((e = cudaSetDevice(index)) != cudaSuccess ||
	    (e = cudaGetDeviceProperties(&p, index)) != cudaSuccess) {
		cuda_fail(e, "cudaSetDevice/cudaGetDeviceProperties", cause);
		return EWB_EXIT_NODEV;
	}
	f->index = index;
	snprintf(f->name, sizeof f->name, "%s", p.name);
	strcpy(f->uuid, "GPU-");
	for (i = 0; i < 16; i++) {
		static const int dash[] = { 4, 6, 8, 10 };
		size_t	k;

		for (k = 0; k < 4; k++) {
			if (dash[k] == i)
				strcat(f->uuid, "-");
		}
		snprintf(f->uuid + strlen(f->uuid), 3, "%02x",
		    (unsigned char)p.uuid.bytes[i]);
	}
	cudaDeviceGetPCIBusId(f->pci_bus_id, sizeof f->pci_bus_id, index);
	f->cc_major = p.major;
	f->cc_minor = p.minor;
	f->sm_count = p.multiProcessorCount;
	f->l2_bytes = (size_t)p.l2CacheSize;
	f->memory_bytes = p.totalGlobalMem;
	f->bus_width_bits = p.memoryBusWidth;
	f->memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, index);
	f->sm_clock_khz = attribute(cudaDevAttrClockRate, index);
	f->dram_bandwidth = device_dram_bandwidth(f->memory_clock_khz,
	    f->bus_width_bits);
	f->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
	f->max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
	f->shared_memory_per_sm = p.sharedMemPerMultiprocessor;
	f->registers_per_sm = p.regsPerMultiprocessor;
	return EWB_EXIT_OK;
}

double
device_dram_bandwidth(int memory_clock_khz, int bus_width_bits)
{
	/* Double data rate: two transfers per memory clock. */
	return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0);
}

void
device_print(const struct device_facts *f, FILE *fp)
{
	char	l2[32], mem[32];

	bytes_format((double)f->l2_bytes, l2, sizeof l2);
	bytes_format((double)f->memory_bytes, mem, sizeof mem);
	fprintf(fp, "device %d: %s\n", f->index, f->name);
	fprintf(fp, "  compute capability  %d.%d\n", f->cc_major, f->cc_minor);
	fprintf(fp, "  SMs                 %d (max %d threads, %d blocks each)\n",
	    f->sm_count, f->max_threads_per_sm, f->max_blocks_per_sm);
	fprintf(fp, "  SM clock (max)      %.0f MHz\n", f->sm_clock_khz / 1e3);
	fprintf(fp, "  L2 cache            %s\n", l2);
	fprintf(fp, "  memory              %s, %d-bit bus, %.0f MHz\n", mem,
	    f->bus_width_bits, f->memory_clock_khz / 1e3);
	fprintf(fp, "  DRAM bandwidth      %.1f GB/s theoretical "
	    "(2 x clock x bus width)\n", f->dram_bandwidth / 1e9);
	fprintf(fp, "  UUID                %s\n", f->uuid);
	fprintf(fp, "  PCI bus id          %s\n", f->pci_bus_id);
	fprintf(fp, "  driver / runtime    CUDA %d.%d / %d.%d\n",
	    f->driver_version / 1000, f->driver_version % 1000 / 10,
	    f->runtime_version / 1000, f->runtime_version % 1000 / 10);
}

/* A fact the runtime did not give (0, or a negative int) is written as
 * null, unknown: the analysis divides by these and refuses a 0.  Counts
 * come as doubles too: exact, and written as integers, below 2^53. */
static void
fact(struct json *j, const char *key, double value)
{
	if (value > 0)
		json_f64(j, key, value);
	else
		json_null(j, key);
}

int
device_fp32_lanes_per_sm(const struct device_facts *f)
{
	static const struct {
		int	major, minor, lanes;
	} table[] = {
		{ 7, 0, 64 }, { 7, 2, 64 }, { 7, 5, 64 }, { 8, 0, 64 },
		{ 8, 6, 128 }, { 8, 7, 128 }, { 8, 9, 128 }, { 9, 0, 128 },
		{ 10, 0, 128 }, { 10, 3, 128 }, { 12, 0, 128 },
	};
	size_t	i;

	for (i = 0; i < sizeof table / sizeof table[0]; i++) {
		if (table[i].major == f->cc_major &&
		    table[i].minor == f->cc_minor)
			return table[i].lanes;
	}
	return 0;
}

void
device_json(const struct device_facts *f, struct json *j)
{
	char	cc[16];

	snprintf(cc, sizeof cc, "%d.%d", f->cc_major, f->cc_minor);
	json_begin_object(j, "device");
	json_i64(j, "index", f->index);
	json_str(j, "name", f->name);
	json_str(j, "uuid", f->uuid);
	json_str(j, "pci_bus_id", f->pci_bus_id);
	json_str(j, "compute_capability", cc);
	fact(j, "sm_count", f->sm_count);
	fact(j, "l2_bytes", f->l2_bytes);
	fact(j, "memory_bytes", f->memory_bytes);
	fact(j, "bus_width_bits", f->bus_width_bits);
	fact(j, "memory_clock_khz", f->memory_clock_khz);
	fact(j, "sm_clock_khz", f->sm_clock_khz);
	fact(j, "dram_bandwidth_bytes_per_s", f->dram_bandwidth);
	fact(j, "max_threads_per_sm", f->max_threads_per_sm);
	fact(j, "max_blocks_per_sm", f->max_blocks_per_sm);
	fact(j, "shared_memory_per_sm_bytes", f->shared_memory_per_sm);
	fact(j, "registers_per_sm", f->registers_per_sm);
	fact(j, "fp32_lanes_per_sm", device_fp32_lanes_per_sm(f));
	json_end_object(j);
}

void
device_slug(const struct device_facts *f, char *buf, size_t len)
{
	size_t		 o = 0;
	const char	*s;
	bool		 dash = false;

	for (s = f->name; *s != '\0' && o + 1 < len; s++) {
		if (isalnum((unsigned char)*s)) {
			if (dash && o > 0 && o + 2 < len)
				buf[o++] = '-';
			buf[o++] = (char)tolower((unsigned char)*s);
			dash = false;
		} else
			dash = true;
	}
	buf[o] = '\0';
}

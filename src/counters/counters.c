/*
 * counters.c - hardware counters on a GPU through the CUPTI Range Profiler
 * (CUDA 12.6 Update 2 and newer); the host half (metric names, passes, config images, error
 * messages) is counters-host.c.  See counters.h for the contract and
 * docs/metrics.md for the metric sets.
 *
 * cuptiRangeProfilerEnable on the primary context, AutoRange (every kernel a range) with user replay: the caller's
 * sequence of launches is issued once per pass, and many points share one
 * session, so the per-session cost (SetConfig, Start/Stop, decode) is paid
 * once for all of them.
 *
 * cupti_profiler_host.h includes <string>: this file is compiled with
 * src/counters/cupti-shim (an empty `string`) first on the include path.
 * libcuda is never linked (make check runs without a driver): the driver
 * entry points needed come from cudaGetDriverEntryPointByVersion.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include "base/ewbench.h"
#include "counters/counters-cupti.h"


int
counters_cuda_check(cudaError_t e, const char *fn, char **cause)
{
	if (e == cudaSuccess)
		return 0;
	*cause = xasprintf("%s: %s (%s, %d)", fn, cudaGetErrorString(e),
	    cudaGetErrorName(e), (int)e);
	return -1;
}

/* Target side ****************************************************************/

typedef CUresult (CUDAAPI *ctx_get_current_fn)(CUcontext *);
typedef CUresult (CUDAAPI *device_get_fn)(CUdevice *, int);

static int
driver_entry(const char *symbol, void **fn, char **cause)
{
	enum cudaDriverEntryPointQueryResult	status;
	cudaError_t				e;

	e = cudaGetDriverEntryPointByVersion(symbol, fn, CUDART_VERSION,
	    cudaEnableDefault, &status);
	if (counters_cuda_check(e, "cudaGetDriverEntryPointByVersion", cause) != 0)
		return -1;
	if (status != cudaDriverEntryPointSuccess || *fn == NULL) {
		*cause = xasprintf("cudaGetDriverEntryPointByVersion: no "
		    "driver entry point %s (status %d)", symbol, (int)status);
		return -1;
	}
	return 0;
}

/* Makes device current with its primary context, and returns both the
 * context and the driver's device handle. */
static int
primary_context(int device, CUcontext *ctx, CUdevice *dev, char **cause)
{
	ctx_get_current_fn	 get_current;
	device_get_fn		 device_get;
	void			*fn;
	CUresult		 r;

	if (counters_cuda_check(cudaSetDevice(device), "cudaSetDevice", cause) != 0 ||
	    counters_cuda_check(cudaFree(NULL), "cudaFree(0)", cause) != 0)
		return -1;
	if (driver_entry("cuCtxGetCurrent", &fn, cause) != 0)
		return -1;
	get_current = (ctx_get_current_fn)fn;
	if (driver_entry("cuDeviceGet", &fn, cause) != 0)
		return -1;
	device_get = (device_get_fn)fn;
	if ((r = get_current(ctx)) != CUDA_SUCCESS || *ctx == NULL) {
		*cause = xasprintf("cuCtxGetCurrent: no current context "
		    "(CUresult %d)", (int)r);
		return -1;
	}
	if ((r = device_get(dev, device)) != CUDA_SUCCESS) {
		*cause = xasprintf("cuDeviceGet(%d): CUresult %d", device,
		    (int)r);
		return -1;
	}
	return 0;
}

static int
refuse_other_tool(char **cause)
{
	const char	*inject = getenv("CUDA_INJECTION64_PATH");

	if (inject == NULL || *inject == '\0')
		return 0;
	*cause = xasprintf("another CUPTI client (ncu/nsys/compute-sanitizer) "
	    "is attached (CUDA_INJECTION64_PATH=%s); use --no-cupti", inject);
	return -1;
}

static int
profiler_initialize(char **cause)
{
	PARAMS(p, CUpti_Profiler_Initialize_Params);

	return cupti_check(cuptiProfilerInitialize(&p),
	    "cuptiProfilerInitialize", cause);
}

static void
profiler_deinitialize(void)
{
	PARAMS(p, CUpti_Profiler_DeInitialize_Params);

	cuptiProfilerDeInitialize(&p);
}

static int
device_supported(CUdevice dev, int device, char **cause)
{
	PARAMS(p, CUpti_Profiler_DeviceSupported_Params);
	size_t	i;

	p.cuDevice = dev;
	p.api = CUPTI_PROFILER_RANGE_PROFILING;
	if (cupti_check(cuptiProfilerDeviceSupported(&p),
	    "cuptiProfilerDeviceSupported", cause) != 0)
		return -1;
	if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return 0;

	const struct {
		CUpti_Profiler_Support_Level	 level;
		const char			*why;
	} flags[] = {
		{ p.architecture, "the GPU architecture has no range profiler "
		  "(compute capability 7.0 or newer is needed)" },
		{ p.sli, "SLI is enabled; disable SLI to profile" },
		{ p.vGpu, "this vGPU does not allow profiling: the "
		  "hypervisor's administrator must enable profiling for the "
		  "VM (or use a passthrough GPU)" },
		{ p.confidentialCompute, "confidential computing mode is on; "
		  "counters are not available in it" },
		{ p.cmp, "NVIDIA CMP devices do not support profiling" },
		{ p.wsl, "profiling is not supported under this WSL setup "
		  "(use native Linux or a newer driver)" },
	};
	for (i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		if (flags[i].level == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
			continue;
		*cause = xasprintf("cuptiProfilerDeviceSupported: device %d: "
		    "%s%s; use --no-cupti", device, flags[i].why,
		    flags[i].level == CUPTI_PROFILER_CONFIGURATION_DISABLED ?
		    " (supported, but disabled)" : "");
		return -1;
	}
	*cause = xasprintf("cuptiProfilerDeviceSupported: device %d does not "
	    "support range profiling and CUPTI names no reason (a shared "
	    "MIG compute instance? profile on a full GPU or an isolated "
	    "compute instance); use --no-cupti", device);
	return -1;
}

static int
chip_name(int device, char **chip, char **cause)
{
	PARAMS(p, CUpti_Device_GetChipName_Params);

	p.deviceIndex = (size_t)device;
	if (cupti_check(cuptiDeviceGetChipName(&p), "cuptiDeviceGetChipName",
	    cause) != 0)
		return -1;
	if (p.pChipName == NULL) {
		*cause = xstrdup("cuptiDeviceGetChipName: no name");
		return -1;
	}
	*chip = xstrdup(p.pChipName);
	return 0;
}

/* Must run before the range profiler is enabled (the header says it may
 * fail while a session is active). */
static int
counter_availability(CUcontext ctx, uint8_t **image, char **cause)
{
	PARAMS(p, CUpti_Profiler_GetCounterAvailability_Params);

	p.ctx = ctx;
	if (cupti_check(cuptiProfilerGetCounterAvailability(&p),
	    "cuptiProfilerGetCounterAvailability (size)", cause) != 0)
		return -1;
	*image = xmalloc(p.counterAvailabilityImageSize);
	p.pCounterAvailabilityImage = *image;
	if (cupti_check(cuptiProfilerGetCounterAvailability(&p),
	    "cuptiProfilerGetCounterAvailability", cause) != 0) {
		free(*image);
		*image = NULL;
		return -1;
	}
	return 0;
}

int
counters_device_chip(int cuda_device, char **chip, char **cause)
{
	CUcontext	ctx;
	CUdevice	dev;
	int		count = 0, rc;

	if (refuse_other_tool(cause) != 0)
		return -1;
	if (counters_cuda_check(cudaGetDeviceCount(&count), "cudaGetDeviceCount",
	    cause) != 0)
		return -1;
	if (cuda_device < 0 || cuda_device >= count) {
		*cause = xasprintf("no CUDA device %d (%d found)", cuda_device,
		    count);
		return -1;
	}
	if (primary_context(cuda_device, &ctx, &dev, cause) != 0 ||
	    profiler_initialize(cause) != 0)
		return -1;
	rc = chip_name(cuda_device, chip, cause);
	profiler_deinitialize();
	return rc;
}

void
counters_profiler_disable(struct counters *c)
{
	PARAMS(p, CUpti_RangeProfiler_Disable_Params);

	if (c->profiler == NULL)
		return;
	p.pRangeProfilerObject = c->profiler;
	cuptiRangeProfilerDisable(&p);
	c->profiler = NULL;
	c->profiler_used = false;
}

/* A new range profiler object on the context, and a counter data image
 * big enough for it (the buffer is kept across objects). */
int
counters_profiler_enable(struct counters *c, char **cause)
{
	PARAMS(en, CUpti_RangeProfiler_Enable_Params);
	PARAMS(size, CUpti_RangeProfiler_GetCounterDataSize_Params);

	en.ctx = c->ctx;
	if (cupti_check(cuptiRangeProfilerEnable(&en),
	    "cuptiRangeProfilerEnable", cause) != 0)
		return -1;
	c->profiler = en.pRangeProfilerObject;
	c->profiler_used = false;

	size.pRangeProfilerObject = c->profiler;
	size.pMetricNames = c->names;
	size.numMetrics = c->count;
	size.maxNumOfRanges = COUNTERS_MAX_RANGES;
	size.maxNumRangeTreeNodes = COUNTERS_MAX_RANGES;
	if (cupti_check(cuptiRangeProfilerGetCounterDataSize(&size),
	    "cuptiRangeProfilerGetCounterDataSize", cause) != 0) {
		counters_profiler_disable(c);
		return -1;
	}
	if (size.counterDataSize > c->data_size) {
		free(c->data);
		c->data = xcalloc(1, size.counterDataSize);
	}
	c->data_size = size.counterDataSize;
	return 0;
}

void
counters_close(struct counters *c)
{
	size_t	i;

	if (c == NULL)
		return;
	counters_profiler_disable(c);
	host_close(c->host);
	if (c->initialized)
		profiler_deinitialize();
	for (i = 0; i < c->count; i++) {
		free(c->metrics[i]);
		if (c->dims != NULL)
			free(c->dims[i]);
	}
	free(c->metrics);
	free(c->names);
	free(c->dims);
	free(c->chip);
	free(c->avail);
	free(c->config);
	free(c->data);
	free(c);
}

/* Resolves the set for the device's chip (its counter availability
 * included), unless the caller did; then takes the names to collect. */
static int
resolve(struct counters *c, struct metric_set *set, char **cause)
{
	size_t	i;

	if (set->collected == NULL && metric_set_resolve(set, c->chip,
	    host_knows, c->host, cause) != 0)
		return -1;
	c->count = set->count;
	c->metrics = xcalloc(set->count, sizeof *c->metrics);
	for (i = 0; i < set->count; i++)
		c->metrics[i] = xstrdup(metric_set_cupti_name(set, i));
	c->names = names_view(c->metrics, c->count);
	return 0;
}

/* Checks every metric against the device's host object; keeps dims. */
static int
open_metrics(struct counters *c, const struct metric_set *set, char **cause)
{
	struct metric_info	*info;
	char			*summary;
	size_t			 i, nbad = 0;
	int			 rc = 0;

	info = xcalloc(c->count, sizeof *info);
	c->dims = xcalloc(c->count, sizeof *c->dims);
	for (i = 0; i < c->count && rc == 0; i++) {
		if ((rc = host_describe(c->host, c->metrics[i], &info[i],
		    cause)) != 0)
			break;
		if (info[i].valid)
			c->dims[i] = dup_or_null(info[i].dim_unit);
		else {
			info[i].suggestion = suggest_metric(c->host,
			    c->metrics[i]);
			nbad++;
		}
	}
	if (rc == 0 && nbad > 0) {
		summary = unknown_summary(c->chip, set, info, nbad);
		*cause = xasprintf("%s (see `ewbench metrics --check`)",
		    summary);
		free(summary);
		rc = -1;
	}
	metric_info_free(info, c->count);
	free(info);
	return rc;
}

/* Whether the environment variable NAME is set to VALUE. */
static bool
env_is(const char *name, const char *value)
{
	const char	*v = getenv(name);

	return v != NULL && strcmp(v, value) == 0;
}

/* Which replay a collection uses: ewbench replays by issuing the work
 * again (its kernels can all be re-run as they are), unless
 * EWBENCH_CUPTI_REPLAY=kernel asks CUPTI to replay each kernel itself,
 * saving and restoring device memory around every pass. */
static CUpti_ProfilerReplayMode
replay_mode(void)
{
	return env_is("EWBENCH_CUPTI_REPLAY", "kernel") ? CUPTI_KernelReplay :
	    CUPTI_UserReplay;
}

/* Which kernels are ranges: every one (AutoRange, the default), or with
 * EWBENCH_CUPTI_RANGE=user only the measured launch of each point, pushed
 * and popped around it (counters_range_begin/end), the flush and warm-up
 * before it left unprofiled.  Each profiled kernel costs CUPTI about 2 ms
 * a pass (plan.c, PROFILED_KERNEL_S), and a point has two where it needs
 * one; but a user range's counters run from its push to its pop on the
 * GPU, more than the kernel (gpu__time_duration.sum, the cycle counts).
 * A build with CUPTI 12.x takes user ranges by default (=auto asks for
 * the others): on an H100 with driver 580 (2026-11-27) CUPTI 12.8's auto
 * ranges decoded nothing ("0 range(s) decoded"), its user ranges every
 * counter, gpu__time_duration.sum 20 us around a 3.6 us kernel. */
static CUpti_ProfilerRange
range_mode(void)
{
	if (env_is("EWBENCH_CUPTI_RANGE", "user"))
		return CUPTI_UserRange;
	if (env_is("EWBENCH_CUPTI_RANGE", "auto"))
		return CUPTI_AutoRange;
#if CUPTI_API_VERSION < 130000
	return CUPTI_UserRange;
#else
	return CUPTI_AutoRange;
#endif
}

int
counters_open(struct counters **cp, int cuda_device,
    struct metric_set *set, char **cause)
{
	struct counters	*c;
	CUdevice	 dev;
	double		 started = monotonic_seconds();

	*cp = NULL;
	if (refuse_other_tool(cause) != 0)
		return -1;
	if (set->count == 0) {
		*cause = xstrdup("empty metric set");
		return -1;
	}

	c = xcalloc(1, sizeof *c);
	/* One reused profiler object is the default: on an H200 it halved a
	 * run's counter time with the same counts as fresh objects.
	 * EWBENCH_CUPTI_REUSE=0 asks for a fresh object per measurement. */
	c->reuse = !env_is("EWBENCH_CUPTI_REUSE", "0");
	c->replay = replay_mode();
	c->range = range_mode();

	if (primary_context(cuda_device, &c->ctx, &dev, cause) != 0)
		goto fail;
	if (profiler_initialize(cause) != 0)
		goto fail;
	c->initialized = true;
	if (device_supported(dev, cuda_device, cause) != 0 ||
	    chip_name(cuda_device, &c->chip, cause) != 0 ||
	    counter_availability(c->ctx, &c->avail, cause) != 0 ||
	    host_open(c->chip, c->avail, &c->host, cause) != 0 ||
	    resolve(c, set, cause) != 0 ||
	    open_metrics(c, set, cause) != 0 ||
	    host_config(c->host, c->names, c->count, &c->config,
	    &c->config_size, &c->passes, cause) != 0)
		goto fail;

	/* Enable once now so that permission problems show up here, not in
	 * the middle of a run; fresh mode gives the object back at once. */
	if (counters_profiler_enable(c, cause) != 0)
		goto fail;
	if (!c->reuse)
		counters_profiler_disable(c);
	c->wall.open = monotonic_seconds() - started;
	*cp = c;
	return 0;

fail:
	counters_close(c);
	return -1;
}


int
counters_passes(const struct counters *c)
{
	return c->passes;
}

const char *
counters_chip(const struct counters *c)
{
	return c->chip;
}

const char *
counters_unit(const struct counters *c, size_t i)
{
	if (i >= c->count)
		return "";
	return metric_unit(c->metrics[i], c->dims[i]);
}

const char *
counters_mode(const struct counters *c)
{
	if (c->fell_back)
		return "reuse-fallback";
	return c->reuse ? "reuse" : "fresh";
}

const struct counters_wall *
counters_wall(const struct counters *c)
{
	return &c->wall;
}

const char *
counters_replay(const struct counters *c)
{
	return c->replay == CUPTI_KernelReplay ? "kernel" : "user";
}

const char *
counters_range(const struct counters *c)
{
	return c->range == CUPTI_UserRange ? "user" : "auto";
}

bool
counters_user_ranges(const struct counters *c)
{
	return c->range == CUPTI_UserRange;
}

int
counters_range_begin(struct counters *c, const char *name, char **cause)
{
	PARAMS(p, CUpti_RangeProfiler_PushRange_Params);
	char	*named;
	int	 rc;

	if (c->range != CUPTI_UserRange)
		return 0;
	/* The point's place in its session, for counters-collect.c's
	 * evaluate_by_name. */
	named = xasprintf("%s#%zu", name, c->issuing);
	p.pRangeProfilerObject = c->profiler;
	p.pRangeName = named;
	rc = cupti_check(cuptiRangeProfilerPushRange(&p),
	    "cuptiRangeProfilerPushRange", cause);
	free(named);
	return rc;
}

int
counters_range_end(struct counters *c, char **cause)
{
	PARAMS(p, CUpti_RangeProfiler_PopRange_Params);

	if (c->range != CUPTI_UserRange)
		return 0;
	p.pRangeProfilerObject = c->profiler;
	return cupti_check(cuptiRangeProfilerPopRange(&p),
	    "cuptiRangeProfilerPopRange", cause);
}

size_t
counters_max_ranges(void)
{
	return COUNTERS_MAX_RANGES;
}

unsigned
counters_cupti_version(void)
{
	uint32_t	version = 0;

	if (cuptiGetVersion(&version) != CUPTI_SUCCESS)
		return 0;
	return version;
}


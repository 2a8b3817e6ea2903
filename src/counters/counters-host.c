/*
 * counters-host.c - the CUPTI Profiler Host API, no GPU needed: which
 * metrics a chip knows (with suggestions for misspelt ones), what a set
 * costs in passes, config images, and CUPTI's error messages with their
 * fixes.  The GPU side is counters.c; counters.h has the contract.
 *
 * cupti_profiler_host.h includes <string>: this file is compiled with
 * src/counters/cupti-shim (an empty `string`) first on the include path.
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

/* Errors *********************************************************************/

/* Fixes for the CUPTI results a user can do something about. */
static const struct {
	CUptiResult	 rc;
	const char	*hint;
} cupti_hints[] = {
	{ CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
	  "GPU performance counters are restricted to admin users: run as "
	  "root or with CAP_SYS_ADMIN (CAP_PERFMON from driver R565), start "
	  "containers with --cap-add=SYS_ADMIN, or load the nvidia module "
	  "with NVreg_RestrictProfilingToAdminUsers=0; or use --no-cupti" },
	{ CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES,
	  "the hypervisor does not allow profiling on this virtual GPU: the "
	  "VM's administrator must enable profiling for it; inside the VM, "
	  "run as root or with CAP_SYS_ADMIN, or load the nvidia module with "
	  "NVreg_RestrictProfilingToAdminUsers=0; or use --no-cupti" },
	{ CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
	  "another CUPTI client (ncu/nsys/compute-sanitizer) is attached; "
	  "use --no-cupti" },
	{ CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED,
	  "this virtual GPU does not support profiling; use a passthrough "
	  "or bare-metal GPU, or --no-cupti" },
	{ CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED,
	  "counters are not available in confidential computing mode; "
	  "use --no-cupti" },
	{ CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED,
	  "NVIDIA CMP devices do not support profiling; use --no-cupti" },
	{ CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED,
	  "on a MIG GPU, profile in a GPU instance with an isolated compute "
	  "instance (not a shared one), or disable MIG; or use --no-cupti" },
	{ CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED,
	  "disable SLI to profile; or use --no-cupti" },
	{ CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED,
	  "profiling is not supported under this WSL setup; use native "
	  "Linux or a newer driver; or use --no-cupti" },
	{ CUPTI_ERROR_HARDWARE_BUSY,
	  "the GPU's counters are in use (another profiler on this GPU?)" },
	{ CUPTI_ERROR_NOT_INITIALIZED,
	  "the CUDA driver is missing or too old for CUPTI 13" },
};

/* "fn: CUPTI_ERROR_NAME (35): fix". */
char *
cupti_error(const char *fn, int rc)
{
	const char	*name = NULL;
	size_t		 i;

	if (cuptiGetResultString(rc, &name) != CUPTI_SUCCESS || name == NULL)
		name = "unknown CUPTI result";
	for (i = 0; i < sizeof cupti_hints / sizeof cupti_hints[0]; i++) {
		if ((int)cupti_hints[i].rc == rc)
			return xasprintf("%s: %s (%d): %s", fn, name, (int)rc,
			    cupti_hints[i].hint);
	}
	return xasprintf("%s: %s (%d)", fn, name, (int)rc);
}

int
cupti_check(int rc, const char *fn, char **cause)
{
	if (rc == CUPTI_SUCCESS)
		return 0;
	*cause = cupti_error(fn, rc);
	return -1;
}

/* The names of a set as CUPTI takes them. */
const char **
names_view(char **metrics, size_t count)
{
	const char	**names;
	size_t		  i;

	names = xcalloc(count, sizeof *names);
	for (i = 0; i < count; i++)
		names[i] = metrics[i];
	return names;
}

/* The names CUPTI is asked for, entry by entry (metric_set_cupti_name). */
const char **
set_names_view(const struct metric_set *set)
{
	const char	**names;
	size_t		  i;

	names = xcalloc(set->count, sizeof *names);
	for (i = 0; i < set->count; i++)
		names[i] = metric_set_cupti_name(set, i);
	return names;
}

/* Host API *******************************************************************/

void
counters_chips(char ***chips, size_t *count)
{
	PARAMS(p, CUpti_Profiler_Host_GetSupportedChips_Params);
	size_t	i;

	*chips = NULL;
	*count = 0;
	if (cuptiProfilerHostGetSupportedChips(&p) != CUPTI_SUCCESS)
		return;
	*chips = xcalloc(p.numChips + 1, sizeof **chips);
	for (i = 0; i < p.numChips; i++)
		(*chips)[i] = xstrdup(p.ppChipNames[i]);
	*count = p.numChips;
}

static char *
supported_chips(void)
{
	PARAMS(p, CUpti_Profiler_Host_GetSupportedChips_Params);
	char	*list = NULL;
	size_t	 i;

	if (cuptiProfilerHostGetSupportedChips(&p) != CUPTI_SUCCESS)
		return xstrdup("unknown");
	for (i = 0; i < p.numChips; i++)
		list_append(&list, " ", p.ppChipNames[i]);
	return list == NULL ? xstrdup("none") : list;
}

int
counters_chip_check(const char *chip, char **cause)
{
	PARAMS(p, CUpti_Profiler_Host_GetSupportedChips_Params);
	char	*chips;
	size_t	 i;

	if (cupti_check(cuptiProfilerHostGetSupportedChips(&p),
	    "cuptiProfilerHostGetSupportedChips", cause) != 0)
		return -1;
	for (i = 0; i < p.numChips; i++) {
		if (strcmp(p.ppChipNames[i], chip) == 0)
			return 0;
	}
	chips = supported_chips();
	*cause = xasprintf("unknown chip '%s' (CUPTI knows: %s)",
	    shown(chip, SHOWN_MOST), chips);
	free(chips);
	return -1;
}

/* AddressSanitizer ends the process when CUPTI dlopens libnvperf_host with
 * RTLD_DEEPBIND; a build with it (./configure --enable-sanitizers) says so
 * instead. */
#if defined(__SANITIZE_ADDRESS__)
#define HOST_API_REFUSED	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOST_API_REFUSED	1
#endif
#endif

int
host_open(const char *chip, const uint8_t *avail,
    CUpti_Profiler_Host_Object **host, char **cause)
{
	PARAMS(p, CUpti_Profiler_Host_Initialize_Params);
	CUptiResult	 rc;

#ifdef HOST_API_REFUSED
	(void)p;
	(void)rc;
	(void)chip;
	(void)avail;
	(void)host;
	*cause = xstrdup("this ewbench is built with AddressSanitizer, which "
	    "cannot load CUPTI's host library (RTLD_DEEPBIND)");
	return -1;
#endif
	p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	p.pChipName = chip;
	p.pCounterAvailabilityImage = avail;
	rc = cuptiProfilerHostInitialize(&p);
	/* An unknown chip, said as such (13.0's CUPTI has its own error for
	 * it, 12.x's a generic one). */
	if (rc != CUPTI_SUCCESS && counters_chip_check(chip, cause) != 0)
		return -1;
	if (cupti_check(rc, "cuptiProfilerHostInitialize", cause) != 0)
		return -1;
	*host = p.pHostObject;
	return 0;
}

void
host_close(CUpti_Profiler_Host_Object *host)
{
	PARAMS(p, CUpti_Profiler_Host_Deinitialize_Params);

	if (host == NULL)
		return;
	p.pHostObject = host;
	cuptiProfilerHostDeinitialize(&p);
}

static const char *
metric_type_name(CUpti_MetricType type)
{
	switch (type) {
	case CUPTI_METRIC_TYPE_COUNTER:
		return "counter";
	case CUPTI_METRIC_TYPE_RATIO:
		return "ratio";
	case CUPTI_METRIC_TYPE_THROUGHPUT:
		return "throughput";
	default:
		return "unknown";
	}
}

/* Fills info; an unknown name is !valid, not an error. */
int
host_describe(CUpti_Profiler_Host_Object *host, const char *metric,
    struct metric_info *info, char **cause)
{
	PARAMS(p, CUpti_Profiler_Host_GetMetricProperties_Params);
	CUptiResult	rc;

	memset(info, 0, sizeof *info);
	p.pHostObject = host;
	p.pMetricName = metric;
	rc = cuptiProfilerHostGetMetricProperties(&p);
	if (rc == CUPTI_ERROR_INVALID_METRIC_NAME)
		return 0;
	if (cupti_check(rc, "cuptiProfilerHostGetMetricProperties", cause) != 0)
		return -1;
	info->valid = true;
	info->description = dup_or_null(p.pDescription);
	info->dim_unit = dup_or_null(p.pDimUnit);
	info->hw_unit = dup_or_null(p.pHwUnit);
	info->type = metric_type_name(p.metricType);
	return 0;
}

/* A whole metric of base with a submetric every metric of its type has,
 * when base is of that type: what CUPTI 12.x's cuptiProfilerHostGet-
 * SubMetrics needs (13.x takes the base alone); NULL otherwise. */
static char *
whole_metric(CUpti_Profiler_Host_Object *host, const char *base, int type)
{
	static const char *const any[CUPTI_METRIC_TYPE__COUNT] = {
		[CUPTI_METRIC_TYPE_COUNTER] = ".sum",
		[CUPTI_METRIC_TYPE_RATIO] = ".ratio",
		[CUPTI_METRIC_TYPE_THROUGHPUT] =
		    ".avg.pct_of_peak_sustained_elapsed",
	};
	PARAMS(p, CUpti_Profiler_Host_GetMetricProperties_Params);
	char	*name = xasprintf("%s%s", base, any[type]);

	p.pHostObject = host;
	p.pMetricName = name;
	if (cuptiProfilerHostGetMetricProperties(&p) == CUPTI_SUCCESS &&
	    (int)p.metricType == type)
		return name;
	free(name);
	return NULL;
}

/* base + the submetric (".sum", ".avg.per_second", ...) closest to suffix;
 * NULL when base is not a base metric of the chip. */
static char *
closest_submetric(CUpti_Profiler_Host_Object *host, const char *base,
    const char *suffix)
{
	const char	*best = NULL;
	char		*whole = NULL;
	size_t		 i, d, best_d = SIZE_MAX;
	int		 type;
	CUptiResult	 rc;

	for (type = 0; type < CUPTI_METRIC_TYPE__COUNT; type++) {
		PARAMS(p, CUpti_Profiler_Host_GetSubMetrics_Params);
		p.pHostObject = host;
		p.metricType = (CUpti_MetricType)type;
		p.pMetricName = base;
		rc = cuptiProfilerHostGetSubMetrics(&p);
		if (rc == CUPTI_ERROR_INVALID_METRIC_NAME &&
		    (whole = whole_metric(host, base, type)) != NULL) {
			p.pMetricName = whole;
			rc = cuptiProfilerHostGetSubMetrics(&p);
		}
		free(whole);
		whole = NULL;
		if (rc != CUPTI_SUCCESS)
			continue;
		for (i = 0; i < p.numOfSubmetrics; i++) {
			d = edit_distance(suffix, p.ppSubMetrics[i]);
			if (d < best_d) {
				best_d = d;
				best = p.ppSubMetrics[i];
			}
		}
		if (best != NULL)
			return xasprintf("%s%s", base, best);
	}
	return NULL;
}

/*
 * A valid name close to an unknown one: the same counter with the closest
 * rollup/submetric, or else the closest counter of the chip (CUPTI lists
 * them as "UNIT.Group.counter") with the submetric asked for, or its
 * closest one.  NULL when nothing is close.
 */
char *
suggest_metric(CUpti_Profiler_Host_Object *host, const char *metric)
{
	const char	*dot = strchr(metric, '.'), *suffix, *name;
	char		*base, *best = NULL, *guess = NULL;
	struct metric_info info;
	size_t		 i, d, best_d = SIZE_MAX, limit;
	int		 type;
	char		*error;

	suffix = dot == NULL ? "" : dot;
	base = xstrdup(metric);
	base[dot == NULL ? strlen(base) : (size_t)(dot - metric)] = '\0';
	if ((guess = closest_submetric(host, base, suffix)) != NULL)
		goto out;

	for (type = 0; type < CUPTI_METRIC_TYPE__COUNT; type++) {
		PARAMS(p, CUpti_Profiler_Host_GetBaseMetrics_Params);
		p.pHostObject = host;
		p.metricType = (CUpti_MetricType)type;
		if (cuptiProfilerHostGetBaseMetrics(&p) != CUPTI_SUCCESS)
			continue;
		for (i = 0; i < p.numMetrics; i++) {
			name = strrchr(p.ppMetricNames[i], '.');
			name = name == NULL ? p.ppMetricNames[i] : name + 1;
			d = edit_distance(base, name);
			if (d < best_d) {
				best_d = d;
				free(best);
				best = xstrdup(name);
			}
		}
	}
	limit = strlen(base) / 3 > 2 ? strlen(base) / 3 : 2;
	if (best == NULL || best_d > limit)
		goto out;
	guess = xasprintf("%s%s", best, suffix);
	if (host_describe(host, guess, &info, &error) != 0)
		free(error);
	if (!info.valid) {
		free(guess);
		guess = closest_submetric(host, best, suffix);
	}
	metric_info_free(&info, 1);

out:
	free(best);
	free(base);
	return guess;
}

/* Config image and pass count for the names; image may be NULL. */
int
host_config(CUpti_Profiler_Host_Object *host, const char **names,
    size_t count, uint8_t **image, size_t *image_size, int *passes,
    char **cause)
{
	PARAMS(add, CUpti_Profiler_Host_ConfigAddMetrics_Params);
	PARAMS(size, CUpti_Profiler_Host_GetConfigImageSize_Params);
	PARAMS(get, CUpti_Profiler_Host_GetConfigImage_Params);
	PARAMS(np, CUpti_Profiler_Host_GetNumOfPasses_Params);
	uint8_t	*config;

	add.pHostObject = host;
	add.ppMetricNames = names;
	add.numMetrics = count;
	if (cupti_check(cuptiProfilerHostConfigAddMetrics(&add),
	    "cuptiProfilerHostConfigAddMetrics", cause) != 0)
		return -1;
	size.pHostObject = host;
	if (cupti_check(cuptiProfilerHostGetConfigImageSize(&size),
	    "cuptiProfilerHostGetConfigImageSize", cause) != 0)
		return -1;
	if (size.configImageSize == 0) {
		*cause = xstrdup("cuptiProfilerHostGetConfigImageSize: "
		    "empty config image");
		return -1;
	}
	config = xmalloc(size.configImageSize);
	get.pHostObject = host;
	get.configImageSize = size.configImageSize;
	get.pConfigImage = config;
	if (cupti_check(cuptiProfilerHostGetConfigImage(&get),
	    "cuptiProfilerHostGetConfigImage", cause) != 0)
		goto fail;
	np.configImageSize = size.configImageSize;
	np.pConfigImage = config;
	if (cupti_check(cuptiProfilerHostGetNumOfPasses(&np),
	    "cuptiProfilerHostGetNumOfPasses", cause) != 0)
		goto fail;
	*passes = (int)np.numOfPasses;
	if (image != NULL) {
		*image = config;
		*image_size = size.configImageSize;
	} else
		free(config);
	return 0;

fail:
	free(config);
	return -1;
}

void
metric_info_free(struct metric_info *info, size_t count)
{
	size_t	i;

	for (i = 0; i < count; i++) {
		free(info[i].description);
		free(info[i].dim_unit);
		free(info[i].hw_unit);
		free(info[i].suggestion);
		memset(&info[i], 0, sizeof info[i]);
	}
}

int
counters_inspect(const char *chip, const struct metric_set *set,
    struct metric_info *info, int *passes, char **cause)
{
	CUpti_Profiler_Host_Object	 *host;
	const char			**names;
	size_t				  i, unknown = 0;
	bool				  all_valid = true;
	int				  rc = -1;

	*passes = 0;
	memset(info, 0, set->count * sizeof *info);
	if (host_open(chip, NULL, &host, cause) != 0)
		return -1;
	for (i = 0; i < set->count; i++) {
		if (host_describe(host, metric_set_cupti_name(set, i),
		    &info[i], cause) != 0)
			goto out;
		if (!info[i].valid) {
			if (unknown++ < METRICS_SHOWN)
				info[i].suggestion = suggest_metric(host,
				    metric_set_cupti_name(set, i));
			all_valid = false;
		}
	}
	if (all_valid && set->count > 0) {
		names = set_names_view(set);
		rc = host_config(host, names, set->count, NULL, NULL, passes,
		    cause);
		free(names);
		if (rc != 0)
			goto out;
	}
	rc = 0;
out:
	if (rc != 0)
		metric_info_free(info, set->count);
	host_close(host);
	return rc;
}

/* metric_set_resolve's question, put to the chip's host object. */
bool
host_knows(void *ctx, const char *name)
{
	struct metric_info	 info;
	char			*error = NULL;
	bool			 valid;

	if (host_describe(ctx, name, &info, &error) != 0) {
		free(error);
		return false;
	}
	valid = info.valid;
	metric_info_free(&info, 1);
	return valid;
}

int
counters_chip_usable(const char *chip, char **cause)
{
	CUpti_Profiler_Host_Object	*host;

	if (host_open(chip, NULL, &host, cause) != 0)
		return -1;
	host_close(host);
	return 0;
}

int
counters_resolve(const char *chip, struct metric_set *set, char **cause)
{
	CUpti_Profiler_Host_Object	*host;
	int				 rc;

	if (host_open(chip, NULL, &host, cause) != 0)
		return -1;
	rc = metric_set_resolve(set, chip, host_knows, host, cause);
	host_close(host);
	return rc;
}

static int	check_names(const struct metric_set *, char **);

int
counters_check_names(const struct metric_set *set, char **cause)
{
	struct metric_set	flat;
	int			rc;

	metric_set_flatten(&flat, set);
	rc = check_names(&flat, cause);
	metric_set_free(&flat);
	return rc;
}

/* counters_check_names of a set whose entries have one name each. */
static int
check_names(const struct metric_set *set, char **cause)
{
	PARAMS(p, CUpti_Profiler_Host_GetSupportedChips_Params);
	struct metric_info	*info;
	bool			*known;
	char			*suggestion = NULL, *list = NULL, *error = NULL,
				*more;
	size_t			 chip, i, left = set->count, shown_count;
	int			 passes, rc = 0;

	if (cuptiProfilerHostGetSupportedChips(&p) != CUPTI_SUCCESS)
		return 0;	/* cannot tell here: counters_open will */
	info = xcalloc(set->count, sizeof *info);
	known = xcalloc(set->count, sizeof *known);
	/* Newest chips last in CUPTI's list: most names are found early. */
	for (chip = p.numChips; chip-- > 0 && left > 0; ) {
		if (counters_inspect(p.ppChipNames[chip], set, info, &passes,
		    &error) != 0) {
			free(error);
			error = NULL;
			continue;
		}
		for (i = 0; i < set->count; i++) {
			if (info[i].valid && !known[i]) {
				known[i] = true;
				left--;
			}
			if (!known[i] && suggestion == NULL &&
			    info[i].suggestion != NULL)
				suggestion = xstrdup(info[i].suggestion);
		}
		metric_info_free(info, set->count);
	}
	for (i = 0, shown_count = 0; i < set->count && left > 0; i++) {
		if (!known[i] && shown_count++ < METRICS_SHOWN)
			list_append(&list, ", ", shown(set->metrics[i],
			    SHOWN_MOST));
	}
	if (left > METRICS_SHOWN) {
		more = xasprintf("%s and %zu more", list, left - METRICS_SHOWN);
		free(list);
		list = more;
	}
	if (list != NULL) {
		*cause = xasprintf("--metrics: %s unknown on every chip CUPTI "
		    "knows%s%s%s (ewbench metrics --list names them)", list,
		    suggestion != NULL ? " (did you mean " : "",
		    suggestion != NULL ? suggestion : "",
		    suggestion != NULL ? "?)" : "");
		rc = -1;
	}
	free(list);
	free(suggestion);
	free(known);
	free(info);
	return rc;
}

/* "name" or "name (did you mean x?)". */
static char *
unknown_text(const char *metric, const struct metric_info *info)
{
	if (info->suggestion == NULL)
		return xstrdup(shown(metric, SHOWN_MOST));
	return xasprintf("%s (did you mean %s?)", shown(metric, SHOWN_MOST),
	    info->suggestion);
}

/* One line naming the unknown metrics of info[]: the first METRICS_SHOWN,
 * then how many more. */
char *
unknown_summary(const char *chip, const struct metric_set *set,
    const struct metric_info *info, size_t nbad)
{
	char	*list = NULL, *item, *text;
	size_t	 i, named = 0;

	for (i = 0; i < set->count && named < METRICS_SHOWN; i++) {
		if (info[i].valid)
			continue;
		item = unknown_text(metric_set_cupti_name(set, i), &info[i]);
		list_append(&list, ", ", item);
		free(item);
		named++;
	}
	text = xasprintf("unknown metric%s for chip %s: %s", nbad == 1 ? "" :
	    "s", chip, list == NULL ? "" : list);
	if (nbad > named) {
		item = xasprintf("%s and %zu more", text, nbad - named);
		free(text);
		text = item;
	}
	free(list);
	return text;
}

int
counters_validate(const char *chip, const struct metric_set *set,
    int *passes, char ***bad, size_t *nbad, char **cause)
{
	struct metric_info	*info;
	size_t			 i;

	*bad = NULL;
	*nbad = 0;
	*passes = 0;
	info = xcalloc(set->count, sizeof *info);
	if (counters_inspect(chip, set, info, passes, cause) != 0) {
		free(info);
		return -1;
	}
	for (i = 0; i < set->count; i++) {
		if (info[i].valid)
			continue;
		*bad = xrealloc(*bad, (*nbad + 1) * sizeof **bad);
		(*bad)[(*nbad)++] = unknown_text(metric_set_cupti_name(set, i),
		    &info[i]);
	}
	if (*nbad > 0)
		*cause = unknown_summary(chip, set, info, *nbad);
	metric_info_free(info, set->count);
	free(info);
	return *nbad > 0 ? -1 : 0;
}


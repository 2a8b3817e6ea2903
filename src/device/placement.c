/*
 * placement.c - where a run runs: launcher variables to rank facts,
 * member names and the GPU a task measures; the GPU's NUMA node from
 * sysfs; run.json's "placement" object (docs/data-format.md).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/placement.h"

const char *
placement_getenv(const char *name)
{
	return getenv(name);
}

/* A rank: a whole number from 0; NULL or "" is unknown (-1). */
static int
rank_value(placement_getenv_fn get, const char *name, long *out, char **cause)
{
	const char		*text = get(name);
	char			*end;
	unsigned long long	 v;

	*out = -1;
	if (text == NULL || *text == '\0')
		return 0;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (!isdigit((unsigned char)*text) || errno != 0 || *end != '\0' ||
	    v > 1000000000ULL) {
		*cause = xasprintf("%s='%s' is not a rank (a whole number from "
		    "0)", name, text);
		return -1;
	}
	*out = (long)v;
	return 0;
}

int
placement_from_env(placement_getenv_fn get, const char *host,
    struct placement *p, char **cause)
{
	static const struct {
		const char	*launcher;
		const char	*rank;
		const char	*local_rank;
		const char	*node;
	} launchers[] = {
		{ "openmpi", "OMPI_COMM_WORLD_RANK",
		  "OMPI_COMM_WORLD_LOCAL_RANK", NULL },
		{ "pmix", "PMIX_RANK", "PMIX_LOCAL_RANK", NULL },
		{ "slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURMD_NODENAME" },
	};
	const char	*member, *node;
	size_t		 i;

	memset(p, 0, sizeof *p);
	p->rank = p->local_rank = -1;
	snprintf(p->node, sizeof p->node, "%s", host);

	/* A child of `ewbench ... --device LIST`: its parent named it. */
	if ((member = get("EWBENCH_FLEET_MEMBER")) != NULL && *member != '\0') {
		p->launcher = "ewbench";
		snprintf(p->member, sizeof p->member, "%s", member);
		return 0;
	}
	for (i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
		const char *rank = get(launchers[i].rank);

		if (rank == NULL || *rank == '\0')
			continue;
		if (rank_value(get, launchers[i].rank, &p->rank, cause) != 0 ||
		    rank_value(get, launchers[i].local_rank, &p->local_rank,
		    cause) != 0)
			return -1;
		if (launchers[i].node != NULL &&
		    (node = get(launchers[i].node)) != NULL && *node != '\0')
			host_short_name(node, p->node, sizeof p->node);
		p->launcher = launchers[i].launcher;
		return 0;
	}
	return 0;
}

bool
placement_scheduled(const struct placement *p)
{
	return p->launcher != NULL && strcmp(p->launcher, "ewbench") != 0;
}

int
placement_device(const struct placement *p, int visible, char **cause)
{
	if (visible == 1)
		return 0;
	if (p->local_rank < 0) {
		*cause = xasprintf("%s gives this task no local rank and %d "
		    "devices are visible: give --device N or set "
		    "CUDA_VISIBLE_DEVICES to one device", p->launcher, visible);
		return -1;
	}
	if (visible <= 0)
		return (int)p->local_rank;	/* device_open will say */
	return (int)(p->local_rank % visible);
}

int
placement_visible_count(placement_getenv_fn get)
{
	const char	*text = get("CUDA_VISIBLE_DEVICES"), *s;
	int		 count = 1;

	if (text == NULL)
		return -1;
	if (*text == '\0')
		return 0;
	for (s = text; *s != '\0'; s++)
		count += *s == ',';
	return count;
}

void
host_short_name(const char *hostname, char *buf, size_t len)
{
	size_t	o = 0;

	for (; *hostname != '\0' && *hostname != '.' && o + 1 < len;
	    hostname++) {
		unsigned char c = (unsigned char)*hostname;

		buf[o++] = isalnum(c) || c == '-' || c == '_' ? (char)c : '-';
	}
	if (o == 0 && len > 1)
		buf[o++] = 'h';	/* a directory name needs something */
	if (len > 0)
		buf[o] = '\0';
}

void
placement_member_name(struct placement *p)
{
	snprintf(p->member, sizeof p->member, "%s-rank%ld", p->node, p->rank);
}

void
fleet_member_name(const char *host, unsigned device, char *buf, size_t len)
{
	snprintf(buf, len, "%s-gpu%u", host, device);
}

int
device_list_parse(const char *text, bool *all, unsigned **devices,
    size_t *count, bool *fleet, char **cause)
{
	*all = false;
	*devices = NULL;
	*count = 0;
	if (strcmp(text, "all") == 0) {
		*all = *fleet = true;
		return 0;
	}
	*fleet = strchr(text, ',') != NULL;
	if (uint_list_parse(text, "--device", 0, 1023, devices, count,
	    cause) != 0)
		return -1;
	return 0;
}

int
numa_node_of(const char *sysfs, const char *bus_id)
{
	char	*path, *s, line[32];
	FILE	*f;
	long	 v;
	int	 node = -1;

	if (bus_id == NULL || *bus_id == '\0')
		return -1;
	path = xasprintf("%s/bus/pci/devices/%s/numa_node", sysfs, bus_id);
	/* sysfs spells the bus id in lower case; CUDA in upper. */
	for (s = path + strlen(sysfs); *s != '\0'; s++)
		*s = (char)tolower((unsigned char)*s);
	if ((f = fopen(path, "r")) != NULL) {
		if (fgets(line, sizeof line, f) != NULL) {
			errno = 0;
			v = strtol(line, &s, 10);
			if (errno == 0 && s != line && v >= 0 && v < 65536)
				node = (int)v;
		}
		fclose(f);
	}
	free(path);
	return node;
}

void
host_facts_init(struct host_facts *h)
{
	struct gpu_settings	*g = &h->settings;

	memset(h, 0, sizeof *h);
	h->numa_node = -1;
	h->place.rank = h->place.local_rank = -1;
	h->nvml_status = "unavailable";
	h->max_sm_clock_mhz = h->max_memory_clock_mhz = NAN;
	g->ecc_current = g->ecc_pending = g->persistence = -1;
	g->power_limit_w = g->power_limit_default_w = g->power_limit_max_w =
	    NAN;
	g->app_sm_clock_mhz = g->app_memory_clock_mhz = NAN;
	g->default_app_sm_clock_mhz = g->default_app_memory_clock_mhz = NAN;
}

/* NVML's clock event reasons that slow a busy GPU down (nvml.h,
 * nvmlClocksEventReason*): idle and clock settings are no throttling. */
static const struct {
	unsigned long long	 bit;
	const char		*name;
} throttle_reasons[] = {
	{ 0x4, "sw_power_cap" },
	{ 0x8, "hw_slowdown" },
	{ 0x20, "sw_thermal" },
	{ 0x40, "hw_thermal" },
	{ 0x80, "hw_power_brake" },
};

unsigned long long
gpu_throttle_mask(void)
{
	unsigned long long	mask = 0;
	size_t			i;

	for (i = 0; i < sizeof throttle_reasons / sizeof throttle_reasons[0];
	    i++)
		mask |= throttle_reasons[i].bit;
	return mask;
}

void
gpu_throttle_names(unsigned long long mask, char *buf, size_t len)
{
	size_t	i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof throttle_reasons / sizeof throttle_reasons[0];
	    i++) {
		if ((mask & throttle_reasons[i].bit) && used + 1 < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
			    used > 0 ? "," : "", throttle_reasons[i].name);
	}
}

static void
quantity_add(struct gpu_quantity *q, double value)
{
	double	bin;

	if (isnan(value))
		return;
	if (q->bins == NULL)
		q->bins = xcalloc(GPU_HISTOGRAM_BINS, sizeof *q->bins);
	if (q->count == 0 || value < q->min)
		q->min = value;
	if (q->count == 0 || value > q->max)
		q->max = value;
	q->count++;
	/* Whole units; past either end into the end bin (min and max stay
	 * exact). */
	bin = floor(value + 0.5);
	bin = bin < 0 ? 0 : bin > GPU_HISTOGRAM_BINS - 1 ?
	    GPU_HISTOGRAM_BINS - 1 : bin;
	if (q->bins[(size_t)bin] < UINT32_MAX)
		q->bins[(size_t)bin]++;
}

void
gpu_sampled_add(struct gpu_sampled *s, const struct gpu_reading *r)
{
	s->samples++;
	quantity_add(&s->sm_clock, r->sm_clock_mhz);
	quantity_add(&s->memory_clock, r->memory_clock_mhz);
	quantity_add(&s->power, r->power_w);
	quantity_add(&s->temperature, r->temperature_c);
	if (r->event_reasons >= 0) {
		s->reasons |= (unsigned long long)r->event_reasons;
		if ((unsigned long long)r->event_reasons & gpu_throttle_mask())
			s->throttled++;
	}
}

double
gpu_quantity_median(const struct gpu_quantity *q)
{
	uint64_t	rank, seen = 0;
	size_t		i;

	if (q->count == 0 || q->bins == NULL)
		return NAN;
	/* The lower median: the reading at rank (count - 1) / 2 from 0. */
	rank = (q->count - 1) / 2;
	for (i = 0; i < GPU_HISTOGRAM_BINS; i++) {
		seen += q->bins[i];
		if (seen > rank)
			return fmin(fmax((double)i, q->min), q->max);
	}
	return q->max;	/* a bin that saturated at UINT32_MAX */
}

void
gpu_sampled_free(struct gpu_sampled *s)
{
	free(s->sm_clock.bins);
	free(s->memory_clock.bins);
	free(s->power.bins);
	free(s->temperature.bins);
	s->sm_clock.bins = s->memory_clock.bins = s->power.bins =
	    s->temperature.bins = NULL;
}

/* A reading NVML did not give (NaN) is null, never 0. */
static void
reading(struct json *j, const char *key, double value)
{
	if (isnan(value))
		json_null(j, key);
	else
		json_f64(j, key, value);
}

static void
sample_json(struct json *j, const char *key, const struct gpu_reading *r)
{
	if (!r->taken) {
		json_null(j, key);
		return;
	}
	json_begin_object(j, key);
	json_str(j, "utc", r->utc);
	reading(j, "sm_clock_mhz", r->sm_clock_mhz);
	reading(j, "memory_clock_mhz", r->memory_clock_mhz);
	reading(j, "power_w", r->power_w);
	reading(j, "temperature_c", r->temperature_c);
	if (r->event_reasons >= 0)
		json_u64(j, "clock_event_reasons", (uint64_t)r->event_reasons);
	else
		json_null(j, "clock_event_reasons");
	json_end_object(j);
}

/* An NVML on/off state: true, false, or null when not read (-1). */
static void
state_json(struct json *j, const char *key, int state)
{
	if (state < 0)
		json_null(j, key);
	else
		json_bool(j, key, state != 0);
}

static void
settings_json(struct json *j, const struct gpu_settings *g)
{
	state_json(j, "ecc_enabled", g->ecc_current);
	state_json(j, "ecc_pending_enabled", g->ecc_pending);
	state_json(j, "persistence_mode", g->persistence);
	reading(j, "power_limit_w", g->power_limit_w);
	reading(j, "power_limit_default_w", g->power_limit_default_w);
	reading(j, "power_limit_max_w", g->power_limit_max_w);
	reading(j, "applications_sm_clock_mhz", g->app_sm_clock_mhz);
	reading(j, "applications_memory_clock_mhz", g->app_memory_clock_mhz);
	reading(j, "default_applications_sm_clock_mhz",
	    g->default_app_sm_clock_mhz);
	reading(j, "default_applications_memory_clock_mhz",
	    g->default_app_memory_clock_mhz);
}

/* {"min", "median", "max", "count"}, or null with no reading. */
static void
quantity_json(struct json *j, const char *key, const struct gpu_quantity *q)
{
	if (q->count == 0) {
		json_null(j, key);
		return;
	}
	json_begin_object(j, key);
	json_f64(j, "min", q->min);
	json_f64(j, "median", gpu_quantity_median(q));
	json_f64(j, "max", q->max);
	json_u64(j, "count", q->count);
	json_end_object(j);
}

static void
sampled_json(struct json *j, const struct gpu_sampled *s)
{
	if (s->samples == 0) {
		json_null(j, "sampled");
		return;
	}
	json_begin_object(j, "sampled");
	json_u64(j, "samples", s->samples);
	quantity_json(j, "sm_clock_mhz", &s->sm_clock);
	quantity_json(j, "memory_clock_mhz", &s->memory_clock);
	quantity_json(j, "power_w", &s->power);
	quantity_json(j, "temperature_c", &s->temperature);
	json_u64(j, "clock_event_reasons", s->reasons);
	json_u64(j, "throttled_samples", s->throttled);
	json_f64(j, "wall_s", s->wall_s);
	json_end_object(j);
}

static void
rank_json(struct json *j, const char *key, long value)
{
	if (value >= 0)
		json_i64(j, key, value);
	else
		json_null(j, key);
}

void
placement_json(const struct host_facts *h, struct json *j)
{
	const struct placement	*p = &h->place;

	json_begin_object(j, "placement");
	json_str(j, "hostname", h->hostname);
	json_str(j, "pci_bus_id",
	    h->pci_bus_id[0] != '\0' ? h->pci_bus_id : NULL);
	if (h->numa_node >= 0)
		json_i64(j, "numa_node", h->numa_node);
	else
		json_null(j, "numa_node");
	json_str(j, "launcher", p->launcher);
	rank_json(j, "rank", p->rank);
	rank_json(j, "local_rank", p->local_rank);
	if (p->launcher != NULL)
		json_str(j, "node", p->node);
	else
		json_null(j, "node");
	json_str(j, "member", p->member[0] != '\0' ? p->member : NULL);

	json_begin_object(j, "nvml");
	json_str(j, "status", h->nvml_status != NULL ? h->nvml_status :
	    "unavailable");
	json_str(j, "reason",
	    h->nvml_reason[0] != '\0' ? h->nvml_reason : NULL);
	reading(j, "max_sm_clock_mhz", h->max_sm_clock_mhz);
	reading(j, "max_memory_clock_mhz", h->max_memory_clock_mhz);
	settings_json(j, &h->settings);
	sample_json(j, "start", &h->start);
	sample_json(j, "end", &h->end);
	sampled_json(j, &h->sampled);
	json_end_object(j);
	json_end_object(j);
}

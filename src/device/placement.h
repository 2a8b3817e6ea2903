/*
 * placement.h - where a run runs: the scheduler's rank facts, the member
 * name and GPU of one process of a fleet, the host, the GPU's NUMA node
 * and its NVML readings, and run.json's "placement" object.
 *
 * Reading the environment is pure (a getenv-like function is passed in),
 * so that every combination of launcher variables is unit-tested without
 * a scheduler.
 */
#ifndef EWB_PLACEMENT_H
#define EWB_PLACEMENT_H

#include "base/ewbench.h"

typedef const char *(*placement_getenv_fn)(const char *name);
/* getenv(3) as a placement_getenv_fn. */
const char	*placement_getenv(const char *name);
struct nvml;

/* What a launcher says about this process.  Unknown numbers are -1. */
struct placement {
	const char	*launcher;	/* "ewbench", "openmpi", "pmix",
					   "slurm" or NULL (none) */
	long		 rank;		/* global rank */
	long		 local_rank;	/* rank among the tasks of this node */
	char		 node[128];	/* scheduler's node, else the host */
	char		 member[192];	/* member name in a fleet, or "" */
};

/* One NVML sample; NaN or -1 where NVML gave nothing. */
struct gpu_reading {
	bool		 taken;
	char		 utc[32];
	double		 sm_clock_mhz;
	double		 memory_clock_mhz;
	double		 power_w;
	double		 temperature_c;
	long long	 event_reasons;	/* clock event (throttle) bitmask */
};

/* What NVML says of the GPU's settings, read once at a run's start: NaN,
 * -1 or "" where NVML gave nothing (written as null). */
struct gpu_settings {
	char		 driver_version[96];	/* "580.65.06" */
	int		 ecc_current;	/* 1 enabled, 0 disabled, -1 unknown */
	int		 ecc_pending;	/* after the next reboot */
	int		 persistence;	/* persistence mode, as ecc_current */
	double		 power_limit_w;	/* enforced, in force now */
	double		 power_limit_default_w;
	double		 power_limit_max_w;	/* the most it may be set to */
	double		 app_sm_clock_mhz, app_memory_clock_mhz;
	double		 default_app_sm_clock_mhz, default_app_memory_clock_mhz;
};

/* One quantity read again and again through a run: its count, exact
 * minimum and maximum, and a histogram of whole units (MHz, W, degrees C)
 * for the median, so that memory stays bounded however long the run. */
#define GPU_HISTOGRAM_BINS	4096
struct gpu_quantity {
	uint64_t	 count;
	double		 min, max;
	uint32_t	*bins;		/* GPU_HISTOGRAM_BINS; NULL until the
					   first reading */
};

/* NVML's readings through a run (gpu_sampled_add after each round of
 * timed launches): run.json's placement.nvml.sampled. */
struct gpu_sampled {
	uint64_t	 samples;	/* readings taken */
	struct gpu_quantity sm_clock, memory_clock, power, temperature;
	unsigned long long reasons;	/* every reading's bitmask, ORed */
	uint64_t	 throttled;	/* readings with a throttling reason */
	double		 wall_s;	/* spent reading NVML */
};

/* The facts of run.json's "placement" object. */
struct host_facts {
	char		 hostname[128];	/* short host name */
	char		 pci_bus_id[32];
	int		 numa_node;	/* -1: unknown */
	struct placement place;
	const char	*nvml_status;	/* "ok" or "unavailable" */
	char		 nvml_reason[256];
	double		 max_sm_clock_mhz;	/* NaN: unknown */
	double		 max_memory_clock_mhz;
	struct gpu_settings settings;
	struct gpu_reading start, end;
	struct gpu_sampled sampled;
	struct nvml	*nvml;		/* open between begin and end */
	char		*member_dir;	/* a scheduler's task: its --out */
};

/* Fills *p from the launcher variables getenv returns: EWBENCH_FLEET_MEMBER
 * (a child of `--device LIST`), Open MPI's OMPI_COMM_WORLD_RANK and
 * OMPI_COMM_WORLD_LOCAL_RANK, PMIx's PMIX_RANK and PMIX_LOCAL_RANK,
 * Slurm's SLURM_PROCID, SLURM_LOCALID and SLURMD_NODENAME, in that order
 * (the innermost launcher first: mpirun inside an sbatch script inherits
 * the batch step's SLURM_PROCID=0).  host is the short host name, the node
 * when the launcher names none.  Returns 0 (p->launcher NULL when none
 * applies) or -1 with a cause when a variable is not a whole number. */
int	 placement_from_env(placement_getenv_fn, const char *host,
	    struct placement *p, char **cause);
/* True for a scheduler's task (Slurm, Open MPI, PMIx). */
bool	 placement_scheduled(const struct placement *);
/* The GPU a scheduler's task measures among `visible` devices: 0 when one
 * is visible, else local rank mod visible; with visible <= 0 (unknown)
 * the local rank itself.  -1 with a cause when the local rank is unknown
 * and several devices are visible. */
int	 placement_device(const struct placement *, int visible, char **cause);
/* How many devices CUDA_VISIBLE_DEVICES names, or -1 when it is unset. */
int	 placement_visible_count(placement_getenv_fn);
/* "<node>-rank<R>" for a scheduler's task (p->member is set too). */
void	 placement_member_name(struct placement *);
/* "<host>-gpu<N>" for device N of a `--device LIST` fleet. */
void	 fleet_member_name(const char *host, unsigned device, char *buf,
	    size_t len);
/* The host name up to its first dot, with anything but letters, digits,
 * '-' and '_' made '-', for directory names. */
void	 host_short_name(const char *hostname, char *buf, size_t len);

/* --device all | N | N,M,...: *all, or the listed devices (no repeats,
 * no empty items).  *fleet says whether this is a list of members
 * ("all" or a comma) rather than one device. */
int	 device_list_parse(const char *text, bool *all, unsigned **devices,
	    size_t *count, bool *fleet, char **cause);

/* NUMA node of PCI device bus_id under sysfs (normally "/sys"), from
 * <sysfs>/bus/pci/devices/<bus id, lower case>/numa_node; -1 when it is
 * missing or says -1. */
int	 numa_node_of(const char *sysfs, const char *bus_id);

/* Unknowns everywhere (NaN, -1, ""), NVML "unavailable". */
void	 host_facts_init(struct host_facts *);
/* Adds one reading to the summary (the values it has: NaN is skipped). */
void	 gpu_sampled_add(struct gpu_sampled *, const struct gpu_reading *);
/* The median of a quantity's readings, to its histogram's whole unit and
 * within [min, max]; NaN with none. */
double	 gpu_quantity_median(const struct gpu_quantity *);
void	 gpu_sampled_free(struct gpu_sampled *);
/* NVML's throttling reasons (power cap, thermal, hardware slowdown, power
 * brake) in mask as "sw_power_cap,hw_slowdown"; "" when none. */
void	 gpu_throttle_names(unsigned long long mask, char *buf, size_t len);
/* The bits of those reasons. */
unsigned long long gpu_throttle_mask(void);
/* run.json's "placement" object. */
void	 placement_json(const struct host_facts *, struct json *);

#endif

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

#include "ewbench.h"

typedef const char *(*placement_getenv_fn)(const char *name);
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
	struct gpu_reading start, end;
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
/* run.json's "placement" object. */
void	 placement_json(const struct host_facts *, struct json *);

#endif

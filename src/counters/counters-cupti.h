/*
 * counters-cupti.h - what the two halves of the CUPTI code share: the
 * host half (counters-host.c: metric names, pass counts, evaluation
 * offline) and the target half (counters.c: collection on a GPU).  Only
 * those two files include it: it exposes CUPTI types (and needs
 * src/counters/cupti-shim first on the include path, see counters.c).
 */
#ifndef EWB_COUNTERS_CUPTI_H
#define EWB_COUNTERS_CUPTI_H

#include <stdint.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>

#include "counters/counters.h"

/*
 * Every CUPTI parameter struct starts with structSize and pPriv: zero it
 * and set the size this header version computed.
 */
#define PARAMS(var, type)						\
	type var;							\
	memset(&var, 0, sizeof var);					\
	var.structSize = type##_STRUCT_SIZE

/* The names of a set as CUPTI takes them. */
const char	**names_view(char **metrics, size_t count);
/* The names CUPTI is asked for, entry by entry (metric_set_cupti_name). */
const char	**set_names_view(const struct metric_set *);
/* A host object for chip (avail: the device's counter availability image,
 * or NULL offline). */
int		 host_open(const char *chip, const uint8_t *avail,
		    CUpti_Profiler_Host_Object **host, char **cause);
void		 host_close(CUpti_Profiler_Host_Object *host);
/* Fills info; an unknown name is !valid, not an error. */
int		 host_describe(CUpti_Profiler_Host_Object *host,
		    const char *metric, struct metric_info *info, char **cause);
/* Whether the host object (a CUpti_Profiler_Host_Object) knows name:
 * metric_set_resolve's question. */
bool		 host_knows(void *host, const char *name);
/* A close valid name for an unknown metric, or NULL. */
char		*suggest_metric(CUpti_Profiler_Host_Object *host,
		    const char *metric);
/* Config image and pass count for the names; image may be NULL. */
int		 host_config(CUpti_Profiler_Host_Object *host,
		    const char **names, size_t count, uint8_t **image,
		    size_t *size, int *passes, char **cause);
/* One line naming every unknown metric of info[]. */
char		*unknown_summary(const char *chip, const struct metric_set *set,
		    const struct metric_info *info, size_t nbad);

/* The session of counters.c and counters-collect.c. */
/*
 * Ranges one collection can hold: a session profiles many points, each
 * issuing a few kernels (a flush or a warm-up launch, then the measured
 * one).  The counter data image grows with it (a few MB here).
 */
#define COUNTERS_MAX_RANGES	256
/* The first collection plus 3 re-collections. */
#define COUNTERS_TRIES		4

struct counters {
	CUcontext			 ctx;
	char				*chip;
	char				**metrics;	/* own copies */
	const char			**names;	/* the same, for CUPTI */
	char				**dims;		/* CUPTI dimensions */
	size_t				 count;
	bool				 initialized;	/* cuptiProfilerInitialize */
	CUpti_Profiler_Host_Object	*host;
	uint8_t				*avail;
	uint8_t				*config;
	size_t				 config_size;
	int				 passes;
	CUpti_RangeProfiler_Object	*profiler;	/* NULL: not enabled */
	bool				 profiler_used;	/* Start/Stop ran on it */
	uint8_t				*data;		/* counter data image */
	size_t				 data_size;
	bool				 reuse;		/* unless EWBENCH_CUPTI_REUSE=0 */
	CUpti_ProfilerReplayMode	 replay;
	CUpti_ProfilerRange		 range;		/* EWBENCH_CUPTI_RANGE */
	size_t				 issuing;	/* the point issue() is
							   launching: its user
							   range's name ends
							   "#<point>" */
	struct counters_wall		 wall;		/* where the time went */
	bool				 fell_back;
};

/* counters.c: a CUDA runtime call's error as a cause; the range profiler
 * object enabled on the context and disabled again. */
int		 counters_cuda_check(cudaError_t e, const char *fn,
		    char **cause);
int		 counters_profiler_enable(struct counters *, char **cause);
void		 counters_profiler_disable(struct counters *);

#endif

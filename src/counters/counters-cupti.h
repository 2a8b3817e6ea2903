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

#include <cupti_profiler_host.h>

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

#endif

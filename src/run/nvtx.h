/*
 * nvtx.h - NVTX ranges in the "ewbench" domain, so Nsight Systems and
 * Nsight Compute (--nvtx --nvtx-include "ewbench@...") can slice a run.
 * Costs next to nothing when no tool is attached.
 */
#ifndef EWB_NVTX_H
#define EWB_NVTX_H

#include "run/types.h"

struct device_facts;

void	 nvtx_init(const struct device_facts *);
void	 nvtx_push_phase(const char *name);	/* "check", "timing", ... */
/* Range named "<variant> n=<n> block=<b> <cache>", payload n. */
void	 nvtx_push_point(const struct point *);
void	 nvtx_pop(void);

#endif

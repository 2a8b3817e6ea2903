/*
 * residency.c - --residency N: each case's blocks are given dynamic
 * shared memory they do not use, the least with which the runtime's
 * occupancy calculator holds exactly N of them on an SM.  A case it
 * cannot cap at N (one that holds fewer without any, by its registers,
 * threads or block limit) is left out, saying why.  The study's kernels
 * use no shared memory: the padding changes nothing but how many of
 * their blocks an SM holds at once (docs/analysis.md, "Calibrating the
 * concurrency curve").
 */
#include <stdio.h>

#include "run/bench.h"

/* Resident blocks per SM of v's kernel at block with pad bytes of dynamic
 * shared memory, by the occupancy calculator. */
static int
resident(const struct ewb_variant *v, unsigned block, size_t pad,
    int *blocks, char **cause)
{
	CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks,
	    v->kernel, (int)block, pad), cause);
	return 0;
}

/* The least padding with which v at block holds `want` blocks per SM,
 * into *pad.  1 when no padding gives exactly want, why in reason; -1
 * with a cause on a CUDA error. */
static int
residency_pad(const struct ewb_variant *v, unsigned block, unsigned want,
    size_t *pad, char *reason, size_t size, char **cause)
{
	struct cudaFuncAttributes	attr;
	int				device, optin, blocks, held;
	size_t				lo, hi, mid, room;

	*pad = 0;
	CUDA_TRY(cudaGetDevice(&device), cause);
	CUDA_TRY(cudaDeviceGetAttribute(&optin,
	    cudaDevAttrMaxSharedMemoryPerBlockOptin, device), cause);
	CUDA_TRY(cudaFuncGetAttributes(&attr, v->kernel), cause);
	room = (size_t)optin > attr.sharedSizeBytes ?
	    (size_t)optin - attr.sharedSizeBytes : 0;
	/* Above 48 KiB a block's dynamic shared memory must be allowed
	 * first; allowing it reserves nothing. */
	CUDA_TRY(cudaFuncSetAttribute(v->kernel,
	    cudaFuncAttributeMaxDynamicSharedMemorySize, (int)room), cause);
	if (resident(v, block, 0, &held, cause) != 0)
		return -1;
	if (held == (int)want)
		return 0;
	if (held < (int)want) {
		snprintf(reason, size, "--residency %u left out at block %u: "
		    "the occupancy calculator holds %d of its blocks per SM "
		    "without any padding (its registers, threads or block "
		    "limit)", want, block, held);
		return 1;
	}
	/* The most shared memory an SM may give: the split of the SM's
	 * memory between L1 and shared memory the calculator assumes, and
	 * the one its launches get (the study's kernels stream; L1 holds
	 * nothing they reuse). */
	CUDA_TRY(cudaFuncSetAttribute(v->kernel,
	    cudaFuncAttributePreferredSharedMemoryCarveout,
	    cudaSharedmemCarveoutMaxShared), cause);
	if (resident(v, block, room, &held, cause) != 0)
		return -1;
	if (held > (int)want) {
		snprintf(reason, size, "--residency %u left out at block %u: "
		    "the occupancy calculator holds %d of its blocks per SM "
		    "at the most shared memory a block may have (%zu bytes)",
		    want, block, held, room);
		return 1;
	}
	/* The blocks an SM holds fall as the padding grows: the least
	 * padding at which they are want or fewer, between lo (more) and hi
	 * (not more). */
	lo = 0;
	hi = room;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (resident(v, block, mid, &blocks, cause) != 0)
			return -1;
		if (blocks > (int)want)
			lo = mid;
		else
			hi = mid;
	}
	*pad = hi;
	if (resident(v, block, hi, &held, cause) != 0)
		return -1;
	if (held == (int)want)
		return 0;
	snprintf(reason, size, "--residency %u left out at block %u: the "
	    "occupancy calculator holds more than %u of its blocks per SM "
	    "with %zu bytes of padding and %d with %zu", want, block, want,
	    lo, held, hi);
	return 1;
}

int
residency_plan(struct plan *p, unsigned want, char **cause)
{
	struct plan_case	*c;
	char			 reason[320];
	size_t			 i = 0;
	int			 rc;

	while (i < p->ncases) {
		c = &p->cases[i];
		rc = residency_pad(c->v, c->block, want, &c->shared_pad,
		    reason, sizeof reason, cause);
		if (rc < 0)
			return -1;
		if (rc == 0)
			i++;
		else
			plan_leave_out(p, i, reason);
	}
	if (p->ncases == 0) {
		*cause = xasprintf("nothing left to run: %s: %s%s",
		    p->skipped[0].variant, p->skipped[0].reason,
		    p->nskipped > 1 ? " (and every other case likewise)" : "");
		return PLAN_NOTHING_LEFT;
	}
	return 0;
}

int
residency_occupancy(const struct launch *l, struct occupancy *occ,
    char **cause)
{
	int	blocks;

	if (resident(l->v, l->args.block, l->args.shared_pad, &blocks,
	    cause) != 0)
		return -1;
	/* As measure_occupancy counts it, with the launch's padding. */
	occ->max_warps_pct = 100.0 * blocks * (((int)l->args.block + 31) /
	    32) / (l->b->dev->max_threads_per_sm / 32.0);
	return 0;
}

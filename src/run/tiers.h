/*
 * tiers.h - which working sets a size sweep measures: a log-spaced grid
 * that is denser around the L2 capacity, and the three sizes of
 * `--preset tiers` (launch-bound, L2-resident, DRAM-bound).
 *
 * Plain arithmetic on a few device facts, so it is tested without a GPU.
 * A "working set" is the footprint of one launch: elements per array times
 * the footprint bytes per element (add f32: 3 arrays x 4 bytes = 12).
 * Every element count is a multiple of TIER_ELEMENT_QUANTUM.
 */
#ifndef EWB_TIERS_H
#define EWB_TIERS_H

#include "base/ewbench.h"

struct tier_device {
	uint64_t	 l2_bytes;
	uint64_t	 memory_bytes;
	uint64_t	 free_bytes;	/* 0: unknown, memory_bytes is used */
};

#define TIER_ELEMENT_QUANTUM	1024u
/* The sweep starts here (launch cost dominates well before). */
#define SWEEP_MIN_BYTES		(64ULL << 10)

/* The buffer read before a cold launch to empty L2: 4 x L2, at least
 * 32 MiB. */
uint64_t	 tier_flush_bytes(const struct tier_device *);
/*
 * What a run may allocate for its arrays, the one rule of what fits: free
 * memory less 15 % (the runtime, CUPTI, fragmentation) and less the L2
 * flush buffer; or budget_bytes when that is smaller and not 0.
 */
uint64_t	 tier_usable_bytes(const struct tier_device *,
		    uint64_t budget_bytes);
/* A working set far beyond L2: max(16 x L2, 1 GiB), not capped.  Used by
 * the DRAM tier and by `ewbench ceilings` for its DRAM arrays. */
uint64_t	 tier_dram_bytes(const struct tier_device *);

/*
 * Element counts for a sweep: working sets log-spaced from SWEEP_MIN_BYTES
 * to max(8 x L2, 1 GiB) (or tier_usable_bytes, if smaller), denser where
 * the bandwidth changes: N = points_per_octave points per doubling from
 * L2 / 16 (the launch knee) and from 1.5 x L2, 2N from L2 / 4, 4N from
 * L2 / 2 to 1.5 x L2 (where a warm working set leaves L2), N / 2 below
 * L2 / 16 and beyond 4 x L2 (launch cost, DRAM speed: straight lines);
 * each segment's lower edge is a point.  N throughout when the L2 size is
 * unknown (0).  Counts are multiples of TIER_ELEMENT_QUANTUM, strictly
 * increasing; the last one reaches the top of the range unless memory
 * caps it.  *sizes is malloc'd.
 */
int		 sweep_sizes(const struct tier_device *,
		    unsigned footprint_bytes_per_element,
		    unsigned points_per_octave, uint64_t budget_bytes,
		    uint64_t **sizes, size_t *count, char **cause);

enum tier { TIER_LATENCY, TIER_L2, TIER_DRAM };
#define TIER_COUNT	3

struct tier_size {
	const char	*name;		/* "latency", "l2", "dram" */
	uint64_t	 n;		/* elements per array */
	uint64_t	 footprint_bytes;
	char		 reason[160];	/* one line, for run.json */
};

/*
 * The three sizes of `--preset tiers`, in enum tier order:
 *   latency  working set ~L2 / 64: data time is far below launch cost;
 *   l2       ~45 % of L2: all operands stay resident between launches;
 *   dram     tier_dram_bytes: at least 16 x L2, so L2 holds almost none.
 * Fails when the DRAM tier cannot get 16 x L2 of usable memory.
 */
int		 tier_sizes(const struct tier_device *,
		    unsigned footprint_bytes_per_element,
		    uint64_t budget_bytes, struct tier_size out[TIER_COUNT],
		    char **cause);

#endif

/*
 * ceilings.h - `ewbench ceilings`: what this GPU reaches at best (DRAM and
 * L2 bandwidth, DRAM latency alone and under load, launch cost, block
 * launch rate, FMA throughput), measured with the kernels of
 * kernels/ceilings.h and written to ceilings.csv (docs/ceilings.md).
 */
#ifndef EWB_CEILINGS_H
#define EWB_CEILINGS_H

#include "run/output.h"

/* One row of ceilings.csv. */
struct ceiling {
	const char	*name;		/* dram_read, ..., fp16_fma */
	const char	*unit;		/* byte/s, ns, flop/s or block/s */
	double		 value;
	double		 spec;		/* from device attributes; NaN: none */
	double		 spread_pct;	/* 100 x sample stddev / median; NaN
					 * with fewer than 2 samples */
	char		 method[320];	/* one line: what was run */
};

/* `ewbench ceilings [--device N] [--out DIR] [--iters N] [--quiet]`;
 * argv[0] is the command name.  Returns an exit code (enum ewb_exit). */
int	 ceilings_command(int argc, char **argv);

/* The rows as a run.json member: "ceilings": {"dram_read": {"value": ...,
 * "unit": "byte/s", "spec_value": ... or null, "method": "..."}, ...}. */
void	 ceilings_json(const struct ceiling *, size_t count, struct json *);

#endif

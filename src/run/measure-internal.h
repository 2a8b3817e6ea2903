/*
 * measure-internal.h - what the files that time a point share among
 * themselves (bench.h is their public header): measure.c walks a point's
 * protocol and calls the timers of measure-records.c (CUPTI's kernel
 * records) and measure-events.c (CUDA event pairs), which issue their
 * launches through measure-launch.c.
 */
#ifndef EWB_RUN_MEASURE_INTERNAL_H
#define EWB_RUN_MEASURE_INTERNAL_H

#include "run/bench.h"

/* The spin kernel gives up after this long on the GPU's clock: a queue
 * the host could not fill by then is reported, never waited for. */
#define SPIN_TIMEOUT_NS		20000000ull

/* measure-launch.c */
/* What a graph of `launches` launches of l is captured from. */
struct graph_body {
	struct bench		*b;
	const struct launch	*l;
	enum cache_mode		 cache;
	unsigned		 launches;
};
int	issue_round(struct bench *, const struct launch *, enum cache_mode,
	    cudaGraphExec_t, unsigned count, char **cause);
void	abandon_point(void);
double	note_clocks(struct bench *, struct timed *);

/* measure-records.c */
int	sample_kernels(struct bench *, const struct launch *, enum cache_mode,
	    enum launch_mode, unsigned once, struct timed *, char **cause);
int	probe_queued(struct bench *, const struct launch *, struct interval *,
	    bool *filled, char **cause);
int	probe_graph(struct bench *, const struct launch *, struct interval *,
	    char **cause);

/* measure-events.c */
int	sample_replay(struct bench *, const struct launch *,
	    double estimate_ns, struct timed *, char **cause);
int	crosscheck(struct bench *, const struct launch *, double median_ns,
	    double *out_ns, char **cause);
int	sample_events(struct bench *, const struct launch *, enum cache_mode,
	    enum launch_mode, struct timed *, char **cause);

#endif

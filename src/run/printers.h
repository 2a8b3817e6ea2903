/*
 * printers.h - what a measuring command shows and writes: the console
 * table and progress line, timing.csv and metrics.csv rows, and the tune
 * table.  They consume results of the core (bench.h); the core prints
 * nothing.
 */
#ifndef EWB_PRINTERS_H
#define EWB_PRINTERS_H

#include "run/bench.h"

struct printers {
	const struct device_facts *dev;
	const char		*run_id;
	bool			 quiet;
	int			 id_width;	/* the variant column: the
						   longest id planned */
	struct csv		*timing;	/* NULL: not written (check) */
	struct csv		*metrics;	/* NULL: no counters */
	struct csv		*energy;	/* NULL: no --energy */

	/* The progress line: points done of the plan's total. */
	size_t			 total, done;
	double			 started;

	/* `ewbench tune`: every timed point, for the best-shape table. */
	bool			 tune;
	struct tuned		*tuned;
	size_t			 ntuned;
};

void	 printers_init(struct printers *, const struct device_facts *,
	    const char *run_id, bool quiet, size_t total);
void	 printers_free(struct printers *);
/* tune: the block of variant that was fastest at its largest size (any
 * cache state and launch mode; ties: the smaller block); false before any
 * of its points was timed. */
bool	 printers_tuned_block(const struct printers *, const char *variant,
	    unsigned *block);
/* The device and the table's header (not for check). */
void	 printers_header(const struct printers *);
/* A timed point: console row, timing.csv row, progress, tune memory. */
int	 printers_timed(struct printers *, const struct point *,
	    const struct timed *, bool passed, char **cause);
/* A check: its console line (check command) or its failure (any). */
void	 printers_checked(struct printers *, const struct point *,
	    bool passed, const struct mismatch *bad, bool show_pass);
/* A counter point: one metrics.csv row per measured metric (absent,
 * never zero), the derived rows, and the occupancy rows. */
int	 printers_counters(struct printers *, const struct point *,
	    const struct metric_set *, const struct counters *,
	    const double *values, const struct occupancy *, bool have_occupancy,
	    char **cause);
/* A point's energy windows (run --energy): its console line and its
 * energy.csv rows, one per window. */
struct energy_window;
int	 printers_energy(struct printers *, const struct point *,
	    const struct energy_window *idle, const struct energy_window *busy,
	    unsigned per_replay, char **cause);
/* `ewbench tune`: per variant, size, cache state and launch mode, the
 * published block against the fastest. */
void	 printers_tune_table(const struct printers *);

#endif

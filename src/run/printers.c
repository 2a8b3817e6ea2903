/*
 * printers.c - the console table, progress line, CSV rows and tune table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/energy.h"
#include "run/output.h"
#include "run/printers.h"

struct tuned {
	const struct ewb_variant *v;
	uint64_t		 n;
	unsigned		 block;
	enum cache_mode		 cache;
	const char		*launch;
	double			 median_ns;
};

void
printers_init(struct printers *pr, const struct device_facts *dev,
    const char *run_id, bool quiet, size_t total)
{
	memset(pr, 0, sizeof *pr);
	pr->dev = dev;
	pr->run_id = run_id;
	pr->quiet = quiet;
	pr->id_width = 18;
	pr->total = total;
	pr->started = monotonic_seconds();
}

void
printers_free(struct printers *pr)
{
	free(pr->tuned);
	pr->tuned = NULL;
	pr->ntuned = 0;
}

void
printers_header(const struct printers *pr)
{
	if (pr->quiet)
		return;
	device_print(pr->dev, stdout);
	printf("%-*s %8s %5s %-4s %-6s %13s  %13s  %10s  %s\n", pr->id_width,
	    "variant", "n", "block", "L2", "launch", "median", "bandwidth", "of spec",
	    "check");
}

/* "[37/480] add_f16 n=16Mi, 1m20s left" on stderr, rewritten in place;
 * only on a terminal, so logs stay clean. */
static void
progress(struct printers *pr, const struct point *p)
{
	char	size[32];
	double	elapsed, left;

	pr->done++;
	if (pr->quiet || pr->total == 0 || !isatty(STDERR_FILENO))
		return;
	elapsed = monotonic_seconds() - pr->started;
	left = elapsed / pr->done * (double)(pr->total - pr->done);
	size_format(p->n, size, sizeof size);
	fprintf(stderr, "\r[%zu/%zu] %s n=%s, %.0fm%02.0fs left   ",
	    pr->done, pr->total, p->v->id, size, floor(left / 60),
	    left - 60 * floor(left / 60));
	if (pr->done >= pr->total)
		fputc('\n', stderr);
}

static void
remember_tuned(struct printers *pr, const struct point *p, double median_ns)
{
	struct tuned	*t;

	pr->tuned = xrealloc(pr->tuned, (pr->ntuned + 1) * sizeof *pr->tuned);
	t = &pr->tuned[pr->ntuned++];
	t->v = p->v;
	t->n = p->n;
	t->block = p->block;
	t->cache = p->cache;
	t->launch = p->launch;
	t->median_ns = median_ns;
}

int
printers_timed(struct printers *pr, const struct point *p,
    const struct timed *t, bool passed, char **cause)
{
	char	size[32], block[16];
	double	bw = (double)point_bytes_moved(p) / (t->st.median * 1e-9);

	if (!pr->quiet) {
		size_format(p->n, size, sizeof size);
		printf("%-*s %8s %5s %-4s %-6s %10.3f us  %8.1f GB/s  %5.1f%% "
		    "spec  %s\n", pr->id_width, p->v->id, size,
		    block_text(p->block, block), cache_name(p->cache),
		    p->launch, t->st.median / 1e3, bw / 1e9,
		    100.0 * bw / pr->dev->dram_bandwidth,
		    passed ? "ok" : "CHECK FAILED");
		fflush(stdout);
	}
	progress(pr, p);
	if (pr->tune)
		remember_tuned(pr, p, t->st.median);
	if (pr->timing == NULL)
		return 0;
	return timing_csv_row(pr->timing, pr->run_id, p, t,
	    pr->dev->dram_bandwidth, passed, cause);
}

int
printers_energy(struct printers *pr, const struct point *p,
    const struct energy_window *idle, const struct energy_window *busy,
    unsigned per_replay, char **cause)
{
	struct energy_result	r;
	char			size[32], block[16];
	unsigned		k;

	if (!pr->quiet) {
		size_format(p->n, size, sizeof size);
		printf("%-*s %8s %5s energy:", pr->id_width, p->v->id, size,
		    block_text(p->block, block));
		for (k = 0; k < ENERGY_WINDOWS; k++) {
			energy_result(&busy[k], idle, point_bytes_moved(p), &r);
			printf(" %.1f", r.pj_per_byte);
		}
		printf(" pJ/B; board %.0f W, idle %.0f W; %.1f GB/s\n",
		    r.board_w, r.idle_w, r.bandwidth / 1e9);
		fflush(stdout);
	}
	for (k = 0; k < ENERGY_WINDOWS; k++) {
		if (energy_csv_row(pr->energy, pr->run_id, p, k + 1, idle,
		    &busy[k], per_replay, cause) != 0)
			return -1;
	}
	return 0;
}

void
printers_checked(struct printers *pr, const struct point *p, bool passed,
    const struct mismatch *bad, bool show_pass)
{
	if (!passed && bad->outside > 0) {
		fprintf(stderr, "ewbench: CHECK FAILED: %s n=%llu: wrote past "
		    "the end of its output, the first at element %zu (n + %zu), "
		    "about %zu elements in all: the guard after it, poisoned "
		    "0x%02x, changed (compute-sanitizer names the access: "
		    "docs/user-kernels.md)\n", p->v->id,
		    (unsigned long long)p->n, bad->index, bad->index -
		    (size_t)p->n, bad->bad_count, bad->poison);
		return;
	}
	if (!passed && bad->outside < 0) {
		fprintf(stderr, "ewbench: CHECK FAILED: %s n=%llu: wrote "
		    "before the start of its output, %zu elements before "
		    "element 0, about %zu elements in all: the guard before "
		    "it, poisoned 0x%02x, changed (compute-sanitizer names the "
		    "access: docs/user-kernels.md)\n", p->v->id,
		    (unsigned long long)p->n, bad->index, bad->bad_count,
		    bad->poison);
		return;
	}
	if (!passed) {
		fprintf(stderr, "ewbench: CHECK FAILED: %s n=%llu: element %zu "
		    "is %.9g, expected %.9g (%zu of %llu elements wrong)\n",
		    p->v->id, (unsigned long long)p->n, bad->index, bad->got,
		    bad->expected, bad->bad_count, (unsigned long long)p->n);
		return;
	}
	if (!show_pass)
		return;
	progress(pr, p);
	if (!pr->quiet)
		printf("%-16s %10llu  ok\n", p->v->id,
		    (unsigned long long)p->n);
}

int
printers_counters(struct printers *pr, const struct point *p,
    const struct metric_set *set, const struct counters *c,
    const double *values, const struct occupancy *occ, bool have_occupancy,
    char **cause)
{
	double	*derived;
	size_t	 i;

	if (pr->metrics == NULL)
		return 0;
	for (i = 0; i < set->count; i++) {
		if (isnan(values[i]))
			continue;	/* absent, never zero */
		if (metrics_csv_row(pr->metrics, pr->run_id, p, set->metrics[i],
		    values[i], counters_unit(c, i), "cupti", cause) != 0)
			return -1;
	}
	derived = xcalloc(derived_count, sizeof *derived);
	counters_derive(set, values, (double)point_bytes_moved(p),
	    (double)p->n * p->v->read_bytes, derived);
	for (i = 0; i < derived_count; i++) {
		if (isnan(derived[i]))
			continue;
		if (metrics_csv_row(pr->metrics, pr->run_id, p,
		    derived_metrics[i].name, derived[i],
		    derived_metrics[i].unit, "derived", cause) != 0) {
			free(derived);
			return -1;
		}
	}
	free(derived);
	if (!have_occupancy)
		return 0;
	if (metrics_csv_row(pr->metrics, pr->run_id, p,
	    "launch__registers_per_thread", occ->registers, "register",
	    "occupancy_api", cause) != 0)
		return -1;
	return metrics_csv_row(pr->metrics, pr->run_id, p,
	    "sm__maximum_warps_per_active_cycle_pct", occ->max_warps_pct, "%",
	    "occupancy_api", cause);
}

bool
printers_tuned_block(const struct printers *pr, const char *variant,
    unsigned *block)
{
	const struct tuned	*best = NULL;
	uint64_t		 largest = 0;
	size_t			 i;

	for (i = 0; i < pr->ntuned; i++)
		if (strcmp(pr->tuned[i].v->id, variant) == 0 &&
		    pr->tuned[i].n > largest)
			largest = pr->tuned[i].n;
	for (i = 0; i < pr->ntuned; i++) {
		const struct tuned *t = &pr->tuned[i];

		if (strcmp(t->v->id, variant) == 0 && t->n == largest &&
		    (best == NULL || t->median_ns < best->median_ns ||
		    (t->median_ns == best->median_ns && t->block < best->block)))
			best = t;
	}
	if (best == NULL)
		return false;
	*block = best->block;
	return true;
}

void
printers_tune_table(const struct printers *pr)
{
	size_t	i, k;
	char	size[32];

	if (pr->quiet || pr->ntuned == 0)
		return;
	printf("\n%-16s %8s %-4s %-6s  %18s  %18s  %6s\n", "variant", "n",
	    "L2", "launch", "published: GB/s", "best: GB/s", "gain");
	for (i = 0; i < pr->ntuned; i++) {
		const struct tuned	*t = &pr->tuned[i], *best = t, *pub = NULL;
		double			 moved;
		bool			 first = true;

		for (k = 0; k < pr->ntuned; k++) {
			const struct tuned *u = &pr->tuned[k];

			if (u->v != t->v || u->n != t->n || u->cache != t->cache ||
			    strcmp(u->launch, t->launch) != 0)
				continue;
			if (k < i)
				first = false;
			if (u->median_ns < best->median_ns)
				best = u;
			if (u->block == t->v->default_block)
				pub = u;
		}
		if (!first)
			continue;	/* each group once */
		moved = (double)t->n * (t->v->read_bytes + t->v->write_bytes);
		size_format(t->n, size, sizeof size);
		printf("%-16s %8s %-4s %-6s  ", t->v->id, size,
		    cache_name(t->cache), t->launch);
		if (pub != NULL)
			printf("%5u: %10.1f  ", pub->block,
			    moved / pub->median_ns);
		else
			printf("%18s  ", "-");
		printf("%5u: %10.1f  ", best->block, moved / best->median_ns);
		if (pub != NULL)
			printf("%+5.1f%%", 100.0 * (pub->median_ns /
			    best->median_ns - 1));
		printf("\n");
	}
}

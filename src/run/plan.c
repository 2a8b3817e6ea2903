/*
 * plan.c - builds, counts, estimates and prints a measuring plan.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cover.h"
#include "run/energy.h"
#include "device/device.h"
#include "run/plan.h"
#include "run/tiers.h"
#include "opgen/opgen.h"

/* Operand arrays, the expected output and the flush buffer: what the
 * budget of one working set leaves room for. */
#define DEVICE_ARRAYS	4

/* Estimates: what one launch costs at least; what CUPTI adds to each
 * profiled kernel in each pass (about 2.5 ms on an H100, AutoRange). */
#define LAUNCH_FLOOR_S		4e-6
#define PROFILED_KERNEL_S	2.5e-3
#define HOST_NS_PER_ELEMENT	3.0	/* fill + reference, one core */
#define UPLOAD_BYTES_PER_S	20e9

/* Registry order; a user's kernel (not in the registry) after it, then
 * the family generated for a user's op, in its order. */
static size_t
variant_index(const struct ewb_variant *v)
{
	if (strcmp(v->origin, OPGEN_ORIGIN) == 0)
		return ewb_variant_count + 1 + opgen_member_index(v);
	if (variant_is_user(v))
		return ewb_variant_count;
	return (size_t)(v - ewb_variants);
}

/* Variant i of those a plan may hold, in variant_index's order (NULL: a
 * registry row or a member not selected, or no user's kernel); i below
 * plan_candidates(o). */
static size_t
plan_candidates(const struct run_options *o)
{
	return ewb_variant_count + 1 + o->ngenerated;
}

static const struct ewb_variant *
plan_candidate(const struct run_options *o, size_t i)
{
	if (i < ewb_variant_count)
		return o->selected[i] ? &ewb_variants[i] : NULL;
	if (i == ewb_variant_count)
		return o->user_variant;
	i -= ewb_variant_count + 1;
	return o->generated_selected == NULL || o->generated_selected[i] ?
	    &o->generated[i] : NULL;
}

/* b into blocks[] (n so far) unless it is there already. */
static size_t
add_variant_block(unsigned *blocks, size_t n, unsigned b)
{
	size_t	k;

	for (k = 0; k < n && blocks[k] != b; k++)
		;
	if (k == n)
		blocks[n++] = b;
	return n;
}

/* A new entry of a list of variants left out (or run as their
 * fallback), for v; its reason is the caller's to write. */
static struct skipped_variant *
skipped_entry(struct skipped_variant **list, size_t *count,
    const struct ewb_variant *v)
{
	struct skipped_variant	*s;

	*list = xrealloc(*list, (*count + 1) * sizeof **list);
	s = &(*list)[(*count)++];
	s->variant = v->id;
	return s;
}

/* The block sizes variant v runs with, into blocks (room for
 * max(OPGEN_BLOCKS, nblocks + nblock_times)): the one place a block is
 * resolved.  A peer library picks its own (0, "auto", whatever --block
 * says); without --block, the variant's published block, or for a member
 * of a user's op's family (--elementwise) every block of the family,
 * OPGEN_BLOCKS of them (64 to 1024); else the --block
 * list, "own" (0) as the published block, then its multiples "xK" (those
 * past EWB_MAX_BLOCK threads left out, each saying why in p's skipped:
 * no launch can have them), each block once.  Every case of a kernel of
 * ours carries its block: nothing after the plan resolves a 0. */
static size_t
variant_blocks(struct plan *p, const struct run_options *o,
    const struct ewb_variant *v, unsigned *blocks)
{
	struct skipped_variant	*s;
	size_t		i, n = 0;
	unsigned long	b;

	if (strcmp(v->origin, "peer") == 0) {
		blocks[0] = 0;
		return 1;
	}
	if (o->nblocks == 0 && o->nblock_times == 0 &&
	    strcmp(v->origin, OPGEN_ORIGIN) == 0) {
		for (i = 0; i < OPGEN_BLOCKS; i++)
			blocks[i] = 64u << i;
		return OPGEN_BLOCKS;
	}
	if (o->nblocks == 0 && o->nblock_times == 0) {
		blocks[0] = v->default_block;
		return 1;
	}
	for (i = 0; i < o->nblocks; i++)
		n = add_variant_block(blocks, n, o->blocks[i] != 0 ?
		    o->blocks[i] : v->default_block);
	for (i = 0; i < o->nblock_times; i++) {
		b = (unsigned long)o->block_times[i] * v->default_block;
		if (b <= EWB_MAX_BLOCK) {
			n = add_variant_block(blocks, n, (unsigned)b);
			continue;
		}
		s = skipped_entry(&p->skipped, &p->nskipped, v);
		snprintf(s->reason, sizeof s->reason, "--block x%u left out: "
		    "%u x its published block of %u is %lu threads, past the "
		    "%u of a CUDA block", o->block_times[i],
		    o->block_times[i], v->default_block, b, EWB_MAX_BLOCK);
	}
	return n;
}

/* --residency N pads the blocks of the study's one-tile kernels and of
 * the probes (ewb_study_launch): another variant is left out, saying
 * why, and so is a block of which an SM cannot hold N by its threads
 * (whole warps) or its block limit; the rest the occupancy calculator
 * decides at the run (residency.c).  Returns the blocks left. */
static size_t
residency_blocks(struct plan *p, const struct run_options *o,
    const struct device_facts *d, const struct ewb_variant *v,
    unsigned *blocks, size_t n)
{
	struct skipped_variant	*s;
	size_t			 i, kept = 0;
	unsigned long		 threads;

	if (o->residency == 0)
		return n;
	if ((strcmp(v->origin, "study") != 0 &&
	    strcmp(v->origin, "probe") != 0) || v->grid_stride) {
		s = skipped_entry(&p->skipped, &p->nskipped, v);
		snprintf(s->reason, sizeof s->reason, "--residency left out: "
		    "%s", v->grid_stride ? "a grid-stride kernel's grid is "
		    "sized to the blocks an SM holds" : "it caps the study's "
		    "one-tile kernels and the probes only");
		return 0;
	}
	for (i = 0; i < n; i++) {
		threads = (unsigned long)o->residency *
		    ((blocks[i] + 31) / 32 * 32);
		if (threads <= (unsigned long)d->max_threads_per_sm &&
		    o->residency <= (unsigned)d->max_blocks_per_sm) {
			blocks[kept++] = blocks[i];
			continue;
		}
		s = skipped_entry(&p->skipped, &p->nskipped, v);
		if (o->residency > (unsigned)d->max_blocks_per_sm)
			snprintf(s->reason, sizeof s->reason, "--residency %u "
			    "left out: an SM of this GPU holds at most %d "
			    "blocks", o->residency, d->max_blocks_per_sm);
		else
			snprintf(s->reason, sizeof s->reason, "--residency %u "
			    "left out at block %u: %lu threads, past the %d an "
			    "SM of this GPU holds", o->residency, blocks[i],
			    threads, d->max_threads_per_sm);
	}
	return kept;
}

static void
add_case(struct plan *p, const struct ewb_variant *v, uint64_t n,
    unsigned block)
{
	struct plan_case *c;

	p->cases = xrealloc(p->cases, (p->ncases + 1) * sizeof *p->cases);
	c = &p->cases[p->ncases++];
	c->v = v;
	c->n = n;
	c->block = block;
	c->shared_pad = 0;
	c->added = p->ncases - 1;
}

/* run.json says why each tier size was chosen, once per footprint. */
static void
add_choices(struct plan *p, unsigned fp, const struct tier_size *tiers)
{
	struct size_choice	*c;
	size_t			 i;

	for (i = 0; i < p->nchoices; i++) {
		if (p->choices[i].footprint_per_element == fp)
			return;
	}
	p->choices = xrealloc(p->choices,
	    (p->nchoices + TIER_COUNT) * sizeof *p->choices);
	for (i = 0; i < TIER_COUNT; i++) {
		c = &p->choices[p->nchoices++];
		c->footprint_per_element = fp;
		c->tier = tiers[i].name;
		c->n = tiers[i].n;
		snprintf(c->reason, sizeof c->reason, "%s", tiers[i].reason);
	}
}

unsigned
plan_code_arch(const char *arch_list, unsigned cc)
{
	const char	*p = arch_list;
	char		*end;
	unsigned long	 arch;
	unsigned	 sass = 0, last = 0;

	while (*p != '\0') {
		arch = strtoul(p, &end, 10);
		if (end == p) {
			p++;
			continue;
		}
		p = end;
		last = (unsigned)arch;
		if (arch / 10 == cc / 10 && arch <= cc && arch > sass)
			sass = (unsigned)arch;
	}
	if (sass != 0)
		return sass;
	return last != 0 && last <= cc ? last : 0;
}

/* The code a variant's kernel runs as: what the driver loaded for the
 * GPU (a device), else what this build would give a GPU of its compute
 * capability (planning by --chip); a user's op's family, the GPU's own
 * (NVRTC compiles it for the GPU, src/opgen/). */
static unsigned
variant_code_arch(const struct device_facts *d, const struct ewb_variant *v)
{
	unsigned	cc = (unsigned)(d->cc_major * 10 + d->cc_minor);

	if (strcmp(v->origin, OPGEN_ORIGIN) == 0)
		return cc;
	if (d->index >= 0 && v->kernel != NULL)
		return ewb_code_arch(v->kernel);
	return plan_code_arch(EWB_CUDA_ARCH, cc);
}

/* A variant this build does not hold (its toolkit lacks what it needs) is
 * left out, saying why.  A variant whose technique needs a newer GPU, or
 * code this build does not hold for this one, runs its fallback kernel
 * under its own id; unless asked for, it is left out, saying why. */
static bool
skip_variant(struct plan *p, const struct run_options *o,
    const struct device_facts *d, const struct ewb_variant *v)
{
	struct skipped_variant	*s;
	unsigned		 cc = (unsigned)(d->cc_major * 10 + d->cc_minor);
	unsigned		 code = 0;
	const char		*then;

	if (v->unavailable != NULL) {
		s = skipped_entry(&p->skipped, &p->nskipped, v);
		snprintf(s->reason, sizeof s->reason, "not in this build: "
		    "%s; this ewbench was built with CUDA %d.%d",
		    v->unavailable, EWB_CUDA_BUILD_VERSION / 1000,
		    EWB_CUDA_BUILD_VERSION % 1000 / 10);
		return true;
	}
	if (v->min_cc == 0 || (cc >= v->min_cc &&
	    (code = variant_code_arch(d, v)) >= v->min_cc))
		return false;
	/* Left out, or run as its fallback: either way run.json says so. */
	s = o->allow_fallback ? skipped_entry(&p->fallbacks, &p->nfallbacks, v) :
	    skipped_entry(&p->skipped, &p->nskipped, v);
	then = o->allow_fallback ? "its fallback kernel ran under its name "
	    "(--allow-fallback)" : "its fallback kernel would run under its "
	    "name (--allow-fallback runs it)";
	if (cc < v->min_cc)
		snprintf(s->reason, sizeof s->reason, "needs compute "
		    "capability %u.%u, this GPU has %d.%d: %s", v->min_cc / 10,
		    v->min_cc % 10, d->cc_major, d->cc_minor, then);
	else
		snprintf(s->reason, sizeof s->reason, "needs code built for "
		    "compute capability %u.%u or newer, and this ewbench "
		    "(built for %s) runs compute_%u code on this %d.%d GPU: "
		    "%s; ./configure --with-cuda-arch with %u in its list "
		    "builds it", v->min_cc / 10, v->min_cc % 10, EWB_CUDA_ARCH,
		    code, d->cc_major, d->cc_minor, then, v->min_cc);
	return !o->allow_fallback;
}

/* Elements each thread of v covers (0 in a row: 1). */
static unsigned
elems_per_thread(const struct ewb_variant *v)
{
	return v->elems_per_thread != 0 ? v->elems_per_thread : 1;
}

/* Elements a launch of v at n elements and block (resolved: not 0)
 * covers: grid x block x elements per thread, as the launcher shapes it. */
static uint64_t
launch_cover(const struct ewb_variant *v, uint64_t n, unsigned block)
{
	return ewb_cover_elems(n, elems_per_thread(v), block);
}

/*
 * Why a launch of v at n elements and block (0: a peer's, which chooses
 * its own launch) cannot be made, into reason (size bytes; NULL: not
 * wanted): its launch covers indices past what the kernel's count holds
 * (a user kernel's int N), or it needs a grid past EWB_MAX_GRID blocks (a
 * kernel without a loop, one thread per element or group, at billions of
 * elements and a small block: the launcher refuses that shape).  false
 * when it can be made.
 */
static bool
unlaunchable(const struct ewb_variant *v, uint64_t n, unsigned block,
    char *reason, size_t size)
{
	unsigned	per = elems_per_thread(v);
	/* The smallest block whose grid fits. */
	uint64_t	fits = ewb_div_up(ewb_div_up(n, per), EWB_MAX_GRID);
	uint64_t	cover, grid;

	/* A library's peer (block 0) chooses its own launch. */
	if (block == 0)
		return false;
	cover = launch_cover(v, n, block);
	grid = ewb_cover_grid(n, per, block);
	/* The count itself (n) and every index the launch forms (up to
	 * cover - 1) must fit. */
	if (v->max_cover != 0 && (n >= v->max_cover || cover > v->max_cover)) {
		if (reason != NULL)
			snprintf(reason, size, "n=%llu, block %u: its launch "
			    "covers elements 0 to %llu, past what its %s "
			    "element count holds (at most %llu): left out at "
			    "this size; declare the count size_t and index in "
			    "64 bits to measure it", (unsigned long long)n,
			    block, (unsigned long long)(cover - 1),
			    v->max_cover == (uint64_t)1 << 31 ?
			    "int (32-bit signed)" : "32-bit unsigned",
			    (unsigned long long)(v->max_cover - 1));
		return true;
	}
	/* A grid-stride kernel's grid is one wave.  A size no block covers
	 * (past 2^41 elements) is past any GPU's memory too: the plan's
	 * memory check says so. */
	if (!v->grid_stride && grid > EWB_MAX_GRID && fits <= EWB_MAX_BLOCK) {
		if (reason != NULL)
			snprintf(reason, size, "n=%llu, block %u: a grid of "
			    "%llu blocks, past the %llu a launch may have: left "
			    "out at this size; a block of %llu threads or more "
			    "covers it", (unsigned long long)n, block,
			    (unsigned long long)grid, EWB_MAX_GRID,
			    (unsigned long long)fits);
		return true;
	}
	return false;
}

/* Its arrays alone (the operands and the output) would not fit the GPU's
 * memory: the memory check refuses the run before the plan judges grids. */
static bool
beyond_memory(const struct tier_device *td, const struct ewb_variant *v,
    uint64_t n)
{
	double	arrays = 3.0 * (double)n * ewb_dtype_size(v->dtype);

	return td->memory_bytes > 0 && arrays > (double)td->memory_bytes;
}

/* A size no launch of v can measure at block (unlaunchable): left out for
 * that kernel, saying why, never launched. */
static bool
left_out(struct plan *p, const struct ewb_variant *v, uint64_t n,
    unsigned block)
{
	struct skipped_variant	*s;
	char			 reason[sizeof s->reason];

	if (!unlaunchable(v, n, block, reason, sizeof reason))
		return false;
	s = skipped_entry(&p->skipped, &p->nskipped, v);
	memcpy(s->reason, reason, sizeof reason);
	return true;
}

/* The sizes variant v is measured at: the sweep's, the tiers' (and the
 * --size ones), or the --size list.  *owned says whether to free them. */
static int
variant_sizes(struct plan *p, const struct run_options *o,
    const struct tier_device *td, const struct ewb_variant *v, uint64_t **sizes, size_t *count,
    char **cause)
{
	struct tier_size	 tiers[TIER_COUNT];
	unsigned		 fp = variant_footprint_per_element(v);
	unsigned		 elem = ewb_dtype_size(v->dtype);
	unsigned		 inputs = variant_input_arrays(v);
	uint64_t		 budget;
	size_t			 k;
	bool			 tiered = o->preset != NULL &&
				     strcmp(o->preset, "tiers") == 0;

	if (o->command != CMD_SWEEP && !tiered) {
		*sizes = xmalloc((o->nsizes + 1) * sizeof **sizes);
		memcpy(*sizes, o->sizes, o->nsizes * sizeof **sizes);
		*count = o->nsizes;
		return 0;
	}
	/* The footprint of the largest working set whose device arrays
	 * fit. */
	budget = tier_usable_bytes(td, 0) / (DEVICE_ARRAYS +
	    (inputs > 2 ? inputs - 2 : 0)) / elem * fp;
	if (budget == 0)
		budget = 1;
	if (o->command == CMD_SWEEP)
		return sweep_sizes(td, fp, o->density, budget, sizes, count,
		    cause);
	if (tier_sizes(td, fp, budget, tiers, cause) != 0)
		return -1;
	*count = TIER_COUNT + o->nsizes;
	*sizes = xmalloc(*count * sizeof **sizes);
	for (k = 0; k < TIER_COUNT; k++)
		(*sizes)[k] = tiers[k].n;
	if (o->nsizes > 0)	/* o->sizes is NULL without --size */
		memcpy(*sizes + TIER_COUNT, o->sizes,
		    o->nsizes * sizeof **sizes);
	add_choices(p, fp, tiers);
	return 0;
}

/* Run order: size, dtype, op, registry row, block (as listed). */
static int
case_order(const void *x, const void *y)
{
	const struct plan_case	*a = x, *b = y;
	size_t			 ia = variant_index(a->v), ib = variant_index(b->v);

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	if (a->v->dtype != b->v->dtype)
		return a->v->dtype < b->v->dtype ? -1 : 1;
	if (a->v->op != b->v->op)
		return a->v->op < b->v->op ? -1 : 1;
	if (ia != ib)
		return ia < ib ? -1 : 1;
	/* Its blocks as they were added (qsort is not stable). */
	return a->added < b->added ? -1 : a->added > b->added;
}

/* Distinct sizes and the largest array, for run.json and the budget. */
static void
plan_totals(struct plan *p)
{
	size_t	i, bytes;

	free(p->sizes);
	p->array_bytes = 0;
	p->largest_n = 0;
	p->guarded_bytes = 0;
	p->more_inputs = 0;
	p->sizes = xmalloc((p->ncases + 1) * sizeof *p->sizes);
	for (i = 0; i < p->ncases; i++) {
		p->sizes[i] = p->cases[i].n;
		bytes = p->cases[i].n > SIZE_MAX / 16 ? SIZE_MAX :
		    p->cases[i].n * ewb_dtype_size(p->cases[i].v->dtype);
		if (bytes > p->array_bytes)
			p->array_bytes = bytes;
		if (p->cases[i].n > p->largest_n)
			p->largest_n = p->cases[i].n;
		/* A user kernel's check writes into a guarded copy. */
		if (variant_is_user(p->cases[i].v) && bytes + 2 *
		    (size_t)USER_GUARD_BYTES > p->guarded_bytes)
			p->guarded_bytes = bytes + 2 * (size_t)USER_GUARD_BYTES;
		if (variant_is_user(p->cases[i].v) &&
		    variant_input_arrays(p->cases[i].v) > 2)
			p->more_inputs = variant_input_arrays(p->cases[i].v) -
			    2;
	}
	p->nsizes = p->ncases;
	sizes_sort_unique(p->sizes, &p->nsizes);
}

int
plan_build(const struct run_options *o, const struct device_facts *d,
    size_t free_bytes, bool counters, struct plan *p, char **cause)
{
	struct tier_device	 td;
	unsigned		*blocks;
	uint64_t		*sizes;
	size_t			 i, k, b, nb, count;

	memset(p, 0, sizeof *p);
	blocks = xmalloc((o->nblocks + o->nblock_times > OPGEN_BLOCKS ?
	    o->nblocks + o->nblock_times : OPGEN_BLOCKS) * sizeof *blocks);
	p->command = o->command;
	p->counters = counters && o->command != CMD_CHECK;
	if (o->command != CMD_CHECK) {
		if (o->cache & CACHE_WARM)
			p->caches[p->ncaches++] = CACHE_WARM;
		if (o->cache & CACHE_COLD)
			p->caches[p->ncaches++] = CACHE_COLD;
		if (o->launch & LAUNCH_STREAM)
			p->launches[p->nlaunches++] = LAUNCH_STREAM;
		if (o->launch & LAUNCH_GRAPH)
			p->launches[p->nlaunches++] = LAUNCH_GRAPH;
	}
	td.l2_bytes = d->l2_bytes;
	td.memory_bytes = d->memory_bytes;
	td.free_bytes = free_bytes;
	p->flush_bytes = tier_flush_bytes(&td);

	for (i = 0; i < plan_candidates(o); i++) {
		const struct ewb_variant *v = plan_candidate(o, i);

		if (v == NULL || skip_variant(p, o, d, v))
			continue;
		if (variant_sizes(p, o, &td, v, &sizes, &count,
		    cause) != 0) {
			free(blocks);
			plan_free(p);
			return -1;
		}
		sizes_sort_unique(sizes, &count);	/* a tier size also given */
		nb = residency_blocks(p, o, d, v, blocks,
		    variant_blocks(p, o, v, blocks));
		for (k = 0; k < count; k++) {
			for (b = 0; b < nb; b++) {
				/* A size past the GPU's memory is the memory
				 * check's to refuse (exit 4), the reason
				 * before any grid's. */
				if (beyond_memory(&td, v, sizes[k]) ||
				    !left_out(p, v, sizes[k], blocks[b]))
					add_case(p, v, sizes[k], blocks[b]);
			}
		}
		free(sizes);
	}
	if (p->ncases > 1)	/* qsort may not be given NULL */
		qsort(p->cases, p->ncases, sizeof *p->cases, case_order);
	free(blocks);
	plan_totals(p);
	/* A run is never empty: one would be "complete" having measured
	 * nothing. */
	if (p->ncases == 0) {
		*cause = p->nskipped > 0 ? xasprintf("nothing left to run: "
		    "%s: %s%s", p->skipped[0].variant, p->skipped[0].reason,
		    p->nskipped > 1 ? " (and every other case likewise)" :
		    "") : xstrdup("nothing to run: no variant selected");
		plan_free(p);
		return PLAN_NOTHING_LEFT;
	}
	return 0;
}

void
plan_free(struct plan *p)
{
	free(p->cases);
	free(p->sizes);
	free(p->choices);
	free(p->skipped);
	free(p->fallbacks);
	memset(p, 0, sizeof *p);
}

void
plan_leave_out(struct plan *p, size_t i, const char *reason)
{
	struct skipped_variant	*s;

	s = skipped_entry(&p->skipped, &p->nskipped, p->cases[i].v);
	snprintf(s->reason, sizeof s->reason, "%s", reason);
	memmove(&p->cases[i], &p->cases[i + 1],
	    (p->ncases - i - 1) * sizeof *p->cases);
	p->ncases--;
	plan_totals(p);
}

size_t
plan_timed_points(const struct plan *p)
{
	return p->ncases * p->ncaches * p->nlaunches;
}

size_t
plan_profiled_points(const struct plan *p)
{
	return p->counters ? p->ncases * p->ncaches : 0;
}

size_t
plan_device_bytes(const struct plan *p)
{
	size_t	arrays = DEVICE_ARRAYS + p->more_inputs;

	if (p->array_bytes > (SIZE_MAX - p->flush_bytes -
	    p->guarded_bytes) / arrays)
		return SIZE_MAX;
	return arrays * p->array_bytes + p->flush_bytes + p->guarded_bytes;
}

size_t
plan_expected_bytes(const struct plan *p)
{
	const struct ewb_variant	*v, *last = NULL;
	size_t				 i, total = 0;
	uint64_t			 n = 0;

	for (i = 0; i < p->ncases; i++) {
		v = p->cases[i].v;
		if (last == NULL || p->cases[i].n != n ||
		    v->dtype != last->dtype || v->op != last->op) {
			if (v->op != EWB_OP_CUSTOM)
				total += p->cases[i].n * ewb_dtype_size(v->dtype);
		}
		last = v;
		n = p->cases[i].n;
	}
	return total;
}

int
plan_fits(const struct plan *p, size_t have, const char *chip, char **cause)
{
	size_t	need = plan_device_bytes(p);
	char	have_text[32], want[32], size[32], *where;

	if (p->array_bytes > SIZE_MAX / 8) {
		*cause = xasprintf("--size %llu is too large to address",
		    (unsigned long long)p->largest_n);
		return -1;
	}
	if (need <= have)
		return 0;
	bytes_format((double)need, want, sizeof want);
	bytes_format((double)have, have_text, sizeof have_text);
	size_format(p->largest_n, size, sizeof size);
	where = chip != NULL ? xasprintf("the %s has %s", chip, have_text) :
	    xasprintf("only %s is free", have_text);
	*cause = xasprintf("size %s needs %s of GPU memory (%u arrays, the "
	    "expected output and an L2 flush buffer); %s", size, want,
	    3 + p->more_inputs, where);
	free(where);
	return -1;
}

/* Seconds one launch of case c takes, roughly. */
/* The stopping rule of every timed point (docs/analysis.md, "How a point
 * is timed"): --iters samples at least, and half a millisecond of kernel
 * time; then until the median's 95 % interval is within --target % of
 * it, at most --max-iters samples or --max-time of sampling. */
#define TIMING_MIN_GPU_S	0.5e-3

struct sampling_rule
timing_rule(const struct run_options *o)
{
	struct sampling_rule	r;

	r.min_samples = o->iters;
	r.min_gpu_s = TIMING_MIN_GPU_S;
	r.target_pct = o->target_pct;
	r.max_samples = o->max_iters;
	r.max_wall_s = o->max_time_ms * 1e-3;
	return r;
}

/* One timed point of launches of t seconds each (per: with a cold
 * point's flush), by measure.c's protocol: the warm-up (at least 1 ms),
 * then samples until the stopping rule (bench.c's timing_rule) says
 * enough; the estimate takes the samples the minimum GPU time needs (the
 * interval target is usually met by then), within the caps.  A warm point
 * outside a trace: its replays, and for short kernels a round of --iters
 * launches under the records.  Without CUPTI, exactly the warm-up and
 * --iters launches. */
static double
point_seconds(const struct run_options *o, double t, double per, bool cold)
{
	struct sampling_rule	rule = timing_rule(o);
	double			warm = o->warmup * per, samples, k;

	if (o->no_cupti)
		return (o->warmup + o->iters) * per;
	if (o->warmup > 0 && warm < TIMING_WARMUP_MIN_S)
		warm = TIMING_WARMUP_MIN_S;
	/* Warm, not traced: the replays (one untimed; their stopping rule
	 * is usually met at the minimum), and a round of records for short
	 * kernels. */
	if (!cold && o->trace == NULL) {
		k = fmax(TIMING_REPLAY_MIN_LAUNCHES, ceil(TIMING_REPLAY_NS *
		    1e-9 / t));
		samples = fmax(TIMING_REPLAY_MIN_SAMPLES, ceil(o->iters / k));
		return warm + (samples + 1) * k * t +
		    (t < TIMING_PROBE_MAX_NS * 1e-9 ? o->iters * per : 0);
	}
	samples = ceil(rule.min_gpu_s / t);
	if (samples < rule.min_samples)
		samples = rule.min_samples;
	if (samples > rule.max_samples)
		samples = rule.max_samples;
	if (samples * per > rule.min_samples * per + rule.max_wall_s)
		samples = rule.min_samples + rule.max_wall_s / per;
	return warm + samples * per;
}

static double
estimated_launch_seconds(const struct plan_case *c, const struct device_facts *d)
{
	double	bytes = (double)c->n * (c->v->read_bytes + c->v->write_bytes);
	double	t = bytes / (0.9 * d->dram_bandwidth);

	return t > LAUNCH_FLOOR_S ? t : LAUNCH_FLOOR_S;
}

double
plan_estimate_seconds(const struct plan *p, const struct run_options *o,
    const struct device_facts *d, int passes)
{
	double	total = 0, t, flush = p->flush_bytes / (0.9 * d->dram_bandwidth);
	size_t	i, k, threads = parallel_threads();

	for (i = 0; i < p->ncases; i++) {
		const struct plan_case *c = &p->cases[i];
		double bytes = (double)c->n * ewb_dtype_size(c->v->dtype);

		t = estimated_launch_seconds(c, d);
		/* The check: poison, launch, compare. */
		total += 4 * bytes / d->dram_bandwidth + LAUNCH_FLOOR_S * 4;
		/* Inputs and the expected output, once per size, dtype, op. */
		if (i == 0 || c->n != p->cases[i - 1].n ||
		    c->v->dtype != p->cases[i - 1].v->dtype ||
		    c->v->op != p->cases[i - 1].v->op)
			total += c->n * HOST_NS_PER_ELEMENT * 1e-9 / threads +
			    3 * bytes / UPLOAD_BYTES_PER_S;
		for (k = 0; k < p->ncaches; k++) {
			double per = t + (p->caches[k] == CACHE_COLD ?
			    flush + LAUNCH_FLOOR_S : 0);

			total += p->nlaunches * point_seconds(o, t, per,
			    p->caches[k] == CACHE_COLD);
			if (p->counters)
				total += passes * 2 * (per + PROFILED_KERNEL_S);
		}
		if (o->energy)
			total += energy_point_seconds(o->energy_window_s);
	}
	return total;
}

void
plan_print(const struct plan *p, const struct run_options *o,
    const struct device_facts *d, int passes, FILE *f)
{
	static const char *const commands[] = { "run", "check", "sweep",
	    "tune" };
	char		 size[32], mem[32];
	size_t		 i;
	double		 secs;

	fprintf(f, "plan: ewbench %s on %s\n", commands[p->command], d->name);
	fprintf(f, "%-18s %-10s %-10s %6s\n", "variant", "from", "to",
	    "cases");
	/* Per variant, in registry order, a user's kernel and the family of
	 * a user's op last (unselected rows have no cases). */
	for (i = 0; i < plan_candidates(o); i++) {
		const struct ewb_variant *v = i < ewb_variant_count ?
		    &ewb_variants[i] : plan_candidate(o, i);
		uint64_t	lo = 0, hi = 0;
		size_t		k, cases = 0;
		char		from[32], to[32];

		for (k = 0; k < p->ncases && v != NULL; k++) {
			if (p->cases[k].v != v)
				continue;
			if (cases++ == 0 || p->cases[k].n < lo)
				lo = p->cases[k].n;
			if (p->cases[k].n > hi)
				hi = p->cases[k].n;
		}
		if (cases == 0)
			continue;
		size_format(lo, from, sizeof from);
		size_format(hi, to, sizeof to);
		fprintf(f, "%-18s %-10s %-10s %6zu\n", v->id, from, to, cases);
	}
	/* A user's kernel: what it is checked as, and why. */
	if (o->user_variant != NULL) {
		char	*what = user_spec_describe(&o->kernel,
			    o->user_variant->id);

		fprintf(f, "%s\n", what);
		free(what);
	}
	for (i = 0; i < p->nskipped; i++)
		fprintf(f, "skipped: %s: %s\n", p->skipped[i].variant,
		    p->skipped[i].reason);
	if (o->residency > 0)
		fprintf(f, "residency: at most %u block%s per SM, each block "
		    "given the dynamic shared memory that caps it (the "
		    "occupancy calculator confirms it at the run)\n",
		    o->residency, o->residency == 1 ? "" : "s");
	secs = plan_estimate_seconds(p, o, d, passes);
	bytes_format((double)plan_device_bytes(p), mem, sizeof mem);
	size_format(p->largest_n, size, sizeof size);
	fprintf(f, "%zu cases (checks), %zu timed points (%zu cache x %zu "
	    "launch per case), %zu counter points", p->ncases,
	    plan_timed_points(p), p->ncaches, p->nlaunches,
	    plan_profiled_points(p));
	/* Passes differ by chip (the residency set: 1 on GH100, 2 on
	 * TU104): each is a replay of every profiled point. */
	if (!p->counters)
		fprintf(f, " (counters off)\n");
	else if (passes > 0)
		fprintf(f, " (%s set, %d pass%s each)\n", o->metrics, passes,
		    passes == 1 ? "" : "es");
	else
		fprintf(f, "\n");
	if (o->energy)
		fprintf(f, "%zu energy points (warm, graph): an idle window and "
		    "%d of %.3g s each, about %.0f s a point\n", p->ncases,
		    ENERGY_WINDOWS, o->energy_window_s,
		    ceil(energy_point_seconds(o->energy_window_s)));
	fprintf(f, "%zu sizes up to %s; GPU memory %s; about %.0f s\n",
	    p->nsizes, size, mem, secs < 1 ? 1 : ceil(secs));
}

size_t
plan_primary_blocks(const struct plan *p, struct primary_block *out)
{
	size_t	i, k, n = 0;

	for (i = 0; i < p->ncases; i++) {
		const struct ewb_variant *v = p->cases[i].v;

		for (k = 0; k < n && strcmp(out[k].variant, v->id) != 0; k++)
			;
		if (k == n) {
			out[n].variant = v->id;
			out[n++].block = p->cases[i].block;
		} else if (p->cases[i].block == v->default_block &&
		    v->default_block != 0)
			out[k].block = v->default_block;
	}
	return n;
}

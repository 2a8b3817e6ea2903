/*
 * settings.c - a run's settings (settings.h): each command's defaults,
 * the presets, and what the settings given imply (the variants selected,
 * the sizes, the counters a trace or a profiler window leaves out),
 * whoever filled them: the command line (cmd/cli.c) or a test.
 */
#include <stdlib.h>
#include <string.h>

#include "run/energy.h"
#include "run/settings.h"

/* The study's sizes: 1024^2, 4096^2 and 16384^2 elements. */
static const uint64_t preset_article[] = { 1ULL << 20, 1ULL << 24, 1ULL << 28 };

/* Sizes `ewbench check` uses by default: tails of every vector width, odd
 * sizes, one past 2^24. */
static const uint64_t check_sizes[] = {
	1, 3, 7, 8, 33, 1000003, 1ULL << 20, (1ULL << 24) + 5
};

/* tune times shapes: every block size from one warp to the limit. */
static const unsigned tune_blocks[] = {
	32, 64, 96, 128, 192, 256, 384, 512, 768, 1024
};

void
settings_init(struct run_options *o, enum command command)
{
	memset(o, 0, sizeof *o);
	o->command = command;
	o->iters = SETTINGS_MIN_SAMPLES;
	o->max_iters = 0;	/* not given: settings_finish decides */
	o->max_time_ms = SETTINGS_MAX_TIME_MS;
	o->target_pct = SETTINGS_TARGET_PCT;
	o->warmup = 10;
	/* A sweep shows the kernel, not the launch path, in both cache
	 * states. */
	o->cache = command == CMD_SWEEP ? CACHE_BOTH : CACHE_WARM;
	o->launch = command == CMD_SWEEP ? LAUNCH_GRAPH : LAUNCH_STREAM;
	o->seed = 1;
	o->density = 3;
	o->energy_window_s = ENERGY_WINDOW_S;
	o->selected = xcalloc(ewb_variant_count, sizeof *o->selected);
}

void
settings_add_sizes(struct run_options *o, const uint64_t *sizes, size_t count)
{
	o->sizes = xrealloc(o->sizes, (o->nsizes + count) * sizeof *o->sizes);
	memcpy(o->sizes + o->nsizes, sizes, count * sizeof *sizes);
	o->nsizes += count;
}

int
settings_preset(struct run_options *o, const char *name, char **cause)
{
	if (strcmp(name, "article") == 0) {
		o->preset = "article";
		settings_add_sizes(o, preset_article, 3);
	} else if (strcmp(name, "tiers") == 0)
		o->preset = "tiers";	/* sized from the L2 (plan.c) */
	else {
		*cause = xasprintf("--preset: unknown preset '%s' (known: "
		    "article, tiers)", shown(name, SHOWN_MOST));
		return -1;
	}
	return 0;
}

/* -v LIST, given once or more: the lists add up (default: every
 * variant). */
static int
select_variants(struct run_options *o, char **cause)
{
	bool	*one;
	size_t	 i, k;

	if (o->nvariant_lists == 0) {
		if (variants_select("*", o->selected, cause) != 0)
			return -1;
		/* check, by default, checks every variant: the experiments'
		 * probes too, which the other commands run only by name. */
		for (i = 0; o->command == CMD_CHECK &&
		    i < ewb_variant_count; i++)
			o->selected[i] = true;
		return 0;
	}
	one = xcalloc(ewb_variant_count, sizeof *one);
	for (k = 0; k < o->nvariant_lists; k++) {
		if (variants_select(o->variant_lists[k], one, cause) != 0) {
			free(one);
			return -1;
		}
		for (i = 0; i < ewb_variant_count; i++)
			o->selected[i] = o->selected[i] || one[i];
	}
	free(one);
	return 0;
}

int
settings_select_members(struct run_options *o,
    const struct ewb_variant *members, size_t n, char **cause)
{
	size_t		 count = ewb_variant_count + n, i, k;
	const char	**ids = xcalloc(count, sizeof *ids);
	bool		*probe = xcalloc(count, sizeof *probe);
	bool		*one = xcalloc(count, sizeof *one);
	bool		*any = xcalloc(count, sizeof *any);
	bool		 named = false;
	int		 rc = 0;

	for (i = 0; i < count; i++) {
		ids[i] = i < ewb_variant_count ? ewb_variants[i].id :
		    members[i - ewb_variant_count].id;
		probe[i] = i < ewb_variant_count &&
		    variant_named_only(&ewb_variants[i]);
	}
	for (k = 0; k < o->nvariant_lists && rc == 0; k++) {
		rc = ids_select(o->variant_lists[k], ids, probe, count, one,
		    cause);
		for (i = 0; rc == 0 && i < count; i++)
			any[i] = any[i] || one[i];
	}
	if (rc != 0 && n > 0) {
		char	*more = xasprintf("%s (--elementwise's members: %s "
		    "... %s, docs/user-kernels.md)", *cause, members[0].id,
		    members[n - 1].id);

		free(*cause);
		*cause = more;
	}
	if (rc == 0 && o->nvariant_lists > 0) {
		for (i = 0; i < ewb_variant_count; i++)
			o->selected[i] = any[i];
		for (i = 0; i < n; i++)
			named = named || any[ewb_variant_count + i];
		free(o->generated_selected);
		o->generated_selected = NULL;
		if (named) {
			o->generated_selected = xcalloc(n, sizeof *any);
			for (i = 0; i < n; i++)
				o->generated_selected[i] =
				    any[ewb_variant_count + i];
		}
	}
	free(ids);
	free(probe);
	free(one);
	free(any);
	return rc;
}

/* With --kernel and no -v: the built-in variants of the kernel's op and
 * dtype, to measure it beside; for a user's op (--reference), those that
 * move as many bytes per element (a 3-input bf16 op, 8: relu and abs
 * f32), the DRAM-bound kernels it compares with.  Never the experiments'
 * probes, which run only by name. */
static void
select_family(struct run_options *o)
{
	const struct user_spec	*k = &o->kernel;
	unsigned		 inputs = user_spec_inputs(k);
	unsigned		 bytes = ((inputs == 0 ? 1 : inputs) + 1) *
				     ewb_dtype_size(k->dtype);
	size_t			 i;

	for (i = 0; i < ewb_variant_count; i++)
		o->selected[i] = !variant_named_only(&ewb_variants[i]) &&
		    (k->op == EWB_OP_CUSTOM ?
		    ewb_variants[i].read_bytes + ewb_variants[i].write_bytes ==
		    bytes : ewb_variants[i].op == k->op &&
		    ewb_variants[i].dtype == k->dtype);
}

int
settings_finish(struct run_options *o, char **cause)
{
	if (user_spec_finish(&o->kernel, cause) != 0)
		return -1;
	if (o->kernel.path != NULL && o->nvariant_lists == 0)
		select_family(o);
	else if (o->elementwise != NULL)
		;	/* the op's family alone, or -v's choice among the
			   built-ins and the members once the family is
			   built (settings_select_members) */
	else if (select_variants(o, cause) != 0)
		return -1;
	/* The family's launches are a user's code: under the watchdog. */
	if (o->elementwise != NULL && o->kernel.timeout_s == 0)
		o->kernel.timeout_s = USER_TIMEOUT_S;
	/* One CUPTI client per process: a profiler window is for nsys or
	 * ncu, which leave ewbench none; a trace's collector times the
	 * kernels itself, but leaves no room for the counters. */
	if (o->profile_window)
		o->no_cupti = true;
	if (o->no_cupti || o->trace != NULL)
		o->no_counters = true;
	if (o->max_iters == 0)
		o->max_iters = o->iters > SETTINGS_MAX_SAMPLES ? o->iters :
		    SETTINGS_MAX_SAMPLES;
	/* A misaligned operand runs the variant's scalar kernel, not the
	 * one whose residency the cap was confirmed for. */
	if (o->residency > 0 && o->misalign) {
		*cause = xstrdup("--residency with --misalign: a misaligned "
		    "operand runs a variant's scalar kernel, whose residency "
		    "the cap was not set for");
		return -1;
	}
	if (o->max_iters < o->iters) {
		*cause = xasprintf("--max-iters %u is below --iters %u",
		    o->max_iters, o->iters);
		return -1;
	}
	/* tune times shapes: every block size at the tier sizes, without
	 * counters unless a metric set is given. */
	if (o->command == CMD_TUNE) {
		if (o->nblocks == 0 && o->nblock_times == 0) {
			o->nblocks = sizeof tune_blocks / sizeof tune_blocks[0];
			o->blocks = xmalloc(sizeof tune_blocks);
			memcpy(o->blocks, tune_blocks, sizeof tune_blocks);
		}
		if (o->metrics == NULL)
			o->no_counters = true;
		if (o->nsizes == 0 && o->preset == NULL)
			o->preset = "tiers";
	}
	if (o->metrics == NULL)
		o->metrics = "default";
	if (o->command == CMD_SWEEP && (o->nsizes > 0 || o->preset != NULL)) {
		*cause = xasprintf("sweep chooses its sizes from the L2 size; "
		    "use run for --size or --preset");
		return -1;
	}
	/* Tier sizes come once the device is known (plan.c); --size adds to
	 * them. */
	if (o->nsizes == 0 && o->command != CMD_SWEEP &&
	    (o->preset == NULL || strcmp(o->preset, "tiers") != 0)) {
		if (o->command == CMD_CHECK)
			settings_add_sizes(o, check_sizes,
			    sizeof check_sizes / sizeof check_sizes[0]);
		else if (settings_preset(o, "article", cause) != 0)
			return -1;
	}
	/* Ascending, each once: a point is measured once per run. */
	sizes_sort_unique(o->sizes, &o->nsizes);
	return 0;
}

void
settings_free(struct run_options *o)
{
	free(o->selected);
	free(o->generated_selected);
	free(o->variant_lists);
	free(o->sizes);
	free(o->blocks);
	free(o->block_times);
	free(o->devices);
	free(o->replaced);
	user_spec_free(&o->kernel);
}

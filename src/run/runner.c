/*
 * runner.c - a runner's life around the walk: its run directory claimed
 * (or released), its files opened and closed, sass.csv, the --trace file,
 * a kernel's fault named with the command that finds it, and the runner
 * freed.  cmd-run.c drives it; setup.c and walk.c do the GPU work.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "run/runner.h"

/* Writes the --trace file, also after a failure or an interrupt: what was
 * collected is worth keeping.  Problems are counted, never hidden; -1
 * when the file could not be written (said on stderr). */
int
runner_write_trace(struct runner *r)
{
	struct trace		*t = NULL;
	struct trace_problems	 pr;
	char			*cause = NULL;

	if (trace_stop(&t, &cause) != 0) {
		fprintf(stderr, "ewbench: --trace: %s\n", cause);
		free(cause);
		cause = NULL;
	}
	if (t == NULL)
		return -1;
	trace_set_run(t, r->man.run_id, r->dev.index, r->dev.name);
	trace_problems(t, &pr);
	if (pr.dropped || pr.unreadable_buffers || pr.unpaired_ranges ||
	    pr.zero_timestamp || pr.end_before_start)
		fprintf(stderr, "ewbench: trace incomplete: %llu records "
		    "dropped, %zu unreadable buffers, %zu unpaired NVTX ranges, "
		    "%zu zero timestamps, %zu ending before they start (all "
		    "counted in the file's otherData)\n",
		    (unsigned long long)pr.dropped, pr.unreadable_buffers,
		    pr.unpaired_ranges, pr.zero_timestamp, pr.end_before_start);
	if (trace_json_write(t, r->opts.trace, &cause) != 0) {
		fprintf(stderr, "ewbench: --trace: %s\n", cause);
		free(cause);
		trace_free(t);
		return -1;
	}
	if (!r->opts.quiet)
		printf("ewbench: trace in %s (open it in ui.perfetto.dev)\n",
		    r->opts.trace);
	trace_free(t);
	return 0;
}

/* Claims dir for this run; a directory that holds a run is refused
 * before anything is written to it. */
int
runner_claim(struct runner *r, const char *dir, int *code, char **cause)
{
	if ((*code = output_claim_dir(dir, &r->created, cause)) != 0)
		return -1;
	r->dir = dir;
	return 0;
}

void
runner_free(struct runner *r)
{
	if (r->pr.timing != NULL)
		csv_close(r->pr.timing, NULL);
	if (r->pr.metrics != NULL)
		csv_close(r->pr.metrics, NULL);
	if (r->pr.energy != NULL)
		csv_close(r->pr.energy, NULL);
	printers_free(&r->pr);
	if (r->counters != NULL)
		counters_close(r->counters);
	if (r->have_mset)
		metric_set_free(&r->mset);
	watchdog_stop();
	bench_close(&r->bench);
	if (r->user.spec != NULL)
		user_kernel_free(&r->user);
	if (r->gen.count != 0)
		opgen_op_free(&r->gen);
	free(r->gen_path);
	plan_free(&r->plan);
	free(r->primary);
	free(r->man.failures);
	free(r->man.counters_reason);
	free(r->created);
	host_facts_free(&r->host);
	settings_free(&r->opts);
}

/* Closes the CSVs (flushed to disk) before run.json says they are whole. */
int
runner_close_files(struct runner *r, char **cause)
{
	struct csv	*timing = r->pr.timing, *metrics = r->pr.metrics;
	struct csv	*energy = r->pr.energy;
	int		 rc = 0;

	r->pr.timing = r->pr.metrics = r->pr.energy = NULL;
	if (timing != NULL && csv_close(timing, cause) != 0)
		rc = -1;
	if (metrics != NULL && csv_close(metrics, rc == 0 ? cause : NULL) != 0)
		rc = -1;
	if (energy != NULL && csv_close(energy, rc == 0 ? cause : NULL) != 0)
		rc = -1;
	return rc;
}

/* Undoes the claim of a run that has written no manifest yet: its files
 * and the directories the claim made go, as if it never started. */
void
runner_release_claim(struct runner *r)
{
	char	*ignored = NULL;

	runner_close_files(r, &ignored);
	free(ignored);
	if (r->dir != NULL)
		output_release_claim(r->dir, r->created);
	else
		free(r->created);
	r->created = NULL;
	r->dir = NULL;
}

static bool
ran_as_fallback(const struct plan *p, const char *id)
{
	size_t	i;

	for (i = 0; i < p->nfallbacks; i++) {
		if (strcmp(p->fallbacks[i].variant, id) == 0)
			return true;
	}
	return false;
}

/* sass.csv: the build's rows (src/run/sass.h) of each kernel the plan runs,
 * for the machine code the driver loaded for it; run.json says which
 * architecture, or why there are none.  A variant run as its fallback
 * kernel has none: its own kernel did not run. */
static int
record_sass(struct runner *r, char **cause)
{
	const struct sass_row	**rows = NULL;
	const struct ewb_variant *v;
	char			 arch[16] = "", code[16];
	size_t			 i, j, k, count = 0;
	unsigned		 loaded;
	bool			 kernels = false;
	int			 rc = 0;

	if (strcmp(ewb_sass_status, "recorded") != 0) {
		r->man.sass = ewb_sass_status;
		if (!r->opts.quiet)
			fprintf(stderr, "ewbench: sass.csv not written: %s\n",
			    ewb_sass_status + strlen("not recorded: "));
		return 0;
	}
	for (i = 0; i < r->plan.ncases; i++) {
		v = r->plan.cases[i].v;
		for (j = 0; j < i && r->plan.cases[j].v != v; j++)
			;
		if (j < i || v->kernel == NULL ||
		    ran_as_fallback(&r->plan, v->id))
			continue;
		if ((loaded = ewb_binary_arch(v->kernel)) == 0)
			continue;	/* the driver did not say: no rows */
		kernels = true;
		snprintf(code, sizeof code, "sm_%u", loaded);
		for (k = 0; k < ewb_sass_count; k++) {
			if (strcmp(ewb_sass_rows[k].variant, v->id) != 0 ||
			    strcmp(ewb_sass_rows[k].arch, code) != 0)
				continue;
			rows = xrealloc(rows, (count + 1) * sizeof *rows);
			rows[count++] = &ewb_sass_rows[k];
			snprintf(arch, sizeof arch, "%s", code);
		}
		if (arch[0] == '\0')
			snprintf(arch, sizeof arch, "%s", code);
	}
	if (count > 0) {
		snprintf(r->sass_note, sizeof r->sass_note, "recorded for %s",
		    arch);
		rc = sass_csv_write(r->dir, r->man.run_id, rows, count, cause);
	} else if (kernels)
		snprintf(r->sass_note, sizeof r->sass_note, "not recorded: "
		    "this build holds the SASS of %s, none of it for the %s "
		    "code the driver loaded (JIT-compiled from PTX)",
		    EWB_CUDA_ARCH, arch);
	else
		snprintf(r->sass_note, sizeof r->sass_note, "not recorded: "
		    "no kernel of this build ran whose loaded code the driver "
		    "names");
	r->man.sass = r->sass_note;
	free(rows);
	return rc;
}

/* The run directory's files, then the first run.json.  On failure
 * nothing of them stays: *code says why (the claim's status, or 1). */
int
runner_begin_output(struct runner *r, int *code, char **cause)
{
	if (r->dir == NULL) {
		output_default_dir(&r->dev, "ewbench", r->default_dir,
		    sizeof r->default_dir);
		if ((*code = output_claim_dir(r->default_dir, &r->created,
		    cause)) != 0)
			return -1;
		r->dir = r->default_dir;
	}
	*code = EWB_EXIT_ERROR;
	if ((r->pr.timing = timing_csv_open(r->dir, cause)) == NULL ||
	    (r->counters != NULL &&
	    (r->pr.metrics = metrics_csv_open(r->dir, cause)) == NULL) ||
	    (r->opts.energy &&
	    (r->pr.energy = energy_csv_open(r->dir, cause)) == NULL) ||
	    record_sass(r, cause) != 0 ||
	    manifest_update(r->dir, &r->man, "running", cause) != 0) {
		runner_release_claim(r);
		return -1;
	}
	printers_header(&r->pr);
	return 0;
}

/* word as the shell reads it back: as it is where that is safe, else in
 * single quotes.  Appended to *line after a space. */
static void
add_word(char **line, const char *word)
{
	const char	*p;
	char		*quoted = xstrdup("'"), *more;
	bool		 plain = *word != '\0';

	for (p = word; *p != '\0' && plain; p++)
		plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_./:@%+=,-", *p) != NULL;
	for (p = word; !plain && *p != '\0'; p++) {
		more = xasprintf("%s%s", quoted, *p == '\'' ? "'\\''" :
		    (char[]){ *p, '\0' });
		free(quoted);
		quoted = more;
	}
	more = xasprintf("%s %s%s", *line, plain ? word : quoted,
	    plain ? "" : "'");
	free(quoted);
	free(*line);
	*line = more;
}

/* The command that runs point p's check alone under compute-sanitizer's
 * memcheck, which names the faulting access (docs/user-kernels.md): a
 * user's kernel with its options and --no-guard, a built-in variant by
 * its id. */
static char *
sanitizer_command(const struct runner *r, const struct point *p)
{
	const struct user_spec	*s = &r->opts.kernel;
	char			*line = xstrdup("compute-sanitizer --tool "
				    "memcheck ewbench check"), *word;
	size_t			 i;

	if (strcmp(p->v->origin, OPGEN_ORIGIN) == 0) {
		/* The op's whole family at that block. */
		word = xasprintf("%s:%s", r->gen.build.path,
		    r->gen.build.function);
		add_word(&line, "--elementwise");
		add_word(&line, word);
		free(word);
		word = xasprintf("%u", p->block);
		add_word(&line, "--block");
		add_word(&line, word);
		free(word);
	} else if (variant_is_user(p->v)) {
		word = xasprintf("%s:%s", s->path, r->user.build.function);
		add_word(&line, "--kernel");
		add_word(&line, word);
		free(word);
		if (s->ref_path != NULL) {
			word = xasprintf("%s:%s", s->ref_path,
			    r->user.ref.function);
			add_word(&line, "--reference");
			add_word(&line, word);
			free(word);
		}
		if (s->op_given) {
			add_word(&line, "--op");
			add_word(&line, ewb_op_name(s->op));
		}
		if (s->dtype_given) {
			add_word(&line, "--dtype");
			add_word(&line, ewb_dtype_name(s->dtype));
		}
		if (s->per_thread != 1) {
			word = xasprintf("%u", s->per_thread);
			add_word(&line, "--elems-per-thread");
			add_word(&line, word);
			free(word);
		}
		for (i = 0; i < s->nflags; i++) {
			word = xasprintf("--kernel-flags=%s", s->flags[i]);
			add_word(&line, word);
			free(word);
		}
		word = xasprintf("%u", p->block);
		add_word(&line, "--kernel-block");
		add_word(&line, word);
		free(word);
	} else {
		add_word(&line, "-v");
		add_word(&line, p->v->id);
		if (p->block != 0) {
			word = xasprintf("%u", p->block);
			add_word(&line, "--block");
			add_word(&line, word);
			free(word);
		}
	}
	if (r->opts.misalign)
		add_word(&line, "--misalign");
	word = xasprintf("%llu", (unsigned long long)p->n);
	add_word(&line, "-s");
	add_word(&line, word);
	free(word);
	if (variant_is_user(p->v))
		add_word(&line, "--no-guard");
	return line;
}

/*
 * After a failure: when the GPU holds a kernel's fault (an illegal
 * address, ...; sticky: a synchronisation returns it again), the cause
 * (which named only the call that met it) becomes one that names the
 * point that was at work, its size and block, and the command that finds
 * the access under compute-sanitizer; a user's kernel's entry in
 * run.json says so too ("stopped").  Any other failure is left as it is.
 */
void
runner_name_fault(struct runner *r, char **cause)
{
	const struct point	*p = &r->at;
	cudaError_t		 e;
	char			*was = *cause, *how, block[32], *what;

	if (p->v == NULL || !cuda_is_fault(e = cudaDeviceSynchronize()))
		return;
	if (p->block != 0)
		snprintf(block, sizeof block, "block %u", p->block);
	else
		snprintf(block, sizeof block, "block chosen by the library");
	what = xasprintf("%s n=%llu %s (%s) faulted on the GPU: %s (%s)",
	    p->v->id, (unsigned long long)p->n, block, r->at_phase,
	    cudaGetErrorString(e), cudaGetErrorName(e));
	how = sanitizer_command(r, p);
	*cause = xasprintf("%s. The GPU context is lost: the run stops "
	    "here%s%s. To find the access, run it under compute-sanitizer "
	    "(docs/user-kernels.md): %s", what, r->dir != NULL ?
	    ", its complete rows kept in " : "", r->dir != NULL ? r->dir : "",
	    how);
	if (variant_is_user(p->v) && r->user.stopped == NULL)
		r->user.stopped = xasprintf("%s; find the access with: %s",
		    what, how);
	free(what);
	free(how);
	free(was);
}

void
runner_primary_blocks(struct runner *r)
{
	size_t	i;

	if (r->primary == NULL)
		r->primary = xcalloc(r->plan.ncases + 1, sizeof *r->primary);
	r->man.nprimary = plan_primary_blocks(&r->plan, r->primary);
	r->man.primary = r->primary;
	if (!r->pr.tune)
		return;
	for (i = 0; i < r->man.nprimary; i++)
		if (r->primary[i].block != 0)
			(void)printers_tuned_block(&r->pr,
			    r->primary[i].variant, &r->primary[i].block);
}

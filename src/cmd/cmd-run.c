/*
 * cmd-run.c - `ewbench run`, `check`, `sweep` and `tune`: the command glue.
 *
 * Parse; claim the run directory (before the device is opened, so a
 * refused --out costs nothing and is never written to); open the device,
 * compile and load a --kernel (userkernel.h: its GPU work then runs under
 * the watchdog), and open the counters (src/run/setup.c); build the plan
 * (plan.c); then walk it (src/run/walk.c): per size and dtype, fresh inputs;
 * per case, a check on the GPU against the CPU reference (checker.c),
 * then the timed points along the plan's axes (measure.c); after the
 * cases of a size and dtype, their counters in as few profiler sessions
 * as fit (profile.c).  Results go to the printers (printers.c) and the
 * manifest, which is rewritten after every group so an interrupted run
 * leaves complete rows and a readable run.json.  src/run/runner.h: the
 * runner it drives.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/fleet.h"
#include "run/runner.h"

/* Writes the --trace file, also after a failure or an interrupt: what was
 * collected is worth keeping.  Problems are counted, never hidden; -1
 * when the file could not be written (said on stderr). */
static int
write_trace(struct runner *r)
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
static int
claim(struct runner *r, const char *dir, int *code, char **cause)
{
	if ((*code = output_claim_dir(dir, &r->created, cause)) != 0)
		return -1;
	r->dir = dir;
	return 0;
}

static void
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
	free(r->man.failures);
	free(r->man.counters_reason);
	free(r->created);
	host_facts_free(&r->host);
	settings_free(&r->opts);
}

/* Closes the CSVs (flushed to disk) before run.json says they are whole. */
static int
close_files(struct runner *r, char **cause)
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
static void
release_claim(struct runner *r)
{
	char	*ignored = NULL;

	close_files(r, &ignored);
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
static int
begin_output(struct runner *r, int *code, char **cause)
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
		release_claim(r);
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
static void
name_fault(struct runner *r, char **cause)
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

static int
run_command(int argc, char **argv)
{
	struct runner	 r;
	char		*cause = NULL;
	size_t		 free_bytes = 0, total = 0;
	int		 code, rc;
	bool		 writes;

	memset(&r, 0, sizeof r);
	/* Caught from the start: a signal at any point from the claim on
	 * ends the run with its claim released or its run.json saying so. */
	interrupt_catch();
	if (cli_parse_run(argc, argv, &r.opts, &cause) != 0) {
		settings_free(&r.opts);
		return command_refuses(argv[0], cause, EWB_EXIT_USAGE);
	}
	/* What can be refused without a GPU is refused now; a dry run
	 * refuses an --out the run would (it claims none). */
	if (runner_check_metric_names(&r.opts, &cause) != 0 ||
	    (r.opts.trace != NULL &&
	    (output_check_writable(r.opts.trace, "--trace", &cause) != 0 ||
	    output_check_trace(r.opts.trace, r.opts.out, &cause) != 0)) ||
	    (r.opts.dry_run && r.opts.out != NULL &&
	    output_check_claimable(r.opts.out, &cause) != 0)) {
		settings_free(&r.opts);
		return command_refuses(argv[0], cause, EWB_EXIT_USAGE);
	}
	/* Many GPUs (--device all, a list), or one task of a scheduler's. */
	if (fleet_dispatch(argc, argv, &r.opts, &r.host, &code) != 0) {
		host_facts_free(&r.host);
		settings_free(&r.opts);
		return code;
	}
	writes = r.opts.command != CMD_CHECK && !r.opts.dry_run;
	if (writes && r.opts.out != NULL &&
	    claim(&r, r.opts.out, &code, &cause) != 0) {
		host_facts_free(&r.host);
		settings_free(&r.opts);
		return command_refuses(argv[0], cause, code);
	}
	if (r.opts.dry_run && r.opts.chip != NULL) {
		code = runner_plan_without_gpu(&r, argv[0], NULL);
		runner_free(&r);
		return code;
	}
	if ((code = runner_open_device(&r, &cause)) != 0) {
		if (r.opts.dry_run && code == EWB_EXIT_NODEV) {
			code = runner_plan_without_gpu(&r, argv[0], cause);
			free(cause);
			runner_free(&r);
			return code;
		}
		say_cause(cause);
		release_claim(&r);
		host_facts_free(&r.host);
		settings_free(&r.opts);
		return code;
	}
	/* A --kernel that does not compile: nothing measured, the claim
	 * undone. */
	if ((r.opts.kernel.path != NULL &&
	    (code = runner_start_user_kernel(&r, &cause)) != 0) ||
	    (r.opts.elementwise != NULL &&
	    (code = runner_start_elementwise(&r, &cause)) != 0)) {
		say_cause(cause);
		release_claim(&r);
		runner_free(&r);
		return code;
	}
	host_facts_begin(&r.host, &r.dev);
	r.man.host_facts = &r.host;
	/* --energy on a GPU whose energy counter cannot measure this run:
	 * refused before anything is measured. */
	if (r.opts.energy && !r.opts.dry_run &&
	    energy_open(&r.energy, &r.host, r.opts.energy_window_s,
	    &cause) != 0) {
		fprintf(stderr, "ewbench: --energy refused: %s\n", cause);
		free(cause);
		host_facts_end(&r.host);
		release_claim(&r);
		runner_free(&r);
		return EWB_EXIT_NODEV;
	}
	nvtx_init(&r.dev);
	r.man.command = argv[0];
	r.man.argc = argc;
	r.man.argv = argv;
	r.man.device = &r.dev;
	r.man.opts = &r.opts;
	r.man.counters_status = "off";
	r.started = monotonic_seconds();
	output_utc_now(r.man.started_utc, sizeof r.man.started_utc);
	output_run_id(&r.dev, r.man.run_id, sizeof r.man.run_id);

	code = EWB_EXIT_ERROR;
	nvtx_push_phase("allocate");
	runner_start_counters(&r);
	if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess)
		free_bytes = r.dev.memory_bytes;
	if ((rc = plan_build(&r.opts, &r.dev, free_bytes, r.counters != NULL,
	    &r.plan, &cause)) != 0) {
		if (rc == PLAN_NOTHING_LEFT)
			code = EWB_EXIT_USAGE;
		nvtx_pop();
		goto refuse;
	}
	r.man.sizes = r.plan.sizes;
	r.man.nsizes = r.plan.nsizes;
	r.man.choices = r.plan.choices;
	r.man.nchoices = r.plan.nchoices;
	r.man.skipped = r.plan.skipped;
	r.man.nskipped = r.plan.nskipped;
	r.man.fallbacks = r.plan.fallbacks;
	r.man.nfallbacks = r.plan.nfallbacks;
	r.man.flush_bytes = r.plan.flush_bytes;
	if (r.opts.dry_run) {
		nvtx_pop();
		/* What the run would refuse (exit 4), the plan refuses. */
		code = EWB_EXIT_OK;
		if (plan_fits(&r.plan, free_bytes, NULL, &cause) != 0) {
			say_cause(cause);
			code = EWB_EXIT_NOMEM;
		} else {
			plan_print(&r.plan, &r.opts, &r.dev, r.man.passes,
			    stdout);
			runner_plan_print_sass(&r.opts);
		}
		runner_free(&r);
		return code;
	}
	if (bench_open(&r.bench, &r.plan, &r.opts, &r.dev, &code,
	    &cause) != 0) {
		nvtx_pop();
		goto refuse;
	}
	r.bench.host = &r.host;
	r.man.timer_step_ns = trace_started() ? r.bench.timer_step_ns : 0;
	nvtx_pop();
	if (r.opts.energy) {
		char *why = NULL;

		if (energy_alone(&r.energy, &why) != 0) {
			code = EWB_EXIT_NODEV;
			cause = xasprintf("--energy refused: %s", why);
			free(why);
			goto refuse;
		}
		r.man.energy = &r.energy;
	}
	/* Stopped before anything was measured: as if never started. */
	if (interrupt_pending()) {
		code = EWB_EXIT_INTERRUPTED;
		cause = xasprintf("interrupted before the first point%s",
		    r.dir != NULL ? "; --out released" : "");
		goto refuse;
	}
	printers_init(&r.pr, &r.dev, r.man.run_id, r.opts.quiet,
	    r.opts.command == CMD_CHECK ? r.plan.ncases :
	    plan_timed_points(&r.plan));
	r.pr.tune = r.opts.command == CMD_TUNE;
	for (size_t i = 0; i < r.plan.ncases; i++) {
		int len = (int)strlen(r.plan.cases[i].v->id);

		if (len > r.pr.id_width)
			r.pr.id_width = len;
	}
	if (writes && begin_output(&r, &code, &cause) != 0)
		goto refuse;
	code = EWB_EXIT_ERROR;
	for (size_t i = 0; i < r.plan.nskipped; i++)
		fprintf(stderr, "ewbench: skipped %s: %s\n",
		    r.plan.skipped[i].variant, r.plan.skipped[i].reason);

	r.man.wall.setup = monotonic_seconds() - r.started;
	if (r.counters != NULL)
		r.man.counters_wall = counters_wall(r.counters);
	nvtx_push_phase(r.opts.command == CMD_CHECK ? "check" : "run");
	if (runner_walk_plan(&r, &cause) != 0) {
		nvtx_pop();
		goto fail;
	}
	nvtx_pop();
	if (close_files(&r, &cause) != 0)
		goto fail;
	r.man.wall.total = monotonic_seconds() - r.started;
	r.man.wall.fill = r.bench.wall_fill;
	r.man.wall.reference = r.bench.wall_reference;
	r.man.wall.upload = r.bench.wall_upload;
	r.man.wall.warmup = r.bench.wall_warmup;
	r.man.wall.readback = r.bench.wall_readback;
	if (interrupt_pending())
		code = EWB_EXIT_INTERRUPTED;
	else
		code = r.man.nfailures > 0 ? EWB_EXIT_CHECK : EWB_EXIT_OK;
	host_facts_end(&r.host);
	if (manifest_update(r.dir, &r.man, code == EWB_EXIT_INTERRUPTED ?
	    "interrupted" : "complete", &cause) != 0) {
		say_cause(cause);
		code = EWB_EXIT_ERROR;
		goto out;
	}
	if (r.pr.tune)
		printers_tune_table(&r.pr);
	if (!r.opts.quiet || r.man.nfailures > 0)
		fprintf(r.man.nfailures > 0 ? stderr : stdout,
		    "ewbench: %zu checks passed, %zu failed%s%s\n",
		    r.man.checks_passed, r.man.nfailures,
		    r.dir != NULL ? "; results in " : "",
		    r.dir != NULL ? r.dir : "");
	goto out;

refuse:
	/* Nothing measured yet: the claim is released, not kept as a
	 * failed run. */
	say_cause(cause);
	host_facts_end(&r.host);
	release_claim(&r);
	goto out;
fail:
	name_fault(&r, &cause);
	say_cause(cause);
	cause = NULL;
	host_facts_end(&r.host);
	/* The rows on disk are whole (csv.c); run.json says the run failed,
	 * or, where even that cannot be written, keeps its last state. */
	if (manifest_update(r.dir, &r.man, "failed", &cause) != 0)
		say_cause(cause);
out:
	if (r.opts.trace != NULL) {
		if (write_trace(&r) != 0 &&
		    (code == EWB_EXIT_OK || code == EWB_EXIT_CHECK))
			code = EWB_EXIT_ERROR;
	} else
		runner_stop_kernel_clock();
	runner_free(&r);
	return code;
}

const struct command_entry run_entry = { "run", run_command, false };
const struct command_entry check_entry = { "check", run_command, false };
const struct command_entry sweep_entry = { "sweep", run_command, false };
const struct command_entry tune_entry = { "tune", run_command, false };

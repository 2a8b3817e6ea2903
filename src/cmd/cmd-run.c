/*
 * cmd-run.c - `ewbench run`, `check`, `sweep` and `tune`: the command glue.
 *
 * Parse; claim the run directory (src/run/runner.c: before the device
 * is opened, so a refused --out costs nothing and is never written to);
 * open the device, compile and load a --kernel (userkernel.h: its GPU
 * work then runs under the watchdog), and open the counters
 * (src/run/setup.c); build the plan (plan.c); then walk it
 * (src/run/walk.c): per size and dtype, fresh inputs;
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

/* The run writes files: not check, not a dry run. */
static bool
run_writes(const struct runner *r)
{
	return r->opts.command != CMD_CHECK && !r->opts.dry_run;
}

/*
 * Parse, refuse what needs no GPU, hand a run of many GPUs to fleet.c and
 * claim --out.  0: go on; else the run is over, everything freed, and
 * *code is its exit code.
 */
static int
parse_and_claim(int argc, char **argv, struct runner *r, int *code)
{
	char	*cause = NULL;

	if (cli_parse_run(argc, argv, &r->opts, &cause) != 0) {
		settings_free(&r->opts);
		*code = command_refuses(argv[0], cause, EWB_EXIT_USAGE);
		return -1;
	}
	/* What can be refused without a GPU is refused now; a dry run
	 * refuses an --out the run would (it claims none). */
	if (runner_check_metric_names(&r->opts, &cause) != 0 ||
	    (r->opts.trace != NULL &&
	    (output_check_writable(r->opts.trace, "--trace", &cause) != 0 ||
	    output_check_trace(r->opts.trace, r->opts.out, &cause) != 0)) ||
	    (r->opts.dry_run && r->opts.out != NULL &&
	    output_check_claimable(r->opts.out, &cause) != 0)) {
		settings_free(&r->opts);
		*code = command_refuses(argv[0], cause, EWB_EXIT_USAGE);
		return -1;
	}
	/* Many GPUs (--device all, a list), or one task of a scheduler's. */
	if (fleet_dispatch(argc, argv, &r->opts, &r->host, code) != 0) {
		host_facts_free(&r->host);
		settings_free(&r->opts);
		return -1;
	}
	if (run_writes(r) && r->opts.out != NULL &&
	    runner_claim(r, r->opts.out, code, &cause) != 0) {
		host_facts_free(&r->host);
		settings_free(&r->opts);
		*code = command_refuses(argv[0], cause, *code);
		return -1;
	}
	return 0;
}

/*
 * Open the GPU (a dry run without one, or for --chip, plans from the
 * chip's facts instead), compile and load a --kernel or --elementwise,
 * and open the energy counter for --energy.  0: go on; else the run is
 * over, the claim released, and *code is its exit code.
 */
static int
open_gpu(const char *command, struct runner *r, int *code)
{
	char	*cause = NULL;

	if (r->opts.dry_run && r->opts.chip != NULL) {
		*code = runner_plan_without_gpu(r, command, NULL);
		runner_free(r);
		return -1;
	}
	if ((*code = runner_open_device(r, &cause)) != 0) {
		if (r->opts.dry_run && *code == EWB_EXIT_NODEV) {
			*code = runner_plan_without_gpu(r, command, cause);
			free(cause);
			runner_free(r);
			return -1;
		}
		say_cause(cause);
		runner_release_claim(r);
		host_facts_free(&r->host);
		settings_free(&r->opts);
		return -1;
	}
	/* A --kernel that does not compile: nothing measured, the claim
	 * undone. */
	if ((r->opts.kernel.path != NULL &&
	    (*code = runner_start_user_kernel(r, &cause)) != 0) ||
	    (r->opts.elementwise != NULL &&
	    (*code = runner_start_elementwise(r, &cause)) != 0)) {
		say_cause(cause);
		runner_release_claim(r);
		runner_free(r);
		return -1;
	}
	host_facts_begin(&r->host, &r->dev);
	r->man.host_facts = &r->host;
	/* --energy on a GPU whose energy counter cannot measure this run:
	 * refused before anything is measured. */
	if (r->opts.energy && !r->opts.dry_run &&
	    energy_open(&r->energy, &r->host, r->opts.energy_window_s,
	    &cause) != 0) {
		fprintf(stderr, "ewbench: --energy refused: %s\n", cause);
		free(cause);
		host_facts_end(&r->host);
		runner_release_claim(r);
		runner_free(r);
		*code = EWB_EXIT_NODEV;
		return -1;
	}
	return 0;
}

/* What run.json says of the run from its start: the command, the GPU,
 * the settings, its id and when it started. */
static void
begin_manifest(struct runner *r, int argc, char **argv)
{
	nvtx_init(&r->dev);
	r->man.command = argv[0];
	r->man.argc = argc;
	r->man.argv = argv;
	r->man.device = &r->dev;
	r->man.opts = &r->opts;
	r->man.counters_status = "off";
	r->started = monotonic_seconds();
	output_utc_now(r->man.started_utc, sizeof r->man.started_utc);
	output_run_id(&r->dev, r->man.run_id, sizeof r->man.run_id);
}

/*
 * Open the counters and build the plan for the GPU's free memory
 * (*free_bytes), which run.json then records.  0: built; else *code (when
 * the plan leaves nothing) and *cause say why.  Inside the "allocate"
 * phase, which stays open on success.
 */
static int
build_plan(struct runner *r, size_t *free_bytes, int *code, char **cause)
{
	size_t	total = 0;
	int	rc;

	nvtx_push_phase("allocate");
	runner_start_counters(r);
	if (cudaMemGetInfo(free_bytes, &total) != cudaSuccess)
		*free_bytes = r->dev.memory_bytes;
	if ((rc = plan_build(&r->opts, &r->dev, *free_bytes,
	    r->counters != NULL, &r->plan, cause)) != 0) {
		if (rc == PLAN_NOTHING_LEFT)
			*code = EWB_EXIT_USAGE;
		nvtx_pop();
		return -1;
	}
	/* --residency: each case's padding, confirmed by the occupancy
	 * calculator (a dry run plans without it). */
	if (r->opts.residency > 0 && !r->opts.dry_run &&
	    (rc = residency_plan(&r->plan, r->opts.residency, cause)) != 0) {
		if (rc == PLAN_NOTHING_LEFT)
			*code = EWB_EXIT_USAGE;
		nvtx_pop();
		return -1;
	}
	r->man.sizes = r->plan.sizes;
	r->man.nsizes = r->plan.nsizes;
	r->man.choices = r->plan.choices;
	r->man.nchoices = r->plan.nchoices;
	r->man.skipped = r->plan.skipped;
	r->man.nskipped = r->plan.nskipped;
	runner_primary_blocks(r);
	r->man.fallbacks = r->plan.fallbacks;
	r->man.nfallbacks = r->plan.nfallbacks;
	r->man.flush_bytes = r->plan.flush_bytes;
	return 0;
}

/* --dry-run: the plan printed, or refused (exit 4) as the run would refuse
 * it for free_bytes of memory; closes the "allocate" phase.  The exit
 * code. */
static int
print_dry_run(struct runner *r, size_t free_bytes)
{
	char	*cause = NULL;

	nvtx_pop();
	if (plan_fits(&r->plan, free_bytes, NULL, &cause) != 0) {
		say_cause(cause);
		return EWB_EXIT_NOMEM;
	}
	plan_print(&r->plan, &r->opts, &r->dev, r->man.passes, stdout);
	runner_plan_print_sass(&r->opts);
	return EWB_EXIT_OK;
}

/*
 * Before the first point: the buffers, --energy's board to itself, the
 * printers and the run's files; the skipped variants said.  Closes the
 * "allocate" phase.  0: ready; else nothing was measured, and *code and
 * *cause say why.
 */
static int
prepare_walk(struct runner *r, int *code, char **cause)
{
	if (bench_open(&r->bench, &r->plan, &r->opts, &r->dev, code,
	    cause) != 0) {
		nvtx_pop();
		return -1;
	}
	r->bench.host = &r->host;
	r->man.timer_step_ns = trace_started() ? r->bench.timer_step_ns : 0;
	nvtx_pop();
	if (r->opts.energy) {
		char *why = NULL;

		if (energy_alone(&r->energy, &why) != 0) {
			*code = EWB_EXIT_NODEV;
			*cause = xasprintf("--energy refused: %s", why);
			free(why);
			return -1;
		}
		r->man.energy = &r->energy;
	}
	/* Stopped before anything was measured: as if never started. */
	if (interrupt_pending()) {
		*code = EWB_EXIT_INTERRUPTED;
		*cause = xasprintf("interrupted before the first point%s",
		    r->dir != NULL ? "; --out released" : "");
		return -1;
	}
	printers_init(&r->pr, &r->dev, r->man.run_id, r->opts.quiet,
	    r->opts.command == CMD_CHECK ? r->plan.ncases :
	    plan_timed_points(&r->plan));
	r->pr.tune = r->opts.command == CMD_TUNE;
	for (size_t i = 0; i < r->plan.ncases; i++) {
		int len = (int)strlen(r->plan.cases[i].v->id);

		if (len > r->pr.id_width)
			r->pr.id_width = len;
	}
	if (run_writes(r) && runner_begin_output(r, code, cause) != 0)
		return -1;
	for (size_t i = 0; i < r->plan.nskipped; i++)
		fprintf(stderr, "ewbench: skipped %s: %s\n",
		    r->plan.skipped[i].variant, r->plan.skipped[i].reason);
	return 0;
}

/*
 * Walk the plan and close the run's files; run.json then says the run
 * complete, interrupted or (the walk failed, its fault named) failed.
 * The exit code.
 */
static int
walk_and_record(struct runner *r)
{
	char	*cause = NULL;
	int	 code;

	r->man.wall.setup = monotonic_seconds() - r->started;
	if (r->counters != NULL)
		r->man.counters_wall = counters_wall(r->counters);
	nvtx_push_phase(r->opts.command == CMD_CHECK ? "check" : "run");
	if (runner_walk_plan(r, &cause) != 0) {
		nvtx_pop();
		goto fail;
	}
	nvtx_pop();
	if (runner_close_files(r, &cause) != 0)
		goto fail;
	r->man.wall.total = monotonic_seconds() - r->started;
	r->man.wall.fill = r->bench.wall_fill;
	r->man.wall.reference = r->bench.wall_reference;
	r->man.wall.upload = r->bench.wall_upload;
	r->man.wall.warmup = r->bench.wall_warmup;
	r->man.wall.readback = r->bench.wall_readback;
	if (interrupt_pending())
		code = EWB_EXIT_INTERRUPTED;
	else
		code = r->man.nfailures > 0 ? EWB_EXIT_CHECK : EWB_EXIT_OK;
	host_facts_end(&r->host);
	runner_primary_blocks(r);
	if (manifest_update(r->dir, &r->man, code == EWB_EXIT_INTERRUPTED ?
	    "interrupted" : "complete", &cause) != 0) {
		say_cause(cause);
		return EWB_EXIT_ERROR;
	}
	if (r->pr.tune)
		printers_tune_table(&r->pr);
	if (!r->opts.quiet || r->man.nfailures > 0)
		fprintf(r->man.nfailures > 0 ? stderr : stdout,
		    "ewbench: %zu checks passed, %zu failed%s%s\n",
		    r->man.checks_passed, r->man.nfailures,
		    r->dir != NULL ? "; results in " : "",
		    r->dir != NULL ? r->dir : "");
	return code;

fail:
	runner_name_fault(r, &cause);
	say_cause(cause);
	cause = NULL;
	host_facts_end(&r->host);
	/* The rows on disk are whole (csv.c); run.json says the run failed,
	 * or, where even that cannot be written, keeps its last state. */
	if (manifest_update(r->dir, &r->man, "failed", &cause) != 0)
		say_cause(cause);
	return EWB_EXIT_ERROR;
}

static int
run_command(int argc, char **argv)
{
	struct runner	 r;
	char		*cause = NULL;
	int		 code;
	size_t		 free_bytes = 0;

	memset(&r, 0, sizeof r);
	/* Caught from the start: a signal at any point from the claim on
	 * ends the run with its claim released or its run.json saying so. */
	interrupt_catch();
	if (parse_and_claim(argc, argv, &r, &code) != 0 ||
	    open_gpu(argv[0], &r, &code) != 0)
		return code;
	begin_manifest(&r, argc, argv);
	code = EWB_EXIT_ERROR;
	if (build_plan(&r, &free_bytes, &code, &cause) != 0)
		goto refuse;
	if (r.opts.dry_run) {
		code = print_dry_run(&r, free_bytes);
		runner_free(&r);
		return code;
	}
	if (prepare_walk(&r, &code, &cause) != 0)
		goto refuse;
	code = walk_and_record(&r);
	goto out;

refuse:
	/* Nothing measured yet: the claim is released, not kept as a
	 * failed run. */
	say_cause(cause);
	host_facts_end(&r.host);
	runner_release_claim(&r);
out:
	if (r.opts.trace != NULL) {
		if (runner_write_trace(&r) != 0 &&
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

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
	    runner_claim(&r, r.opts.out, &code, &cause) != 0) {
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
		runner_release_claim(&r);
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
		runner_release_claim(&r);
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
		runner_release_claim(&r);
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
	/* --residency: each case's padding, confirmed by the occupancy
	 * calculator (a dry run plans without it). */
	if (r.opts.residency > 0 && !r.opts.dry_run &&
	    (rc = residency_plan(&r.plan, r.opts.residency, &cause)) != 0) {
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
	runner_primary_blocks(&r);
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
	if (writes && runner_begin_output(&r, &code, &cause) != 0)
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
	if (runner_close_files(&r, &cause) != 0)
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
	runner_primary_blocks(&r);
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
	runner_release_claim(&r);
	goto out;
fail:
	runner_name_fault(&r, &cause);
	say_cause(cause);
	cause = NULL;
	host_facts_end(&r.host);
	/* The rows on disk are whole (csv.c); run.json says the run failed,
	 * or, where even that cannot be written, keeps its last state. */
	if (manifest_update(r.dir, &r.man, "failed", &cause) != 0)
		say_cause(cause);
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

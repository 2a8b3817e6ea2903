/*
 * cmd-ceilings.c - `ewbench ceilings`: the machine's measured ceilings
 * (src/ceilings/ measures them): its options, a fleet's children, the run
 * directory claimed, the device opened, the rows measured in order,
 * run.json's status at the end.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "ceilings/ceilings.h"
#include "cmd/cli.h"
#include "cmd/fleet.h"

static const struct option ceilings_longopts[] = {
	{ "device",	required_argument, NULL, 'd' },
	{ "out",	required_argument, NULL, 'o' },
	{ "iters",	required_argument, NULL, 'i' },
	{ "quiet",	no_argument,	   NULL, 'q' },
	{ "dry-run",	no_argument,	   NULL, 'n' },
	{ "chip",	required_argument, NULL, 'c' },
	{ NULL, 0, NULL, 0 }
};

static int
parse_ceilings_options(int argc, char **argv, struct run_options *o,
    char **cause)
{
	const char	*given[CLI_OPTION_VALUES] = { NULL };
	int		 ch, first;

	memset(o, 0, sizeof *o);
	o->iters = CEIL_DEFAULT_ITERS;
	o->warmup = CEIL_WARMUP;
	o->cache = CACHE_WARM;
	o->no_cupti = true;
	o->no_counters = true;
	/* No variant runs; the flags exist for run.json's settings. */
	o->selected = xcalloc(ewb_variant_count, sizeof *o->selected);

	optind = 1;
	opterr = 0;
	for (first = optind; (ch = getopt_long(argc, argv, "+:o:q",
	    ceilings_longopts, NULL)) != -1; first = optind) {
		if (cli_given_once(ceilings_longopts, given, ch, optarg,
		    ch == 'd' ? "give one list, e.g. --device 0,2" : NULL,
		    cause) != 0)
			return -1;
		switch (ch) {
		case 'd':
			if (cli_parse_device(o, optarg, cause) != 0)
				return -1;
			cli_mark_replaced(o, argc, argv, first);
			break;
		case 'o':
			o->out = optarg;
			cli_mark_replaced(o, argc, argv, first);
			break;
		case 'i':
			if (cli_parse_uint(optarg, "--iters", 1, 100000,
			    &o->iters, cause) != 0)
				return -1;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'c':
			o->chip = optarg;
			break;
		case ':':
			*cause = cli_option_error(ceilings_longopts, argv,
			    first, ch, "");
			return -1;
		default:
			*cause = cli_option_error(ceilings_longopts, argv,
			    first, ch, " for "
			    "'ceilings' (it takes --device, --out, --iters, "
			    "--quiet, --dry-run, --chip)");
			return -1;
		}
	}
	if (optind < argc) {
		*cause = xasprintf("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (o->chip != NULL && !o->dry_run) {
		*cause = xstrdup("--chip plans for a GPU by name: it needs "
		    "--dry-run");
		return -1;
	}
	return 0;
}

static int
ceilings_command(int argc, char **argv)
{
	struct ceil_bench	 b;
	char			*cause = NULL, dir[256];
	const char		*status = "failed";
	int			 code, id;
	char			*created = NULL;

	memset(&b, 0, sizeof b);
	/* From the start: a signal never leaves a bare claim behind. */
	interrupt_catch();
	/* A dry run refuses an --out the run would (it claims none). */
	if (parse_ceilings_options(argc, argv, &b.opts, &cause) != 0 ||
	    (b.opts.dry_run && b.opts.out != NULL &&
	    output_check_claimable(b.opts.out, &cause) != 0)) {
		settings_free(&b.opts);
		return command_refuses(argv[0], cause, EWB_EXIT_USAGE);
	}
	/* Many GPUs (--device all, a list), or one task of a scheduler's. */
	if (fleet_dispatch(argc, argv, &b.opts, &b.host, &code) != 0) {
		host_facts_free(&b.host);
		settings_free(&b.opts);
		return code;
	}
	if (b.opts.dry_run) {
		code = b.opts.chip != NULL ? EWB_EXIT_OK :
		    device_open(b.opts.device, &b.dev, &cause);
		if (code == EWB_EXIT_OK || code == EWB_EXIT_NODEV)
			code = ceilings_plan(&b, code == EWB_EXIT_OK ?
			    NULL : cause);
		else
			fprintf(stderr, "ewbench: %s\n", cause);
		free(cause);
		host_facts_free(&b.host);
		settings_free(&b.opts);
		return code;
	}
	/* A refused --out is refused before the device is opened, and
	 * never written to. */
	if (b.opts.out != NULL) {
		if ((code = output_claim_dir(b.opts.out, &created,
		    &cause)) != 0) {
			host_facts_free(&b.host);
			settings_free(&b.opts);
			return command_refuses(argv[0], cause, code);
		}
		b.dir = b.opts.out;
	}
	if ((code = device_open(b.opts.device, &b.dev, &cause)) != 0) {
		say_cause(cause);
		if (b.dir != NULL)
			output_release_claim(b.dir, created);
		else
			free(created);
		host_facts_free(&b.host);
		settings_free(&b.opts);
		return code;
	}
	host_facts_begin(&b.host, &b.dev);
	b.man.host_facts = &b.host;
	b.man.command = "ceilings";
	b.man.argc = argc;
	b.man.argv = argv;
	b.man.device = &b.dev;
	b.man.opts = &b.opts;
	b.man.counters_status = "off";
	b.man.extra_json = ceilings_rows_json;
	b.man.extra_ctx = &b;
	output_utc_now(b.man.started_utc, sizeof b.man.started_utc);
	output_run_id(&b.dev, b.man.run_id, sizeof b.man.run_id);

	if (ceilings_allocate(&b, &code, &cause) != 0)
		goto refuse;
	if (interrupt_pending()) {
		code = EWB_EXIT_INTERRUPTED;
		cause = xasprintf("interrupted before the first ceiling%s",
		    b.dir != NULL ? "; --out released" : "");
		goto refuse;
	}
	if (ceilings_open_output(&b, dir, sizeof dir, &created, &code, &cause) != 0)
		goto refuse;
	free(created);
	created = NULL;
	code = EWB_EXIT_ERROR;
	if (!b.opts.quiet) {
		device_print(&b.dev, stdout);
		printf("%-31s %15s %7s %15s %7s  %s\n", "ceiling", "measured",
		    "spread", "spec", "of spec", "method");
	}

	for (id = 0; id < CEIL_COUNT && !interrupt_pending(); id++) {
		if (ceilings_measure(&b, (enum ceiling_id)id, &cause) != 0)
			goto fail;
	}
	if (!interrupt_pending() && ceilings_measure_curve(&b, &cause) != 0)
		goto fail;
	if (interrupt_pending()) {
		status = "interrupted";
		code = EWB_EXIT_INTERRUPTED;
	} else {
		status = "complete";
		code = EWB_EXIT_OK;
	}
	/* The rows are on disk before run.json says they are whole. */
	if (csv_close(b.csv, &cause) != 0) {
		b.csv = NULL;
		code = EWB_EXIT_ERROR;
		goto fail;
	}
	b.csv = NULL;
	host_facts_end(&b.host);
	if (manifest_update(b.dir, &b.man, status, &cause) != 0) {
		say_cause(cause);
		code = EWB_EXIT_ERROR;
		goto out;
	}
	if (!b.opts.quiet)
		printf("ewbench: ceilings in %s\n", b.dir);
	if (code == EWB_EXIT_OK)
		ceilings_cache_store(b.dir, b.dev.uuid, b.opts.quiet);
	goto out;

refuse:
	/* Nothing measured: the claim is released, not kept as a failed
	 * run. */
	say_cause(cause);
	host_facts_end(&b.host);
	if (b.csv != NULL)
		csv_close(b.csv, NULL);
	b.csv = NULL;
	if (b.dir != NULL)
		output_release_claim(b.dir, created);
	else
		free(created);
	goto out;
fail:
	say_cause(cause);
	cause = NULL;
	host_facts_end(&b.host);
	if (manifest_update(b.dir, &b.man, "failed", &cause) != 0)
		say_cause(cause);
out:
	if (b.csv != NULL)
		csv_close(b.csv, NULL);
	ceilings_release(&b);
	host_facts_free(&b.host);
	settings_free(&b.opts);
	return code;
}

const struct command_entry ceilings_entry = { "ceilings", ceilings_command,
    false };

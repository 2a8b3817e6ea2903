/*
 * cmd-info.c - `ewbench info [--device N]`: the GPU's facts, as a run
 * records them.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "device/device.h"

static int
info_command(int argc, char **argv)
{
	struct device_facts	 f;
	char			*cause = NULL;
	unsigned		 index = 0;
	int			 code;

	static const struct option longopts[] = {
		{ "device",	required_argument, NULL, 'd' },
		{ NULL,		0,		   NULL, 0 }
	};
	const char		*given[CLI_OPTION_VALUES] = { NULL };
	int			 ch, first;

	optind = 1;
	opterr = 0;
	for (first = optind; (ch = getopt_long(argc, argv, "+:", longopts,
	    NULL)) != -1; first = optind) {
		if (ch == ':' || ch == '?') {
			cause = cli_option_error(longopts, argv, first, ch,
			    " (info takes only --device N)");
			goto usage;
		}
		if (cli_given_once(longopts, given, ch, optarg, "info shows "
		    "one GPU", &cause) != 0 || cli_parse_uint(optarg,
		    "--device", 0, 1023, &index, &cause) != 0)
			goto usage;
	}
	if (optind < argc) {
		cause = xasprintf("unexpected argument '%s' (info takes only "
		    "--device N)", argv[optind]);
		goto usage;
	}
	if ((code = device_open((int)index, &f, &cause)) != 0) {
		say_cause(cause);
		return code;
	}
	device_print(&f, stdout);
	return EWB_EXIT_OK;
usage:
	fprintf(stderr, "ewbench info: %s\n", cause);
	free(cause);
	return EWB_EXIT_USAGE;
}

const struct command_entry info_entry = { "info", info_command, false };

/*
 * main.c - the ewbench command: dispatch, help, version, info, list.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "revision.h"
#include "ceilings/ceilings.h"
#include "cmd/cli.h"
#include "counters/counters.h"
#include "device/device.h"
#include "cmd/help.h"
#include "cmd/commands.h"
#include "run/sass.h"

static void
version(void)
{
	printf("ewbench %s (git %s)\n", PACKAGE_VERSION, EWB_GIT_REVISION);
	printf("built with CUDA %d.%d, GPU targets: %s (PTX for the last)\n",
	    EWB_CUDA_BUILD_VERSION / 1000, EWB_CUDA_BUILD_VERSION % 1000 / 10,
	    EWB_CUDA_ARCH);
	printf("nvcc flags: -O3 -std=c++17 -lineinfo; CUPTI API %u\n",
	    counters_cupti_version());
	printf("kernels' SASS (sass.csv): %s\n", ewb_sass_status);
	help_build(stdout);
}

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

static int
list_command(int argc, char **argv)
{
	size_t	i;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "ewbench list: takes no arguments\n");
		return EWB_EXIT_USAGE;
	}
	printf("%-18s %-4s %-5s %-7s %5s %4s %5s %5s %5s %3s  %s\n", "id", "op",
	    "dtype", "origin", "block", "e/t", "vec", "B/el", "flop", "inp",
	    "technique");
	for (i = 0; i < ewb_variant_count; i++) {
		const struct ewb_variant *v = &ewb_variants[i];

		printf("%-18s %-4s %-5s %-7s %5u %4u %5u %5u %5u %3s  %s\n",
		    v->id, ewb_op_name(v->op), ewb_dtype_name(v->dtype),
		    v->origin, v->default_block, v->elems_per_thread,
		    v->vector_width, v->read_bytes + v->write_bytes, v->flops,
		    v->in_place ? "yes" : "no", v->technique);
	}
	printf("\nblock: published threads per block; e/t: elements per "
	    "thread; vec: elements per memory instruction;\nB/el: bytes read "
	    "+ written per element; flop: per element; inp: in place\n");
	for (i = 0; i < ewb_variant_count; i++) {
		if (ewb_variants[i].unavailable != NULL)
			printf("not in this build: %s: %s\n", ewb_variants[i].id,
			    ewb_variants[i].unavailable);
	}
	return EWB_EXIT_OK;
}

/* `ewbench COMMAND -h`, or --help anywhere before a `--`. */
static bool
wants_help(int argc, char **argv)
{
	int	i;

	if (argc > 2 && strcmp(argv[2], "-h") == 0)
		return true;
	for (i = 2; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--help") == 0)
			return true;
	}
	return false;
}

/* The overview (command NULL) or a command's page, on stdout; a command
 * with a page elsewhere is handed its --help. */
static int
help_page(const char *command)
{
	char	*argv[] = { (char *)command, (char *)"--help", NULL };

	if (command == NULL)
		help_overview(stdout);
	else if (strcmp(command, "metrics") == 0)
		return metrics_command(2, argv);
	else if (analysis_is_command(command))
		return analysis_command(2, argv);
	else if (help_command(command, stdout) != 0) {
		fprintf(stderr, "ewbench help: no command '%s' (ewbench --help "
		    "lists them)\n", command);
		return EWB_EXIT_USAGE;
	}
	return EWB_EXIT_OK;
}

int
command_refuses(const char *command, char *cause, int code)
{
	fprintf(stderr, "ewbench %s: %s\n", command, cause);
	free(cause);
	return code;
}

/* code, or exit 1 when what went to stdout could not all be written (a
 * full disk, /dev/full): output lost is never a success. */
static int
stdout_flushed(int code)
{
	int	error = 0;

	if (fflush(stdout) != 0)
		error = errno;
	else if (ferror(stdout))
		error = EIO;
	if (error == 0 || code != EWB_EXIT_OK)
		return code;
	fprintf(stderr, "ewbench: standard output: %s\n", strerror(error));
	return EWB_EXIT_ERROR;
}

static int
command(int argc, char **argv)
{
	const char	*cmd;

	if (argc < 2) {
		fprintf(stderr, "usage: ewbench [--help | --version] COMMAND "
		    "[OPTIONS] (ewbench --help lists them)\n");
		return EWB_EXIT_USAGE;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0)
		return help_page(NULL);
	if (strcmp(cmd, "help") == 0)
		return help_page(argc > 2 ? argv[2] : NULL);
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		version();
		return EWB_EXIT_OK;
	}
	if (analysis_is_command(cmd))
		return analysis_command(argc - 1, argv + 1);
	if (strcmp(cmd, "metrics") != 0 && wants_help(argc, argv))
		return help_page(cmd);
	if (strcmp(cmd, "info") == 0)
		return info_command(argc - 1, argv + 1);
	if (strcmp(cmd, "list") == 0)
		return list_command(argc - 1, argv + 1);
	if (strcmp(cmd, "run") == 0 || strcmp(cmd, "check") == 0 ||
	    strcmp(cmd, "sweep") == 0 || strcmp(cmd, "tune") == 0)
		return run_command(argc - 1, argv + 1);
	if (strcmp(cmd, "ceilings") == 0)
		return ceilings_command(argc - 1, argv + 1);
	if (strcmp(cmd, "metrics") == 0)
		return metrics_command(argc - 1, argv + 1);
	fprintf(stderr, "ewbench: unknown command '%s' (commands: info, list, "
	    "run, check, sweep, tune, ceilings, metrics, report, compare, "
	    "contest, fleet-report, timeline, torch; see ewbench --help)\n",
	    cmd);
	return EWB_EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	/* Into a file or a pipe, a listing (`list`, a plan, a help page) is
	 * held whole and written at exit, where stdout_flushed sees why a
	 * write fails: once stdio's own 4-8 KiB buffer has overflowed, the
	 * cause of the failure is lost (EIO is all ferror says).  glibc
	 * takes a size only with a buffer of the caller's. */
	static char	held[1 << 16];

	/* A file-size limit (ulimit -f) makes a write fail with EFBIG, handled
	 * as a full disk is (complete rows kept), instead of killing. */
	signal(SIGXFSZ, SIG_IGN);
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, held, _IOFBF, sizeof held);
	return stdout_flushed(command(argc, argv));
}

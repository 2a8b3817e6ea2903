/*
 * main.c - the ewbench command: dispatch (through the command table,
 * commands.c), help, version.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "revision.h"
#include "base/ewbench.h"
#include "counters/counters.h"
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
	char				*argv[] = { (char *)command,
					    (char *)"--help", NULL };
	const struct command_entry	*c;

	if (command == NULL)
		help_overview(stdout);
	else if ((c = command_find(command)) != NULL && c->own_help)
		return c->exec(2, argv);
	else if (help_command(command, stdout) != 0) {
		fprintf(stderr, "ewbench help: no command '%s' (ewbench --help "
		    "lists them)\n", command);
		return EWB_EXIT_USAGE;
	}
	return EWB_EXIT_OK;
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
	const char			*cmd;
	const struct command_entry	*c;

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
	c = command_find(cmd);
	if ((c == NULL || !c->own_help) && wants_help(argc, argv))
		return help_page(cmd);
	if (c != NULL)
		return c->exec(argc - 1, argv + 1);
	fprintf(stderr, "ewbench: unknown command '%s' (commands: ", cmd);
	command_names(stderr);
	fprintf(stderr, "; see ewbench --help)\n");
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

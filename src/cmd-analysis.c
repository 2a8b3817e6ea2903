/*
 * cmd-analysis.c - `ewbench report`, `compare`, `contest`, `fleet-report`,
 * `timeline` and `torch`: the Python analysis (python/ewbench), run the
 * way git runs its helpers.  The package is found from this binary
 * (paths.h): the source tree's python/ for the build tree's ./ewbench,
 * else <pkgdatadir>/python beside an installed one.  It goes first on
 * PYTHONPATH and ewbench execs the interpreter: $EWBENCH_PYTHON, else the
 * one configure found, else python3 on PATH, with a bootstrap (-c) that
 * takes the working directory off sys.path before anything is imported,
 * so that a folder there cannot shadow the package on any Python
 * (PYTHONSAFEPATH and -P exist from 3.11 only; configure accepts 3.8).
 *
 * Ctrl-C: SIGINT stays blocked from here to the bootstrap's try, so that
 * an interrupt while the interpreter starts waits for it (pending, not
 * lost) and ends as every other one does: exit 130, one line, no
 * traceback.  The analysis's own workers ignore it (plots.py).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "ewbench.h"
#include "paths.h"

static const struct {
	const char	*command;	/* ewbench COMMAND */
	const char	*module;	/* python3 -m MODULE */
	bool		 subcommand;	/* pass COMMAND on to the module */
} helpers[] = {
	{ "report",		"ewbench.analysis",		true },
	{ "compare",		"ewbench.analysis",		true },
	{ "contest",		"ewbench.analysis",		true },
	{ "fleet-report",	"ewbench.analysis",		true },
	{ "timeline",		"ewbench.analysis",		true },
	{ "torch",		"ewbench.peers.torch_ops",	false },
};

/* python -c BOOTSTRAP MODULE ARGS...: MODULE run as -m runs it, with
 * neither '' (the working directory) on sys.path nor any module imported
 * from there first; SIGINT unblocked inside the try that turns a
 * KeyboardInterrupt into exit 130, and blocked again once the module has
 * exited (a late Ctrl-C cannot break the interpreter's shutdown). */
static const char bootstrap[] =
"import sys\n"
"if sys.path and sys.path[0] == '':\n"
"    del sys.path[0]\n"
"import signal\n"
"module = sys.argv.pop(1)\n"
"try:\n"
"    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])\n"
"    import runpy\n"
"    runpy.run_module(module, run_name='__main__', alter_sys=True)\n"
"except KeyboardInterrupt:\n"
"    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])\n"
"    sys.stderr.write('ewbench: interrupted\\n')\n"
"    sys.exit(130)\n"
"except SystemExit:\n"
"    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])\n"
"    raise\n"
"signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])\n";

bool
analysis_is_command(const char *command)
{
	size_t	i;

	for (i = 0; i < sizeof helpers / sizeof helpers[0]; i++) {
		if (strcmp(helpers[i].command, command) == 0)
			return true;
	}
	return false;
}

/* The interpreter: $EWBENCH_PYTHON, configure's where it still exists,
 * else python3 from PATH. */
static const char *
python(void)
{
	const char	*env = getenv("EWBENCH_PYTHON");

	if (env != NULL && *env != '\0')
		return env;
	if (strcmp(EWB_PYTHON, ":") != 0 && *EWB_PYTHON != '\0' &&
	    (strchr(EWB_PYTHON, '/') == NULL || access(EWB_PYTHON, X_OK) == 0))
		return EWB_PYTHON;
	return "python3";
}

/* Puts the first of dirs that holds the package on PYTHONPATH; returns
 * false when none does (a `pip install`ed package may still be found). */
static bool
put_package_on_path(char *dirs[], size_t n)
{
	const char	*old = getenv("PYTHONPATH");
	char		*probe, *value;
	size_t		 i;
	bool		 found;

	for (i = 0; i < n; i++) {
		probe = xasprintf("%s/ewbench/analysis/__main__.py", dirs[i]);
		found = access(probe, R_OK) == 0;
		free(probe);
		if (!found)
			continue;
		value = old != NULL && *old != '\0' ?
		    xasprintf("%s:%s", dirs[i], old) : xstrdup(dirs[i]);
		setenv("PYTHONPATH", value, 1);
		free(value);
		return true;
	}
	return false;
}

int
analysis_command(int argc, char **argv)
{
	char		*dirs[PATHS_MAX], **args;
	const char	*py = python();
	sigset_t	 sigint, old_mask;
	size_t		 i, n, k = 0;
	int		 error;

	for (i = 0; strcmp(helpers[i].command, argv[0]) != 0; i++)
		;
	n = paths_data_dirs("python", dirs);
	if (!put_package_on_path(dirs, n)) {
		fprintf(stderr, "ewbench %s: no analysis package in ", argv[0]);
		for (k = 0; k < n; k++)
			fprintf(stderr, "%s%s", k > 0 ? " or " : "", dirs[k]);
		fprintf(stderr, "; trying %s's own (pip install)\n", py);
	}
	paths_free(dirs, n);
	setenv("EWBENCH_PROG", "ewbench", 1);

	args = xcalloc((size_t)argc + 5, sizeof *args);
	k = 0;
	args[k++] = (char *)py;
	args[k++] = (char *)"-c";
	args[k++] = (char *)bootstrap;
	args[k++] = (char *)helpers[i].module;
	if (helpers[i].subcommand)
		args[k++] = argv[0];
	for (int a = 1; a < argc; a++)
		args[k++] = argv[a];
	args[k] = NULL;
	sigemptyset(&sigint);
	sigaddset(&sigint, SIGINT);
	sigprocmask(SIG_BLOCK, &sigint, &old_mask);
	execvp(py, args);
	error = errno;
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	fprintf(stderr, "ewbench %s: cannot run %s: %s (EWBENCH_PYTHON names "
	    "the interpreter)\n", argv[0], py, strerror(error));
	free(args);
	return EWB_EXIT_ERROR;
}

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
 * The interpreter is checked first (check_python): a Python of at least
 * the version configure asks for, that finds the package where ewbench
 * put it (not in the working directory), said with its name when it is
 * not; so that /bin/true or an old Python never passes for an analysis
 * that ran.
 *
 * Signals: SIGINT, SIGTERM and SIGHUP stay blocked from here until the
 * bootstrap has taken them (ewbench.stops), so that one that comes while
 * the interpreter starts waits for it (pending, not lost) and ends as
 * every other one does: exit 130, one line, no traceback, no temporary
 * file, the plot workers stopped and waited for (core/workers.py).  A
 * closed stdout ends it quietly (130); a stdout that cannot be written (a
 * full disk) is exit 1.
 */
#define _GNU_SOURCE
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "base/ewbench.h"
#include "base/paths.h"
#include "cmd/commands.h"

/* Every analysis command is a subcommand of one module: ewbench COMMAND
 * ARGS runs python3 -m ewbench.analysis COMMAND ARGS (torch too: the
 * analysis hands it to ewbench.peers.torch_ops, so that it has one entry
 * point and one message prefix, python3 -m ewbench.analysis torch
 * alike). */
#define ANALYSIS_MODULE	"ewbench.analysis"

static int	 analysis_command(int, char **);

/* Their entries in the command table (commands.c); each answers --help
 * itself, from the analysis. */
const struct command_entry report_entry = { "report", analysis_command, true };
const struct command_entry compare_entry = { "compare", analysis_command, true };
const struct command_entry contest_entry = { "contest", analysis_command, true };
const struct command_entry fleet_report_entry = { "fleet-report",
    analysis_command, true };
const struct command_entry timeline_entry = { "timeline", analysis_command,
    true };
const struct command_entry torch_entry = { "torch", analysis_command, true };

/* python -c BOOTSTRAP MODULE ARGS...: MODULE run as -m runs it, with
 * neither '' (the working directory) on sys.path nor any module imported
 * from there first, by ewbench.stops.run_command: SIGINT, SIGTERM and
 * SIGHUP (blocked until it has taken them) are exit 130 and one line, in
 * whichever thread they land; a block that must not be cut short (an
 * output swapped in) defers them; once the module has exited they are
 * ignored, so that a finished command is not killed on its way out; a
 * closed stdout is a quiet 130, another failure to write it exit 1
 * (python/ewbench/stops.py says how and why). */
static const char bootstrap[] =
"import sys\n"
"if sys.path and sys.path[0] == '':\n"
"    del sys.path[0]\n"
"from ewbench import stops\n"
"stops.run_command(sys.argv.pop(1))\n";

/* What the interpreter says of itself before anything is handed over
 * (check_python): its version, then the file it would import the package
 * ewbench from, found without importing it (none of the package runs),
 * with '' off sys.path as in the bootstrap.  Python 2 reads it too. */
static const char probe[] =
"import sys\n"
"if sys.path and sys.path[0] == '':\n"
"    del sys.path[0]\n"
"sys.stdout.write('ewbench-python %d.%d\\n' % tuple(sys.version_info[:2]))\n"
"if sys.version_info >= (3, 4):\n"
"    import importlib.util\n"
"    spec = importlib.util.find_spec('ewbench')\n"
"    sys.stdout.write('%s\\n' % (spec and spec.origin or ''))\n"
"    sys.stdout.write('%s\\n' % (sys.executable or ''))\n";

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

/* Puts the first of dirs that holds the package on PYTHONPATH and returns
 * it; NULL when none does (a `pip install`ed package may still be
 * found). */
static const char *
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
		return dirs[i];
	}
	return NULL;
}

/* Whether one of stops is pending (blocked while the probe runs). */
static bool
stop_pending(const sigset_t *stops)
{
	sigset_t	pending;
	int		sig;

	if (sigpending(&pending) != 0)
		return false;
	for (sig = 1; sig < NSIG; sig++) {
		if (sigismember(stops, sig) == 1 && sigismember(&pending, sig) == 1)
			return true;
	}
	return false;
}

/* The interpreter's own file (sys.executable, the probe's third line),
 * where it is one: what is run, so that a wrapper (a pyenv shim, itself a
 * shell script) never stands between ewbench and Python: a shell that
 * gets the user's Ctrl-C dies of it without a word. */
static void
executable_of(char *line, char **real)
{
	char	*nl = strchr(line, '\n');

	if (nl != NULL)
		*nl = '\0';
	if (*line == '/' && access(line, X_OK) == 0) {
		free(*real);
		*real = xstrdup(line);
	}
}

/*
 * Runs py with the probe: 0 when it is a Python the analysis runs on that
 * imports the package from package_dir (or, with no package_dir, finds one
 * at all), *real its own file where it says one (else left NULL); else -1
 * with the cause, or 130 when one of stops came meanwhile (the probe
 * killed).
 */
static int
check_python(const char *py, const char *package_dir, const sigset_t *stops,
    char **real, char **cause)
{
	char		 out[PATH_MAX + 64], *nl, *origin, *want, *real_want,
			 real_origin[PATH_MAX];
	size_t		 have = 0;
	ssize_t		 got;
	int		 fds[2], status = 0, major, minor, null;
	pid_t		 pid;
	struct pollfd	 pfd;

	if (pipe2(fds, O_CLOEXEC) != 0) {
		*cause = xasprintf("pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		*cause = xasprintf("fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(fds[1], 1);
		dup2(null, 2);
		execlp(py, py, "-c", probe, (char *)NULL);
		dprintf(1, "ewbench-exec %d\n", errno);
		_exit(127);
	}
	close(fds[1]);
	pfd.fd = fds[0];
	pfd.events = POLLIN;
	for (;;) {
		if (stop_pending(stops)) {
			kill(pid, SIGKILL);
			close(fds[0]);
			while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
				;
			return 130;
		}
		if (poll(&pfd, 1, 50) <= 0)
			continue;
		got = read(fds[0], out + have, sizeof out - 1 - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if ((have += (size_t)got) == sizeof out - 1)
			break;
	}
	close(fds[0]);
	out[have] = '\0';
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (sscanf(out, "ewbench-exec %d", &major) == 1) {
		*cause = xasprintf("cannot run %s: %s", py, strerror(major));
		return -1;
	}
	if (sscanf(out, "ewbench-python %d.%d\n", &major, &minor) != 2) {
		*cause = WIFEXITED(status) ? xasprintf("%s is not a Python the "
		    "analysis can run: it exited %d and did not say its "
		    "version", py, WEXITSTATUS(status)) : xasprintf("%s is "
		    "not a Python the analysis can run: killed by signal %d "
		    "before it said its version", py, WTERMSIG(status));
		return -1;
	}
	if (major < EWB_PYTHON_MIN_MAJOR || (major == EWB_PYTHON_MIN_MAJOR &&
	    minor < EWB_PYTHON_MIN_MINOR)) {
		*cause = xasprintf("%s is Python %d.%d; the analysis needs "
		    "Python %d.%d or later", py, major, minor,
		    EWB_PYTHON_MIN_MAJOR, EWB_PYTHON_MIN_MINOR);
		return -1;
	}
	origin = strchr(out, '\n') + 1;
	if ((nl = strchr(origin, '\n')) != NULL) {
		*nl = '\0';
		executable_of(nl + 1, real);
	}
	if (*origin == '\0' || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		*cause = package_dir != NULL ? xasprintf("%s (Python %d.%d) "
		    "cannot import the package ewbench from %s", py, major,
		    minor, package_dir) : xasprintf("%s (Python %d.%d) has no "
		    "package ewbench (pip install the analysis, or run an "
		    "installed ewbench)", py, major, minor);
		return -1;
	}
	if (package_dir == NULL)
		return 0;
	want = xasprintf("%s/ewbench/__init__.py", package_dir);
	real_want = realpath(want, NULL);
	if (real_want == NULL || realpath(origin, real_origin) == NULL ||
	    strcmp(real_want, real_origin) != 0) {
		*cause = xasprintf("%s (Python %d.%d) would import the package "
		    "ewbench from %s, not ewbench's own %s", py, major, minor,
		    origin, want);
		free(want);
		free(real_want);
		return -1;
	}
	free(want);
	free(real_want);
	return 0;
}

static int
analysis_command(int argc, char **argv)
{
	char		*dirs[PATHS_MAX], **args, *cause = NULL, *real = NULL;
	const char	*py = python(), *package_dir;
	sigset_t	 stops, old_mask;
	size_t		 n, k = 0;
	int		 error, rc;

	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	sigprocmask(SIG_BLOCK, &stops, &old_mask);
	n = paths_data_dirs("python", dirs);
	if ((package_dir = put_package_on_path(dirs, n)) == NULL) {
		char	*moved = paths_moved_build_note();

		fprintf(stderr, "ewbench %s: no analysis package in ", argv[0]);
		for (k = 0; k < n; k++)
			fprintf(stderr, "%s%s", k > 0 ? " or " : "", dirs[k]);
		fprintf(stderr, "; trying %s's own (pip install)%s%s\n", py,
		    moved != NULL ? "; " : "", moved != NULL ? moved : "");
		free(moved);
	}
	rc = check_python(py, package_dir, &stops, &real, &cause);
	paths_free(dirs, n);
	if (rc != 0) {
		if (rc == EWB_EXIT_INTERRUPTED)
			fprintf(stderr, "ewbench %s: interrupted\n", argv[0]);
		else
			fprintf(stderr, "ewbench %s: %s (EWBENCH_PYTHON names "
			    "the interpreter)\n", argv[0], cause);
		free(cause);
		return rc == EWB_EXIT_INTERRUPTED ? rc : EWB_EXIT_ERROR;
	}
	setenv("EWBENCH_PROG", "ewbench", 1);

	if (real != NULL)
		py = real;
	args = xcalloc((size_t)argc + 5, sizeof *args);
	k = 0;
	args[k++] = (char *)py;
	args[k++] = (char *)"-c";
	args[k++] = (char *)bootstrap;
	args[k++] = (char *)ANALYSIS_MODULE;
	args[k++] = argv[0];
	for (int a = 1; a < argc; a++)
		args[k++] = argv[a];
	args[k] = NULL;
	execvp(py, args);
	error = errno;
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	fprintf(stderr, "ewbench %s: cannot run %s: %s (EWBENCH_PYTHON names "
	    "the interpreter)\n", argv[0], py, strerror(error));
	free(args);
	return EWB_EXIT_ERROR;
}

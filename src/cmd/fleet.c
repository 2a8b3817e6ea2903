/*
 * fleet.c - one measuring command on many GPUs.
 *
 * `--device all` or `--device 0,2,3`: this process is the parent.  It
 * claims PARENT (--out) with fleet.json as a run claims its directory
 * with run.json, then starts one ewbench per GPU, all at once: this very
 * binary (/proc/self/exe) with the same arguments but --device N and
 * --out PARENT/<host>-gpu<N>, each in its own process group with its
 * output in PARENT/<member>.log.  A member that fails does not stop the
 * others.  When all have ended, fleet.json says how each did.  Ctrl-C
 * (SIGINT, SIGTERM) reaches the parent only, which passes it on: the
 * members finish their point, keep their complete rows and say
 * "interrupted"; a second one ends them at once.
 *
 * Under a scheduler (Slurm, Open MPI, PMIx) with --out and no --device,
 * this process is one task of a fleet started by the scheduler: it picks
 * its GPU from its local rank and measures into PARENT/<node>-rank<R>,
 * sharing PARENT with the other tasks (created if missing, never claimed)
 * and claiming only its own member directory.  Tasks cannot coordinate
 * safely, so they write no fleet.json: the analysis finds members as
 * subdirectories that hold a run.json.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "cmd/commands.h"
#include "cmd/fleet.h"
#include "device/hostfacts.h"
#include "run/output.h"

struct member {
	unsigned	 device;
	char		 name[192];
	char		*dir;		/* PARENT/<name> */
	char		*log;		/* PARENT/<name>.log, or NULL */
	pid_t		 pid;		/* 0: not running */
	const char	*status;	/* running, ok, failed, interrupted */
	int		 exit_code;	/* -1 while running */
	char		*reason;
};

struct fleet {
	const char	*command;
	int		 argc;
	char		**argv;
	const char	*parent;
	char		 host[128];
	char		 started_utc[32];
	char		 finished_utc[32];
	struct member	*members;
	size_t		 count;
	bool		 quiet;
};

/* Signals the parent has received and not yet passed on. */
static volatile sig_atomic_t	fleet_sigint, fleet_sigterm;

/* SIGHUP and SIGPIPE end a fleet as SIGTERM does; after one SIGPIPE
 * (stdout closed) the later ones, one per line printed, are ignored. */
static void
fleet_signal(int sig)
{
	if (sig == SIGINT)
		fleet_sigint++;
	else
		fleet_sigterm++;
	if (sig == SIGPIPE) {
		struct sigaction	sa;

		memset(&sa, 0, sizeof sa);
		sa.sa_handler = SIG_IGN;
		sigaction(SIGPIPE, &sa, NULL);
	}
}

static void
fleet_catch(void)
{
	struct sigaction	sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fleet_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
}

/* Did a signal that asks for a stop end this member? */
static bool
stopped_by_signal(int wstatus)
{
	if (!WIFSIGNALED(wstatus))
		return false;
	switch (WTERMSIG(wstatus)) {
	case SIGINT: case SIGTERM: case SIGHUP: case SIGPIPE:
		return true;
	default:
		return false;
	}
}

/* How an exit status reads in fleet.json's reasons. */
static const char *
exit_meaning(int code)
{
	switch (code) {
	case EWB_EXIT_ERROR:	return "CUDA or I/O error";
	case EWB_EXIT_USAGE:	return "bad command line";
	case EWB_EXIT_CHECK:	return "wrong result";
	case EWB_EXIT_NOMEM:	return "too large for GPU memory";
	case EWB_EXIT_NODEV:	return "no usable GPU";
	case EWB_EXIT_INTERRUPTED: return "interrupted";
	case 127:		return "could not start";
	default:		return "failed";
	}
}

/* The last non-empty line of a member's log, for its reason. */
static char *
log_last_line(const char *path)
{
	char	 line[512], last[512] = "";
	FILE	*f;

	if (path == NULL || (f = fopen(path, "r")) == NULL)
		return NULL;
	while (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] != '\0')
			memcpy(last, line, sizeof last);
	}
	fclose(f);
	return last[0] != '\0' ? xstrdup(last) : NULL;
}

/* run.json's status, from ewbench's own writer ("status": "..."). */
static char *
run_status(const char *dir)
{
	char	*path = xasprintf("%s/run.json", dir), buf[4096], *s, *e;
	FILE	*f;
	size_t	 len;

	f = fopen(path, "r");
	free(path);
	if (f == NULL)
		return NULL;
	len = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[len] = '\0';
	if ((s = strstr(buf, "\"status\": \"")) == NULL)
		return NULL;
	s += strlen("\"status\": \"");
	if ((e = strchr(s, '"')) == NULL)
		return NULL;
	*e = '\0';
	return xstrdup(s);
}

static void
member_ended(struct fleet *fl, struct member *m, int wstatus)
{
	char	*last, *status;

	m->pid = 0;
	if (WIFEXITED(wstatus))
		m->exit_code = WEXITSTATUS(wstatus);
	else
		m->exit_code = 128 + WTERMSIG(wstatus);
	last = log_last_line(m->log);
	status = m->log != NULL ? run_status(m->dir) : NULL;
	if (m->exit_code == 0) {
		m->status = "ok";
		m->reason = xasprintf("run.json: %s", status != NULL ? status :
		    "complete");
	} else {
		if (m->exit_code == EWB_EXIT_INTERRUPTED ||
		    stopped_by_signal(wstatus))
			m->status = "interrupted";
		else
			m->status = "failed";
		if (WIFSIGNALED(wstatus))
			m->reason = xasprintf("killed by signal %d%s%s",
			    WTERMSIG(wstatus), last != NULL ? ": " : "",
			    last != NULL ? last : "");
		else
			m->reason = xasprintf("exited %d: %s%s%s",
			    m->exit_code, exit_meaning(m->exit_code),
			    last != NULL ? ": " : "", last != NULL ? last : "");
	}
	free(last);
	free(status);
	if (fl->quiet && m->exit_code == 0)
		return;
	if (m->exit_code == 0)
		printf("ewbench: %s ok, results in %s\n", m->name, m->dir);
	else
		fprintf(stderr, "ewbench: %s %s: %s%s%s%s\n", m->name,
		    m->status, m->reason, m->log != NULL ? " (log " : "",
		    m->log != NULL ? m->log : "", m->log != NULL ? ")" : "");
	if (m->log != NULL)
		fflush(stdout);
}

/* fleet.json, atomically; -1 (said on stderr) when it cannot be
 * written: the previous one stays. */
static int
fleet_json_write(const struct fleet *fl, const char *status)
{
	struct json	*j = json_new();
	char		*path, *cause = NULL;
	size_t		 i;
	int		 k, rc;

	json_begin_object(j, NULL);
	json_str(j, "schema", "ewbench-fleet/1");
	json_str(j, "status", status);
	json_str(j, "command", fl->command);
	json_begin_array(j, "argv");
	json_str(j, NULL, "ewbench");
	for (k = 0; k < fl->argc; k++)
		json_str(j, NULL, fl->argv[k]);
	json_end_array(j);
	json_str(j, "started_utc", fl->started_utc);
	json_str(j, "finished_utc",
	    fl->finished_utc[0] != '\0' ? fl->finished_utc : NULL);
	json_str(j, "launcher", "ewbench");
	json_begin_array(j, "members");
	for (i = 0; i < fl->count; i++) {
		const struct member *m = &fl->members[i];

		json_begin_object(j, NULL);
		json_str(j, "name", m->name);
		json_str(j, "dir", m->name);	/* relative to PARENT */
		json_str(j, "host", fl->host);
		json_u64(j, "device", m->device);
		json_str(j, "status", m->status);
		if (m->exit_code >= 0)
			json_i64(j, "exit_code", m->exit_code);
		else
			json_null(j, "exit_code");
		json_str(j, "reason", m->reason);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
	path = xasprintf("%s/fleet.json", fl->parent);
	rc = file_write_atomic(path, json_text(j), strlen(json_text(j)),
	    &cause);
	if (rc != 0)
		say_cause(cause);
	free(path);
	json_free(j);
	return rc;
}

/* The child's arguments: the parent's, less its --device and --out,
 * plus the member's (no --out for check, which writes no directory and
 * refuses one). */
static char **
child_argv(const struct fleet *fl, const struct run_options *o,
    const struct member *m, char *device)
{
	char	**av = xcalloc((size_t)fl->argc + 8, sizeof *av);
	int	  i, n = 0;

	av[n++] = (char *)"ewbench";
	av[n++] = fl->argv[0];
	for (i = 1; i < fl->argc; i++) {
		if (o->replaced == NULL || !o->replaced[i])
			av[n++] = fl->argv[i];
	}
	av[n++] = (char *)"--device";
	av[n++] = device;
	if (strcmp(fl->argv[0], "check") != 0) {
		av[n++] = (char *)"--out";
		av[n++] = m->dir;
	}
	av[n] = NULL;
	return av;
}

/* Starts one member.  With a log, in the background with its output in
 * the log; without (a dry run or `check`: nothing is written), on the
 * parent's terminal. */
static int
member_start(struct fleet *fl, const struct run_options *o, struct member *m)
{
	char	  device[16], **av;
	pid_t	  parent = getpid(), pid;
	int	  fd;

	snprintf(device, sizeof device, "%u", m->device);
	av = child_argv(fl, o, m, device);
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0) {
		m->status = "failed";
		m->exit_code = EWB_EXIT_ERROR;
		m->reason = xasprintf("fork: %s", strerror(errno));
		free(av);
		return -1;
	}
	if (pid == 0) {
		/* Ctrl-C at a terminal reaches the parent, which passes it
		 * on once; and a parent that dies stops its members. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(EWB_EXIT_INTERRUPTED);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (m->log != NULL) {
			fd = open(m->log, O_WRONLY | O_CREAT | O_TRUNC |
			    O_CLOEXEC, 0666);
			if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
				_exit(127);
			fd = open("/dev/null", O_RDONLY);
			if (fd >= 0)
				dup2(fd, 0);
		}
		setenv("EWBENCH_FLEET_MEMBER", m->name, 1);
		execv("/proc/self/exe", av);
		fprintf(stderr, "ewbench: cannot start /proc/self/exe: %s\n",
		    strerror(errno));
		_exit(127);
	}
	free(av);
	m->pid = pid;
	m->status = "running";
	return 0;
}

/* Passes on the signals received since the last call. */
static void
forward_signals(struct fleet *fl, sig_atomic_t *seen_int,
    sig_atomic_t *seen_term)
{
	size_t	i;

	while (*seen_int < fleet_sigint || *seen_term < fleet_sigterm) {
		int sig = *seen_term < fleet_sigterm ? SIGTERM : SIGINT;

		if (sig == SIGTERM)
			(*seen_term)++;
		else
			(*seen_int)++;
		for (i = 0; i < fl->count; i++) {
			if (fl->members[i].pid > 0)
				kill(fl->members[i].pid, sig);
		}
	}
}

/* Waits for every started member, passing signals on. */
static void
wait_members(struct fleet *fl)
{
	struct timespec	 tick = { 0, 20 * 1000 * 1000 };
	sig_atomic_t	 seen_int = 0, seen_term = 0;
	size_t		 i, running;
	pid_t		 pid;
	int		 wstatus;

	for (;;) {
		forward_signals(fl, &seen_int, &seen_term);
		while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
			for (i = 0; i < fl->count; i++) {
				if (fl->members[i].pid == pid)
					member_ended(fl, &fl->members[i],
					    wstatus);
			}
		}
		for (i = running = 0; i < fl->count; i++)
			running += fl->members[i].pid > 0;
		if (running == 0)
			break;
		nanosleep(&tick, NULL);
	}
}

/* Does PARENT already hold a fleet's member (a subdirectory with a
 * run.json)?  Then a new fleet would mix with it. */
static char *
holds_member(const char *parent)
{
	DIR		*d;
	struct dirent	*e;
	struct stat	 st;
	char		*path, *found = NULL;

	if ((d = opendir(parent)) == NULL)
		return NULL;
	while (found == NULL && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s/run.json", parent, e->d_name);
		if (stat(path, &st) == 0)
			found = xstrdup(e->d_name);
		free(path);
	}
	closedir(d);
	return found;
}

/* The devices of the fleet: all of them, or the list, each checked
 * against the machine's count. */
static int
fleet_devices(const struct run_options *o, unsigned **devices, size_t *count,
    char **cause)
{
	int		visible = 0, code;
	size_t		i;

	if ((code = device_count(&visible, cause)) != EWB_EXIT_OK)
		return code;
	if (o->device_all) {
		*devices = xcalloc((size_t)visible, sizeof **devices);
		for (i = 0; i < (size_t)visible; i++)
			(*devices)[i] = (unsigned)i;
		*count = (size_t)visible;
		return 0;
	}
	for (i = 0; i < o->ndevices; i++) {
		if (o->devices[i] >= (unsigned)visible) {
			*cause = xasprintf("--device %u: this machine has %d "
			    "CUDA device%s (0 to %d)", o->devices[i], visible,
			    visible == 1 ? "" : "s", visible - 1);
			return EWB_EXIT_USAGE;
		}
	}
	*devices = xcalloc(o->ndevices, sizeof **devices);
	memcpy(*devices, o->devices, o->ndevices * sizeof **devices);
	*count = o->ndevices;
	return 0;
}

static int
fleet_launch(int argc, char **argv, struct run_options *o, const char *host)
{
	struct fleet	 fl;
	unsigned	*devices = NULL;
	size_t		 count = 0, i;
	char		*cause = NULL, *created = NULL, *held, stamp[32];
	char		 defdir[256];
	bool		 writes;
	int		 code = EWB_EXIT_OK;
	time_t		 now = time(NULL);
	struct tm	 tm;

	memset(&fl, 0, sizeof fl);
	fl.command = argv[0];
	fl.argc = argc;
	fl.argv = argv;
	fl.quiet = o->quiet;
	snprintf(fl.host, sizeof fl.host, "%s", host);
	if (o->trace != NULL) {
		fprintf(stderr, "ewbench %s: --trace takes one GPU; give "
		    "--device N\n", argv[0]);
		return EWB_EXIT_USAGE;
	}
	if (o->bundled) {
		fprintf(stderr, "ewbench %s: with --device LIST, give -o "
		    "on its own (not bundled with other short options)\n",
		    argv[0]);
		return EWB_EXIT_USAGE;
	}
	writes = strcmp(argv[0], "check") != 0 && !o->dry_run;
	if (o->out != NULL)
		fl.parent = o->out;
	else {
		gmtime_r(&now, &tm);
		strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
		snprintf(defdir, sizeof defdir, "ewbench%s-fleet-%s-%s",
		    strcmp(argv[0], "ceilings") == 0 ? "-ceilings" : "", host,
		    stamp);
		fl.parent = defdir;
	}
	/* PARENT is claimed before any GPU work, as a run's directory is:
	 * refused (and left untouched) when it holds a run or a fleet.  The
	 * signals are caught first, so none leaves a bare claim. */
	fleet_catch();
	if (writes) {
		if ((held = holds_member(fl.parent)) != NULL) {
			fprintf(stderr, "ewbench %s: --out %s already holds a "
			    "fleet's member (%s/run.json); choose another "
			    "directory\n", argv[0], fl.parent, held);
			free(held);
			return EWB_EXIT_USAGE;
		}
		if ((code = output_claim_as(fl.parent, "fleet.json", &created,
		    &cause)) != 0) {
			return command_refuses(argv[0], cause, code);
		}
	}
	if ((code = fleet_devices(o, &devices, &count, &cause)) != 0 ||
	    fleet_sigint + fleet_sigterm > 0) {
		if (code == 0) {
			code = EWB_EXIT_INTERRUPTED;
			cause = xstrdup("interrupted before the fleet started; "
			    "--out released");
			free(devices);
		}
		say_cause(cause);
		if (writes)
			output_release_as(fl.parent, "fleet.json", created);
		else
			free(created);
		return code;
	}
	free(created);

	fl.count = count;
	fl.members = xcalloc(count, sizeof *fl.members);
	for (i = 0; i < count; i++) {
		struct member *m = &fl.members[i];

		m->device = devices[i];
		fleet_member_name(host, devices[i], m->name, sizeof m->name);
		m->dir = xasprintf("%s/%s", fl.parent, m->name);
		m->log = writes ? xasprintf("%s.log", m->dir) : NULL;
		m->status = "failed";
		m->exit_code = -1;
	}
	free(devices);
	output_utc_now(fl.started_utc, sizeof fl.started_utc);
	if (writes) {
		if (!o->quiet)
			printf("ewbench: %zu member%s on %s, one per GPU, in %s "
			    "(fleet.json; output in <member>.log)\n", count,
			    count == 1 ? "" : "s", host, fl.parent);
		for (i = 0; i < count; i++)
			member_start(&fl, o, &fl.members[i]);
		fleet_json_write(&fl, "running");
		wait_members(&fl);
	} else {
		/* Nothing is written: one member after the other, each on
		 * the terminal. */
		for (i = 0; i < count && fleet_sigint + fleet_sigterm == 0;
		    i++) {
			if (member_start(&fl, o, &fl.members[i]) == 0)
				wait_members(&fl);
		}
		for (; i < count; i++)
			fl.members[i].status = "interrupted";
	}
	output_utc_now(fl.finished_utc, sizeof fl.finished_utc);

	code = EWB_EXIT_OK;
	for (i = 0; i < count && code == EWB_EXIT_OK; i++) {
		if (fl.members[i].exit_code > 0)
			code = fl.members[i].exit_code;
	}
	if (fleet_sigint + fleet_sigterm > 0)
		code = EWB_EXIT_INTERRUPTED;
	if (writes) {
		/* fleet.json that cannot say how the fleet ended is an I/O
		 * error, whatever the members did. */
		if (fleet_json_write(&fl, code == EWB_EXIT_OK ? "complete" :
		    code == EWB_EXIT_INTERRUPTED ? "interrupted" : "failed") != 0)
			code = EWB_EXIT_ERROR;
		if (!o->quiet || code != EWB_EXIT_OK)
			fprintf(code == EWB_EXIT_OK ? stdout : stderr,
			    "ewbench: fleet of %zu in %s (fleet.json)%s\n",
			    count, fl.parent, code == EWB_EXIT_OK ? "" :
			    ": not every member ok");
	}
	for (i = 0; i < count; i++) {
		free(fl.members[i].dir);
		free(fl.members[i].log);
		free(fl.members[i].reason);
	}
	free(fl.members);
	return code;
}

/* mkdir -p, for the PARENT the tasks of a scheduler share. */
static int
make_shared_dir(const char *dir, char **cause)
{
	char	*path = xstrdup(dir), *s;
	int	 rc = 0;

	for (s = path + 1; rc == 0; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char saved = *s;
		*s = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST) {
			*cause = xasprintf("--out %s: cannot create %s: %s",
			    dir, path, strerror(errno));
			rc = -1;
		}
		*s = saved;
		if (saved == '\0')
			break;
	}
	free(path);
	return rc;
}

/* A scheduler's task: its GPU and its member directory under PARENT. */
static int
fleet_task(const char *command, struct run_options *o, struct host_facts *h)
{
	struct placement	*p = &h->place;
	char			*cause = NULL;
	int			 visible = 0, device;

	if (cudaGetDeviceCount(&visible) != cudaSuccess || visible <= 0)
		visible = placement_visible_count(placement_getenv);
	if ((device = placement_device(p, visible, &cause)) < 0) {
		fprintf(stderr, "ewbench %s: %s\n", command, cause);
		free(cause);
		return EWB_EXIT_USAGE;
	}
	placement_member_name(p);
	h->member_dir = xasprintf("%s/%s", o->out, p->member);
	if (!o->quiet)
		printf("ewbench: %s rank %ld (local rank %ld) on %s: device %d, "
		    "run directory %s\n", p->launcher, p->rank, p->local_rank,
		    p->node, device, h->member_dir);
	if (strcmp(command, "check") != 0 && !o->dry_run &&
	    make_shared_dir(o->out, &cause) != 0) {
		fprintf(stderr, "ewbench %s: %s\n", command, cause);
		free(cause);
		return EWB_EXIT_USAGE;
	}
	o->device = device;
	o->out = h->member_dir;
	return 0;
}

/* A fleet's dry run is planned once, here, where the plan is every
 * member's: for a GPU named by --chip, or without a GPU (the generic
 * plan), which a dry run needs no more than one GPU's plan does. */
static bool
fleet_plans_once(const struct run_options *o)
{
	char	*cause = NULL;
	int	 visible = 0;
	bool	 none;

	if (!o->dry_run)
		return false;
	if (o->chip != NULL)
		return true;
	none = device_count(&visible, &cause) == EWB_EXIT_NODEV;
	free(cause);
	return none;
}

int
fleet_dispatch(int argc, char **argv, struct run_options *o,
    struct host_facts *h, int *code)
{
	char	*cause = NULL;

	/* A launcher's rank picks the GPU only when --device does not: with
	 * --device a malformed one is no concern of this run. */
	if (host_facts_env(h, &cause) != 0) {
		if (!o->device_given) {
			*code = command_refuses(argv[0], cause,
			    EWB_EXIT_USAGE);
			return 1;
		}
		free(cause);
		memset(&h->place, 0, sizeof h->place);
		h->place.rank = h->place.local_rank = -1;
		snprintf(h->place.node, sizeof h->place.node, "%s",
		    h->hostname);
	}
	if (o->fleet && fleet_plans_once(o)) {
		if (!o->quiet) {
			printf("plan: one member per GPU of --device ");
			if (o->device_all)
				printf("all");
			for (size_t i = 0; i < o->ndevices; i++)
				printf("%s%u", i > 0 ? "," : "",
				    o->devices[i]);
			printf(", each with this plan\n");
		}
		return 0;
	}
	if (o->fleet) {
		*code = fleet_launch(argc, argv, o, h->hostname);
		return 1;
	}
	if (placement_scheduled(&h->place) && o->out != NULL &&
	    !o->device_given) {
		if ((*code = fleet_task(argv[0], o, h)) != 0)
			return 1;
	}
	return 0;
}

/*
 * slow.c - a window for a signal, wide and deterministic: LD_PRELOADed by
 * tests/faults.sh into the analysis, it makes one rename, or the exit of
 * the process, wait a while, after creating a file that says the wait
 * has begun (the test sends its signal then).
 *
 * EWB_SLOW_RENAME	a path: a rename() onto exactly it waits (a report's
 *			swap, a compare -o)
 * EWB_SLOW_EXIT	a word: exit() waits in a process with that word as
 *			one of its arguments (Python's exit, after the
 *			interpreter's finalization put the default signal
 *			dispositions back, before the C library's)
 * EWB_SLOW_MARK	the file created when the wait begins
 * EWB_SLOW_MS		how long it waits at most (default 3000)
 * EWB_SLOW_SENT	a file the test creates once it has sent its signal:
 *			the wait then ends as soon as the kernel has
 *			delivered it (no signal pending for the process),
 *			100 ms later; a signal still pending, blocked in
 *			every thread, waits out EWB_SLOW_MS
 *
 * Only calls through the dynamic symbols are seen.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SHIM	__attribute__((visibility("default")))

/* Sleeps ms milliseconds, signals or not. */
static void
sleep_ms(long ms)
{
	struct timespec	t;

	t.tv_sec = ms / 1000;
	t.tv_nsec = ms % 1000 * 1000000L;
	while (nanosleep(&t, &t) != 0)
		;
}

/* The start of a file of /proc into buf, NUL-terminated: its length, or
 * -1 where it cannot be read or is empty. */
static ssize_t
read_proc(const char *path, char *buf, size_t size)
{
	ssize_t	len;
	int	fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	return len;
}

/* Whether a signal is pending for the process (ShdPnd) or its main
 * thread (SigPnd) in /proc/self/status; 1 where that cannot be read. */
static int
signal_pending(void)
{
	char	buf[4096], *line;
	int	pending = 1;

	if (read_proc("/proc/self/status", buf, sizeof buf) < 0)
		return 1;
	for (line = buf; line != NULL; line = strchr(line, '\n')) {
		line += *line == '\n';
		if (strncmp(line, "SigPnd:", 7) == 0 ||
		    strncmp(line, "ShdPnd:", 7) == 0) {
			if (strtoull(line + 7, NULL, 16) != 0)
				return 1;
			pending = 0;
		}
	}
	return pending;
}

/* Creates EWB_SLOW_MARK, then waits EWB_SLOW_MS, or until the signal
 * EWB_SLOW_SENT says was sent has been delivered. */
static void
wait_here(void)
{
	const char	*mark = getenv("EWB_SLOW_MARK");
	const char	*ms = getenv("EWB_SLOW_MS");
	const char	*sent = getenv("EWB_SLOW_SENT");
	long		 left = ms != NULL ? atol(ms) : 3000;
	int		 fd;

	if (mark != NULL && (fd = open(mark, O_WRONLY | O_CREAT, 0644)) >= 0)
		close(fd);
	for (; left > 0; left -= 5) {
		if (sent != NULL && access(sent, F_OK) == 0 &&
		    !signal_pending()) {
			sleep_ms(100);
			return;
		}
		sleep_ms(5);
	}
}

SHIM int
rename(const char *from, const char *to)
{
	static int	(*real)(const char *, const char *);
	const char	*slow = getenv("EWB_SLOW_RENAME");

	if (real == NULL)
		real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT,
		    "rename");
	if (slow != NULL && to != NULL && strcmp(to, slow) == 0)
		wait_here();
	return real(from, to);
}

/* Whether one of this process's arguments is word. */
static int
has_argument(const char *word)
{
	char	buf[65536];
	ssize_t	len = read_proc("/proc/self/cmdline", buf, sizeof buf), i;

	if (len < 0)
		return 0;
	for (i = 0; i < len; i += (ssize_t)strlen(buf + i) + 1) {
		if (strcmp(buf + i, word) == 0)
			return 1;
	}
	return 0;
}

SHIM void
exit(int status)
{
	static void	(*real)(int);
	const char	*word = getenv("EWB_SLOW_EXIT");

	if (real == NULL)
		real = (void (*)(int))dlsym(RTLD_NEXT, "exit");
	if (word != NULL && *word != '\0' && has_argument(word))
		wait_here();
	real(status);
	_exit(status);		/* not reached */
}

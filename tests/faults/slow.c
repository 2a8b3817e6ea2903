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
 * EWB_SLOW_MS		how long it waits (default 3000)
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

/* Creates EWB_SLOW_MARK, then waits EWB_SLOW_MS (signals or not). */
static void
wait_here(void)
{
	const char	*mark = getenv("EWB_SLOW_MARK");
	const char	*ms = getenv("EWB_SLOW_MS");
	long		 left = ms != NULL ? atol(ms) : 3000;
	struct timespec	 t;
	int		 fd;

	if (mark != NULL && (fd = open(mark, O_WRONLY | O_CREAT, 0644)) >= 0)
		close(fd);
	t.tv_sec = left / 1000;
	t.tv_nsec = left % 1000 * 1000000L;
	while (nanosleep(&t, &t) != 0)
		;
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
	ssize_t	len, i;
	int	fd = open("/proc/self/cmdline", O_RDONLY);

	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
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

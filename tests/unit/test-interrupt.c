/*
 * test-interrupt.c - the first SIGINT (or SIGTERM) only asks a run to
 * stop after its point; a second one ends the process at once.
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/ewbench.h"
#include "check.h"

/* In a child: catch, then raise sig twice; returns how the child ended. */
static int
child_status(int first, int second)
{
	pid_t	pid = fork();
	int	status = 0;

	if (pid == 0) {
		interrupt_catch();
		raise(first);
		if (!interrupt_pending())
			_exit(3);
		raise(second);
		_exit(0);	/* still alive: the second was ignored */
	}
	waitpid(pid, &status, 0);
	return status;
}

int
main(void)
{
	int	status;

	status = child_status(SIGINT, SIGINT);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
	status = child_status(SIGTERM, SIGINT);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
	status = child_status(SIGINT, SIGTERM);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	return check_exit();
}

/*
 * disk-full.c - a full disk without root or a tmpfs: LD_PRELOADed by
 * tests/faults.sh (and tests/python), it lets writes into files under one
 * directory through until a byte budget is spent, then fails them with
 * ENOSPC, as a filling file system does: the write that crosses the
 * budget is cut short, every later one fails, and so do mkdir and
 * mkstemp's file creations there.
 *
 * EWB_FULL_DIR		the "disk": files whose path starts with it
 * EWB_FULL_AFTER	bytes it still takes (default 0)
 *
 * Only calls through the dynamic symbols are seen (write, mkdir, open with
 * O_CREAT, mkstemp): ewbench's own writes and Python's, not stdio's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHIM	__attribute__((visibility("default")))

static long long	left = -1;	/* -1: not read yet */

static const char *
disk(void)
{
	const char	*d = getenv("EWB_FULL_DIR");

	if (left < 0) {
		const char *after = getenv("EWB_FULL_AFTER");

		left = after != NULL ? atoll(after) : 0;
	}
	return d != NULL && *d != '\0' ? d : NULL;
}

static int
on_disk(const char *path)
{
	const char	*d = disk();

	return d != NULL && path != NULL && strncmp(path, d, strlen(d)) == 0;
}

static int
fd_on_disk(int fd)
{
	char	link[64], path[PATH_MAX];
	ssize_t	len;

	if (disk() == NULL)
		return 0;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if ((len = readlink(link, path, sizeof path - 1)) < 0)
		return 0;
	path[len] = '\0';
	return on_disk(path);
}

SHIM ssize_t
write(int fd, const void *buf, size_t count)
{
	static ssize_t	(*real)(int, const void *, size_t);

	if (real == NULL)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT,
		    "write");
	if (count > 0 && fd_on_disk(fd)) {
		if (left <= 0) {
			errno = ENOSPC;
			return -1;
		}
		if ((long long)count > left)
			count = (size_t)left;
		left -= (long long)count;
	}
	return real(fd, buf, count);
}

SHIM int
mkdir(const char *path, mode_t mode)
{
	static int	(*real)(const char *, mode_t);

	if (real == NULL)
		real = (int (*)(const char *, mode_t))dlsym(RTLD_NEXT, "mkdir");
	if (on_disk(path) && left <= 0 && access(path, F_OK) != 0) {
		errno = ENOSPC;
		return -1;
	}
	return real(path, mode);
}

/* A new file takes an inode and a block: refused once the disk is full. */
static int
creating(const char *path, int flags)
{
	return (flags & O_CREAT) && on_disk(path) && left <= 0 &&
	    access(path, F_OK) != 0;
}

SHIM int
open(const char *path, int flags, ...)
{
	static int	(*real)(const char *, int, ...);
	va_list		ap;
	mode_t		mode = 0;

	if (real == NULL)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT,
		    "open");
	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	if (creating(path, flags)) {
		errno = ENOSPC;
		return -1;
	}
	return real(path, flags, mode);
}

SHIM int
mkstemp(char *templ)
{
	static int	(*real)(char *);

	if (real == NULL)
		real = (int (*)(char *))dlsym(RTLD_NEXT, "mkstemp");
	if (on_disk(templ) && left <= 0) {
		errno = ENOSPC;
		return -1;
	}
	return real(templ);
}

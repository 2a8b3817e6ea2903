/*
 * test-durability.c - what reaches the disk before run.json says so:
 * csv_close fsyncs the CSV, file_write_atomic fsyncs the file and its
 * directory.  Linked with -Wl,--wrap=fsync: every fsync in
 * libewb.a lands in __wrap_fsync, which records what it was given.
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/ewbench.h"
#include "check.h"

int	__real_fsync(int);
int	__wrap_fsync(int);

static struct stat	synced[16];
static size_t		nsynced;

int
__wrap_fsync(int fd)
{
	if (nsynced < sizeof synced / sizeof synced[0] &&
	    fstat(fd, &synced[nsynced]) == 0)
		nsynced++;
	return __real_fsync(fd);
}

/* Was path (a file or a directory) fsync'd since the count was reset? */
static bool
was_synced(const char *path)
{
	struct stat	st;
	size_t		i;

	if (stat(path, &st) != 0)
		return false;
	for (i = 0; i < nsynced; i++) {
		if (synced[i].st_dev == st.st_dev &&
		    synced[i].st_ino == st.st_ino)
			return true;
	}
	return false;
}

int
main(void)
{
	static const char *const header[] = { "a", "b" };
	char		 dir[] = "/tmp/ewb-test-durability.XXXXXX";
	char		*path, *cause = NULL;
	struct csv	*csv;

	if (mkdtemp(dir) == NULL)
		return 1;
	path = xasprintf("%s/timing.csv", dir);
	csv = csv_open(path, header, 2, &cause);
	CHECK(csv != NULL);
	if (csv == NULL)
		return check_exit();
	csv_u64(csv, 1);
	csv_u64(csv, 2);
	CHECK(csv_end_row(csv, &cause) == 0);
	nsynced = 0;
	CHECK(csv_close(csv, &cause) == 0);
	CHECK(was_synced(path));
	unlink(path);
	free(path);

	/* The manifest: the file, then the directory holding the rename. */
	path = xasprintf("%s/run.json", dir);
	nsynced = 0;
	CHECK(file_write_atomic(path, "{}\n", 3, &cause) == 0);
	CHECK(was_synced(path));
	CHECK(was_synced(dir));
	unlink(path);
	free(path);
	CHECK(rmdir(dir) == 0);
	return check_exit();
}

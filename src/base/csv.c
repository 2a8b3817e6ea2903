/*
 * csv.c - RFC 4180 output, one complete row per write(2).
 *
 * A row is assembled in memory and appended with a single write on an
 * O_APPEND descriptor, so a run stopped between rows leaves whole rows
 * only; a write that fails part way (a full disk) is cut back to the last
 * whole row, so the file never ends in half a row.  Floats go through format_f64 (%.17g in a private "C" locale, see
 * util.c), so the output is the same in every locale.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ewbench.h"

struct csv {
	int	 fd;
	char	*path;
	size_t	 columns;
	size_t	 fields;	/* in the row being built */
	char	*row;
	size_t	 len;
	size_t	 size;
	off_t	 whole;		/* bytes of the header and complete rows */
};

static void
csv_append_bytes(struct csv *csv, const char *s, size_t len)
{
	if (csv->len + len + 1 > csv->size) {
		csv->size = (csv->len + len + 1) * 2;
		csv->row = xrealloc(csv->row, csv->size);
	}
	memcpy(csv->row + csv->len, s, len);
	csv->len += len;
}

/* Every field goes through here: the separator, then the text. */
static void
append_field(struct csv *csv, const char *s, size_t len)
{
	if (csv->fields++ != 0)
		csv_append_bytes(csv, ",", 1);
	csv_append_bytes(csv, s, len);
}

static int
write_row(struct csv *csv, char **cause)
{
	size_t	 done = 0;
	ssize_t	 written;

	csv_append_bytes(csv, "\n", 1);
	/* One write in practice; a short one is finished, not dropped. */
	while (done < csv->len) {
		written = write(csv->fd, csv->row + done, csv->len - done);
		if (written < 0 && errno == EINTR)
			continue;
		if (written < 0) {
			int saved = errno;

			/* Shrinking needs no space: the half row goes. */
			if (done > 0 && ftruncate(csv->fd, csv->whole) != 0)
				*cause = xasprintf("%s: write: %s (and the "
				    "half row stays: ftruncate: %s)",
				    csv->path, strerror(saved),
				    strerror(errno));
			else
				*cause = xasprintf("%s: write: %s", csv->path,
				    strerror(saved));
			csv->len = csv->fields = 0;
			return -1;
		}
		done += (size_t)written;
	}
	csv->whole += (off_t)done;
	csv->len = csv->fields = 0;
	return 0;
}

static void
csv_free(struct csv *csv)
{
	free(csv->path);
	free(csv->row);
	free(csv);
}

struct csv *
csv_open(const char *path, const char *const *header, size_t columns,
    char **cause)
{
	struct csv	*csv;
	size_t		 i;

	csv = xcalloc(1, sizeof *csv);
	csv->path = xstrdup(path);
	csv->columns = columns;
	csv->fd = open(path, O_WRONLY|O_CREAT|O_TRUNC|O_APPEND|O_CLOEXEC, 0666);
	if (csv->fd == -1) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		csv_free(csv);
		return NULL;
	}
	for (i = 0; i < columns; i++)
		csv_str(csv, header[i]);
	if (write_row(csv, cause) != 0) {
		close(csv->fd);
		csv_free(csv);
		return NULL;
	}
	return csv;
}

void
csv_str(struct csv *csv, const char *s)
{
	const char	*p;

	if (strpbrk(s, ",\"\r\n") == NULL) {
		append_field(csv, s, strlen(s));
		return;
	}
	append_field(csv, "\"", 1);
	for (p = s; *p != '\0'; p++) {
		if (*p == '"')
			csv_append_bytes(csv, "\"\"", 2);
		else
			csv_append_bytes(csv, p, 1);
	}
	csv_append_bytes(csv, "\"", 1);
}

/* A field of one integer as `format` writes it (never quoted). */
static void __attribute__((format(printf, 2, 3)))
append_integer(struct csv *csv, const char *format, ...)
{
	char	buf[32];
	va_list	ap;
	int	len;

	va_start(ap, format);
	len = vsnprintf(buf, sizeof buf, format, ap);
	va_end(ap);
	append_field(csv, buf, (size_t)len);
}

void
csv_u64(struct csv *csv, uint64_t v)
{
	append_integer(csv, "%" PRIu64, v);
}

void
csv_i64(struct csv *csv, int64_t v)
{
	append_integer(csv, "%" PRId64, v);
}

void
csv_f64(struct csv *csv, double v)
{
	char	buf[32];

	if (isnan(v)) {
		csv_empty(csv);
		return;
	}
	format_f64(v, buf, sizeof buf);
	append_field(csv, buf, strlen(buf));
}

void
csv_empty(struct csv *csv)
{
	append_field(csv, "", 0);
}

int
csv_end_row(struct csv *csv, char **cause)
{
	if (csv->fields != csv->columns) {
		*cause = xasprintf("%s: row has %zu fields, header has %zu",
		    csv->path, csv->fields, csv->columns);
		csv->len = csv->fields = 0;
		return -1;
	}
	return write_row(csv, cause);
}

/* Closes and frees in every case; an unfinished row is dropped. */
int
csv_close(struct csv *csv, char **cause)
{
	int	rc = 0;

	if (csv == NULL)
		return 0;
	if (csv->fields != 0) {
		*cause = xasprintf("%s: unfinished row of %zu fields dropped",
		    csv->path, csv->fields);
		rc = -1;
	}
	/* On disk before the manifest that follows says the run is whole. */
	if (fsync(csv->fd) != 0 && rc == 0) {
		*cause = xasprintf("%s: fsync: %s", csv->path, strerror(errno));
		rc = -1;
	}
	if (close(csv->fd) != 0 && rc == 0) {
		*cause = xasprintf("%s: close: %s", csv->path, strerror(errno));
		rc = -1;
	}
	csv_free(csv);
	return rc;
}

/*
 * json.c - a small JSON writer (two-space indent) and atomic file writes.
 *
 * Inside an object every value has a key; inside an array (and at the top
 * level) the key is NULL.  Misuse is a programming error and fatal.
 * Strings are escaped as RFC 8259 requires; bytes that are not valid UTF-8
 * become U+FFFD, so the output always parses.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/ewbench.h"

struct json_level {
	bool	 object;	/* else array */
	size_t	 items;
};

struct json {
	char			*buf;
	size_t			 len;
	size_t			 size;
	struct json_level	*levels;
	size_t			 depth;
	size_t			 top_items;
};

static void
append(struct json *j, const char *s, size_t len)
{
	if (j->len + len + 1 > j->size) {
		j->size = (j->len + len + 1) * 2;
		j->buf = xrealloc(j->buf, j->size);
	}
	memcpy(j->buf + j->len, s, len);
	j->len += len;
	j->buf[j->len] = '\0';
}

static void
append_str(struct json *j, const char *s)
{
	append(j, s, strlen(s));
}

static void
newline_indent(struct json *j, size_t depth)
{
	size_t	i;

	append(j, "\n", 1);
	for (i = 0; i < depth; i++)
		append(j, "  ", 2);
}

/*
 * Length of the valid UTF-8 sequence at s (1-4), or 0 if s does not start
 * one: no overlong forms, no surrogates, nothing above U+10FFFF.
 */
static size_t
utf8_sequence(const unsigned char *s)
{
	size_t		len, i;
	uint32_t	cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static void
append_string(struct json *j, const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	char			 esc[8];
	size_t			 len;

	append(j, "\"", 1);
	while (*p != '\0') {
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			append(j, esc, 2);
			p++;
		} else if (*p < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", *p);
			append(j, esc, 6);
			p++;
		} else if ((len = utf8_sequence(p)) == 0) {
			append_str(j, "\\ufffd");
			p++;
		} else {
			append(j, (const char *)p, len);
			p += len;
		}
	}
	append(j, "\"", 1);
}

/* Separator, indent and key before any value. */
static void
begin_value(struct json *j, const char *key)
{
	struct json_level	*level;

	if (j->depth == 0) {
		if (key != NULL || j->top_items++ != 0)
			fatalx("json: top level takes one value, no key");
		return;
	}
	level = &j->levels[j->depth - 1];
	if (level->object != (key != NULL))
		fatalx("json: %s", level->object ? "object member needs a key" :
		    "array element takes no key");
	if (level->items++ != 0)
		append(j, ",", 1);
	newline_indent(j, j->depth);
	if (key != NULL) {
		append_string(j, key);
		append(j, ": ", 2);
	}
}

/* A complete document ends with a newline. */
static void
end_value(struct json *j)
{
	if (j->depth == 0)
		append(j, "\n", 1);
}

static void
begin_container(struct json *j, const char *key, bool object)
{
	begin_value(j, key);
	append(j, object ? "{" : "[", 1);
	j->levels = xrealloc(j->levels, (j->depth + 1) * sizeof *j->levels);
	j->levels[j->depth].object = object;
	j->levels[j->depth].items = 0;
	j->depth++;
}

static void
end_container(struct json *j, bool object)
{
	struct json_level	*level;

	if (j->depth == 0 || j->levels[j->depth - 1].object != object)
		fatalx("json: unbalanced %s", object ? "object" : "array");
	level = &j->levels[--j->depth];
	if (level->items != 0)
		newline_indent(j, j->depth);
	append(j, object ? "}" : "]", 1);
	end_value(j);
}

struct json *
json_new(void)
{
	struct json	*j;

	j = xcalloc(1, sizeof *j);
	append(j, "", 0);
	return j;
}

void
json_begin_object(struct json *j, const char *key)
{
	begin_container(j, key, true);
}

void
json_end_object(struct json *j)
{
	end_container(j, true);
}

void
json_begin_array(struct json *j, const char *key)
{
	begin_container(j, key, false);
}

void
json_end_array(struct json *j)
{
	end_container(j, false);
}

static void
scalar(struct json *j, const char *key, const char *text)
{
	begin_value(j, key);
	append_str(j, text);
	end_value(j);
}

void
json_str(struct json *j, const char *key, const char *value)
{
	if (value == NULL) {
		json_null(j, key);
		return;
	}
	begin_value(j, key);
	append_string(j, value);
	end_value(j);
}

void
json_u64(struct json *j, const char *key, uint64_t v)
{
	char	buf[32];

	snprintf(buf, sizeof buf, "%" PRIu64, v);
	scalar(j, key, buf);
}

void
json_i64(struct json *j, const char *key, int64_t v)
{
	char	buf[32];

	snprintf(buf, sizeof buf, "%" PRId64, v);
	scalar(j, key, buf);
}

void
json_f64(struct json *j, const char *key, double v)
{
	char	buf[32];

	if (!isfinite(v)) {
		json_null(j, key);
		return;
	}
	format_f64(v, buf, sizeof buf);
	scalar(j, key, buf);
}

void
json_bool(struct json *j, const char *key, bool v)
{
	scalar(j, key, v ? "true" : "false");
}

void
json_null(struct json *j, const char *key)
{
	scalar(j, key, "null");
}

const char *
json_text(struct json *j)
{
	return j->buf;
}

void
json_free(struct json *j)
{
	if (j == NULL)
		return;
	free(j->buf);
	free(j->levels);
	free(j);
}

static int
write_all(int fd, const char *data, size_t len)
{
	ssize_t	written;

	while (len > 0) {
		written = write(fd, data, len);
		if (written < 0 && errno == EINTR)
			continue;
		if (written < 0)
			return -1;
		data += written;
		len -= (size_t)written;
	}
	return 0;
}

int
file_write_atomic(const char *path, const char *data, size_t len,
    char **cause)
{
	return file_write_atomic_mode(path, data, len, 0666, cause);
}

int
file_write_atomic_mode(const char *path, const char *data, size_t len,
    mode_t mode, char **cause)
{
	const char	*slash, *step;
	char		*temp, *dir;
	mode_t		 mask;
	int		 fd, saved, dirfd;

	/* The temporary file must be in the same directory for rename. */
	if ((slash = strrchr(path, '/')) == NULL) {
		dir = xstrdup(".");
		temp = xasprintf(".%s.XXXXXX", path);
	} else {
		dir = xasprintf("%.*s", slash == path ? 1 : (int)(slash - path),
		    path);
		temp = xasprintf("%.*s.%s.XXXXXX", (int)(slash - path + 1),
		    path, slash + 1);
	}

	step = "mkstemp";
	if ((fd = mkstemp(temp)) == -1)
		goto fail;
	/* mkstemp makes 0600; give the file mode & ~umask. */
	mask = umask(0);
	umask(mask);
	step = "fchmod";
	if (fchmod(fd, mode & ~mask) != 0)
		goto fail_unlink;
	step = "write";
	if (write_all(fd, data, len) != 0)
		goto fail_unlink;
	step = "fsync";
	if (fsync(fd) != 0)
		goto fail_unlink;
	step = "close";
	if (close(fd) != 0) {
		fd = -1;
		goto fail_unlink;
	}
	fd = -1;
	step = "rename";
	if (rename(temp, path) != 0)
		goto fail_unlink;

	/* Make the rename itself durable; best effort. */
	if ((dirfd = open(dir, O_RDONLY|O_CLOEXEC)) != -1) {
		fsync(dirfd);
		close(dirfd);
	}
	free(temp);
	free(dir);
	return 0;

fail_unlink:
	saved = errno;
	if (fd != -1)
		close(fd);
	unlink(temp);
	errno = saved;
fail:
	*cause = xasprintf("%s: %s: %s", path, step, strerror(errno));
	free(temp);
	free(dir);
	return -1;
}

/*
 * util.c - allocators that never fail, formatted strings, fatal errors,
 * locale-independent number formatting, and the interrupt flag.
 */
#define _POSIX_C_SOURCE 200809L

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

#include "base/ewbench.h"

void *
xmalloc(size_t size)
{
	void	*p;

	/* malloc(0) may return NULL; callers never want that. */
	if ((p = malloc(size == 0 ? 1 : size)) == NULL)
		fatalx("out of memory allocating %zu bytes", size);
	return p;
}

void *
xcalloc(size_t count, size_t size)
{
	void	*p;

	if (count == 0 || size == 0)
		count = size = 1;
	if ((p = calloc(count, size)) == NULL)
		fatalx("out of memory allocating %zu x %zu bytes", count, size);
	return p;
}

void *
xrealloc(void *old, size_t size)
{
	void	*p;

	if ((p = realloc(old, size == 0 ? 1 : size)) == NULL)
		fatalx("out of memory reallocating %zu bytes", size);
	return p;
}

char *
xstrdup(const char *s)
{
	char	*p;

	if ((p = strdup(s)) == NULL)
		fatalx("out of memory copying a string");
	return p;
}

char *
dup_or_null(const char *s)
{
	return s == NULL ? NULL : xstrdup(s);
}

char *
xasprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*s;
	int	 len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0)
		fatalx("bad format string '%s'", fmt);

	s = xmalloc((size_t)len + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	va_end(ap);
	return s;
}

void
strings_free(char **list, size_t count)
{
	while (count > 0)
		free(list[--count]);
	free(list);
}

void
say_cause(char *cause)
{
	fprintf(stderr, "ewbench: %s\n", cause);
	free(cause);
}

int
choice_parse(const char *text, const char *what,
    const struct choice *choices, int *value, char **cause)
{
	char	*list = NULL, *longer;
	size_t	 i;

	for (i = 0; choices[i].name != NULL; i++) {
		if (strcmp(text, choices[i].name) == 0) {
			*value = choices[i].value;
			return 0;
		}
	}
	for (i = 0; choices[i].name != NULL; i++) {
		longer = xasprintf("%s%s%s", list != NULL ? list : "",
		    i == 0 ? "" : choices[i + 1].name == NULL ? " or " : ", ",
		    choices[i].name);
		free(list);
		list = longer;
	}
	*cause = xasprintf("%s: '%s' is not %s", what,
	    shown(text, SHOWN_MOST), list);
	free(list);
	return -1;
}

const char *
shown(const char *text, size_t most)
{
	static char	 slots[SHOWN_SLOTS][4 * SHOWN_MOST + 64];
	static unsigned	 next;
	char		*out = slots[next++ % SHOWN_SLOTS], *p = out;
	size_t		 len = strlen(text), i;

	if (most > SHOWN_MOST)
		most = SHOWN_MOST;
	for (i = 0; i < len && i < most; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c >= 0x20 && c < 0x7f)
			*p++ = (char)c;
		else
			p += sprintf(p, "\\x%02x", c);
	}
	if (len > most)
		sprintf(p, "... (%zu bytes)", len);
	else
		*p = '\0';
	return out;
}

void
fatalx(const char *fmt, ...)
{
	va_list	ap;

	fflush(stdout);
	fputs("ewbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EWB_EXIT_ERROR);
}

/*
 * Output files must not depend on the user's locale (a German LC_NUMERIC
 * would print "0,5" and break every CSV).  Rather than touching the
 * process-wide locale, switch this thread to a private "C" numeric locale
 * around the one snprintf call (POSIX.1-2008 uselocale).
 */
void
format_f64(double v, char *buf, size_t len)
{
	static locale_t	 c_numeric = (locale_t)0;
	locale_t	 old;

	if (c_numeric == (locale_t)0) {
		c_numeric = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
		if (c_numeric == (locale_t)0)
			fatalx("newlocale(C): %s", strerror(errno));
	}
	old = uselocale(c_numeric);
	snprintf(buf, len, "%.17g", v);
	uselocale(old);
}

static volatile sig_atomic_t	interrupt_seen;

/* The signals that end a run early, keeping its complete rows. */
static const int interrupt_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void
set_handler(int sig, void (*handler)(int))
{
	struct sigaction	sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigaction(sig, &sa, NULL);
}

/* The first SIGINT, SIGTERM or SIGHUP asks the run to stop after its
 * point; the handler then steps aside, so a second one ends the process at
 * once.  SIGPIPE (stdout closed: `ewbench run | head`) asks the same, and
 * later ones are ignored: every later line to stdout would raise one. */
static void
interrupt_handler(int sig)
{
	size_t	i;

	interrupt_seen = 1;
	for (i = 0; i < sizeof interrupt_signals / sizeof *interrupt_signals;
	    i++)
		set_handler(interrupt_signals[i], SIG_DFL);
	set_handler(SIGPIPE, SIG_IGN);
	(void)sig;
}

void
interrupt_catch(void)
{
	size_t	i;

	for (i = 0; i < sizeof interrupt_signals / sizeof *interrupt_signals;
	    i++)
		set_handler(interrupt_signals[i], interrupt_handler);
	set_handler(SIGPIPE, interrupt_handler);
}

bool
interrupt_pending(void)
{
	return interrupt_seen != 0;
}

double
monotonic_seconds(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
read_user_file(const char *path, size_t max_bytes, char **text, size_t *len,
    char **cause)
{
	return read_user_file_id(path, max_bytes, text, len, NULL, cause);
}

void
list_append(char **list, const char *sep, const char *item)
{
	char	*next;

	next = *list == NULL ? xstrdup(item) :
	    xasprintf("%s%s%s", *list, sep, item);
	free(*list);
	*list = next;
}

int
make_dirs(const char *dir, mode_t mode, char **top, char **failed)
{
	char	*path = xstrdup(dir), *s;
	int	 error;

	if (top != NULL)
		*top = NULL;
	for (s = path + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char saved = *s;
		*s = '\0';
		if (mkdir(path, mode) == 0) {
			if (top != NULL && *top == NULL)
				*top = xstrdup(path);
		} else if (errno != EEXIST) {
			error = errno;
			if (failed != NULL)
				*failed = path;
			else
				free(path);
			errno = error;
			return -1;
		}
		*s = saved;
		if (saved == '\0')
			break;
	}
	free(path);
	return 0;
}

/* $XDG_CACHE_HOME/ewbench, else ~/.cache/ewbench; NULL with neither. */
static char *
cache_root(void)
{
	const char	*xdg = getenv("XDG_CACHE_HOME"), *home;

	if (xdg != NULL && *xdg == '/')
		return xasprintf("%s/ewbench", xdg);
	if ((home = getenv("HOME")) != NULL && *home == '/')
		return xasprintf("%s/.cache/ewbench", home);
	return NULL;
}

char *
private_cache_dir(char **why)
{
	struct stat	 st;
	char		*dir = cache_root();

	*why = NULL;
	if (dir == NULL)
		return NULL;
	if (make_dirs(dir, 0700, NULL, NULL) != 0)
		*why = xasprintf("cannot be made: %s", strerror(errno));
	else if (lstat(dir, &st) != 0)
		*why = xstrdup(strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		*why = xstrdup("not a directory");
	else if (st.st_uid != geteuid())
		*why = xasprintf("owned by uid %u, not by you (uid %u)",
		    (unsigned)st.st_uid, (unsigned)geteuid());
	else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		*why = xasprintf("writable by others (mode %03o; chmod 700 %s)",
		    (unsigned)(st.st_mode & 0777), dir);
	if (*why == NULL)
		return dir;
	{
		char *named = xasprintf("%s: %s", dir, *why);

		free(*why);
		*why = named;
	}
	free(dir);
	return NULL;
}

int
read_user_file_id(const char *path, size_t max_bytes, char **text,
    size_t *len, struct stat *id, char **cause)
{
	struct stat	 st;
	ssize_t		 got;
	size_t		 have = 0;
	int		 fd, flags, saved;

	*text = NULL;
	/* O_NONBLOCK: a FIFO (or a device) opens at once, to be refused. */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) != 0) {
		saved = errno;
		*cause = xasprintf("%s: %s", path, strerror(saved));
		if (fd != -1)
			close(fd);
		errno = saved;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*cause = xasprintf("%s: not a regular file (%s)", path,
		    S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ?
		    "a directory" : S_ISSOCK(st.st_mode) ? "a socket" :
		    "a device");
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if ((uintmax_t)st.st_size > max_bytes) {
		*cause = xasprintf("%s: %jd bytes, more than the %zu this file "
		    "may have", path, (intmax_t)st.st_size, max_bytes);
		close(fd);
		errno = EFBIG;
		return -1;
	}
	if (id != NULL) {
		id->st_dev = st.st_dev;
		id->st_ino = st.st_ino;
	}
	if ((flags = fcntl(fd, F_GETFL)) != -1)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	*text = xmalloc((size_t)st.st_size + 1);
	while (have < (size_t)st.st_size &&
	    (got = read(fd, *text + have, (size_t)st.st_size - have)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			saved = errno;
			*cause = xasprintf("%s: %s", path, strerror(saved));
			close(fd);
			free(*text);
			*text = NULL;
			errno = saved;
			return -1;
		}
		have += (size_t)got;
	}
	close(fd);
	(*text)[have] = '\0';
	*len = have;
	return 0;
}

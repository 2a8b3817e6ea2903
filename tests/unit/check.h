/*
 * check.h - the unit tests' assertions.  A failed CHECK prints where and
 * what, counts, and lets the test go on; check_exit() is the exit status.
 * Also the few helpers more than one test needs.
 */
#ifndef EWB_CHECK_H
#define EWB_CHECK_H

#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int	check_failures;

#define CHECK(expr) do {						\
	if (!(expr)) {							\
		fprintf(stderr, "%s:%d: CHECK failed: %s\n",		\
		    __FILE__, __LINE__, #expr);				\
		check_failures++;					\
	}								\
} while (0)

/* Strings compared with both shown on failure; NULL is a string here. */
#define CHECK_STR(got, want) do {					\
	const char *check_got_ = (got), *check_want_ = (want);		\
	if (check_got_ == NULL || check_want_ == NULL ?			\
	    check_got_ != check_want_ :					\
	    strcmp(check_got_, check_want_) != 0) {			\
		fprintf(stderr, "%s:%d: CHECK failed: %s == %s\n"	\
		    "  got:  %s\n  want: %s\n", __FILE__, __LINE__,	\
		    #got, #want, check_got_ ? check_got_ : "(null)",	\
		    check_want_ ? check_want_ : "(null)");		\
		check_failures++;					\
	}								\
} while (0)

static inline int
check_exit(void)
{
	if (check_failures != 0) {
		fprintf(stderr, "%d check(s) failed\n", check_failures);
		return 1;
	}
	return 0;
}

/*
 * Switch to a locale whose decimal point is a comma, if one is installed
 * (glibc also looks in $LOCPATH); false, and the C locale, if none is.
 */
static inline bool
check_comma_locale(void)
{
	static const char *const names[] = {
		"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8",
		"fr_FR.utf8", "nl_NL.UTF-8", "ru_RU.UTF-8",
	};
	char	buf[16];
	size_t	i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (setlocale(LC_ALL, names[i]) == NULL)
			continue;
		snprintf(buf, sizeof buf, "%.1f", 0.5);
		if (strcmp(buf, "0,5") == 0)
			return true;
	}
	setlocale(LC_ALL, "C");
	return false;
}

/* j: a new JSON document of one object, that write(what, j) fills, as
 * run.json's writers are called; json_free() it. */
#define JSON_OBJECT(j, write, what) do {				\
	(j) = json_new();						\
	json_begin_object((j), NULL);					\
	write((what), (j));						\
	json_end_object(j);						\
} while (0)

/* f32 bits of x. */
static inline uint32_t
f32_bits(float x)
{
	uint32_t	u;

	memcpy(&u, &x, sizeof u);
	return u;
}

/* A small file's text (the first 64 KiB), or "(unreadable)"; free it. */
static inline char *
check_slurp(const char *path)
{
	FILE	*f;
	char	*buf;
	size_t	 len;

	if ((buf = calloc(1, 65536)) == NULL)
		abort();
	if ((f = fopen(path, "r")) == NULL)
		return strcpy(buf, "(unreadable)");
	len = fread(buf, 1, 65535, f);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

#endif

/*
 * sizes.c - element counts on the command line and for humans.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"

#define SIZE_FORMS "sizes are digits with an optional suffix K M G T " \
	"(powers of 1000) or Ki Mi Gi Ti (powers of 1024), or 2^N; " \
	"e.g. 1M, 16Mi, 2^24, 268435456"

struct suffix {
	const char	*name;
	uint64_t	 factor;
};

/* Biggest first within each family: size_format wants the biggest. */
static const struct suffix binary_suffixes[] = {
	{ "Ti", 1ULL << 40 }, { "Gi", 1ULL << 30 },
	{ "Mi", 1ULL << 20 }, { "Ki", 1ULL << 10 },
};
static const struct suffix decimal_suffixes[] = {
	{ "T", 1000000000000ULL }, { "G", 1000000000ULL },
	{ "M", 1000000ULL }, { "K", 1000ULL },
};
#define NSUFFIXES (sizeof binary_suffixes / sizeof binary_suffixes[0])

static int
size_error(const char *token, size_t len, const char *why, char **cause)
{
	if (cause != NULL)
		*cause = xasprintf("invalid size '%.*s' (%s); %s", (int)len,
		    token, why, SIZE_FORMS);
	return -1;
}

/*
 * The leading decimal digits of s[0..len) into *value and their count into
 * *used.  Returns -1 on overflow.
 */
static int
parse_digits(const char *s, size_t len, uint64_t *value, size_t *used)
{
	uint64_t	v = 0, digit;
	size_t		i;

	for (i = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		digit = (uint64_t)(s[i] - '0');
		if (v > (UINT64_MAX - digit) / 10)
			return -1;
		v = v * 10 + digit;
	}
	*value = v;
	*used = i;
	return 0;
}

static const struct suffix *
find_suffix(const char *s, size_t len)
{
	size_t	i;

	for (i = 0; i < NSUFFIXES; i++) {
		if (strlen(binary_suffixes[i].name) == len &&
		    memcmp(binary_suffixes[i].name, s, len) == 0)
			return &binary_suffixes[i];
		if (strlen(decimal_suffixes[i].name) == len &&
		    memcmp(decimal_suffixes[i].name, s, len) == 0)
			return &decimal_suffixes[i];
	}
	return NULL;
}

/* One size spelled in token[0..len), not NUL-terminated. */
static int
parse_token(const char *token, size_t len, uint64_t *n, char **cause)
{
	const struct suffix	*suffix;
	uint64_t		 value;
	size_t			 used;

	if (len == 0)
		return size_error(token, len, "empty", cause);

	if (len >= 2 && token[0] == '2' && token[1] == '^') {
		if (parse_digits(token + 2, len - 2, &value, &used) != 0)
			return size_error(token, len, "above 2^64-1", cause);
		if (used == 0 || used != len - 2)
			return size_error(token, len, "not a number", cause);
		if (value > 63)
			return size_error(token, len, "above 2^64-1", cause);
		*n = 1ULL << value;
		return 0;
	}

	if (parse_digits(token, len, &value, &used) != 0)
		return size_error(token, len, "above 2^64-1", cause);
	if (used == 0)
		return size_error(token, len, "not a number", cause);
	if (used != len) {
		if ((suffix = find_suffix(token + used, len - used)) == NULL)
			return size_error(token, len, "unknown suffix", cause);
		if (value > UINT64_MAX / suffix->factor)
			return size_error(token, len, "above 2^64-1", cause);
		value *= suffix->factor;
	}
	if (value == 0)
		return size_error(token, len, "must be at least 1", cause);
	*n = value;
	return 0;
}

static void
trim(const char **s, size_t *len)
{
	while (*len > 0 && (**s == ' ' || **s == '\t')) {
		(*s)++;
		(*len)--;
	}
	while (*len > 0 && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t'))
		(*len)--;
}

int
size_parse_one(const char *text, uint64_t *n, char **cause)
{
	const char	*s = text;
	size_t		 len = strlen(text);

	trim(&s, &len);
	return parse_token(s, len, n, cause);
}

int
sizes_parse(const char *text, uint64_t **sizes, size_t *count, char **cause)
{
	const char	*token, *comma;
	uint64_t	*list = NULL;
	size_t		 used = 0, len;

	token = text;
	for (;;) {
		comma = strchr(token, ',');
		len = comma != NULL ? (size_t)(comma - token) : strlen(token);
		trim(&token, &len);
		list = xrealloc(list, (used + 1) * sizeof *list);
		if (parse_token(token, len, &list[used], cause) != 0) {
			free(list);
			return -1;
		}
		used++;
		if (comma == NULL)
			break;
		token = comma + 1;
	}
	*sizes = list;
	*count = used;
	return 0;
}

/* n as mantissa and the biggest suffix of the family that divides it. */
static void
format_family(uint64_t n, const struct suffix *family, char *buf, size_t len)
{
	size_t	i;

	for (i = 0; i < NSUFFIXES; i++) {
		if (n % family[i].factor == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", n / family[i].factor,
			    family[i].name);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, n);
}

void
size_format(uint64_t n, char *buf, size_t len)
{
	char	binary[32], decimal[32], plain[32];

	if (n == 0) {
		snprintf(buf, len, "0");
		return;
	}
	format_family(n, binary_suffixes, binary, sizeof binary);
	format_family(n, decimal_suffixes, decimal, sizeof decimal);
	snprintf(plain, sizeof plain, "%" PRIu64, n);

	/* Shortest wins; on a tie binary, then decimal, then plain digits. */
	if (strlen(binary) <= strlen(decimal) && strlen(binary) <= strlen(plain))
		snprintf(buf, len, "%s", binary);
	else if (strlen(decimal) <= strlen(plain))
		snprintf(buf, len, "%s", decimal);
	else
		snprintf(buf, len, "%s", plain);
}

void
bytes_format(double bytes, char *buf, size_t len)
{
	static const char *const units[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"
	};
	const size_t	 nunits = sizeof units / sizeof units[0];
	size_t		 unit = 0;
	double		 v = bytes;

	if (!(v >= 0 && v < 1e300)) {	/* negative, NaN or infinite */
		snprintf(buf, len, "%g B", v);
		return;
	}
	if (v < 1023.5) {
		snprintf(buf, len, "%.0f B", v);
		return;
	}
	/* Move up before rounding would print "1024.0 KiB". */
	do {
		v /= 1024;
		unit++;
	} while (v >= 1023.95 && unit + 1 < nunits);
	snprintf(buf, len, "%.1f %s", v, units[unit]);
}

static int
compare_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

void
sizes_sort_unique(uint64_t *sizes, size_t *count)
{
	size_t	i, j;

	if (*count < 2)
		return;		/* sorted and unique; sizes may be NULL */
	qsort(sizes, *count, sizeof *sizes, compare_u64);
	for (i = j = 0; i < *count; i++) {
		if (j == 0 || sizes[j - 1] != sizes[i])
			sizes[j++] = sizes[i];
	}
	*count = j;
}

int
uint_list_parse(const char *text, const char *what, unsigned min,
    unsigned max, unsigned **values, size_t *count, char **cause)
{
	char			*copy = xstrdup(text), *word, *next, *end;
	unsigned		*list = NULL;
	unsigned long long	 v;
	size_t			 used = 0, i;

	for (word = copy; word != NULL; word = next) {
		if ((next = strchr(word, ',')) != NULL)
			*next++ = '\0';
		errno = 0;
		v = *word >= '0' && *word <= '9' ? strtoull(word, &end, 10) : 0;
		if (*word == '\0' || !(*word >= '0' && *word <= '9') ||
		    errno != 0 || *end != '\0' || v < min || v > max) {
			*cause = *word == '\0' ?
			    xasprintf("%s: empty item in '%s'", what,
			    shown(text, SHOWN_MOST)) :
			    xasprintf("%s: '%s' is not a whole number from %u "
			    "to %u", what, shown(word, SHOWN_MOST), min, max);
			free(list);
			free(copy);
			return -1;
		}
		for (i = 0; i < used && list[i] != v; i++)
			;
		if (i < used)
			continue;	/* listed already: once, first place */
		list = xrealloc(list, (used + 1) * sizeof *list);
		list[used++] = (unsigned)v;
	}
	free(copy);
	*values = list;
	*count = used;
	return 0;
}

const char *
block_text(unsigned block, char *buf)
{
	if (block == 0)
		return "auto";
	snprintf(buf, 16, "%u", block);
	return buf;
}

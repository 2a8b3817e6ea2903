/* test-sizes.c - size parsing, size_format and bytes_format. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"
#include "check.h"

static const struct {
	const char	*text;
	uint64_t	 value;		/* 0: must be refused */
} one_cases[] = {
	{ "1", 1 },
	{ "268435456", 268435456 },
	{ "007", 7 },
	{ "1K", 1000 },
	{ "1M", 1000000 },
	{ "3G", 3000000000ULL },
	{ "2T", 2000000000000ULL },
	{ "1Ki", 1024 },
	{ "16Mi", 1ULL << 24 },
	{ "1Gi", 1ULL << 30 },
	{ "1Ti", 1ULL << 40 },
	{ "16777215Ti", 16777215ULL << 40 },
	{ "2^0", 1 },
	{ "2^24", 1ULL << 24 },
	{ "2^63", 1ULL << 63 },
	{ "18446744073709551615", UINT64_MAX },
	{ " 1M\t", 1000000 },

	{ "", 0 },
	{ " ", 0 },
	{ "0", 0 },
	{ "0Mi", 0 },
	{ "2^", 0 },
	{ "-1", 0 },
	{ "+1", 0 },
	{ "12x", 0 },
	{ "1.5M", 0 },
	{ "Mi", 0 },
	{ "2^64", 0 },
	{ "2^-1", 0 },
	{ "2^4Ki", 0 },
	{ "2^99999999999999999999", 0 },
	{ "18446744073709551616", 0 },
	{ "99999999999999999999999", 0 },
	{ "16777216Ti", 0 },
	{ "18446744073709551615K", 0 },
	{ "1m", 0 },
	{ "1ki", 0 },
	{ "1KiB", 0 },
	{ "1 M", 0 },
	{ "0x10", 0 },
	{ "1M,2M", 0 },		/* a list is not one size */
};

static void
test_one(void)
{
	size_t		 i;
	uint64_t	 n;
	char		*cause, *quoted;
	int		 rc;

	for (i = 0; i < sizeof one_cases / sizeof one_cases[0]; i++) {
		n = 12345;
		cause = NULL;
		rc = size_parse_one(one_cases[i].text, &n, &cause);
		if (one_cases[i].value != 0) {
			if (rc != 0 || n != one_cases[i].value)
				fprintf(stderr, "case '%s'\n",
				    one_cases[i].text);
			CHECK(rc == 0);
			CHECK(n == one_cases[i].value);
			CHECK(cause == NULL);
			continue;
		}
		if (rc != -1)
			fprintf(stderr, "case '%s' accepted\n",
			    one_cases[i].text);
		CHECK(rc == -1);
		CHECK(n == 12345);		/* untouched on failure */
		CHECK(cause != NULL);
		if (cause == NULL)
			continue;
		/* The cause names the token and the accepted forms. */
		quoted = xasprintf("'%s'", one_cases[i].text);
		if (strchr(one_cases[i].text, ' ') == NULL &&
		    strchr(one_cases[i].text, '\t') == NULL)
			CHECK(strstr(cause, quoted) != NULL);
		CHECK(strstr(cause, "16Mi") != NULL);
		CHECK(strstr(cause, "2^N") != NULL);
		free(quoted);
		free(cause);
	}
}

static void
test_lists(void)
{
	uint64_t	*sizes = NULL;
	size_t		 count = 0;
	char		*cause = NULL;

	CHECK(sizes_parse("1Mi,16Mi", &sizes, &count, &cause) == 0);
	CHECK(count == 2);
	if (count == 2)
		CHECK(sizes[0] == 1ULL << 20 && sizes[1] == 1ULL << 24);
	free(sizes);

	CHECK(sizes_parse("1M, 2^4 ,7", &sizes, &count, &cause) == 0);
	CHECK(count == 3);
	if (count == 3)
		CHECK(sizes[0] == 1000000 && sizes[1] == 16 && sizes[2] == 7);
	free(sizes);

	CHECK(sizes_parse("42", &sizes, &count, &cause) == 0);
	CHECK(count == 1 && sizes[0] == 42);
	free(sizes);

	/* Each refused list names the bad element. */
	sizes = NULL;
	CHECK(sizes_parse("1M,bad,2M", &sizes, &count, &cause) == -1);
	CHECK(sizes == NULL);
	CHECK(cause != NULL && strstr(cause, "'bad'") != NULL);
	free(cause);
	CHECK(sizes_parse("1M,,2M", &sizes, &count, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "empty") != NULL);
	free(cause);
	CHECK(sizes_parse("1M,", &sizes, &count, &cause) == -1);
	free(cause);
	CHECK(sizes_parse(",1M", &sizes, &count, &cause) == -1);
	free(cause);
	CHECK(sizes_parse("", &sizes, &count, &cause) == -1);
	free(cause);
	CHECK(sizes_parse("1Mi,0", &sizes, &count, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "'0'") != NULL);
	free(cause);
}

static const struct {
	uint64_t	 n;
	const char	*text;
} format_cases[] = {
	{ 1, "1" },
	{ 7, "7" },
	{ 1000, "1K" },
	{ 1024, "1Ki" },
	{ 1536, "1536" },
	{ 12288, "12Ki" },
	{ 1000000, "1M" },
	{ 1000003, "1000003" },
	{ 1ULL << 24, "16Mi" },
	{ 1ULL << 28, "256Mi" },
	{ 2048000, "2048K" },		/* shorter than 2000Ki */
	{ 1024000, "1024K" },		/* shorter than 1000Ki */
	{ 100352000, "98000Ki" },	/* tie with 100352K: binary wins */
	{ 3000000000ULL, "3G" },
	{ 1ULL << 40, "1Ti" },
	{ 5000000000000ULL, "5T" },
	{ 1ULL << 63, "8388608Ti" },
	{ UINT64_MAX, "18446744073709551615" },
};

static void
test_format(void)
{
	char		 buf[32], digits[32], *cause;
	uint64_t	 n, back, samples[200];
	size_t		 i, count = 0, k;

	for (i = 0; i < sizeof format_cases / sizeof format_cases[0]; i++) {
		size_format(format_cases[i].n, buf, sizeof buf);
		CHECK_STR(buf, format_cases[i].text);
	}

	/* Round trip, never longer than plain digits. */
	for (k = 0; k < 64; k++)
		samples[count++] = 1ULL << k;
	for (k = 1; k < 20; k++)
		samples[count++] = k * 1000 * 1000;
	for (k = 1; k < 60; k++)
		samples[count++] = (k * 0x9e3779b97f4a7c15ULL) >> (k % 40);
	for (i = 0; i < count; i++) {
		n = samples[i] == 0 ? 1 : samples[i];
		size_format(n, buf, sizeof buf);
		cause = NULL;
		CHECK(size_parse_one(buf, &back, &cause) == 0);
		CHECK(back == n);
		free(cause);
		snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
		CHECK(strlen(buf) <= strlen(digits));
	}
}

static void
test_bytes(void)
{
	static const struct {
		double		 bytes;
		const char	*text;
	} cases[] = {
		{ 0, "0 B" },
		{ 512, "512 B" },
		{ 1023, "1023 B" },
		{ 1023.7, "1.0 KiB" },
		{ 1024, "1.0 KiB" },
		{ 1536, "1.5 KiB" },
		{ 12.0 * 1048576, "12.0 MiB" },
		{ 1048575, "1.0 MiB" },
		{ 1.5 * 1073741824, "1.5 GiB" },
		{ 3.0 * 1099511627776, "3.0 TiB" },
	};
	char	buf[32];
	size_t	i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bytes_format(cases[i].bytes, buf, sizeof buf);
		CHECK_STR(buf, cases[i].text);
	}
}

/* Block lists: repeats kept once at their first place, empty items and
 * out-of-range or malformed numbers refused with the option's name. */
static void
test_uint_lists(void)
{
	static const char *const bad[] = { "", ",", "64,,128", "64,", ",64",
	    "0", "1025", "x", "-1", " 32", "32 ", "1e2", "99999999999999999999" };
	unsigned	*v = NULL;
	size_t		 n = 0, i;
	char		*cause = NULL;

	CHECK(uint_list_parse("64,32,64,1024,32", "--block", 1, 1024, &v, &n,
	    &cause) == 0);
	CHECK(n == 3 && v[0] == 64 && v[1] == 32 && v[2] == 1024);
	free(v);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		CHECK(uint_list_parse(bad[i], "--block", 1, 1024, &v, &n,
		    &cause) == -1);
		CHECK(cause != NULL && strncmp(cause, "--block: ", 9) == 0);
		free(cause);
	}
}

int
main(void)
{
	test_uint_lists();
	test_one();
	test_lists();
	test_format();
	test_bytes();
	return check_exit();
}

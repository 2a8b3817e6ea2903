/*
 * test-json.c - the JSON writer's exact output and escaping, and atomic
 * file replacement.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/ewbench.h"
#include "check.h"

static char	dir[] = "/tmp/ewb-test-json.XXXXXX";

static const char document[] =
	"{\n"
	"  \"schema_version\": 1,\n"
	"  \"status\": \"complete\",\n"
	"  \"argv\": [\n"
	"    \"ewbench\",\n"
	"    \"--sizes=1M,2^24\"\n"
	"  ],\n"
	"  \"numbers\": [\n"
	"    18446744073709551615,\n"
	"    -9223372036854775808,\n"
	"    0.10000000000000001,\n"
	"    3352320000000,\n"
	"    9.9999999999999995e-08,\n"
	"    2.5,\n"
	"    -0,\n"
	"    null,\n"
	"    null,\n"
	"    null\n"
	"  ],\n"
	"  \"device\": {\n"
	"    \"name\": \"NVIDIA H100 80GB HBM3\",\n"
	"    \"ok\": true,\n"
	"    \"bad\": false,\n"
	"    \"uuid\": null,\n"
	"    \"nested\": [\n"
	"      {\n"
	"        \"a\": []\n"
	"      },\n"
	"      {}\n"
	"    ]\n"
	"  },\n"
	"  \"empty\": {},\n"
	"  \"reason\": null\n"
	"}\n";

static char *
build(void)
{
	struct json	*j;
	char		*text;

	j = json_new();
	json_begin_object(j, NULL);
	json_u64(j, "schema_version", 1);
	json_str(j, "status", "complete");
	json_begin_array(j, "argv");
	json_str(j, NULL, "ewbench");
	json_str(j, NULL, "--sizes=1M,2^24");
	json_end_array(j);
	json_begin_array(j, "numbers");
	json_u64(j, NULL, UINT64_MAX);
	json_i64(j, NULL, INT64_MIN);
	json_f64(j, NULL, 0.1);
	json_f64(j, NULL, 3.35232e12);
	json_f64(j, NULL, 1e-7);
	json_f64(j, NULL, 2.5);
	json_f64(j, NULL, -0.0);
	json_f64(j, NULL, NAN);
	json_f64(j, NULL, INFINITY);
	json_f64(j, NULL, -INFINITY);
	json_end_array(j);
	json_begin_object(j, "device");
	json_str(j, "name", "NVIDIA H100 80GB HBM3");
	json_bool(j, "ok", true);
	json_bool(j, "bad", false);
	json_null(j, "uuid");
	json_begin_array(j, "nested");
	json_begin_object(j, NULL);
	json_begin_array(j, "a");
	json_end_array(j);
	json_end_object(j);
	json_begin_object(j, NULL);
	json_end_object(j);
	json_end_array(j);
	json_end_object(j);
	json_begin_object(j, "empty");
	json_end_object(j);
	json_str(j, "reason", NULL);
	json_end_object(j);
	text = xstrdup(json_text(j));
	json_free(j);
	return text;
}

/* One string value as a whole document, to check escaping alone. */
static char *
escaped(const char *s)
{
	struct json	*j;
	char		*text;

	j = json_new();
	json_str(j, NULL, s);
	text = xstrdup(json_text(j));
	json_free(j);
	return text;
}

static void
test_escaping(void)
{
	static const struct {
		const char	*in;
		const char	*out;
	} cases[] = {
		{ "", "\"\"\n" },
		{ "plain", "\"plain\"\n" },
		{ "q\"b\\s/", "\"q\\\"b\\\\s/\"\n" },
		{ "\n\t\r\x01\x1f", "\"\\u000a\\u0009\\u000d\\u0001\\u001f\"\n" },
		{ "\x7f", "\"\x7f\"\n" },
		/* Valid UTF-8 passes through. */
		{ "\xc2\xb5s \xe6\x97\xa5 \xf0\x9f\x98\x80",
		  "\"\xc2\xb5s \xe6\x97\xa5 \xf0\x9f\x98\x80\"\n" },
		/* Invalid: stray byte, cut sequence, overlong, surrogate,
		 * beyond U+10FFFF. */
		{ "a\xff" "b", "\"a\\ufffdb\"\n" },
		{ "\xe2\x82", "\"\\ufffd\\ufffd\"\n" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"\n" },
		{ "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"\n" },
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"\n" },
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"\n" },
		{ "\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"\n" },
	};
	char	*got;
	size_t	 i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		got = escaped(cases[i].in);
		CHECK_STR(got, cases[i].out);
		free(got);
	}

	/* Keys are escaped the same way. */
	{
		struct json	*j = json_new();

		json_begin_object(j, NULL);
		json_u64(j, "a\"b", 1);
		json_end_object(j);
		CHECK_STR(json_text(j), "{\n  \"a\\\"b\": 1\n}\n");
		json_free(j);
	}
}

static size_t
entries(const char *path)
{
	DIR		*d;
	struct dirent	*e;
	size_t		 count = 0;

	if ((d = opendir(path)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		count += strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0;
	closedir(d);
	return count;
}

static void
test_atomic(void)
{
	char		*path, *sub, *cause = NULL, *text;
	struct stat	 st;

	path = xasprintf("%s/run.json", dir);
	umask(022);
	CHECK(file_write_atomic(path, "{\"a\": 1}\n", 9, &cause) == 0);
	text = check_slurp(path);
	CHECK_STR(text, "{\"a\": 1}\n");
	free(text);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);

	/* Replacing leaves the new contents and no temporary file. */
	CHECK(file_write_atomic(path, "{}\n", 3, &cause) == 0);
	text = check_slurp(path);
	CHECK_STR(text, "{}\n");
	free(text);
	CHECK(entries(dir) == 1);

	/* A relative path works (temporary file in "."). */
	CHECK(chdir(dir) == 0);
	CHECK(file_write_atomic("rel.json", "1\n", 2, &cause) == 0);
	text = check_slurp("rel.json");
	CHECK_STR(text, "1\n");
	free(text);
	CHECK(unlink("rel.json") == 0);
	CHECK(chdir("/") == 0);

	/* A failed rename (over a directory) leaves nothing behind. */
	sub = xasprintf("%s/sub", dir);
	CHECK(mkdir(sub, 0755) == 0);
	CHECK(file_write_atomic(sub, "x", 1, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "rename") != NULL);
	free(cause);
	cause = NULL;
	CHECK(entries(dir) == 2);		/* run.json and sub */
	CHECK(rmdir(sub) == 0);
	free(sub);

	CHECK(file_write_atomic("/nonexistent-dir/run.json", "x", 1,
	    &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "/nonexistent-dir/run.json") !=
	    NULL);
	free(cause);

	unlink(path);
	free(path);
}

int
main(void)
{
	char	*text;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	text = build();
	CHECK_STR(text, document);
	free(text);
	test_escaping();
	test_atomic();

	/* The same bytes under a locale that writes 0,5. */
	if (check_comma_locale()) {
		text = build();
		CHECK_STR(text, document);
		free(text);
		setlocale(LC_ALL, "C");
	} else
		fprintf(stderr, "test-json: no comma-decimal locale installed;"
		    " locale part skipped\n");

	rmdir(dir);
	return check_exit();
}

/*
 * test-csv.c - the CSV writer's exact output, quoting, column checks and
 * locale independence (where a comma-decimal locale is installed).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ewbench.h"
#include "check.h"

static char	dir[] = "/tmp/ewb-test-csv.XXXXXX";

static void
test_rows(const char *path)
{
	static const char *const header[] = {
		"run_id", "variant", "n", "delta", "time_ns", "note"
	};
	struct csv	*csv;
	char		*cause = NULL, *text, *want;
	FILE		*f;

	/* An existing file is truncated. */
	if ((f = fopen(path, "w")) != NULL) {
		fputs("stale contents that must go\n", f);
		fclose(f);
	}

	csv = csv_open(path, header, 6, &cause);
	CHECK(csv != NULL);
	if (csv == NULL)
		return;

	csv_str(csv, "r1");
	csv_str(csv, "add_f32");
	csv_u64(csv, 18446744073709551615ULL);
	csv_i64(csv, -9223372036854775807LL - 1);
	csv_f64(csv, 0.1);
	csv_str(csv, "plain");
	CHECK(csv_end_row(csv, &cause) == 0);

	csv_str(csv, "r1");
	csv_str(csv, "a,b");
	csv_u64(csv, 0);
	csv_i64(csv, 42);
	csv_f64(csv, NAN);		/* not measured: empty */
	csv_str(csv, "say \"hi\"\r\nbye");
	CHECK(csv_end_row(csv, &cause) == 0);

	/* Too few, then too many fields: refused, nothing written. */
	csv_str(csv, "r1");
	csv_u64(csv, 7);
	CHECK(csv_end_row(csv, &cause) == -1);
	want = xasprintf("%s: row has 2 fields, header has 6", path);
	CHECK_STR(cause, want);
	free(want);
	free(cause);
	cause = NULL;
	csv_empty(csv); csv_empty(csv); csv_empty(csv); csv_empty(csv);
	csv_empty(csv); csv_empty(csv); csv_empty(csv);
	CHECK(csv_end_row(csv, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "7 fields") != NULL);
	free(cause);
	cause = NULL;

	csv_str(csv, "");
	csv_str(csv, "x");
	csv_u64(csv, 1);
	csv_i64(csv, -1);
	csv_f64(csv, 1e300);
	csv_empty(csv);
	CHECK(csv_end_row(csv, &cause) == 0);

	csv_str(csv, "r2");
	csv_str(csv, "tiny");
	csv_u64(csv, 3);
	csv_f64(csv, -0.0);
	csv_f64(csv, 1234567.890123456789);
	csv_f64(csv, INFINITY);
	CHECK(csv_end_row(csv, &cause) == 0);

	CHECK(csv_close(csv, &cause) == 0);

	text = check_slurp(path);
	CHECK_STR(text,
	    "run_id,variant,n,delta,time_ns,note\n"
	    "r1,add_f32,18446744073709551615,-9223372036854775808,"
	    "0.10000000000000001,plain\n"
	    "r1,\"a,b\",0,42,,\"say \"\"hi\"\"\r\nbye\"\n"
	    ",x,1,-1,1.0000000000000001e+300,\n"
	    "r2,tiny,3,-0,1234567.8901234567,inf\n");
	free(text);
}

static void
test_errors(void)
{
	static const char *const header[] = { "a", "b" };
	struct csv	*csv;
	char		*cause = NULL, *path;

	csv = csv_open("/nonexistent-dir/x.csv", header, 2, &cause);
	CHECK(csv == NULL);
	CHECK(cause != NULL &&
	    strstr(cause, "/nonexistent-dir/x.csv") != NULL);
	free(cause);
	cause = NULL;

	/* Closing with a row half built reports it, and still frees. */
	path = xasprintf("%s/half.csv", dir);
	csv = csv_open(path, header, 2, &cause);
	CHECK(csv != NULL);
	if (csv != NULL) {
		csv_str(csv, "only one");
		CHECK(csv_close(csv, &cause) == -1);
		CHECK(cause != NULL && strstr(cause, "unfinished") != NULL);
		free(cause);
	}
	unlink(path);
	free(path);
	CHECK(csv_close(NULL, &cause) == 0);
}

int
main(void)
{
	char	*path;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	path = xasprintf("%s/timing.csv", dir);
	test_rows(path);
	test_errors();

	/* The same bytes under a locale that writes 0,5. */
	if (check_comma_locale()) {
		test_rows(path);
		setlocale(LC_ALL, "C");
	} else
		fprintf(stderr, "test-csv: no comma-decimal locale installed;"
		    " locale part skipped\n");

	unlink(path);
	free(path);
	rmdir(dir);
	return check_exit();
}

/*
 * test-metricsets.c - the metric set format, and every metrics/<group>.txt
 * against chip GH100 with the CUPTI host API (offline: no GPU, no driver).
 * Needs EWBENCH_METRICS_DIR (make check sets it to the source metrics/).
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "base/ewbench.h"
#include "counters/counters.h"
#include "check.h"

#define CHIP		"GH100"
/* The default set runs on every point of a sweep: keep it cheap. */
#define DEFAULT_MAX_PASSES	4

/* Parses text; returns the cause of a failure (or NULL), frees the set. */
static char *
parse_error(const char *text)
{
	struct metric_set	 set;
	char			*cause = NULL;

	if (metric_set_parse(text, "t", &set, &cause) == 0) {
		metric_set_free(&set);
		return NULL;
	}
	return cause;
}

static bool
contains(const char *s, const char *part)
{
	return s != NULL && strstr(s, part) != NULL;
}

static void
check_parse_fails(const char *text, const char *part)
{
	char	*cause = parse_error(text);

	CHECK(cause != NULL);
	if (!contains(cause, part)) {
		fprintf(stderr, "  cause '%s' lacks '%s'\n", cause, part);
		check_failures++;
	}
	free(cause);
}

static void
test_parse(void)
{
	struct metric_set	 set;
	char			*cause = NULL;

	CHECK(metric_set_parse(
	    "# a comment\n"
	    "SHORT  Two metrics   \n"
	    "\n"
	    "METRICS\n"
	    "  dram__bytes_read.sum   # trailing comment\n"
	    "gpu__time_duration.sum\n"
	    "LONG\n"
	    "Prose, # kept as is.\n"
	    "\n"
	    "METRICS here is prose too.\n", "two", &set, &cause) == 0);
	CHECK_STR(set.name, "two");
	CHECK_STR(set.short_desc, "Two metrics");
	CHECK(set.count == 2);
	if (set.count == 2) {
		CHECK_STR(set.metrics[0], "dram__bytes_read.sum");
		CHECK_STR(set.metrics[1], "gpu__time_duration.sum");
	}
	CHECK(contains(set.long_desc, "Prose, # kept as is."));
	CHECK(contains(set.long_desc, "METRICS here is prose too."));
	CHECK(set.path == NULL);
	CHECK(metric_set_index(&set, "gpu__time_duration.sum") == 1);
	CHECK(metric_set_index(&set, "gpu__time_duration") == -1);
	metric_set_free(&set);

	/* No trailing newline, no LONG. */
	CHECK(metric_set_parse("SHORT s\nMETRICS\nx__y.sum", "t", &set,
	    &cause) == 0);
	CHECK(set.count == 1 && set.long_desc == NULL);
	metric_set_free(&set);

	check_parse_fails("METRICS\nx__y.sum\n", "no SHORT");
	check_parse_fails("SHORT s\n", "no metrics");
	check_parse_fails("SHORT s\nMETRICS\nLONG\nx__y.sum\n", "no metrics");
	check_parse_fails("SHORT s\nMETRICS\nx__y.sum\nx__y.sum\n",
	    "line 4: metric 'x__y.sum' listed twice");
	check_parse_fails("SHORT s\nx__y.sum\n", "line 2: expected SHORT");
	check_parse_fails("SHORT s\nMETRICS\nx__y.sum z__w.sum\n", "line 3");
	check_parse_fails("SHORT s\nMETRICS\ndram-bytes\n", "bad character");
	check_parse_fails("SHORT s\nMETRICS\ndram_bytes.sum\n",
	    "not a metric name");
	check_parse_fails("SHORT s\nMETRICS\nx__y.\n", "not a metric name");
	check_parse_fails("SHORT\nMETRICS\nx__y.sum\n", "line 1: SHORT needs");
	check_parse_fails("SHORT a\nSHORT b\nMETRICS\nx__y.sum\n",
	    "line 2: a second SHORT");
	check_parse_fails("SHORT a\nMETRICS\nx__y.sum\nMETRICS\n",
	    "line 4: a second METRICS");
	check_parse_fails("SHORT a\nMETRICS x__y.sum\n", "line 2: METRICS");
}

static void
test_load_spec(void)
{
	struct metric_set	 set;
	char			*cause = NULL;

	CHECK(metric_set_load(" dram__bytes_read.sum , gpu__time_duration.sum",
	    &set, &cause) == 0);
	CHECK_STR(set.name, "custom");
	CHECK(set.count == 2 && set.short_desc == NULL);
	if (set.count == 2)
		CHECK_STR(set.metrics[0], "dram__bytes_read.sum");
	metric_set_free(&set);

	/* One name alone is a list, not a group. */
	CHECK(metric_set_load("dram__bytes_read.sum", &set, &cause) == 0);
	CHECK(set.count == 1);
	metric_set_free(&set);

	CHECK(metric_set_load("a__b.sum,a__b.sum", &set, &cause) == -1);
	CHECK(contains(cause, "listed twice"));
	free(cause);
	CHECK(metric_set_load("a__b.sum,,c__d.sum", &set, &cause) == -1);
	CHECK(contains(cause, "empty metric name"));
	free(cause);
	CHECK(metric_set_load("default,memory", &set, &cause) == -1);
	CHECK(contains(cause, "'default' is not a metric name"));
	free(cause);
	CHECK(metric_set_load("no_such_group", &set, &cause) == -1);
	CHECK(contains(cause, "no metric group 'no_such_group'"));
	CHECK(contains(cause, "default"));	/* lists the groups */
	free(cause);
	/* A path names a file: one that cannot be read is a broken set. */
	CHECK(metric_set_load("../etc", &set, &cause) == METRIC_SET_BROKEN);
	free(cause);
	CHECK(metric_set_load("", &set, &cause) == -1);
	free(cause);
	CHECK(metric_set_load("/nonexistent/x.txt", &set, &cause) ==
	    METRIC_SET_BROKEN);
	CHECK(contains(cause, "/nonexistent/x.txt"));
	free(cause);
}

/* Every metric the derived rows and the study's plots read. */
static void
test_default_covers(const struct metric_set *set)
{
	static const char *const needed[] = {
		"gpu__time_duration.sum",
		"sm__cycles_elapsed.avg.per_second",
		"dram__bytes_read.sum",
		"dram__bytes_write.sum",
		"dram__throughput.avg.pct_of_peak_sustained_elapsed",
		"lts__t_sector_hit_rate.pct",
		"lts__t_sector_op_read_hit_rate.pct",
		"lts__t_bytes.sum",
		"l1tex__t_sector_hit_rate.pct",
		"smsp__inst_issued.sum",
		"smsp__inst_executed.sum",
		"smsp__sass_inst_executed_op_global_ld.sum",
		"smsp__sass_inst_executed_op_global_st.sum",
		"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
		"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
		"l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum",
		"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
		"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
		"sm__warps_active.avg.pct_of_peak_sustained_active",
		"smsp__warps_launched.sum",
	};
	size_t	i;

	for (i = 0; i < sizeof needed / sizeof needed[0]; i++) {
		if (metric_set_index(set, needed[i]) < 0) {
			fprintf(stderr, "default set lacks %s\n", needed[i]);
			check_failures++;
		}
	}
}

/* Units from names agree with CUPTI's dimensions wherever both speak. */
static void
check_units(const struct metric_set *set)
{
	struct metric_info	*info;
	const char		*by_name, *by_dim;
	char			*cause = NULL;
	size_t			 i;
	int			 passes;

	info = xcalloc(set->count, sizeof *info);
	if (counters_inspect(CHIP, set, info, &passes, &cause) != 0) {
		fprintf(stderr, "counters_inspect: %s\n", cause);
		check_failures++;
		free(cause);
		free(info);
		return;
	}
	for (i = 0; i < set->count; i++) {
		CHECK(info[i].valid && info[i].description != NULL);
		by_name = metric_unit(set->metrics[i], NULL);
		by_dim = metric_unit_of_dim(info[i].dim_unit);
		if (*by_name == '\0' || (by_dim != NULL &&
		    strcmp(by_name, "ratio") != 0 &&
		    strcmp(by_name, by_dim) != 0)) {
			fprintf(stderr, "%s: unit '%s' from the name, CUPTI "
			    "says '%s'\n", set->metrics[i], by_name,
			    info[i].dim_unit);
			check_failures++;
		}
	}
	metric_info_free(info, set->count);
	free(info);
}

static void
test_groups(void)
{
	static const char *const expected[] = {
		"default", "instructions", "memory", "sol"
	};
	struct metric_set	 set;
	char			**groups, **bad, *cause = NULL;
	size_t			 ngroups, nbad, i, j;
	int			 passes, default_passes = 0, sol_passes = 0;

	metric_set_groups(&groups, &ngroups);
	for (j = 0; j < sizeof expected / sizeof expected[0]; j++) {
		for (i = 0; i < ngroups; i++) {
			if (strcmp(groups[i], expected[j]) == 0)
				break;
		}
		if (i == ngroups) {
			fprintf(stderr, "group %s not found (is "
			    "EWBENCH_METRICS_DIR set?)\n", expected[j]);
			check_failures++;
		}
	}

	for (i = 0; i < ngroups; i++) {
		if (metric_set_load(groups[i], &set, &cause) != 0) {
			fprintf(stderr, "%s\n", cause);
			free(cause);
			check_failures++;
			continue;
		}
		CHECK(set.path != NULL && set.short_desc != NULL);
		CHECK(set.count > 0);
		passes = 0;
		if (counters_validate(CHIP, &set, &passes, &bad, &nbad,
		    &cause) != 0) {
			fprintf(stderr, "%s: %s\n", groups[i], cause);
			free(cause);
			check_failures++;
			for (j = 0; j < nbad; j++)
				free(bad[j]);
			free(bad);
		}
		CHECK(passes >= 1);
		printf("%s: %zu metrics, %d pass%s on %s\n", set.name,
		    set.count, passes, passes == 1 ? "" : "es", CHIP);
		check_units(&set);
		if (strcmp(set.name, "default") == 0) {
			default_passes = passes;
			test_default_covers(&set);
		}
		if (strcmp(set.name, "sol") == 0)
			sol_passes = passes;
		metric_set_free(&set);
		free(groups[i]);
	}
	free(groups);
	CHECK(default_passes >= 1 && default_passes <= DEFAULT_MAX_PASSES);
	/* Speed of light is the expensive one. */
	CHECK(sol_passes > default_passes);
}

static void
test_unknown_metric(void)
{
	struct metric_set	 set;
	char			**bad = NULL, *cause = NULL;
	size_t			 nbad = 0, i;
	int			 passes = -1;

	CHECK(metric_set_load("dram__bytes_read.sum,dram__bytes_reed.sum,"
	    "gpu__time_duration.sum,zzzq__nothing_like_it.sum", &set,
	    &cause) == 0);
	CHECK(counters_validate(CHIP, &set, &passes, &bad, &nbad,
	    &cause) == -1);
	CHECK(passes == 0);
	CHECK(nbad == 2);
	if (nbad == 2) {
		CHECK_STR(bad[0], "dram__bytes_reed.sum "
		    "(did you mean dram__bytes_read.sum?)");
		CHECK_STR(bad[1], "zzzq__nothing_like_it.sum");
	}
	CHECK(contains(cause, "dram__bytes_reed.sum"));
	CHECK(contains(cause, "zzzq__nothing_like_it.sum"));
	CHECK(contains(cause, CHIP));
	CHECK(!contains(cause, "gpu__time_duration.sum"));
	printf("unknown metrics: %s\n", cause);
	for (i = 0; i < nbad; i++)
		free(bad[i]);
	free(bad);
	free(cause);
	metric_set_free(&set);

	/* A wrong rollup on a real counter. */
	CHECK(metric_set_load("lts__t_sector_hit_rate.sum", &set,
	    &cause) == 0);
	CHECK(counters_validate(CHIP, &set, &passes, &bad, &nbad,
	    &cause) == -1);
	CHECK(nbad == 1);
	if (nbad == 1)
		CHECK(contains(bad[0], "did you mean lts__t_sector_hit_rate."));
	for (i = 0; i < nbad; i++)
		free(bad[i]);
	free(bad);
	free(cause);
	metric_set_free(&set);
}

static void
test_chips(void)
{
	struct metric_set	 set;
	char			**bad = NULL, *cause = NULL;
	size_t			 nbad = 0;
	int			 passes;

	CHECK(counters_chip_check(CHIP, &cause) == 0);
	CHECK(counters_chip_check("XY999", &cause) == -1);
	CHECK(contains(cause, "XY999") && contains(cause, CHIP));
	free(cause);

	CHECK(metric_set_load("gpu__time_duration.sum", &set, &cause) == 0);
	CHECK(counters_validate("XY999", &set, &passes, &bad, &nbad,
	    &cause) == -1);
	CHECK(nbad == 0 && bad == NULL);
	CHECK(contains(cause, "unknown chip 'XY999'"));
	free(cause);
	/* The pass count of one cheap counter. */
	CHECK(counters_validate(CHIP, &set, &passes, &bad, &nbad,
	    &cause) == 0);
	CHECK(passes == 1);
	metric_set_free(&set);
}

/* Entries with several names: the format, and resolution for a chip. */
static void
test_alternatives(void)
{
	struct metric_set	 set, copy;
	char			*cause = NULL;

	CHECK(metric_set_parse("SHORT s\nMETRICS\n"
	    "dram__bytes_read.sum | dram__bytes_op_read.sum | -\n"
	    "gpu__time_duration.sum\n"
	    "smsp__warp_issue_stalled_imc_miss_per_warp_active.pct|-\n",
	    "alt", &set, &cause) == 0);
	CHECK(set.count == 3);
	if (set.count == 3) {
		CHECK_STR(set.metrics[0], "dram__bytes_read.sum");
		CHECK_STR(set.names[0][1], "dram__bytes_op_read.sum");
		CHECK(set.names[0][2] == NULL && set.optional[0]);
		CHECK(set.names[1][1] == NULL && !set.optional[1]);
		CHECK(set.optional[2]);
	}
	check_parse_fails("SHORT s\nMETRICS\n- | gpu__time_duration.sum\n",
	    "starts with a metric name");
	check_parse_fails("SHORT s\nMETRICS\na__b.sum | - | c__d.sum\n",
	    "is the last alternative");
	check_parse_fails("SHORT s\nMETRICS\na__b.sum | a__b.sum\n",
	    "listed twice");
	check_parse_fails("SHORT s\nMETRICS\na__b.sum\nc__d.sum | a__b.sum\n",
	    "listed twice");
	check_parse_fails("SHORT s\nMETRICS\na__b.sum c__d.sum\n",
	    "separated by '|'");

	/* One meaning, two chips' names; a stall reason Blackwell lacks. */
	metric_set_copy(&copy, &set);
	CHECK(counters_resolve("GH100", &set, &cause) == 0);
	CHECK(set.count == 3 && set.nleft_out == 0);
	if (set.count == 3) {
		CHECK_STR(set.collected[0], "dram__bytes_read.sum");
		CHECK_STR(set.chip, "GH100");
	}
	CHECK(counters_resolve("GB202", &copy, &cause) == 0);
	CHECK(copy.count == 2 && copy.nleft_out == 1);
	if (copy.count == 2 && copy.nleft_out == 1) {
		CHECK_STR(copy.metrics[0], "dram__bytes_read.sum");
		CHECK_STR(copy.collected[0], "dram__bytes_op_read.sum");
		CHECK_STR(copy.metrics[1], "gpu__time_duration.sum");
		CHECK_STR(copy.left_out[0].metric,
		    "smsp__warp_issue_stalled_imc_miss_per_warp_active.pct");
		CHECK(contains(copy.left_out[0].reason,
		    "GB202 has no such metric"));
		CHECK_STR(metric_set_cupti_name(&copy, 0),
		    "dram__bytes_op_read.sum");
	}
	/* Resolved once only. */
	CHECK(counters_resolve("GH100", &copy, &cause) == -1);
	free(cause);
	cause = NULL;
	metric_set_free(&set);
	metric_set_free(&copy);

	/* Nothing left: an error, not an empty set. */
	CHECK(metric_set_load(
	    "smsp__warp_issue_stalled_imc_miss_per_warp_active.pct",
	    &set, &cause) == 0);
	CHECK(counters_resolve("GB202", &set, &cause) == -1);
	CHECK(contains(cause, "no metric of set custom exists on GB202"));
	free(cause);
	metric_set_free(&set);
}

/* Every group file resolves on every chip CUPTI can profile, leaving out
 * only entries that say some chips lack them. */
static void
test_groups_every_chip(void)
{
	char			**chips, **groups, *cause = NULL;
	size_t			  nchips, ngroups, c, g, k;
	struct metric_set	  set;
	int			  e;

	counters_chips(&chips, &nchips);
	CHECK(nchips > 10);
	metric_set_groups(&groups, &ngroups);
	for (c = 0; c < nchips; c++) {
		if (counters_chip_usable(chips[c], &cause) != 0) {
			printf("  %s: not profiled by CUPTI's host API: %s\n",
			    chips[c], cause);
			free(cause);
			cause = NULL;
			continue;
		}
		for (g = 0; g < ngroups; g++) {
			struct metric_set	resolved;

			CHECK(metric_set_load(groups[g], &set, &cause) == 0);
			metric_set_copy(&resolved, &set);
			CHECK(counters_resolve(chips[c], &resolved,
			    &cause) == 0);
			for (k = 0; k < resolved.nleft_out; k++) {
				e = metric_set_index(&set,
				    resolved.left_out[k].metric);
				if (e < 0 || !set.optional[e]) {
					fprintf(stderr, "  %s on %s: %s left "
					    "out\n", groups[g], chips[c],
					    resolved.left_out[k].metric);
					check_failures++;
				}
			}
			metric_set_free(&resolved);
			metric_set_free(&set);
		}
	}
	for (g = 0; g < ngroups; g++)
		free(groups[g]);
	free(groups);
	for (c = 0; c < nchips; c++)
		free(chips[c]);
	free(chips);
}

int
main(void)
{
	printf("CUPTI API version %u\n", counters_cupti_version());
	/* The library is at least as new as the headers it was built with
	 * (12.8: 26; 13.0: 130001). */
	CHECK(counters_cupti_version() >= EWB_CUPTI_BUILD_API);
	test_parse();
	test_load_spec();
	test_groups();
	test_unknown_metric();
	test_chips();
	test_alternatives();
	test_groups_every_chip();
	return check_exit();
}

/*
 * test-derived.c - the derived rows of metrics.csv and the unit strings,
 * on hand-made values with known answers (no GPU, no CUPTI).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"
#include "counters/counters.h"
#include "counters/formula.h"
#include "check.h"

#define CHECK_NEAR(got, want) CHECK(fabs((got) - (want)) <= 1e-12 * fabs(want))

static void
set_from(struct metric_set *set, const char *list)
{
	char	*cause = NULL;

	if (metric_set_load(list, set, &cause) != 0) {
		fprintf(stderr, "metric_set_load: %s\n", cause);
		exit(99);
	}
}

/* Index of a derived row by name; exits when the table lacks it. */
static size_t
at(const char *name)
{
	size_t	i;

	for (i = 0; i < derived_count; i++) {
		if (strcmp(derived_metrics[i].name, name) == 0)
			return i;
	}
	fprintf(stderr, "no derived row %s\n", name);
	exit(1);
}

#define DRAM_BANDWIDTH		at("derived__dram_bandwidth")
#define BYTES_PER_INST_ISSUED	at("derived__bytes_per_inst_issued")
#define GLOBAL_LD_BYTES_PER_INST at("derived__global_ld_bytes_per_inst")
#define GLOBAL_LD_REQUESTED	at("derived__global_ld_requested_bytes_per_inst")
#define GLOBAL_LD_EFFICIENCY	at("derived__global_ld_sector_efficiency_pct")
#define GLOBAL_LD_PER_WARP	at("derived__global_ld_inst_per_warp")
#define DRAM_READ_FRACTION	at("derived__dram_read_fraction")
#define DERIVED_MAX		32

static void
test_derived_table(void)
{
	size_t	i;

	CHECK(derived_count >= 4 && derived_count <= DERIVED_MAX);
	for (i = 0; i < derived_count; i++) {
		CHECK(strncmp(derived_metrics[i].name, "derived__", 9) == 0);
		CHECK_STR(metric_unit(derived_metrics[i].name, NULL),
		    derived_metrics[i].unit);
	}
}

static double
lookup_xy(const char *name, size_t len, void *arg)
{
	(void)arg;
	if (len == 1 && *name == 'x')
		return 3;
	if (len == 5 && strncmp(name, "a__b.", 5) == 0)
		return 0;
	return NAN;
}

static void
test_formula_grammar(void)
{
	static const struct {
		const char	*text;
		double		 value;	/* NaN: unknown */
	} ok[] = {
		{ "1 + 2 * 3",		7 },
		{ "(1 + 2) * 3",	9 },
		{ "8 / 4 / 2",		1 },
		{ "2 - 3 - 4",		-5 },
		{ "-x * 2",		-6 },
		{ "x * 1e-9",		3e-9 },
		{ "first(y, x)",	3 },
		{ "first(x, 7)",	3 },
		{ "first(y, z)",	NAN },
		{ "y + 1",		NAN },
		{ "x / a__b.",		NAN },	/* division by zero */
	};
	static const char *const bad[] = {
		"", "1 +", "(1", "1 2", "first(x)", "first(x, 1", "x $ 1",
		"* 2",
	};
	double	 v;
	char	*cause;
	size_t	 i;

	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		CHECK(formula_eval(ok[i].text, lookup_xy, NULL, &v, &cause) ==
		    0);
		if (isnan(ok[i].value))
			CHECK(isnan(v));
		else
			CHECK_NEAR(v, ok[i].value);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		CHECK(formula_eval(bad[i], lookup_xy, NULL, &v, &cause) == -1);
		CHECK(cause != NULL && strstr(cause, "formula") != NULL);
		free(cause);
	}
	/* Every formula of metrics/derived.def parses. */
	for (i = 0; i < derived_count; i++) {
		CHECK(formula_eval(derived_metrics[i].formula, lookup_xy, NULL,
		    &v, &cause) == 0);
	}
}

static void
test_all_inputs(void)
{
	struct metric_set	set;
	/* vec_add_f32 at n = 2^24 on an H100, rounded. */
	double			values[] = {
		78600,		/* gpu__time_duration.sum, ns */
		134217728,	/* dram__bytes_read.sum */
		75800000,	/* dram__bytes_write.sum */
		10485760,	/* smsp__inst_issued.sum */
		134217728,	/* l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum */
		1048576,	/* smsp__sass_inst_executed_op_global_ld.sum */
	};
	double			out[DERIVED_MAX];
	double			n = 16777216;

	set_from(&set, "gpu__time_duration.sum,dram__bytes_read.sum,"
	    "dram__bytes_write.sum,smsp__inst_issued.sum,"
	    "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,"
	    "smsp__sass_inst_executed_op_global_ld.sum");
	CHECK(counters_derive(&set, values, 3 * 4 * n, 2 * 4 * n, out) == 6);
	/* Every byte read came from DRAM: a fraction of 1. */
	CHECK_NEAR(out[DRAM_READ_FRACTION], 1.0);
	CHECK_NEAR(out[DRAM_BANDWIDTH],
	    (134217728.0 + 75800000.0) / 78600e-9);
	/* 3 * 4 * 2^24 bytes over 10485760 warp instructions. */
	CHECK_NEAR(out[BYTES_PER_INST_ISSUED], 19.2);
	/* A scalar fp32 warp load asks for 32 * 4 bytes and touches as
	 * many bytes of sectors. */
	CHECK_NEAR(out[GLOBAL_LD_BYTES_PER_INST], 128.0);
	CHECK_NEAR(out[GLOBAL_LD_REQUESTED], 128.0);
	CHECK_NEAR(out[GLOBAL_LD_EFFICIENCY], 100.0);
	/* No warp count in the set. */
	CHECK(isnan(out[GLOBAL_LD_PER_WARP]));
	metric_set_free(&set);
}

/* add_f16x8 (kernels/add.cu): each thread loads 16 consecutive bytes of
 * an operand as four 32-bit loads, so a warp load asks for 32 * 4 bytes
 * and touches four times as many bytes of sectors. */
static void
test_requested_and_sector_bytes(void)
{
	struct metric_set	set;
	double			n = 16777216;
	double			loads = 2 * n / 8 / 32 * 4;	/* warp loads */
	double			values[] = {
		2 * 2 * n * 4,	/* l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum */
		loads,		/* smsp__sass_inst_executed_op_global_ld.sum */
		n / 8 / 32,	/* smsp__warps_launched.sum */
	};
	double			out[DERIVED_MAX];

	set_from(&set, "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,"
	    "smsp__sass_inst_executed_op_global_ld.sum,"
	    "smsp__warps_launched.sum");
	CHECK(counters_derive(&set, values, 3 * 2 * n, 2 * 2 * n, out) == 4);
	CHECK_NEAR(out[GLOBAL_LD_REQUESTED], 128.0);
	CHECK_NEAR(out[GLOBAL_LD_BYTES_PER_INST], 512.0);
	CHECK_NEAR(out[GLOBAL_LD_EFFICIENCY], 25.0);
	/* Four loads per operand, two operands. */
	CHECK_NEAR(out[GLOBAL_LD_PER_WARP], 8.0);
	metric_set_free(&set);
}

static void
test_fallback_and_absent(void)
{
	struct metric_set	set;
	double			values[] = {
		262144,		/* smsp__sass_inst_executed_op_global_ld.sum */
		0,		/* smsp__inst_issued.sum */
		1e5,		/* gpu__time_duration.sum */
	};
	double			out[DERIVED_MAX];
	double			n = 16777216;

	set_from(&set, "smsp__sass_inst_executed_op_global_ld.sum,"
	    "smsp__inst_issued.sum,gpu__time_duration.sum");
	/* No byte counter: the requested bytes, n * read_bytes (2^27 bytes,
	 * float4 add) over 2^18 warp load instructions, 512 bytes each, and
	 * no sector bytes (never the requested ones in their place). */
	CHECK(counters_derive(&set, values, 3 * 4 * n, 4 * n * 2, out) == 1);
	CHECK_NEAR(out[GLOBAL_LD_REQUESTED], 512.0);
	CHECK(isnan(out[GLOBAL_LD_BYTES_PER_INST]));
	CHECK(isnan(out[GLOBAL_LD_EFFICIENCY]));
	/* DRAM bytes are not in the set. */
	CHECK(isnan(out[DRAM_BANDWIDTH]));
	/* Zero issued instructions: no value rather than infinity. */
	CHECK(isnan(out[BYTES_PER_INST_ISSUED]));

	/* Unknown byte counts (NaN) leave their rows absent. */
	values[1] = 1000;
	CHECK(counters_derive(&set, values, NAN, NAN, out) == 0);
	CHECK(isnan(out[BYTES_PER_INST_ISSUED]));
	CHECK(isnan(out[GLOBAL_LD_REQUESTED]));
	CHECK(counters_derive(&set, values, 5000, NAN, out) == 1);
	CHECK_NEAR(out[BYTES_PER_INST_ISSUED], 5.0);
	metric_set_free(&set);
}

static void
test_nan_inputs(void)
{
	struct metric_set	set;
	double			values[] = { 1e5, 1e6, NAN };
	double			out[DERIVED_MAX];

	set_from(&set, "gpu__time_duration.sum,dram__bytes_read.sum,"
	    "dram__bytes_write.sum");
	/* CUPTI gave no write bytes: no bandwidth, not a read-only one; the
	 * read fraction needs only the read bytes. */
	CHECK(counters_derive(&set, values, 1, 4e6, out) == 1);
	CHECK(isnan(out[DRAM_BANDWIDTH]));
	CHECK_NEAR(out[DRAM_READ_FRACTION], 0.25);
	values[2] = 1e6;
	CHECK(counters_derive(&set, values, NAN, NAN, out) == 1);
	CHECK_NEAR(out[DRAM_BANDWIDTH], 2e6 / 1e-4);
	/* A zero duration gives no bandwidth. */
	values[0] = 0;
	CHECK(counters_derive(&set, values, NAN, NAN, out) == 0);
	metric_set_free(&set);
}

static void
test_units_from_names(void)
{
	static const struct {
		const char	*metric;
		const char	*unit;
	} cases[] = {
		{ "gpu__time_duration.sum",				"ns" },
		{ "sm__cycles_elapsed.avg",				"cycle" },
		{ "gpc__cycles_elapsed.max",				"cycle" },
		{ "sm__cycles_elapsed.avg.per_second",			"Hz" },
		{ "dram__cycles_elapsed.avg.per_second",		"Hz" },
		{ "dram__bytes_read.sum",				"byte" },
		{ "dram__bytes.sum.per_second",				"byte/s" },
		{ "dram__throughput.avg.pct_of_peak_sustained_elapsed",	"%" },
		{ "lts__t_sector_hit_rate.pct",				"%" },
		{ "lts__t_sectors_op_read.sum",				"sector" },
		{ "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",	"request" },
		{ "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",	"sector" },
		{ "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum",	"byte" },
		{ "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
		  "ratio" },
		{ "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
		  "%" },
		{ "smsp__inst_issued.sum",				"inst" },
		{ "smsp__thread_inst_executed.sum",			"inst" },
		{ "smsp__sass_inst_executed_op_global_st.sum",		"inst" },
		{ "smsp__inst_executed.avg.per_cycle_active",		"inst/cycle" },
		{ "sm__warps_active.avg.pct_of_peak_sustained_active",	"%" },
		{ "sm__warps_active.avg.per_cycle_active",		"warp" },
		{ "smsp__warps_launched.sum",				"warp" },
		{ "sm__ctas_launched.sum",				"block" },
		{ "derived__dram_bandwidth",				"byte/s" },
		{ "derived__bytes_per_inst_issued",			"byte" },
		{ "derived__global_ld_bytes_per_inst",			"byte" },
		{ "derived__global_ld_requested_bytes_per_inst",	"byte" },
		{ "derived__global_ld_sector_efficiency_pct",		"%" },
		{ "derived__global_ld_inst_per_warp",			"inst" },
		{ "launch__registers_per_thread",			"register" },
		{ "sm__maximum_warps_per_active_cycle_pct",		"%" },
	};
	size_t	i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		CHECK_STR(metric_unit(cases[i].metric, NULL), cases[i].unit);
		/* The name decides even when CUPTI's dimension differs. */
		CHECK_STR(metric_unit(cases[i].metric, "l2_sector"),
		    cases[i].unit);
	}
}

static void
test_units_from_dims(void)
{
	/* A name that says nothing: the dimension decides, else "". */
	CHECK_STR(metric_unit("xbar__unknown_thing.sum", NULL), "");
	CHECK_STR(metric_unit("xbar__unknown_thing.sum", "byte"), "byte");
	CHECK_STR(metric_unit("xbar__unknown_thing.sum", "nanosecond"), "ns");
	CHECK_STR(metric_unit("xbar__unknown_thing.sum", "no_such_dim"), "");

	CHECK_STR(metric_unit_of_dim("percent"), "%");
	CHECK_STR(metric_unit_of_dim("l2_sector"), "sector");
	CHECK_STR(metric_unit_of_dim("l1tex_request"), "request");
	CHECK_STR(metric_unit_of_dim("gpc_cycle/second"), "Hz");
	CHECK_STR(metric_unit_of_dim("byte/second"), "byte/s");
	CHECK_STR(metric_unit_of_dim("instruction/gpc_cycle"), "inst/cycle");
	CHECK_STR(metric_unit_of_dim("cta"), "block");
	CHECK(metric_unit_of_dim("furlong") == NULL);
	CHECK(metric_unit_of_dim(NULL) == NULL);
}

int
main(void)
{
	test_derived_table();
	test_formula_grammar();
	test_all_inputs();
	test_fallback_and_absent();
	test_requested_and_sector_bytes();
	test_nan_inputs();
	test_units_from_names();
	test_units_from_dims();
	return check_exit();
}

/*
 * main.c - the ewbench command: dispatch, help, version, info, list.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ceilings.h"
#include "counters.h"
#include "device.h"
#include "run.h"

static const char usage_text[] =
"usage: ewbench [--help | --version] COMMAND [OPTIONS]\n"
"\n"
"Runs the elementwise kernels of a published optimisation study (fp32/fp16\n"
"vector add from scalar to 128-bit packed, ReLU, abs) and NVIDIA's cub peer,\n"
"checks every element against a CPU reference, times each kernel by the\n"
"GPU's own start and end (CUPTI activity records) and collects hardware\n"
"counters with CUPTI.\n"
"\n"
"Commands:\n"
"  info                 the GPU: SMs, L2, memory, theoretical DRAM bandwidth\n"
"  list                 the kernel variants and their facts (no GPU needed)\n"
"  run [OPTIONS]        check, time and profile variants; write a run directory\n"
"  check [OPTIONS]      only the correctness check (default sizes: 1, 3, 7, 8,\n"
"                       33, 1000003, 2^20, 2^24+5)\n"
"  sweep [OPTIONS]      run at working sets from 64 KiB to past 8x the L2\n"
"                       (at least 1 GiB), denser around the L2 size; default\n"
"                       --cache both --launch graph\n"
"  tune [OPTIONS]       time every block size (default 32 to 1024) at the\n"
"                       tier sizes and print the best shape per variant next\n"
"                       to the published one; no counters unless --metrics\n"
"  ceilings [--device N|LIST|all] [--out DIR] [--iters N] [--dry-run]\n"
"                       measure DRAM and L2 bandwidth, DRAM latency, launch\n"
"                       cost and FMA peaks; writes ceilings.csv\n"
"  metrics --list|--check [--chip NAME] [--metrics SET]\n"
"                       list or validate counter metric sets, resolved for a\n"
"                       chip (no GPU needed with --chip: RTX 5090, GB202, or\n"
"                       all, every chip CUPTI knows)\n"
"\n"
"Analysis commands (the Python package ewbench.analysis; no GPU needed;\n"
"COMMAND --help says more):\n"
"  report DIR [-o OUT]  a study directory's or a run directory's report:\n"
"                       report.md, report.html and figures\n"
"  compare RUN_A RUN_B  two runs side by side, changes beyond the noise\n"
"  contest RUN...       interleaved repeats: the fastest add kernels against\n"
"                       cub and torch, beyond the round-to-round spread\n"
"  fleet-report PARENT  one run per GPU: outliers against the fleet median\n"
"  timeline TRACE       a picture of a window of a --trace file\n"
"  torch RUN_DIR...     time torch.add and torch.relu beside runs (needs\n"
"                       PyTorch): RUN_DIR/peer-torch.csv\n"
"\n"
"Options of run, check, sweep and tune (-v, -s, --block and --kernel-flags\n"
"add up when repeated; any other option that takes a value is refused the\n"
"second time, --kernel included: one kernel of yours per run):\n"
"  -v, --variant LIST   ids or globs, comma separated (default: all; with\n"
"                       --kernel, the built-in ones of its op and dtype);\n"
"                       e.g. add_f16*, *x4*, add_f32,cub_add_f32\n"
"  -s, --size LIST      elements per array; 1M = 10^6,\n"
"                       1Mi = 2^20, 2^24, 268435456; e.g. 1Mi,16Mi\n"
"      --preset NAME    article: the study's sizes 2^20, 2^24, 2^28 (the\n"
"                       default); tiers: per variant, a working set far below\n"
"                       the L2, one ~45% of it, one >= 16x it (run.json says\n"
"                       why); --size adds sizes to the tiers\n"
"      --block LIST     threads per block, e.g. 256 or 64,128,256 (default:\n"
"                       each variant's published shape; cub picks its own)\n"
"      --iters N        timed launches per point, at least (default 20); each\n"
"                       timed by the GPU's own start and end of its kernels\n"
"                       (CUPTI activity records)\n"
"      --target PCT     time a point until its median's 95 % interval is\n"
"                       within PCT % of it (default 0.5)\n"
"      --max-iters N    but at most N launches (default 2000)\n"
"      --max-time MS    or MS milliseconds of timing (default 10)\n"
"      --warmup N       untimed launches first, and at least 1 ms (default 10)\n"
"      --cache MODE     warm (back to back, what the study measured), cold\n"
"                       (L2 flushed before every launch) or both (default warm)\n"
"      --launch MODE    stream (ordinary launches), graph (the timed launches\n"
"                       replayed from a CUDA graph: no host launch path) or\n"
"                       both (default stream)\n"
"      --device N       CUDA device (default 0; under Slurm, Open MPI or PMIx\n"
"                       with --out and no --device: the task's local rank's,\n"
"                       into DIR/<node>-rank<R>)\n"
"      --device all|LIST\n"
"                       every GPU, or e.g. 0,2,3: one ewbench per GPU, all at\n"
"                       once, each into DIR/<host>-gpu<N> (log beside it),\n"
"                       then DIR/fleet.json (default DIR\n"
"                       ewbench-fleet-<host>-<time>)\n"
"      --seed N         random inputs' seed (default 1)\n"
"  -o, --out DIR        run directory (default ewbench-<gpu>-<time>)\n"
"      --metrics SET    counter set: a group name (default, dram,\n"
"                       instructions, memory, residency, sol, stalls) or\n"
"                       metric names, comma separated\n"
"      --no-counters    timing only (kernel times kept)\n"
"      --no-cupti       no CUPTI at all: no counters, and each launch timed\n"
"                       by CUDA events (host launch path included), exactly\n"
"                       --iters of them; lets ncu, nsys or compute-sanitizer\n"
"                       attach (one CUPTI client per process)\n"
"      --trace FILE     write a Chrome/Perfetto trace of the run (CUPTI\n"
"                       activity: kernels, copies, NVTX ranges); implies\n"
"                       --no-counters\n"
"      --profile-window bracket the timed launches with cudaProfilerStart/Stop\n"
"                       for nsys --capture-range=cudaProfilerApi and ncu\n"
"                       --profile-from-start off; implies --no-cupti\n"
"      --misalign       start every array 4 bytes past a 16-byte boundary, to\n"
"                       test and time the vector variants' fallback paths\n"
"      --allow-fallback run a variant whose technique this GPU lacks (bulk\n"
"                       copies below sm_90) as its fallback kernel; without\n"
"                       it such variants are skipped, the reason in run.json\n"
"      --density N      sweep: working sets per doubling (default 3; four\n"
"                       times as many between L2/4 and 4x the L2)\n"
"      --dry-run        print the plan (cases, points, sizes), its GPU memory\n"
"                       and an estimate of its time, then exit; needs no GPU\n"
"                       (without one: a generic estimate, for GH100's facts)\n"
"      --chip NAME      with --dry-run (also of ceilings): plan for this GPU's\n"
"                       facts, not the device's: a board (RTX 5090, RTX 5060,\n"
"                       RTX 4090, T4, A100, L4, L40S, H100, H200, B200, ...)\n"
"                       or a chip (GB202, TU104, ...); docs/gpus.md\n"
"      --kernel FILE.cu[:FUNCTION]\n"
"                       also measure your own kernel, compiled with NVRTC for\n"
"                       this GPU (cached in ~/.cache/ewbench), as variant\n"
"                       user:FUNCTION beside the built-in ones of its op and\n"
"                       dtype (-v chooses others); docs/user-kernels.md\n"
"      --op add|relu|abs  what it computes (default: what its parameters\n"
"                       say); its signature must be the op's: add (const T\n"
"                       *a, const T *b, T *c, size_t n), relu (const T *a,\n"
"                       T *c, size_t n), abs (T *c, size_t n); inputs const\n"
"                       or not; the count size_t or int (int N: sizes past\n"
"                       its range left out for it, saying why)\n"
"      --dtype f32|f16  T: float or __half (default: what its parameters say)\n"
"      --elems-per-thread N  elements a thread owns: the grid is\n"
"                       ceil(ceil(n / N) / block) (default 1)\n"
"      --kernel-block N its threads per block (default 256)\n"
"      --kernel-flags \"OPTS\"  more NVRTC options (e.g. \"--use_fast_math\")\n"
"      --kernel-timeout S  the watchdog: a launch of it that has not returned\n"
"                       after S seconds stops the run, exit 1 (default 30)\n"
"      --no-guard       its check without guard regions around the output,\n"
"                       for compute-sanitizer --tool memcheck\n"
"  -q, --quiet          print only problems (progress shows on terminals)\n"
"\n"
"A run directory holds run.json (manifest), timing.csv and metrics.csv;\n"
"docs/data-format.md describes them; `ewbench report DIR` analyses them\n"
"(the same as python3 -m ewbench.analysis report DIR).\n"
"\n"
"Exit status:\n"
"  0    success\n"
"  1    CUDA, I/O or internal error (a file that cannot be written, the disk\n"
"       full or past ulimit -f: run.json keeps its last state, CSV files\n"
"       their complete rows; standard output that cannot be written)\n"
"  2    bad command line: unknown option, variant or metric, malformed size,\n"
"       an unwritable --trace, an --out that already holds a run or is\n"
"       being claimed (left untouched); a --kernel that does not compile\n"
"       (NVRTC's file:line) or has another signature\n"
"  3    a variant's result differs from the CPU reference (or a --kernel\n"
"       wrote outside its output: its check runs twice, over two guard\n"
"       poisons)\n"
"  4    a size does not fit in free GPU memory (refused before allocating)\n"
"  5    no usable CUDA GPU or driver\n"
"  130  interrupted (SIGINT, SIGTERM, SIGHUP, stdout closed): the run\n"
"       directory keeps complete rows; before the first point, --out is\n"
"       released\n"
"  With --device all|LIST: 0 when every GPU's run succeeded, 130 when\n"
"  interrupted, else the first GPU's non-zero status (fleet.json says each).\n"
"\n"
"Files (installed by make install; a moved installation is found from\n"
"where the ewbench binary lies, a build tree's ewbench uses the source tree's\n"
"examples/, docs/ and metrics/):\n"
"  " EWB_PKGDATADIR "/examples\n"
"                       the kernels of docs/user-kernels.md: --kernel\n"
"                       examples/FILE.cu, when the current directory has no\n"
"                       such file, is taken from here\n"
"  " EWB_PKGDATADIR "/docs\n"
"                       README.md and docs/*.md (user-kernels.md: your own\n"
"                       kernel, from the article's listing to a measured row)\n"
"  " EWB_PKGDATADIR "/metrics\n"
"                       the metric groups (EWBENCH_METRICS_DIR searched first)\n"
"\n"
"Environment:\n"
"  EWBENCH_METRICS_DIR  a folder of metric groups, searched first\n"
"  EWBENCH_PYTHON       the interpreter of the analysis commands (default:\n"
"                       the one configure found, else python3)\n"
"\n"
"Examples:\n"
"  ewbench list\n"
"  ewbench info\n"
"  ewbench run --preset article --cache both --out h100-article\n"
"  ewbench run -v 'add_f16*' -s 16Mi --block 128 --cache cold\n"
"  ewbench check -v add_f32x4 -s 1,3,5,1000003\n"
"  ewbench sweep -v 'add_*' --out h100-sweep\n"
"  ewbench run --preset tiers --launch both\n"
"  ewbench tune -v 'add_f16*' --launch graph\n"
"  ewbench run --device all -s 16Mi --out fleet\n"
"  ewbench run --kernel examples/add_f32x4.cu --elems-per-thread 4 \\\n"
"      --kernel-block 64 -v add_f32x4 -s 16Mi\n"
"  srun --ntasks-per-node=8 --gpus-per-task=1 ewbench run --out /shared/fleet\n"
"  ewbench metrics --check --chip GH100\n"
"  ewbench report reports/reference/nvidia-h200 -o h200-report\n"
"  ncu --metrics dram__bytes_read.sum ewbench run --no-cupti -v add_f32 -s 2^24\n";

static void
version(void)
{
	printf("ewbench %s (git %s)\n", PACKAGE_VERSION, EWB_GIT_REVISION);
	printf("built with CUDA %d.%d, GPU targets: %s (PTX for the last)\n",
	    EWB_CUDA_BUILD_VERSION / 1000, EWB_CUDA_BUILD_VERSION % 1000 / 10,
	    EWB_CUDA_ARCH);
	printf("nvcc flags: -O3 -std=c++17 -lineinfo; CUPTI API %u\n",
	    counters_cupti_version());
}

static int
info_command(int argc, char **argv)
{
	struct device_facts	 f;
	char			*cause = NULL;
	unsigned		 index = 0;
	int			 code;

	static const struct option longopts[] = {
		{ "device",	required_argument, NULL, 'd' },
		{ NULL,		0,		   NULL, 0 }
	};
	const char		*given[CLI_OPTION_VALUES] = { NULL };
	int			 ch, first;

	optind = 1;
	opterr = 0;
	for (first = optind; (ch = getopt_long(argc, argv, "+:", longopts,
	    NULL)) != -1; first = optind) {
		if (ch == ':' || ch == '?') {
			cause = cli_option_error(argv, first, ch,
			    " (info takes only --device N)");
			goto usage;
		}
		if (cli_given_once(longopts, given, ch, optarg, "info shows "
		    "one GPU", &cause) != 0 || cli_parse_uint(optarg,
		    "--device", 0, 1023, &index, &cause) != 0)
			goto usage;
	}
	if (optind < argc) {
		cause = xasprintf("unexpected argument '%s' (info takes only "
		    "--device N)", argv[optind]);
		goto usage;
	}
	if ((code = device_open((int)index, &f, &cause)) != 0) {
		fprintf(stderr, "ewbench: %s\n", cause);
		free(cause);
		return code;
	}
	device_print(&f, stdout);
	return EWB_EXIT_OK;
usage:
	fprintf(stderr, "ewbench info: %s\n", cause);
	free(cause);
	return EWB_EXIT_USAGE;
}

static int
list_command(int argc, char **argv)
{
	size_t	i;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "ewbench list: takes no arguments\n");
		return EWB_EXIT_USAGE;
	}
	printf("%-18s %-4s %-5s %-7s %5s %4s %5s %5s %5s %3s  %s\n", "id", "op",
	    "dtype", "origin", "block", "e/t", "vec", "B/el", "flop", "inp",
	    "technique");
	for (i = 0; i < ewb_variant_count; i++) {
		const struct ewb_variant *v = &ewb_variants[i];

		printf("%-18s %-4s %-5s %-7s %5u %4u %5u %5u %5u %3s  %s\n",
		    v->id, ewb_op_name(v->op), ewb_dtype_name(v->dtype),
		    v->origin, v->default_block, v->elems_per_thread,
		    v->vector_width, v->read_bytes + v->write_bytes, v->flops,
		    v->in_place ? "yes" : "no", v->technique);
	}
	printf("\nblock: published threads per block; e/t: elements per "
	    "thread; vec: elements per memory instruction;\nB/el: bytes read "
	    "+ written per element; flop: per element; inp: in place\n");
	return EWB_EXIT_OK;
}

/* code, or exit 1 when what went to stdout could not all be written (a
 * full disk, /dev/full): output lost is never a success. */
static int
stdout_flushed(int code)
{
	int	error = 0;

	if (fflush(stdout) != 0)
		error = errno;
	else if (ferror(stdout))
		error = EIO;
	if (error == 0 || code != EWB_EXIT_OK)
		return code;
	fprintf(stderr, "ewbench: standard output: %s\n", strerror(error));
	return EWB_EXIT_ERROR;
}

static int
command(int argc, char **argv)
{
	const char	*cmd;

	if (argc < 2) {
		fprintf(stderr, "usage: ewbench [--help | --version] COMMAND "
		    "[OPTIONS] (ewbench --help lists them)\n");
		return EWB_EXIT_USAGE;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
	    strcmp(cmd, "help") == 0) {
		fputs(usage_text, stdout);
		return EWB_EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		version();
		return EWB_EXIT_OK;
	}
	if (analysis_is_command(cmd))
		return analysis_command(argc - 1, argv + 1);
	if (argc > 2 && (strcmp(argv[2], "-h") == 0 ||
	    strcmp(argv[2], "--help") == 0) && strcmp(cmd, "metrics") != 0) {
		fputs(usage_text, stdout);
		return EWB_EXIT_OK;
	}
	if (strcmp(cmd, "info") == 0)
		return info_command(argc - 1, argv + 1);
	if (strcmp(cmd, "list") == 0)
		return list_command(argc - 1, argv + 1);
	if (strcmp(cmd, "run") == 0 || strcmp(cmd, "check") == 0 ||
	    strcmp(cmd, "sweep") == 0 || strcmp(cmd, "tune") == 0)
		return run_command(argc - 1, argv + 1);
	if (strcmp(cmd, "ceilings") == 0)
		return ceilings_command(argc - 1, argv + 1);
	if (strcmp(cmd, "metrics") == 0)
		return metrics_command(argc - 1, argv + 1);
	fprintf(stderr, "ewbench: unknown command '%s' (commands: info, list, "
	    "run, check, sweep, tune, ceilings, metrics, report, compare, "
	    "contest, fleet-report, timeline, torch; see ewbench --help)\n",
	    cmd);
	return EWB_EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	/* A file-size limit (ulimit -f) makes a write fail with EFBIG, handled
	 * as a full disk is (complete rows kept), instead of killing. */
	signal(SIGXFSZ, SIG_IGN);
	return stdout_flushed(command(argc, argv));
}

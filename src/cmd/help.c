/*
 * help.c - the help pages: `ewbench --help` (the commands, what they share)
 * and `ewbench COMMAND --help` (that command's synopsis, options, exit
 * statuses and examples).  The options of the measuring commands are one
 * table (run-options.def), each row naming the commands whose page lists
 * it, so that a page lists a command's own and the manual
 * (scripts/manpage.sh, every page) lists each once.  `metrics` and the
 * analysis commands have pages of their own (cmd-metrics.c, the Python
 * package).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "base/ewbench.h"
#include "cmd/cli.h"
#include "cmd/help.h"
#include "base/paths.h"

/* The commands with a page here: synopsis, what it does, which options. */
static const struct command_help {
	const char	*name;
	unsigned	 mask;		/* its options (OPTS_RUN, ...); 0: none
					   of run-options.def */
	const char	*synopsis;
	const char	*about;
	const char	*own;		/* options not in the table, or NULL */
	const char	*exits;
	const char	*examples;
} commands[] = {
{ "info", 0, "ewbench info [--device N]",
"The GPU as CUDA reports it: compute capability, SMs, clocks, L2, memory,\n"
"bus width and the theoretical DRAM bandwidth (2 x clock x bus width).\n",
"      --device N       CUDA device (default 0)\n"
"  -h, --help           this page\n",
"  0    success\n"
"  1    CUDA error\n"
"  2    bad command line\n"
"  5    no usable CUDA GPU or driver (the message says which)\n",
"  ewbench info\n"
"  ewbench info --device 1\n" },
{ "list", 0, "ewbench list",
"The kernel variants and their facts: op, dtype, origin (study, ewbench's\n"
"own additions, peer, or probe: a study variant's loads 2x or 4x per\n"
"thread, for the experiments, run only by name), published block,\n"
"elements per thread, vector width, bytes per element. No GPU needed.\n",
"  -h, --help           this page\n",
"  0    success\n"
"  1    the listing could not be written\n"
"  2    bad command line\n",
"  ewbench list\n"
"  ewbench list | awk '$4 == \"study\"'\n" },
{ "run", OPTS_RUN, "ewbench run [OPTIONS]",
"Checks every element of each variant at each size against a CPU reference,\n"
"times each kernel until its median is known to --target, collects the\n"
"counters of --metrics, and writes a run directory: run.json (manifest),\n"
"timing.csv and metrics.csv (docs/data-format.md). `ewbench report DIR`\n"
"analyses it.\n", NULL, NULL,
"  ewbench run --preset article --cache both --out h100-article\n"
"  ewbench run -v 'add_f16*' -s 16Mi --block 128 --cache cold\n"
"  ewbench run --preset tiers --launch both\n"
"  ewbench run --device all -s 16Mi --out fleet\n"
"  ewbench run --kernel examples/add_f32x4.cu --elems-per-thread 4 \\\n"
"      --kernel-block 64 -v add_f32x4 -s 16Mi\n"
"  ewbench run --dry-run --chip rtx-5090\n"
"  srun --ntasks-per-node=8 --gpus-per-task=1 ewbench run --out /shared/fleet\n"
"  ncu --metrics dram__bytes_read.sum ewbench run --no-cupti -v add_f32 -s 2^24\n" },
{ "check", OPTS_CHECK, "ewbench check [OPTIONS]",
"Only the correctness check: every element of each variant (without -v,\n"
"the experiments' probes too, which other commands run only by name)\n"
"against a CPU reference, at sizes that exercise every tail (default 1, 3,\n"
"7, 8, 33, 1000003, 2^20, 2^24+5), fresh random inputs, a poisoned output;\n"
"a user's kernel twice, over two guard poisons around its output.\n", NULL, NULL,
"  ewbench check\n"
"  ewbench check -v add_f32x4 -s 1,3,5,1000003 --misalign\n"
"  ewbench check --kernel examples/add_tail_bug.cu --elems-per-thread 4\n" },
{ "sweep", OPTS_SWEEP, "ewbench sweep [OPTIONS]",
"Runs at working sets from 64 KiB to past 8x the L2 (at least 1 GiB),\n"
"denser around the L2 size, warm and cold, from a CUDA graph: the\n"
"cache-tier plot's data. It chooses its sizes (no --size or --preset).\n",
NULL, NULL,
"  ewbench sweep -v 'add_*' --metrics residency --out h100-sweep\n" },
{ "tune", OPTS_TUNE, "ewbench tune [OPTIONS]",
"Times every block size (default 32 to 1024) at the tier sizes and prints\n"
"the best shape per variant next to the published one; no counters unless\n"
"--metrics is given.\n", NULL, NULL,
"  ewbench tune -v 'add_f16*' --launch graph\n" },
{ "ceilings", 0, "ewbench ceilings [--device N|LIST|all] [--out DIR] "
    "[--iters N] [--dry-run [--chip NAME]] [-q]",
"Measures the GPU's ceilings: DRAM read, write, copy and add bandwidth and\n"
"add's fixed cost a launch, L2 read bandwidth, DRAM latency alone and\n"
"beside a stream at five loads (with the stream's bandwidth), the launch\n"
"floor (stream, graph), the block launch rate at 32 to 1024 threads per\n"
"block, the FMA peaks, and the concurrency curve (bandwidth against the\n"
"bytes of loads in flight per SM, each point with its fixed cost); writes\n"
"ceilings.csv in a run directory (docs/ceilings.md), and keeps a complete\n"
"run in the ceilings cache (~/.cache/ewbench/ceilings/GPU/BUILD), where the\n"
"reports of this GPU's later runs by the same build find it.\n",
"      --device N|LIST|all  the GPU(s), as for run (default 0)\n"
"  -o, --out DIR        run directory (default ewbench-ceilings-<gpu>-<time>)\n"
"      --iters N        repetitions of each measurement\n"
"      --dry-run        print the plan and exit; needs no GPU\n"
"      --chip NAME      with --dry-run: plan for this GPU by name\n"
"                       (docs/gpus.md)\n"
"  -q, --quiet          print only problems\n"
"  -h, --help           this page\n",
"  0    success\n"
"  1    CUDA or I/O error\n"
"  2    bad command line, or an --out that already holds a run\n"
"  4    a buffer does not fit in free GPU memory\n"
"  5    no usable CUDA GPU or driver\n"
"  130  interrupted: ceilings.csv keeps its complete rows\n",
"  ewbench ceilings --out h100-ceilings\n"
"  ewbench ceilings --dry-run --chip T4\n" },
};

/* The exit statuses of the measuring commands. */
static const char measure_exits[] =
"  0    success\n"
"  1    CUDA, I/O or internal error (a file that cannot be written, the disk\n"
"       full or past ulimit -f: run.json keeps its last state, CSV files\n"
"       their complete rows; standard output that cannot be written)\n"
"  2    bad command line: unknown option, variant or metric, malformed size,\n"
"       an option given twice that does not add up, an unwritable --trace\n"
"       or one named as a run's file in --out, an --out that already holds\n"
"       a run or is being claimed (left untouched); a --kernel that does not\n"
"       compile (NVRTC's file:line), needs a newer GPU (the oldest\n"
"       architecture it compiles for named) or has another signature\n"
"  3    a variant's result differs from its reference (the CPU's, or\n"
"       --reference's kernel), or a --kernel wrote outside its output (its\n"
"       check runs twice, over two guard poisons)\n"
"  4    a size does not fit in free GPU memory (refused before allocating)\n"
"  5    no usable CUDA GPU or driver\n"
"  130  interrupted (SIGINT, SIGTERM, SIGHUP, stdout closed): the run\n"
"       directory keeps complete rows; before the first point, --out is\n"
"       released\n"
"  With --device all|LIST: 0 when every GPU's run succeeded, 130 when\n"
"  interrupted, else the first GPU's non-zero status (fleet.json says each).\n";

static const char overview[] =
"usage: ewbench [--help | --version] COMMAND [OPTIONS]\n"
"\n"
"Runs the elementwise kernels of a published optimisation study (fp32/fp16\n"
"vector add from scalar to 128-bit packed, ReLU, abs) and NVIDIA's cub peer,\n"
"checks every element against a CPU reference, times each kernel by the\n"
"GPU's own start and end (CUPTI activity records) and collects hardware\n"
"counters with CUPTI, each under the name the GPU's chip gives it.\n"
"\n"
"Commands (ewbench COMMAND --help: its options, exit statuses and examples):\n"
"  info                 the GPU: SMs, L2, memory, theoretical DRAM bandwidth\n"
"  list                 the kernel variants and their facts (no GPU needed)\n"
"  run [OPTIONS]        check, time and profile variants; write a run directory\n"
"  check [OPTIONS]      only the correctness check, at sizes that exercise\n"
"                       every tail\n"
"  sweep [OPTIONS]      working sets from 64 KiB to past 8x the L2, denser\n"
"                       around it\n"
"  tune [OPTIONS]       every block size at the tier sizes, the best shape per\n"
"                       variant next to the published one\n"
"  ceilings [OPTIONS]   DRAM and L2 bandwidth, DRAM latency alone and under\n"
"                       load, launch cost, block launch rate and FMA peaks;\n"
"                       writes ceilings.csv\n"
"  metrics --list|--check [--chip NAME] [--metrics SET]\n"
"                       list or validate counter metric sets, resolved for a\n"
"                       chip (no GPU needed with --chip: RTX 5090, GB202, or\n"
"                       all, every chip CUPTI knows)\n"
"\n"
"Analysis commands (the Python package ewbench.analysis; no GPU needed):\n"
"  report DIR [-o OUT]  a study directory's or a run directory's report:\n"
"                       report.md, report.html and figures\n"
"  compare RUN_A RUN_B  two runs side by side, changes beyond the noise\n"
"  contest RUN...       interleaved repeats: the fastest add kernels against\n"
"                       cub and torch, beyond the round-to-round spread\n"
"  fleet-report PARENT  one run per GPU: outliers against the fleet median\n"
"  timeline TRACE       a picture of a window of a --trace file\n"
"\n"
"PyTorch beside a run (the same package; needs PyTorch and the run's GPU):\n"
"  torch RUN_DIR...     time torch.add and torch.relu beside runs:\n"
"                       RUN_DIR/peer-torch.csv (--dry-run: no GPU needed)\n"
"\n"
"Options of run, check, sweep and tune: -v, -s, --block and --kernel-flags\n"
"add up when repeated; any other option that takes a value is refused the\n"
"second time, --kernel included: one kernel of yours per run.\n"
"\n"
"A run directory holds run.json (manifest), timing.csv, metrics.csv and\n"
"sass.csv (the kernels' global loads and stores, from the build's SASS);\n"
"docs/data-format.md describes them; `ewbench report DIR` analyses them\n"
"(the same as python3 -m ewbench.analysis report DIR).\n"
"\n"
"Exit status, one meaning each for every command (each command's page says\n"
"which it uses):\n"
"  0    success\n"
"  1    CUDA, I/O or internal error\n"
"  2    bad command line, or a path it names that does not exist\n"
"  3    a wrong result, or bad input data (the analysis: file:line)\n"
"  4    too large for GPU memory\n"
"  5    no usable CUDA GPU or driver (torch: no PyTorch with CUDA, or not\n"
"       the run's GPU)\n"
"  6    compare --fail-on-slower: a point got slower beyond the noise\n"
"  130  interrupted (SIGINT, SIGTERM, SIGHUP, stdout closed)\n"
"\n";

/* The Files part of the overview: each folder as this binary resolves it
 * (paths.h), so that --help names folders that exist. */
static const struct {
	const char	*what;		/* a folder of pkgdatadir */
	const char	*about;
} files[] = {
{ "examples",
"                       the kernels of docs/user-kernels.md: --kernel\n"
"                       examples/FILE.cu, when the current directory has no\n"
"                       such file, is taken from here\n" },
{ "docs",
"                       docs/*.md (user-kernels.md: your own kernel, from\n"
"                       the article's listing to a measured row), README.md\n"
"                       beside it, and reports/reference/: the shipped\n"
"                       references' data, read when the current directory\n"
"                       has no reports/reference/... the examples name\n" },
{ "metrics",
"                       the metric groups (EWBENCH_METRICS_DIR searched first)\n" },
{ "python",
"                       the analysis commands' Python package (ewbench)\n" },
};

static const char overview_tail[] =
"\n"
"Environment:\n"
"  EWBENCH_METRICS_DIR  a folder of metric groups, searched first\n"
"  EWBENCH_PYTHON       the interpreter of the analysis commands (default:\n"
"                       the one configure found, else python3)\n"
"\n"
"Examples:\n"
"  ewbench list\n"
"  ewbench run --preset article --cache both --out h100-article\n"
"  ewbench run --help\n"
"  ewbench metrics --check --chip all\n"
"  ewbench report reports/reference/nvidia-h200 -o h200-report\n";

void
help_overview(FILE *f)
{
	char	*rule = paths_installed_rule(), *dir, *dirs[PATHS_MAX];
	size_t	 i, k, n;

	fputs(overview, f);
	fprintf(f, "Files (this ewbench's, found from where it lies: a build "
	    "tree's uses its\nsource tree; an installed one, %s from the "
	    "bin/\nholding it, moved or not):\n", rule);
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		if ((dir = paths_data_dir(files[i].what)) != NULL)
			fprintf(f, "  %s\n%s", dir, files[i].about);
		else {
			n = paths_data_dirs(files[i].what, dirs);
			fprintf(f, "  %s: not found (looked in", files[i].what);
			for (k = 0; k < n; k++)
				fprintf(f, "%s %s", k > 0 ? " and" : "",
				    dirs[k]);
			fprintf(f, ")\n%s", files[i].about);
			paths_free(dirs, n);
		}
		free(dir);
	}
	fputs(overview_tail, f);
	free(rule);
	fputs("\nThis build (docs/gpus.md: the toolkit and driver each feature "
	    "needs):\n", f);
	help_build(f);
}

void
help_build(FILE *f)
{
	size_t	i, k;

	fprintf(f, "  CUDA %d.%d (kernels by nvcc %s), CUPTI API %d (%s)\n"
	    "  runs on NVIDIA drivers %s and newer\n",
	    EWB_CUDA_BUILD_VERSION / 1000, EWB_CUDA_BUILD_VERSION % 1000 / 10,
	    EWB_NVCC_RELEASE, EWB_CUPTI_BUILD_API,
	    EWB_CUPTI_KERNEL_RECORD_NAME, EWB_DRIVER_MIN);
	/* What the toolkit lacks: one line per reason, its variants named. */
	for (i = 0; i < ewb_variant_count; i++) {
		const char	*why = ewb_variants[i].unavailable;
		const char	*sep = "  not in this build: ";

		for (k = 0; why != NULL && k < i; k++) {
			if (ewb_variants[k].unavailable != NULL &&
			    strcmp(ewb_variants[k].unavailable, why) == 0)
				why = NULL;	/* said with k's line */
		}
		if (why == NULL)
			continue;
		for (k = i; k < ewb_variant_count; k++) {
			if (ewb_variants[k].unavailable != NULL &&
			    strcmp(ewb_variants[k].unavailable, why) == 0) {
				fprintf(f, "%s%s", sep, ewb_variants[k].id);
				sep = ", ";
			}
		}
		fprintf(f, ":\n    %s\n", why);
	}
}

int
help_command(const char *name, FILE *f)
{
	const struct command_help	*c = NULL;
	size_t				 i;

	for (i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		if (strcmp(commands[i].name, name) == 0)
			c = &commands[i];
	}
	if (c == NULL)
		return -1;
	fprintf(f, "usage: %s\n\n%s\nOptions:\n", c->synopsis, c->about);
	if (c->own != NULL)
		fputs(c->own, f);
	for (i = 0; i < RUN_OPTIONS; i++) {
		if (run_options[i].commands & c->mask)
			fputs(run_options[i].help, f);
	}
	if (c->mask != 0)
		fputs("  -h, --help           this page\n", f);
	fprintf(f, "\nExit status:\n%s\nExamples:\n%s",
	    c->exits != NULL ? c->exits : measure_exits, c->examples);
	return 0;
}

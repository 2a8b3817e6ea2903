## python/local.mk - the Python package ewbench (ewbench.analysis,
## ewbench.peers), installed to $(pkgdatadir)/python, where the installed
## `ewbench` finds it (src/base/paths.c) and puts it on PYTHONPATH for its
## analysis commands: never on anyone else's sys.path.  `pip install .`
## (pyproject.toml) is the other way in.  A new module goes in this list;
## `make installcheck` fails while one is missing.

ewbenchpydir = $(pkgdatadir)
nobase_dist_ewbenchpy_PYTHON = \
	%reldir%/ewbench/__init__.py \
	%reldir%/ewbench/analysis/__init__.py \
	%reldir%/ewbench/analysis/__main__.py \
	%reldir%/ewbench/analysis/cli.py \
	%reldir%/ewbench/analysis/contest/__init__.py \
	%reldir%/ewbench/analysis/contest/page.py \
	%reldir%/ewbench/analysis/contest/rank.py \
	%reldir%/ewbench/analysis/core/__init__.py \
	%reldir%/ewbench/analysis/core/atomic.py \
	%reldir%/ewbench/analysis/core/ceilings_cache.py \
	%reldir%/ewbench/analysis/core/compare.py \
	%reldir%/ewbench/analysis/core/crosscheck.py \
	%reldir%/ewbench/analysis/core/derived.py \
	%reldir%/ewbench/analysis/core/document.py \
	%reldir%/ewbench/analysis/core/load.py \
	%reldir%/ewbench/analysis/core/noise.py \
	%reldir%/ewbench/analysis/core/placement.py \
	%reldir%/ewbench/analysis/core/sass.py \
	%reldir%/ewbench/analysis/core/select.py \
	%reldir%/ewbench/analysis/core/sinks.py \
	%reldir%/ewbench/analysis/core/study.py \
	%reldir%/ewbench/analysis/core/timing.py \
	%reldir%/ewbench/analysis/core/units.py \
	%reldir%/ewbench/analysis/core/validate/__init__.py \
	%reldir%/ewbench/analysis/core/validate/contract.py \
	%reldir%/ewbench/analysis/core/validate/csv_files.py \
	%reldir%/ewbench/analysis/core/validate/fields.py \
	%reldir%/ewbench/analysis/core/validate/files.py \
	%reldir%/ewbench/analysis/core/validate/json_files.py \
	%reldir%/ewbench/analysis/core/variants.py \
	%reldir%/ewbench/analysis/core/generated.py \
	%reldir%/ewbench/analysis/core/workers.py \
	%reldir%/ewbench/analysis/fleet/__init__.py \
	%reldir%/ewbench/analysis/fleet/answers.py \
	%reldir%/ewbench/analysis/fleet/cells.py \
	%reldir%/ewbench/analysis/fleet/first.py \
	%reldir%/ewbench/analysis/fleet/members.py \
	%reldir%/ewbench/analysis/fleet/outliers.py \
	%reldir%/ewbench/analysis/fleet/page.py \
	%reldir%/ewbench/analysis/fleet/plots.py \
	%reldir%/ewbench/analysis/fleet/sections.py \
	%reldir%/ewbench/analysis/ncu_audit.py \
	%reldir%/ewbench/analysis/report/__init__.py \
	%reldir%/ewbench/analysis/report/answers.py \
	%reldir%/ewbench/analysis/report/energy.py \
	%reldir%/ewbench/analysis/report/experiments.py \
	%reldir%/ewbench/analysis/report/environment.py \
	%reldir%/ewbench/analysis/report/figures.py \
	%reldir%/ewbench/analysis/report/findings/__init__.py \
	%reldir%/ewbench/analysis/report/findings/blocks.py \
	%reldir%/ewbench/analysis/report/findings/common.py \
	%reldir%/ewbench/analysis/report/findings/dram.py \
	%reldir%/ewbench/analysis/report/findings/l2.py \
	%reldir%/ewbench/analysis/report/findings/launch.py \
	%reldir%/ewbench/analysis/report/findings/loads.py \
	%reldir%/ewbench/analysis/report/findings/registry.py \
	%reldir%/ewbench/analysis/report/findings/relu.py \
	%reldir%/ewbench/analysis/report/l2_counts.py \
	%reldir%/ewbench/analysis/report/model/__init__.py \
	%reldir%/ewbench/analysis/report/model/above.py \
	%reldir%/ewbench/analysis/report/model/blocks.py \
	%reldir%/ewbench/analysis/report/model/calibration.py \
	%reldir%/ewbench/analysis/report/model/ceilings.py \
	%reldir%/ewbench/analysis/report/model/curve.py \
	%reldir%/ewbench/analysis/report/model/facts.py \
	%reldir%/ewbench/analysis/report/model/faults.py \
	%reldir%/ewbench/analysis/report/model/fit.py \
	%reldir%/ewbench/analysis/report/model/inflight.py \
	%reldir%/ewbench/analysis/report/model/rules.py \
	%reldir%/ewbench/analysis/report/model/thresholds.py \
	%reldir%/ewbench/analysis/report/page/__init__.py \
	%reldir%/ewbench/analysis/report/page/build.py \
	%reldir%/ewbench/analysis/report/page/common.py \
	%reldir%/ewbench/analysis/report/page/findings.py \
	%reldir%/ewbench/analysis/report/page/first.py \
	%reldir%/ewbench/analysis/report/page/method.py \
	%reldir%/ewbench/analysis/report/page/predictions.py \
	%reldir%/ewbench/analysis/report/page/results.py \
	%reldir%/ewbench/analysis/report/page/threats.py \
	%reldir%/ewbench/analysis/report/plots/__init__.py \
	%reldir%/ewbench/analysis/report/plots/blocks.py \
	%reldir%/ewbench/analysis/report/plots/cache_tier.py \
	%reldir%/ewbench/analysis/report/plots/common.py \
	%reldir%/ewbench/analysis/report/plots/concurrency.py \
	%reldir%/ewbench/analysis/report/plots/dram_share.py \
	%reldir%/ewbench/analysis/report/plots/instructions.py \
	%reldir%/ewbench/analysis/report/plots/roofline.py \
	%reldir%/ewbench/analysis/report/plots/study.py \
	%reldir%/ewbench/analysis/report/plots/timeline.py \
	%reldir%/ewbench/analysis/report/published.py \
	%reldir%/ewbench/analysis/report/scoring.py \
	%reldir%/ewbench/analysis/report/unmeasured.py \
	%reldir%/ewbench/analysis/report/user_experiments.py \
	%reldir%/ewbench/analysis/report/user_kernels.py \
	%reldir%/ewbench/analysis/report/uses.py \
	%reldir%/ewbench/analysis/report/whatif.py \
	%reldir%/ewbench/analysis/timeline.py \
	%reldir%/ewbench/analysis/whatif.py \
	%reldir%/ewbench/peers/__init__.py \
	%reldir%/ewbench/peers/output.py \
	%reldir%/ewbench/peers/torch_ops.py \
	%reldir%/ewbench/peers/torch_plan.py \
	%reldir%/ewbench/stops.py

# The definitions the analysis reads: links to the C side's files in the
# source tree (python/ewbench/defs), copies once installed.
ewbenchdefsdir = $(pkgdatadir)/python/ewbench/defs
ewbenchdefs_DATA = src/run/columns.def src/base/data-limits.h \
	metrics/derived.def \
	kernels/study.def kernels/inflight.def kernels/probe.def kernels/fast.def
EXTRA_DIST += %reldir%/ewbench/defs

# Byte-compiled at install by automake's py-compile through a wrapper that
# says it in one line (py-compile itself prints every module's name run
# together: one line of some 3,700 characters).
py_compile = $(top_srcdir)/scripts/py-compile.sh
EXTRA_DIST += scripts/py-compile.sh

## python/local.mk - the Python package ewbench (ewbench.analysis,
## ewbench.peers), installed to $(pkgdatadir)/python, where the installed
## `ewbench` finds it (src/paths.c) and puts it on PYTHONPATH for its
## analysis commands: never on anyone else's sys.path.  `pip install .`
## (pyproject.toml) is the other way in.  A new module goes in this list;
## `make installcheck` fails while one is missing.

ewbenchpydir = $(pkgdatadir)
nobase_dist_ewbenchpy_PYTHON = \
	%reldir%/ewbench/__init__.py \
	%reldir%/ewbench/analysis/__init__.py \
	%reldir%/ewbench/analysis/__main__.py \
	%reldir%/ewbench/analysis/answers.py \
	%reldir%/ewbench/analysis/atomic.py \
	%reldir%/ewbench/analysis/compare.py \
	%reldir%/ewbench/analysis/contest.py \
	%reldir%/ewbench/analysis/contest_report.py \
	%reldir%/ewbench/analysis/derived.py \
	%reldir%/ewbench/analysis/document.py \
	%reldir%/ewbench/analysis/environment.py \
	%reldir%/ewbench/analysis/findings.py \
	%reldir%/ewbench/analysis/fleet.py \
	%reldir%/ewbench/analysis/fleet_answers.py \
	%reldir%/ewbench/analysis/fleet_plots.py \
	%reldir%/ewbench/analysis/fleet_report.py \
	%reldir%/ewbench/analysis/load.py \
	%reldir%/ewbench/analysis/model.py \
	%reldir%/ewbench/analysis/noise.py \
	%reldir%/ewbench/analysis/placement.py \
	%reldir%/ewbench/analysis/plots.py \
	%reldir%/ewbench/analysis/published.py \
	%reldir%/ewbench/analysis/report.py \
	%reldir%/ewbench/analysis/sass.py \
	%reldir%/ewbench/analysis/select.py \
	%reldir%/ewbench/analysis/study.py \
	%reldir%/ewbench/analysis/timing.py \
	%reldir%/ewbench/analysis/timeline.py \
	%reldir%/ewbench/analysis/units.py \
	%reldir%/ewbench/analysis/unmeasured.py \
	%reldir%/ewbench/analysis/user_kernels.py \
	%reldir%/ewbench/analysis/validate.py \
	%reldir%/ewbench/analysis/variants.py \
	%reldir%/ewbench/analysis/workers.py \
	%reldir%/ewbench/peers/__init__.py \
	%reldir%/ewbench/peers/output.py \
	%reldir%/ewbench/peers/torch_ops.py

# The definitions the analysis reads: links to the C side's files in the
# source tree (python/ewbench/defs), copies once installed.
ewbenchdefsdir = $(pkgdatadir)/python/ewbench/defs
ewbenchdefs_DATA = src/columns.def metrics/derived.def kernels/study.def
EXTRA_DIST += %reldir%/ewbench/defs

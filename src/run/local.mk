## src/run/local.mk - the measuring harness behind run, check, sweep and
## tune: the run's settings (settings.h; settings.c their defaults and
## what they imply), the plan (plan.c; sweep sizes and cache tiers in
## tiers.c), the measuring core (bench.c buffers, checker.c the check on
## the GPU, measure.c timing: its timers in measure-records.c and
## measure-events.c, their launches in measure-launch.c; profile.c
## counter sessions, residency.c the --residency cap, energy.c energy
## windows), NVTX ranges, the printers
## and the run's files (printers.c; output.c the CSV files, manifest.c
## run.json, claim.c the directory; the CSV columns in columns.def), and
## the runner that walks a plan (runner.h; runner.c its directory, files
## and end, setup.c before the walk, walk.c the walk) for cmd-run.c.
## tiers.c and energy-math.c are plain C, in src/libewb.a.  Included from
## the top Makefile.am.

src_libewb_a_SOURCES += %reldir%/tiers.c %reldir%/energy-math.c
noinst_HEADERS += %reldir%/settings.h %reldir%/tiers.h %reldir%/energy.h \
	%reldir%/columns.def %reldir%/sass.h
ewbench_SOURCES += %reldir%/settings.c %reldir%/plan.c %reldir%/plan.h \
	%reldir%/bench.c \
	%reldir%/bench.h %reldir%/checker.c %reldir%/measure.c \
	%reldir%/measure-internal.h %reldir%/measure-launch.c \
	%reldir%/measure-records.c %reldir%/measure-events.c \
	%reldir%/profile.c %reldir%/residency.c %reldir%/energy.c %reldir%/nvtx.c %reldir%/nvtx.h \
	%reldir%/claim.c %reldir%/manifest.c \
	%reldir%/printers.c %reldir%/printers.h %reldir%/output.c \
	%reldir%/output.h %reldir%/types.h \
	%reldir%/runner.h %reldir%/runner.c %reldir%/setup.c \
	%reldir%/walk.c

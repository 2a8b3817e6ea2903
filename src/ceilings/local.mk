## src/ceilings/local.mk - the GPU's measured limits (DRAM and L2
## bandwidth, latency alone and under load, launch cost, block rate, FMA
## rates, the concurrency curve) that the analysis judges every point
## against: one sample and its timing loop (sample.c), the method column
## (describe.c), the rows (rows.c), the concurrency curve's rows
## (curve.c), sizes and --dry-run (plan.c), the
## cache of a GPU's complete ceilings for its later runs (cache.c).  Public
## header: ceilings.h; internal.h is what the files share.  The command
## itself is src/cmd/cmd-ceilings.c.  Included from the top Makefile.am.

noinst_HEADERS += %reldir%/ceilings.h
ewbench_SOURCES += %reldir%/sample.c %reldir%/describe.c %reldir%/rows.c \
	%reldir%/curve.c %reldir%/plan.c %reldir%/cache.c %reldir%/internal.h

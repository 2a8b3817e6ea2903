## src/base/local.mk - the floor everything stands on: numbers, sizes,
## statistics, the sampling rule, half floats, inputs and the CPU
## reference, CSV and JSON writers, SHA-256, the guard bands, where
## installed data is found.  Plain C, no CUDA runtime calls: all of it
## goes into src/libewb.a (unit-tested without a GPU) but select.c, which
## links the kernels' registry.  Public header: ewbench.h (tolerance.h,
## fill-bits.h and data-limits.h are shared with kernels/ as well).
## Included from the top Makefile.am.

src_libewb_a_SOURCES += %reldir%/util.c %reldir%/sizes.c %reldir%/match.c \
	%reldir%/stats.c %reldir%/sampling.c %reldir%/parallel.c \
	%reldir%/half.c %reldir%/fill.c %reldir%/reference.c %reldir%/csv.c \
	%reldir%/json.c %reldir%/paths.c %reldir%/sha256.c %reldir%/guard.c
noinst_HEADERS += %reldir%/ewbench.h %reldir%/fill-bits.h \
	%reldir%/tolerance.h %reldir%/data-limits.h %reldir%/paths.h \
	%reldir%/guard.h

# Variant selection over the registry (kernels/): not in libewb.a.
ewbench_SOURCES += %reldir%/select.c

## src/counters/local.mk - hardware counters: metric sets read from
## metrics/ (metric-sets.c the format, metric-groups.c the files), the
## derived rows and their formulas (counters-derive.c, formula.c: plain C,
## in src/libewb.a), and CUPTI's Range Profiler on the GPU (counters.c)
## and offline (counters-host.c).
## Public header: counters.h.  cupti-shim/ lets C include CUPTI's host
## header (its README).  Included from the top Makefile.am.

src_libewb_a_SOURCES += %reldir%/metric-sets.c %reldir%/metric-groups.c \
	%reldir%/counters-derive.c %reldir%/formula.c
noinst_HEADERS += %reldir%/counters.h %reldir%/formula.h
ewbench_SOURCES += %reldir%/counters.c %reldir%/counters-collect.c \
	%reldir%/counters-host.c \
	%reldir%/counters-cupti.h
EXTRA_DIST += %reldir%/cupti-shim/string %reldir%/cupti-shim/README

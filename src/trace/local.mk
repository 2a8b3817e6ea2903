## src/trace/local.mk - `--trace FILE.json`: CUPTI activity records of
## the run (trace.c), what is computed from them (trace-records.c) and
## their Chrome trace JSON (trace-json.c): the last two plain C, in
## src/libewb.a.  Public header: trace.h.  Included from the top
## Makefile.am.

src_libewb_a_SOURCES += %reldir%/trace-records.c %reldir%/trace-json.c
noinst_HEADERS += %reldir%/trace.h
ewbench_SOURCES += %reldir%/trace.c

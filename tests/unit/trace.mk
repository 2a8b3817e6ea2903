## tests/unit/trace.mk - the trace records and their Chrome trace JSON
## (src/trace/trace-records.c, trace-json.c, in libewb.a), without GPU or CUPTI.  Included from
## the top Makefile.am, non-recursive.

check_PROGRAMS += %reldir%/test-trace
TESTS += %reldir%/test-trace

%canon_reldir%_test_trace_SOURCES = %reldir%/test-trace.c %reldir%/check.h
%canon_reldir%_test_trace_LDADD = src/libewb.a -lm

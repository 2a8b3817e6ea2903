## tests/unit/counters.mk - unit tests of the counters, included from the
## top Makefile.am (non-recursive).  Neither needs a GPU or a driver:
## test-metricsets runs the CUPTI host API offline for chip GH100 and
## reads metrics/ through EWBENCH_METRICS_DIR (AM_TESTS_ENVIRONMENT);
## test-derived is plain C.  -L/-rpath for the toolkit come from
## AM_LDFLAGS ($(CUDA_LDFLAGS)).

check_PROGRAMS += %reldir%/test-metricsets %reldir%/test-derived
TESTS += %reldir%/test-metricsets %reldir%/test-derived

%canon_reldir%_test_metricsets_SOURCES = %reldir%/test-metricsets.c \
	%reldir%/check.h src/counters/counters.c \
	src/counters/counters-collect.c \
	src/counters/counters-host.c
%canon_reldir%_test_metricsets_LDADD = src/libewb.a \
	$(CUPTI_LIBS) $(CUDART_LIBS) -lm

%canon_reldir%_test_derived_SOURCES = %reldir%/test-derived.c \
	%reldir%/check.h
%canon_reldir%_test_derived_LDADD = src/libewb.a -lm

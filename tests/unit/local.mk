# tests/unit/local.mk - the host unit tests (make check), one program per
# module of src/libewb.a.  Included from the top-level Makefile.am, which
# must set check_PROGRAMS and TESTS (to empty, at least) before this.

%canon_reldir%_tests = \
	%reldir%/test-sizes \
	%reldir%/test-cover \
	%reldir%/test-match \
	%reldir%/test-stats \
	%reldir%/test-half \
	%reldir%/test-fill \
	%reldir%/test-reference \
	%reldir%/test-csv \
	%reldir%/test-json \
	%reldir%/test-interrupt \
	%reldir%/test-durability \
	%reldir%/test-placement \
	%reldir%/test-paths \
	%reldir%/test-guard \
	%reldir%/test-energy

check_PROGRAMS += $(%canon_reldir%_tests)
TESTS += $(%canon_reldir%_tests)

%canon_reldir%_ldadd = src/libewb.a -lm

%canon_reldir%_test_sizes_SOURCES = %reldir%/test-sizes.c %reldir%/check.h
%canon_reldir%_test_sizes_LDADD = $(%canon_reldir%_ldadd)
%canon_reldir%_test_cover_SOURCES = %reldir%/test-cover.c %reldir%/check.h
%canon_reldir%_test_cover_LDADD = $(%canon_reldir%_ldadd)
%canon_reldir%_test_match_SOURCES = %reldir%/test-match.c %reldir%/check.h
%canon_reldir%_test_match_LDADD = $(%canon_reldir%_ldadd)
%canon_reldir%_test_stats_SOURCES = %reldir%/test-stats.c %reldir%/check.h
%canon_reldir%_test_stats_LDADD = $(%canon_reldir%_ldadd)
%canon_reldir%_test_half_SOURCES = %reldir%/test-half.c %reldir%/check.h
%canon_reldir%_test_half_LDADD = $(%canon_reldir%_ldadd)
%canon_reldir%_test_fill_SOURCES = %reldir%/test-fill.c %reldir%/check.h
%canon_reldir%_test_fill_LDADD = $(%canon_reldir%_ldadd)
%canon_reldir%_test_reference_SOURCES = \
	%reldir%/test-reference.c %reldir%/check.h
%canon_reldir%_test_reference_LDADD = $(%canon_reldir%_ldadd)
%canon_reldir%_test_csv_SOURCES = %reldir%/test-csv.c %reldir%/check.h
%canon_reldir%_test_csv_LDADD = $(%canon_reldir%_ldadd)
%canon_reldir%_test_guard_SOURCES = %reldir%/test-guard.c %reldir%/check.h
%canon_reldir%_test_guard_LDADD = $(%canon_reldir%_ldadd)
%canon_reldir%_test_json_SOURCES = %reldir%/test-json.c %reldir%/check.h
%canon_reldir%_test_json_LDADD = $(%canon_reldir%_ldadd)
%canon_reldir%_test_interrupt_SOURCES = %reldir%/test-interrupt.c \
	%reldir%/check.h
%canon_reldir%_test_interrupt_LDADD = $(%canon_reldir%_ldadd)
# Every fsync of libewb.a goes through the test's __wrap_fsync (GNU ld).
%canon_reldir%_test_durability_SOURCES = %reldir%/test-durability.c \
	%reldir%/check.h
%canon_reldir%_test_durability_LDADD = $(%canon_reldir%_ldadd)
%canon_reldir%_test_durability_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=fsync
%canon_reldir%_test_placement_SOURCES = %reldir%/test-placement.c \
	%reldir%/check.h
%canon_reldir%_test_placement_LDADD = $(%canon_reldir%_ldadd)
%canon_reldir%_test_paths_SOURCES = %reldir%/test-paths.c %reldir%/check.h
%canon_reldir%_test_paths_LDADD = $(%canon_reldir%_ldadd)
%canon_reldir%_test_energy_SOURCES = %reldir%/test-energy.c %reldir%/check.h
%canon_reldir%_test_energy_LDADD = $(%canon_reldir%_ldadd)

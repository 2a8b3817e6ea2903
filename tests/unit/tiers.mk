## tests/unit/tiers.mk - unit test of src/run/tiers.c (sweep grid and cache
## tiers), included from the top Makefile.am.  Plain C, no GPU; needs
## src/run/tiers.c in src/libewb.a.

check_PROGRAMS += %reldir%/test-tiers
TESTS += %reldir%/test-tiers

%canon_reldir%_test_tiers_SOURCES = %reldir%/test-tiers.c %reldir%/check.h
%canon_reldir%_test_tiers_LDADD = src/libewb.a -lm

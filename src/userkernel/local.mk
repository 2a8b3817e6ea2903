## src/userkernel/local.mk - a user's kernel (`--kernel FILE.cu`): its
## spec from the command line (spec.c), its source read as text (scan.c),
## the program NVRTC compiles (program.c), the compile cache (cache.c),
## NVRTC itself (build.c, the one file that links it), loading and
## launching (userkernel.c).  Public header: userkernel.h; internal.h is
## what the files share.  Included from the top Makefile.am.

# What needs no compiler and no GPU: the command line and the plan link
# these alone (tests/unit/test-plan).
userkernel_spec_files = %reldir%/spec.c %reldir%/scan.c %reldir%/program.c
ewbench_SOURCES += $(userkernel_spec_files) %reldir%/cache.c \
	%reldir%/build.c %reldir%/userkernel.c %reldir%/userkernel.h \
	%reldir%/internal.h

## src/userkernel/local.mk - a user's kernel (`--kernel FILE.cu`): its
## spec, NVRTC and the cubin cache (userkernel-build.c), loading and
## launching (userkernel.c).  Public header: userkernel.h.  Included from
## the top Makefile.am.

ewbench_SOURCES += %reldir%/userkernel.c %reldir%/userkernel-build.c \
	%reldir%/userkernel.h

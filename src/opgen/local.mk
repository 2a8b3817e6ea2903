## src/opgen/local.mk - ewbench's skeletons for a user's op
## (`--elementwise FILE.cu`): the family as data (family.c; rows.c, which
## rows of a run are its), the program
## NVRTC compiles (program.c), NVRTC (compile.c), the GPU side
## (launch.c).  headers.c holds kernels/cover.h, kernels/tiles.cuh and
## kernels/family.cuh as text, made at build time (scripts/embed.sh), so
## the program NVRTC compiles includes the very templates nvcc built the
## built-ins from.
## Included from the top Makefile.am.

# rows.c makes no CUDA or NVRTC call and needs no kernel: in the host
# library (the plan orders the family's rows by it).
src_libewb_a_SOURCES += %reldir%/rows.c
opgen_host_files = %reldir%/family.c %reldir%/program.c \
	%reldir%/compile.c %reldir%/opgen.h
nodist_opgen_headers = %reldir%/headers.c
ewbench_SOURCES += $(opgen_host_files) %reldir%/launch.c
BUILT_SOURCES += $(nodist_opgen_headers)
%reldir%/headers.c: $(srcdir)/kernels/cover.h $(srcdir)/kernels/tiles.cuh \
    $(srcdir)/kernels/family.cuh $(srcdir)/scripts/embed.sh
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)$(SHELL) $(srcdir)/scripts/embed.sh $(srcdir)/kernels/cover.h \
	    $(srcdir)/kernels/tiles.cuh $(srcdir)/kernels/family.cuh >$@.tmp && \
	    mv -f $@.tmp $@
CLEANFILES += %reldir%/headers.c %reldir%/headers.c.tmp
EXTRA_DIST += scripts/embed.sh

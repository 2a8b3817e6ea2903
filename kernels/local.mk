## kernels/local.mk - the kernel library: every variant, the registry table
## and the harness's helper kernels.  Included from the top Makefile.am;
## .cu files are compiled by its .cu.o rule.

noinst_LIBRARIES += %reldir%/libewbkernels.a
%canon_reldir%_libewbkernels_a_SOURCES = \
	%reldir%/registry.cu \
	%reldir%/add.cu \
	%reldir%/relu.cu \
	%reldir%/abs.cu \
	%reldir%/fast.cu \
	%reldir%/peer_cub.cu \
	%reldir%/flush.cu \
	%reldir%/spin.cu \
	%reldir%/compare.cu \
	%reldir%/fill.cu \
	%reldir%/ceilings_memory.cu \
	%reldir%/ceilings_latency.cu \
	%reldir%/ceilings_inflight.cu \
	%reldir%/ceilings_launch.cu \
	%reldir%/ceilings_fma.cu
noinst_HEADERS += %reldir%/registry.h %reldir%/cover.h %reldir%/common.cuh \
	%reldir%/ops.cuh \
	%reldir%/tiles.cuh %reldir%/family.cuh \
	%reldir%/study.def %reldir%/fast.def %reldir%/probe.def \
	%reldir%/inflight.def \
	%reldir%/peer_cub.cuh \
	%reldir%/ceilings.h %reldir%/ceilings.cuh

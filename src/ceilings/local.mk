## src/ceilings/local.mk - `ewbench ceilings`: the GPU's measured limits
## (DRAM and L2 bandwidth, launch latency, FMA rates) that the analysis
## judges every point against.  Public header: ceilings.h.  Included from
## the top Makefile.am.

noinst_HEADERS += %reldir%/ceilings.h

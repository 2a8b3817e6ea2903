## metrics/local.mk - metric sets (docs/metrics.md), installed where
## `ewbench` finds them: $(pkgdatadir)/metrics (EWB_PKGDATADIR).

metricsdir = $(pkgdatadir)/metrics
dist_metrics_DATA = \
	%reldir%/default.txt \
	%reldir%/dram.txt \
	%reldir%/instructions.txt \
	%reldir%/memory.txt \
	%reldir%/residency.txt \
	%reldir%/stalls.txt \
	%reldir%/sol.txt
# Compiled into ewbench (src/counters/counters-derive.c) and read by the analysis.
EXTRA_DIST += %reldir%/derived.def

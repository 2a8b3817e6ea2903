## src/device/local.mk - the machine: the GPU's facts from the CUDA
## runtime (device.c), known chips' facts from data sheets for plans
## without one (chips.c), NVML (nvml.c, loaded at run time), the host and
## its place in a job (hostfacts.c, placement.c), and the watchdog that
## stops a kernel that never returns.  placement.c is plain C and goes
## into src/libewb.a.  Public header: device.h.  Included from the top
## Makefile.am.

src_libewb_a_SOURCES += %reldir%/placement.c
noinst_HEADERS += %reldir%/placement.h
ewbench_SOURCES += %reldir%/device.c %reldir%/device.h \
	%reldir%/chips.c %reldir%/chips.h %reldir%/nvml.c %reldir%/nvml.h \
	%reldir%/hostfacts.c %reldir%/hostfacts.h \
	%reldir%/watchdog.c %reldir%/watchdog.h

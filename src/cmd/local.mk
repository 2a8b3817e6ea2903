## src/cmd/local.mk - the commands: main.c dispatches, cli.c parses the
## measuring commands' options into their settings (run/settings.h),
## help.c holds every --help page; one cmd-*.c per command (commands.h;
## cmd-run.c the
## glue of run, check, sweep and tune; cmd-analysis.c hands the analysis
## commands to Python); fleet.c runs one child per GPU.  Included from the
## top Makefile.am.

ewbench_SOURCES += %reldir%/main.c %reldir%/help.c %reldir%/help.h \
	%reldir%/cli.c %reldir%/cli.h %reldir%/cmd-run.c %reldir%/commands.h \
	%reldir%/cmd-metrics.c %reldir%/cmd-analysis.c \
	%reldir%/cmd-ceilings.c %reldir%/fleet.c %reldir%/fleet.h

## src/cmd/local.mk - the commands: main.c dispatches, cli.c parses the
## measuring commands' options (one table: run-options.def) into their
## settings (run/settings.h), help.c holds every --help page; one
## cmd-*.c per command, each
## command an entry in one table (commands.c, commands.h;
## cmd-run.c the glue of run, check, sweep and tune, which drives the
## runner of src/run/; cmd-analysis.c hands the analysis commands to Python);
## fleet.c runs one child per GPU.  Included from the top Makefile.am.

# The command line's parser: write-run links it too.
cmd_cli_files = %reldir%/cli.c %reldir%/cli-values.c
ewbench_SOURCES += %reldir%/main.c %reldir%/help.c %reldir%/help.h \
	$(cmd_cli_files) %reldir%/cli.h %reldir%/run-options.def \
	%reldir%/commands.h %reldir%/commands.c %reldir%/cmd-info.c \
	%reldir%/cmd-list.c %reldir%/cmd-run.c \
	%reldir%/cmd-metrics.c %reldir%/cmd-analysis.c \
	%reldir%/cmd-ceilings.c %reldir%/fleet.c %reldir%/fleet.h

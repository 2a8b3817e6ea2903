/*
 * commands.h - the commands main.c dispatches to, one cmd-*.c each; argv[0]
 * is the command's name, and each returns an exit code (enum ewb_exit).
 */
#ifndef EWB_COMMANDS_H
#define EWB_COMMANDS_H

#include <stdbool.h>

/* cmd-run.c: `ewbench run|check|sweep|tune ...`. */
int	 run_command(int argc, char **argv);

/* cmd-ceilings.c: `ewbench ceilings [--device N] [--out DIR] [--iters N]
 * [--quiet]`. */
int	 ceilings_command(int argc, char **argv);

/* cmd-metrics.c: `ewbench metrics --list|--check [--chip NAME]
 * [--metrics SPEC]`. */
int	 metrics_command(int argc, char **argv);

/* cmd-analysis.c: `ewbench report|compare|contest|fleet-report|timeline|
 * torch` exec the Python analysis; analysis_command returns only when it
 * cannot (an exit code). */
bool	 analysis_is_command(const char *command);
int	 analysis_command(int argc, char **argv);

/* main.c: says "ewbench COMMAND: CAUSE" on standard error and frees
 * CAUSE; returns CODE.  How a command ends on what it refuses. */
int	 command_refuses(const char *command, char *cause, int code);

#endif

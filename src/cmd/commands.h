/*
 * commands.h - the commands, one entry each in one table (commands.c),
 * which main.c looks a command up in.  Each cmd-*.c defines its
 * commands' entries; argv[0] is the command's name, and each returns an
 * exit code (enum ewb_exit).
 */
#ifndef EWB_COMMANDS_H
#define EWB_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

struct command_entry {
	const char	*name;		/* ewbench NAME */
	int		(*exec)(int argc, char **argv);
	bool		 own_help;	/* answers --help itself (its page
					   is not help.c's) */
};

/* cmd-info.c: `ewbench info [--device N]`. */
extern const struct command_entry info_entry;
/* cmd-list.c: `ewbench list`. */
extern const struct command_entry list_entry;
/* cmd-run.c: `ewbench run|check|sweep|tune ...`. */
extern const struct command_entry run_entry, check_entry, sweep_entry,
    tune_entry;
/* cmd-ceilings.c: `ewbench ceilings [--device N] [--out DIR] [--iters N]
 * [--quiet]`. */
extern const struct command_entry ceilings_entry;
/* cmd-metrics.c: `ewbench metrics --list|--check [--chip NAME]
 * [--metrics SPEC]`. */
extern const struct command_entry metrics_entry;
/* cmd-analysis.c: `ewbench report|compare|contest|fleet-report|timeline|
 * torch` exec the Python analysis; they return only when they cannot (an
 * exit code). */
extern const struct command_entry report_entry, compare_entry,
    contest_entry, fleet_report_entry, timeline_entry, torch_entry;

/* commands.c: the entry of the command named name, or NULL. */
const struct command_entry *command_find(const char *name);
/* commands.c: every command's name, in the table's order, ", " between
 * them. */
void	 command_names(FILE *);

/* cli-values.c: says "ewbench COMMAND: CAUSE" on standard error and frees
 * CAUSE; returns CODE.  How a command ends on what it refuses. */
int	 command_refuses(const char *command, char *cause, int code);

#endif

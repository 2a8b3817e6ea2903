/*
 * commands.c - the command table: every command ewbench takes, in the
 * order `ewbench --help` and the unknown-command message list them.  A
 * new command is its cmd-*.c, with its entry, and a row here.
 */
#include <string.h>

#include "cmd/commands.h"

static const struct command_entry *const command_table[] = {
	&info_entry, &list_entry,
	&run_entry, &check_entry, &sweep_entry, &tune_entry,
	&ceilings_entry, &metrics_entry,
	&report_entry, &compare_entry, &contest_entry, &fleet_report_entry,
	&timeline_entry, &torch_entry,
};
#define COMMANDS	(sizeof command_table / sizeof command_table[0])

const struct command_entry *
command_find(const char *name)
{
	size_t	i;

	for (i = 0; i < COMMANDS; i++) {
		if (strcmp(command_table[i]->name, name) == 0)
			return command_table[i];
	}
	return NULL;
}

void
command_names(FILE *f)
{
	size_t	i;

	for (i = 0; i < COMMANDS; i++)
		fprintf(f, "%s%s", i > 0 ? ", " : "", command_table[i]->name);
}

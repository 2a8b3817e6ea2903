/*
 * help.h - the help pages (help.c): `ewbench --help` and `ewbench COMMAND
 * --help`.
 */
#ifndef EWB_HELP_H
#define EWB_HELP_H

#include <stdio.h>

/* The overview: the commands, what they share, the exit statuses, and
 * this build (help_build). */
void		 help_overview(FILE *);
/* This build's toolkit, CUPTI, the driver it needs and what it lacks,
 * each line indented by two blanks. */
void		 help_build(FILE *);
/* COMMAND's page (synopsis, what it does, its options, its exit statuses,
 * examples); -1 when help.c has none for it (metrics and the analysis
 * commands have their own). */
int		 help_command(const char *command, FILE *);

#endif

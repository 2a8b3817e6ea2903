/*
 * run.h - the measuring commands.
 */
#ifndef EWB_RUN_H
#define EWB_RUN_H

#include "run/output.h"

/* `ewbench run ...` and `ewbench check ...`; argv[0] is the command name.
 * Returns an exit code (enum ewb_exit). */
int	 run_command(int argc, char **argv);

#endif

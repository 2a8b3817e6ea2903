/*
 * fleet.h - one measuring command on many GPUs: `--device all` or a
 * device list starts one ewbench per GPU and writes PARENT/fleet.json;
 * under Slurm, Open MPI or PMIx this process is one task of a fleet the
 * scheduler started, and measures into PARENT/<node>-rank<R>.
 */
#ifndef EWB_FLEET_H
#define EWB_FLEET_H

#include "cmd/cli.h"
#include "device/placement.h"

/* Called by a measuring command after its options are parsed (argv[0] is
 * the command's name).  Reads the launcher's facts into *h.  Returns 1
 * when the command is done (*code: its exit status): a fleet that ran,
 * or a refusal.  Returns 0 when this process measures one GPU itself;
 * for a scheduler's task o->device and o->out are then its own (o->out
 * points into h, freed by host_facts_free). */
int	 fleet_dispatch(int argc, char **argv, struct run_options *o,
	    struct host_facts *h, int *code);

#endif

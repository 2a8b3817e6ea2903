/*
 * chips.c - known GPUs' facts by name (chips.h).  The H100 and H200 rows
 * are what CUDA reported on the boards the reference studies were
 * measured on (reports/reference/<gpu>/article/run.json); the others are what
 * CUDA reports for that board, from its data sheet.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chips.h"

static const struct chip {
	const char	*name, *alias;	/* --chip NAME */
	const char	*cupti;		/* CUPTI chip */
	const char	*board;		/* the facts are this board's */
	int		 cc_major, cc_minor, sm_count;
	unsigned	 l2_mib, memory_gib;
	int		 bus_width_bits, memory_clock_mhz, sm_clock_mhz;
	int		 max_threads_per_sm, max_blocks_per_sm;
} chips[] = {
	{ "GH100", "H100", "GH100", "NVIDIA H100 80GB HBM3", 9, 0, 132, 50,
	    79, 5120, 2619, 1980, 2048, 32 },
	{ "H200", NULL, "GH100", "NVIDIA H200", 9, 0, 132, 60, 139,
	    6016, 3201, 1980, 2048, 32 },
	{ "GA100", "A100", "GA100", "NVIDIA A100-SXM4-80GB", 8, 0, 108, 40,
	    79, 5120, 1593, 1410, 2048, 32 },
	{ "AD102", "RTX4090", "AD102", "NVIDIA GeForce RTX 4090", 8, 9, 128,
	    72, 23, 384, 10501, 2520, 1536, 24 },
	{ "TU104", "T4", "TU104", "Tesla T4", 7, 5, 40, 4, 14, 256, 5001,
	    1590, 1024, 16 },
};

int
chips_facts(const char *name, struct device_facts *f,
    const char **cupti_chip, char **cause)
{
	const struct chip	*c = NULL;
	char			*known = NULL, *next;
	size_t			 i;

	for (i = 0; i < sizeof chips / sizeof chips[0]; i++) {
		if (strcasecmp(chips[i].name, name) == 0 ||
		    (chips[i].alias != NULL &&
		    strcasecmp(chips[i].alias, name) == 0))
			c = &chips[i];
		next = xasprintf("%s%s%s%s%s", known ? known : "",
		    known ? ", " : "", chips[i].name,
		    chips[i].alias ? "/" : "",
		    chips[i].alias ? chips[i].alias : "");
		free(known);
		known = next;
	}
	if (c == NULL) {
		*cause = xasprintf("--chip %s: no facts for it (known: %s)",
		    name, known);
		free(known);
		return -1;
	}
	free(known);
	memset(f, 0, sizeof *f);
	f->index = -1;
	snprintf(f->name, sizeof f->name, "%s", c->board);
	f->cc_major = c->cc_major;
	f->cc_minor = c->cc_minor;
	f->sm_count = c->sm_count;
	f->l2_bytes = (size_t)c->l2_mib << 20;
	f->memory_bytes = (size_t)c->memory_gib << 30;
	f->bus_width_bits = c->bus_width_bits;
	f->memory_clock_khz = c->memory_clock_mhz * 1000;
	f->sm_clock_khz = c->sm_clock_mhz * 1000;
	f->dram_bandwidth = device_dram_bandwidth(f->memory_clock_khz,
	    f->bus_width_bits);
	f->max_threads_per_sm = c->max_threads_per_sm;
	f->max_blocks_per_sm = c->max_blocks_per_sm;
	*cupti_chip = c->cupti;
	return 0;
}

int
chips_plan_facts(const char *chip, const char *no_gpu,
    struct device_facts *f, const char **cupti_chip, char **cause)
{
	const char	*name = chip != NULL ? chip : CHIPS_DEFAULT;

	if (chips_facts(name, f, cupti_chip, cause) != 0)
		return -1;
	if (chip == NULL)
		printf("%s; a generic estimate follows, for the facts of %s "
		    "(%s): --chip NAME plans for another GPU\n", no_gpu, name,
		    f->name);
	else
		printf("no GPU used: the plan for the facts of --chip %s (%s)"
		    "\n", name, f->name);
	return 0;
}

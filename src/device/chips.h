/*
 * chips.h - known GPUs' facts by name, for planning without a GPU
 * (`ewbench run --dry-run --chip GH100`): what CUDA reports for a
 * representative board of each chip.
 */
#ifndef EWB_CHIPS_H
#define EWB_CHIPS_H

#include "device/device.h"

/* The chip --dry-run plans for when there is no GPU and no --chip. */
#define CHIPS_DEFAULT	"GH100"

/* The CUPTI chip of a board or chip name of the table ("RTX 5090", "T4",
 * "GB202"; any case, blanks and '-' ignored); -1 when none. */
int	 chips_cupti(const char *name, const char **cupti_chip);
/* "H100 (GH100), H200 (GH100), ...": every board's short name. */
char	*chips_names(void);

/* Fills f with the facts of `name` (a board such as H200 or RTX 5090, or
 * a CUPTI chip name such as GB202 for the table's first board of that
 * chip) and sets *cupti_chip to its CUPTI chip name.  Returns -1 with a cause listing the known names otherwise. */
int	 chips_facts(const char *name, struct device_facts *f,
	    const char **cupti_chip, char **cause);

/* For a plan without the GPU: the facts of --chip `chip`, or where there
 * is no usable GPU (no_gpu says why) CHIPS_DEFAULT's as a generic
 * estimate; says which on stdout.  -1 with a cause for an unknown chip. */
int	 chips_plan_facts(const char *chip, const char *no_gpu,
	    struct device_facts *f, const char **cupti_chip, char **cause);

#endif

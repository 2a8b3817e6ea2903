/*
 * chips.c - known GPUs' facts by name (chips.h).  The H100 SXM and H200
 * rows are what CUDA reported on the boards the reference studies were
 * measured on (reports/reference/<gpu>/article/run.json); every other row
 * is its board's data sheet, each row citing its source in docs/gpus.md.
 * The memory clock is the one CUDA reports: the data sheet's bandwidth
 * over twice the bus width in bytes (device_dram_bandwidth's inverse).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "device/chips.h"

static const struct chip {
	const char	*board;		/* as CUDA names it */
	const char	*names;		/* other --chip names, '|' between */
	const char	*cupti;		/* CUPTI chip */
	int		 cc_major, cc_minor, sm_count;
	unsigned	 l2_mib, memory_gib;
	int		 bus_width_bits, memory_clock_mhz, sm_clock_mhz;
	const char	*source;	/* its sources in docs/gpus.md */
} chips[] = {
	/* The first row of a CUPTI chip stands for it (--chip GB202). */
	{ "NVIDIA H100 80GB HBM3", "H100|H100 SXM|H100 SXM5", "GH100",
	    9, 0, 132, 50, 79, 5120, 2619, 1980, "measured" },
	{ "NVIDIA H200", "H200|H200 SXM", "GH100",
	    9, 0, 132, 60, 139, 6016, 3201, 1980, "measured" },
	{ "NVIDIA H100 PCIe", "H100 PCIe", "GH100",
	    9, 0, 114, 50, 79, 5120, 1593, 1755, "[16] [17]" },
	{ "NVIDIA A100-SXM4-80GB", "A100|A100 80GB|A100 SXM", "GA100",
	    8, 0, 108, 40, 79, 5120, 1593, 1410, "[12] [13]" },
	{ "NVIDIA A100-SXM4-40GB", "A100 40GB", "GA100",
	    8, 0, 108, 40, 39, 5120, 1215, 1410, "[12]" },
	{ "NVIDIA GeForce RTX 4090", "RTX 4090|4090", "AD102",
	    8, 9, 128, 72, 23, 384, 10501, 2520, "[8] [9]" },
	{ "NVIDIA L40S", "L40S", "AD102",
	    8, 9, 142, 96, 44, 384, 9001, 2520, "[15]" },
	{ "NVIDIA L4", "L4", "AD104",
	    8, 9, 58, 48, 21, 192, 6251, 2040, "[14]" },
	{ "NVIDIA GeForce RTX 3090", "RTX 3090|3090", "GA102",
	    8, 6, 82, 6, 23, 384, 9751, 1695, "[10]" },
	{ "Tesla T4", "T4", "TU104",
	    7, 5, 40, 4, 14, 256, 5001, 1590, "[11]" },
	{ "NVIDIA GeForce RTX 5090", "RTX 5090|5090", "GB202",
	    12, 0, 170, 96, 31, 512, 14001, 2407, "[3] [4] [5]" },
	{ "NVIDIA GeForce RTX 5060", "RTX 5060|5060", "GB206",
	    12, 0, 30, 32, 7, 128, 14001, 2497, "[6] [7]" },
	/* No boost clock published: the FMA ceiling is not estimated. */
	{ "NVIDIA B200", "B200", "GB100",
	    10, 0, 148, 126, 178, 7680, 3996, 0, "[21] [22]" },
};

#define NCHIPS	(sizeof chips / sizeof chips[0])

/* Resident threads and blocks one SM holds, by compute capability (the
 * CUDA Programming Guide's table of SM facts, docs/gpus.md [1]; the
 * runtime of an RTX 5090 reports 24 blocks, as the table says). */
static void
sm_limits(int cc_major, int cc_minor, int *threads, int *blocks)
{
	int	cc = cc_major * 10 + cc_minor;

	*threads = cc == 75 ? 1024 : cc == 86 || cc == 87 || cc == 89 ||
	    cc_major == 11 || cc_major == 12 ? 1536 : 2048;
	*blocks = cc == 75 || cc == 86 || cc == 87 ? 16 : cc == 89 ||
	    cc_major == 11 || cc_major == 12 ? 24 : 32;
}

/* A name as compared: lower-case letters and digits only, without a
 * leading "nvidia", "geforce" or "tesla" ("NVIDIA GeForce RTX 5090" and
 * "rtx-5090" are both "rtx5090"). */
static void
normalise(const char *name, char *out, size_t len)
{
	static const char	*prefixes[] = { "nvidia", "geforce", "tesla" };
	size_t			 n = 0, i, plen;
	char			*p;

	for (; *name != '\0' && n + 1 < len; name++) {
		if (isalnum((unsigned char)*name))
			out[n++] = (char)tolower((unsigned char)*name);
	}
	out[n] = '\0';
	for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		plen = strlen(prefixes[i]);
		p = out;
		if (strncmp(p, prefixes[i], plen) == 0 && p[plen] != '\0')
			memmove(p, p + plen, strlen(p + plen) + 1);
	}
}

static bool
matches(const struct chip *c, const char *wanted)
{
	char		 a[128], b[128], item[64];
	const char	*p = c->names, *bar;
	size_t		 len;

	normalise(wanted, a, sizeof a);
	normalise(c->board, b, sizeof b);
	if (strcmp(a, b) == 0)
		return true;
	while (p != NULL && *p != '\0') {
		bar = strchr(p, '|');
		len = bar == NULL ? strlen(p) : (size_t)(bar - p);
		if (len >= sizeof item)
			len = sizeof item - 1;
		memcpy(item, p, len);
		item[len] = '\0';
		normalise(item, b, sizeof b);
		if (strcmp(a, b) == 0)
			return true;
		p = bar == NULL ? NULL : bar + 1;
	}
	return false;
}

/* The row of a board or alias, else the first row of a CUPTI chip. */
static const struct chip *
lookup(const char *name)
{
	char	a[128], b[128];
	size_t	i;

	for (i = 0; i < NCHIPS; i++) {
		if (matches(&chips[i], name))
			return &chips[i];
	}
	normalise(name, a, sizeof a);
	for (i = 0; i < NCHIPS; i++) {
		normalise(chips[i].cupti, b, sizeof b);
		if (strcmp(a, b) == 0)
			return &chips[i];
	}
	return NULL;
}

char *
chips_names(void)
{
	char	*known = NULL, *next, *short_name;
	size_t	 i;

	for (i = 0; i < NCHIPS; i++) {
		short_name = xstrdup(chips[i].names);
		short_name[strcspn(short_name, "|")] = '\0';
		next = xasprintf("%s%s%s (%s)", known ? known : "",
		    known ? ", " : "", short_name, chips[i].cupti);
		free(short_name);
		free(known);
		known = next;
	}
	return known;
}

int
chips_cupti(const char *name, const char **cupti_chip)
{
	const struct chip	*c = lookup(name);

	if (c == NULL)
		return -1;
	*cupti_chip = c->cupti;
	return 0;
}

int
chips_facts(const char *name, struct device_facts *f,
    const char **cupti_chip, char **cause)
{
	const struct chip	*c = lookup(name);
	char			*known;

	if (c == NULL) {
		known = chips_names();
		*cause = xasprintf("--chip %s: no facts for it (known: %s)",
		    shown(name, SHOWN_MOST), known);
		free(known);
		return -1;
	}
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
	sm_limits(c->cc_major, c->cc_minor, &f->max_threads_per_sm,
	    &f->max_blocks_per_sm);
	*cupti_chip = c->cupti;
	return 0;
}

/* Where a board's facts come from, for the plan's first line. */
static const char *
source_of(const char *board)
{
	static char	text[96];
	size_t		i;

	for (i = 0; i < NCHIPS; i++) {
		if (strcmp(chips[i].board, board) != 0)
			continue;
		if (strcmp(chips[i].source, "measured") == 0)
			return "as CUDA reported it for the reference study";
		snprintf(text, sizeof text, "data sheet: docs/gpus.md %s",
		    chips[i].source);
		return text;
	}
	return "";
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
		printf("no GPU used: the plan for the facts of --chip %s (%s; "
		    "%s)\n", shown(name, SHOWN_MOST), f->name,
		    source_of(f->name));
	return 0;
}

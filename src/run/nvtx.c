/*
 * nvtx.c - ewbench's NVTX ranges (header-only NVTX3, nothing to link).
 */
#define _GNU_SOURCE
#include <string.h>

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>

#include "device/device.h"
#include "run/nvtx.h"

static nvtxDomainHandle_t	domain;

/* Colours: phases grey-blue, f32 points blue, f16 points orange. */
#define COLOUR_PHASE	0xFF5B6F8Bu
#define COLOUR_F32	0xFF1F77B4u
#define COLOUR_F16	0xFFFF7F0Eu

void
nvtx_init(const struct device_facts *f)
{
	domain = nvtxDomainCreateA("ewbench");
	nvtxNameCudaDeviceA(f->index, f->name);
}

static void
push(const char *message, uint32_t colour, uint64_t payload)
{
	nvtxEventAttributes_t	a;

	memset(&a, 0, sizeof a);
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.colorType = NVTX_COLOR_ARGB;
	a.color = colour;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = message;
	if (payload != 0) {
		a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
		a.payload.ullValue = payload;
	}
	nvtxDomainRangePushEx(domain, &a);
}

void
nvtx_push_phase(const char *name)
{
	push(name, COLOUR_PHASE, 0);
}

void
nvtx_push_point(const struct point *p)
{
	char	name[160], size[32], block[16];

	size_format(p->n, size, sizeof size);
	snprintf(name, sizeof name, "%s n=%s block=%s %s", p->v->id, size,
	    block_text(p->block, block), cache_name(p->cache));
	push(name, p->v->dtype == EWB_F16 ? COLOUR_F16 : COLOUR_F32, p->n);
}

void
nvtx_pop(void)
{
	nvtxDomainRangePop(domain);
}

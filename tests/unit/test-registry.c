/*
 * test-registry.c - the variant table is complete and consistent: every
 * row has every fact, byte and flop counts agree with the op, the study's
 * variants and the cub peers are all there, and launch shapes cover n.
 * Needs no GPU: it reads the table and calls shapers, never launchers.
 */
#include <stdlib.h>
#include <string.h>

#include "base/ewbench.h"
#include "tests/unit/check.h"

static const char *const study_ids[] = {
	"add_f32", "add_f32x4", "add_f32x4_grid", "add_f16", "add_f16x2",
	"add_f16x8", "add_f16x8_pack", "relu_f32", "relu_f32x4", "abs_f32",
	"abs_f32_unroll", "abs_f32_grid", "abs_f32x4", "abs_f32_functor",
	"cub_add_f32", "cub_add_f16"
};

static const struct ewb_variant *
find(const char *id)
{
	size_t	i;

	for (i = 0; i < ewb_variant_count; i++) {
		if (strcmp(ewb_variants[i].id, id) == 0)
			return &ewb_variants[i];
	}
	return NULL;
}

static void
check_bytes(const struct ewb_variant *v)
{
	unsigned	size = ewb_dtype_size(v->dtype);

	switch (v->op) {
	case EWB_OP_ADD:
		CHECK(v->read_bytes == 2 * size && v->write_bytes == size);
		CHECK(v->flops == 1 && !v->in_place);
		break;
	case EWB_OP_RELU:
		CHECK(v->read_bytes == size && v->write_bytes == size);
		CHECK(v->flops == 0 && !v->in_place);
		break;
	case EWB_OP_ABS:
		CHECK(v->read_bytes == size && v->write_bytes == size);
		CHECK(v->flops == 0 && v->in_place);
		break;
	case EWB_OP_CUSTOM:
		CHECK(!"a built-in variant of a user's op");
		break;
	}
	CHECK(v->dtype != EWB_BF16);	/* no built-in bf16 variant */
}

/* The grid a shaper reports covers every element, with no spare block
 * (unless the variant strides over a fixed grid). */
static void
check_shape(const struct ewb_variant *v, unsigned block, uint64_t n)
{
	struct ewb_launch_args	a;
	struct ewb_shape	s;
	uint64_t		per_block;

	memset(&a, 0, sizeof a);
	a.n = n;
	a.block = block;
	a.sm_count = 132;
	s = v->shape(&a);
	if (strcmp(v->origin, "peer") == 0) {
		CHECK(s.block == 0 && s.grid == 0);
		return;
	}
	CHECK(s.block == block);
	CHECK(s.grid >= 1 && s.grid <= 0x7fffffffULL);
	if (v->grid_stride)
		return;
	per_block = (uint64_t)s.block * v->elems_per_thread;
	CHECK(s.grid * per_block >= n);
	CHECK((s.grid - 1) * per_block < n);
}

/* A probe (probe.def) <of>_ilp<K> is its study variant's loads, K
 * times as many per thread, at that variant's published block. */
static void
check_probe(const struct ewb_variant *v)
{
	const struct ewb_variant	*of;
	const char			*ilp = strstr(v->id, "_ilp");
	char				 base[64];
	unsigned			 k;

	CHECK(ilp != NULL && (size_t)(ilp - v->id) < sizeof base);
	if (ilp == NULL)
		return;
	snprintf(base, sizeof base, "%.*s", (int)(ilp - v->id), v->id);
	CHECK((of = find(base)) != NULL && strcmp(of->origin, "study") == 0);
	if (of == NULL)
		return;
	k = (unsigned)strtoul(ilp + 4, NULL, 10);
	CHECK(k >= 2 && v->elems_per_thread == k * of->elems_per_thread);
	CHECK(v->op == of->op && v->dtype == of->dtype);
	CHECK(v->vector_width == of->vector_width);
	CHECK(v->default_block == of->default_block);
	CHECK(!v->grid_stride && !of->grid_stride);
}

int
main(void)
{
	size_t		i, j;
	const uint64_t	sizes[] = { 1, 3, 7, 8, 33, 1000003, 1ULL << 28,
	    (1ULL << 31) + 3, 1ULL << 34 };

	for (i = 0; i < sizeof study_ids / sizeof study_ids[0]; i++) {
		if (find(study_ids[i]) == NULL)
			fprintf(stderr, "missing variant %s\n", study_ids[i]);
		CHECK(find(study_ids[i]) != NULL);
	}
	for (i = 0; i < ewb_variant_count; i++) {
		const struct ewb_variant *v = &ewb_variants[i];
		bool peer = strcmp(v->origin, "peer") == 0;

		CHECK(v->id != NULL && v->technique != NULL &&
		    strlen(v->technique) > 10);
		CHECK(peer || strcmp(v->origin, "study") == 0 ||
		    strcmp(v->origin, "ewbench") == 0 ||
		    strcmp(v->origin, "probe") == 0);
		if (strcmp(v->origin, "probe") == 0)
			check_probe(v);
		CHECK(v->launch != NULL && v->shape != NULL);
		CHECK(peer == (v->kernel == NULL));
		CHECK(v->default_block >= 32 && v->default_block <= 1024 &&
		    v->default_block % 32 == 0);
		/* A peer's library picks its own vector width (0). */
		CHECK(peer || (v->vector_width >= 1 &&
		    v->elems_per_thread % v->vector_width == 0));
		CHECK(v->vector_width * ewb_dtype_size(v->dtype) <= 16);
		check_bytes(v);
		for (j = i + 1; j < ewb_variant_count; j++)
			CHECK(strcmp(v->id, ewb_variants[j].id) != 0);
		for (j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
			check_shape(v, v->default_block, sizes[j]);
			check_shape(v, 128, sizes[j]);
			check_shape(v, 1024, sizes[j]);
		}
	}
	CHECK(find("add_f16x8_pack")->default_block == 32);
	CHECK(find("add_f32x4")->default_block == 64);
	CHECK(find("add_f16x2")->default_block == 128);
	CHECK(find("add_f32")->default_block == 256);
	printf("registry: %zu variants consistent\n", ewb_variant_count);
	return check_exit();
}

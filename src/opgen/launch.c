/*
 * launch.c - a user's op's family on the GPU: the cubin loaded through the
 * runtime's library API (as a --kernel's, userkernel.c), one registry row
 * per kernel, of origin "generated", and its launcher and shaper, and the
 * family's reference.  The launchers take no context, so each kernel of
 * the family has its own pair, below, over one table: one op per run.
 *
 * A launch is as ewb_study_launch's (kernels/common.cuh): the kernel when
 * every operand is aligned to its word, else the family's scalar kernel of
 * one element per thread (tile_v32_k1 or tile_v16_k1) over the same
 * operands; a tile kernel's grid covers the array, a stride kernel's is
 * one wave by thread count (sm_count x min(threads per SM / block, blocks
 * per SM)), a runs kernel's one wave by the occupancy calculator, never
 * more blocks than tiles.  A bulk or bulkone kernel's grid covers the
 * array like a tile's, each block given its tile's shared memory (inputs x
 * K x block x word bytes; ewb_bulk_launch's rule for the built-ins), its
 * operands 16-byte aligned (bulk copies move 16-byte units) or the scalar
 * kernel runs; in code built below sm_90 (a plan's --allow-fallback) a
 * bulk member's tile kernel of the same word and K runs instead, as a
 * built-in's fallback would, and a bulkone kernel, built there as that
 * tile (tiles.cuh), runs without shared memory.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kernels/cover.h"
#include "opgen/opgen.h"

static struct opgen_op	*active;	/* the run's op, once initialised */
static cudaLibrary_t	 library;
static bool		 library_loaded;
static cudaKernel_t	 kernels[OPGEN_KERNELS], reference;
/* Blocks of member i at `block` threads one SM holds, by the occupancy
 * calculator, asked once (0: not yet), as ewb_blocks_per_sm remembers
 * them for the built-ins: no runtime call in a timed launch's way. */
static int		 occupancy[OPGEN_KERNELS][EWB_MAX_BLOCK + 1];

bool
opgen_active(void)
{
	return active != NULL;
}

static bool
aligned(const struct ewb_launch_args *a, unsigned inputs, unsigned bytes)
{
	const void	*in[4] = { a->a, a->b, a->more[0], a->more[1] };
	unsigned	 k;

	for (k = 0; k < inputs; k++)
		if ((uintptr_t)in[k] % bytes != 0)
			return false;
	return (uintptr_t)a->c % bytes == 0;
}

/* The alignment member g's kernel needs of every operand: its word, or
 * for the bulk-copy shapes 16 bytes. */
static unsigned
alignment(const struct opgen_kernel *g)
{
	return g->shape == OPGEN_BULK || g->shape == OPGEN_BULK_ONE ? 16 :
	    g->word_bytes;
}

/* The tile member of a bulk member's word and K. */
static unsigned
tile_of(const struct opgen_kernel *bulk)
{
	unsigned	i;

	for (i = 0; i < active->build.nkernels; i++) {
		const struct opgen_kernel *g = &active->build.kernels[i];

		if (g->shape == OPGEN_TILE && g->access == bulk->access &&
		    g->k == bulk->k)
			return i;
	}
	return 0;
}

/* The kernel that runs for family member i over a's operands: i, or the
 * scalar one (member 0) when an operand is not aligned as i needs, or
 * for a bulk member in code without bulk copies its tile member. */
static unsigned
member(unsigned i, const struct ewb_launch_args *a)
{
	const struct opgen_kernel *g = &active->build.kernels[i];

	if (!aligned(a, active->build.inputs, alignment(g)))
		return 0;
	if (g->shape == OPGEN_BULK && active->build.arch < OPGEN_BULK_MIN_CC)
		return tile_of(g);
	return i;
}

/* The dynamic shared memory member m's kernel takes at `block` threads:
 * a bulk member's tile of every input, a bulkone member's where its code
 * has bulk copies. */
static size_t
shared_bytes(const struct opgen_build *b, unsigned m, unsigned block)
{
	const struct opgen_kernel *g = &b->kernels[m];
	bool	staged = g->shape == OPGEN_BULK ||
		    (g->shape == OPGEN_BULK_ONE && b->arch >= OPGEN_BULK_MIN_CC);

	return staged ? (size_t)b->inputs * g->k * block * g->word_bytes : 0;
}

static struct ewb_shape
shape_of(unsigned i, const struct ewb_launch_args *a)
{
	unsigned		 m = member(i, a);
	const struct opgen_kernel *g = &active->build.kernels[m];
	unsigned long long	 wave;
	struct ewb_shape	 s;
	int			 per_sm = 0;

	s.block = a->block;
	s.grid = ewb_cover_grid(a->n, g->k * g->lanes, a->block);
	if (g->shape == OPGEN_TILE || g->shape == OPGEN_BULK ||
	    g->shape == OPGEN_BULK_ONE)
		return s;
	if (g->shape == OPGEN_RUNS && kernels[m] != NULL &&
	    a->block <= EWB_MAX_BLOCK) {
		per_sm = occupancy[m][a->block];
		if (per_sm <= 0 && cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		    &per_sm, (const void *)kernels[m], (int)a->block, 0) !=
		    cudaSuccess) {
			(void)cudaGetLastError();	/* not the launch's */
			per_sm = 0;
		}
		if (per_sm > 0)
			occupancy[m][a->block] = per_sm;
	}
	if (per_sm <= 0)
		per_sm = (int)ewb_launch_resident(a, a->block);
	wave = (unsigned long long)per_sm * ewb_launch_sm_count(a);
	if (s.grid > wave)
		s.grid = wave;
	return s;
}

/* The kernel's one parameter, ewb_family_args (family.cuh): the
 * max(inputs, 2) operands one() takes (a unary op's input twice), the
 * output, the count. */
struct family_args {
	const void	*in[4];
	void		*out;
	size_t		 n;
};

static void
pack_args(const struct ewb_launch_args *a, unsigned char *buf)
{
	const void	*in[4] = { a->a, a->b, a->more[0], a->more[1] };
	unsigned	 inputs = active->build.inputs, h = inputs < 2 ? 2 :
			    inputs, k;
	size_t		 n = a->n;

	for (k = 0; k < h; k++) {
		const void *p = in[k < inputs ? k : 0];

		memcpy(buf + k * sizeof p, &p, sizeof p);
	}
	memcpy(buf + h * sizeof(void *), &a->c, sizeof a->c);
	memcpy(buf + (h + 1) * sizeof(void *), &n, sizeof n);
}

static cudaError_t
launch_kernel(cudaKernel_t kernel, unsigned long long grid, unsigned block,
    size_t shared, const struct ewb_launch_args *a)
{
	_Alignas(struct family_args) unsigned char buf[
			    sizeof(struct family_args)];
	void		*params[1] = { buf };
	dim3		 g = { 1, 1, 1 }, b = { 1, 1, 1 };
	cudaError_t	 e;

	if (grid > EWB_MAX_GRID || grid == 0)
		return cudaErrorInvalidConfiguration;
	pack_args(a, buf);
	g.x = (unsigned)grid;
	b.x = block;
	e = cudaLaunchKernel((const void *)kernel, g, b, params, shared,
	    a->stream);
	return e != cudaSuccess ? e : cudaGetLastError();
}

static cudaError_t
launch_member(unsigned i, const struct ewb_launch_args *a)
{
	struct ewb_shape s;
	unsigned	 m;

	if (a->n == 0 || active == NULL)
		return cudaErrorInvalidValue;
	s = shape_of(i, a);
	m = member(i, a);
	return launch_kernel(kernels[m], s.grid, s.block,
	    shared_bytes(&active->build, m, s.block), a);
}

cudaError_t
opgen_reference_launch(const struct ewb_launch_args *a)
{
	unsigned long long blocks = ewb_cover_grid(a->n, 1,
	    OPGEN_REFERENCE_BLOCK);

	if (active == NULL || reference == NULL)
		return cudaErrorInvalidValue;
	return launch_kernel(reference, blocks, OPGEN_REFERENCE_BLOCK, 0, a);
}

/* Each member's own launcher and shaper, members 0 to 43. */
#define MEMBERS \
	MEMBER(0) MEMBER(1) MEMBER(2) MEMBER(3) MEMBER(4) MEMBER(5) \
	MEMBER(6) MEMBER(7) MEMBER(8) MEMBER(9) MEMBER(10) MEMBER(11) \
	MEMBER(12) MEMBER(13) MEMBER(14) MEMBER(15) MEMBER(16) MEMBER(17) \
	MEMBER(18) MEMBER(19) MEMBER(20) MEMBER(21) MEMBER(22) MEMBER(23) \
	MEMBER(24) MEMBER(25) MEMBER(26) MEMBER(27) MEMBER(28) MEMBER(29) \
	MEMBER(30) MEMBER(31) MEMBER(32) MEMBER(33) MEMBER(34) MEMBER(35) \
	MEMBER(36) MEMBER(37) MEMBER(38) MEMBER(39) MEMBER(40) MEMBER(41) \
	MEMBER(42) MEMBER(43)
#define MEMBER(i) \
	static cudaError_t launch_##i(const struct ewb_launch_args *a) \
	{ return launch_member(i, a); } \
	static struct ewb_shape shape_##i(const struct ewb_launch_args *a) \
	{ return shape_of(i, a); }
MEMBERS
#undef MEMBER
#define MEMBER(i)	{ launch_##i, shape_##i },
static const struct {
	ewb_launcher	launch;
	ewb_shaper	shape;
} members[] = { MEMBERS };
#undef MEMBER
_Static_assert(sizeof members / sizeof *members == OPGEN_KERNELS,
    "a launcher for each member of the family");

void
opgen_op_init(struct opgen_op *op, struct opgen_build *b)
{
	unsigned	i, elem, inputs;

	memset(op, 0, sizeof *op);
	op->build = *b;
	memset(b, 0, sizeof *b);
	b = &op->build;
	elem = ewb_dtype_size(b->dtype);
	inputs = b->inputs;
	for (i = 0; i < b->nkernels; i++) {
		const struct opgen_kernel	*g = &b->kernels[i];
		struct ewb_variant		*v = &op->variants[i];

		op->ids[i] = xasprintf(OPGEN_ID_PREFIX "%s:%s", b->function,
		    g->name);
		op->techniques[i] = xasprintf("%s from %s (sha256 %.12s), "
		    "generated: %s, %u-bit words, %u per thread per input",
		    b->function, b->path, b->source_sha256,
		    g->shape == OPGEN_TILE ? "one tile per block" :
		    g->shape == OPGEN_STRIDE ? "grid-stride over one wave" :
		    g->shape == OPGEN_BULK ? "one tile per block by bulk "
		    "copies (TMA) into shared memory, two stages" :
		    g->shape == OPGEN_BULK_ONE ? "one tile per block by bulk "
		    "copies (TMA) into shared memory, one stage" :
		    "a run of tiles per block over one wave (persistent)",
		    g->word_bytes * 8, g->k);
		v->id = op->ids[i];
		v->op = EWB_OP_CUSTOM;
		v->dtype = b->dtype;
		v->origin = OPGEN_ORIGIN;
		v->technique = op->techniques[i];
		v->elems_per_thread = g->k * g->lanes;
		v->vector_width = g->lanes;
		v->default_block = OPGEN_DEFAULT_BLOCK;
		v->read_bytes = inputs * elem;
		v->write_bytes = elem;
		v->flops = 0;
		v->in_place = false;
		v->grid_stride = g->shape == OPGEN_STRIDE ||
		    g->shape == OPGEN_RUNS;
		v->launch = members[i].launch;
		v->shape = members[i].shape;
		v->kernel = NULL;	/* until loaded */
		v->min_cc = g->shape == OPGEN_BULK ||
		    g->shape == OPGEN_BULK_ONE ? OPGEN_BULK_MIN_CC : 0;
		v->max_cover = 0;	/* 64-bit indexing throughout */
		v->unavailable = NULL;
	}
	op->count = b->nkernels;
	opgen_rows_set(op->variants, op->count);
	active = op;
}

int
opgen_op_load(struct opgen_op *op, char **cause)
{
	cudaError_t	e;
	unsigned	i;

	e = cudaLibraryLoadData(&library, op->build.image, NULL, NULL, 0,
	    NULL, NULL, 0);
	if (e == cudaSuccess)
		library_loaded = true;
	for (i = 0; e == cudaSuccess && i < op->count; i++)
		e = cudaLibraryGetKernel(&kernels[i], library,
		    op->build.kernels[i].lowered);
	if (e == cudaSuccess)
		e = cudaLibraryGetKernel(&reference, library,
		    op->build.reference);
	if (e != cudaSuccess) {
		*cause = xasprintf("--elementwise %s: loading its sm_%u cubin: "
		    "%s", op->build.path, op->build.arch,
		    cudaGetErrorString(e));
		return -1;
	}
	/* Above 48 KiB a block's dynamic shared memory must be allowed
	 * first: a bulk or bulkone member's at the largest block, where it
	 * has bulk copies (their tiles fit there, opgen.h). */
	for (i = 0; e == cudaSuccess && op->build.arch >= OPGEN_BULK_MIN_CC &&
	    i < op->count; i++)
		if (op->build.kernels[i].shape == OPGEN_BULK ||
		    op->build.kernels[i].shape == OPGEN_BULK_ONE)
			e = cudaFuncSetAttribute((const void *)kernels[i],
			    cudaFuncAttributeMaxDynamicSharedMemorySize,
			    (int)shared_bytes(&op->build, i, EWB_MAX_BLOCK));
	if (e != cudaSuccess) {
		*cause = xasprintf("--elementwise %s: allowing its bulk "
		    "members' shared memory: %s", op->build.path,
		    cudaGetErrorString(e));
		return -1;
	}
	for (i = 0; i < op->count; i++)
		op->variants[i].kernel = (const void *)kernels[i];
	return 0;
}

void
opgen_op_free(struct opgen_op *op)
{
	unsigned	i;

	if (active == op) {
		if (library_loaded)
			cudaLibraryUnload(library);
		library_loaded = false;
		memset(kernels, 0, sizeof kernels);
		memset(occupancy, 0, sizeof occupancy);
		reference = NULL;
		active = NULL;
		opgen_rows_set(NULL, 0);
	}
	for (i = 0; i < op->count; i++) {
		free(op->ids[i]);
		free(op->techniques[i]);
	}
	opgen_build_free(&op->build);
	memset(op, 0, sizeof *op);
}

void
opgen_op_json(struct json *j, const void *ctx)
{
	const struct opgen_op	*op = ctx;
	const struct opgen_build *b = &op->build;
	char			 text[32];
	unsigned		 i;

	json_begin_object(j, "elementwise");
	json_str(j, "file", b->path);
	json_str(j, "function", b->function);
	json_str(j, "source_sha256", b->source_sha256);
	json_u64(j, "inputs", b->inputs);
	json_str(j, "dtype", ewb_dtype_name(b->dtype));
	snprintf(text, sizeof text, "sm_%u", b->arch);
	json_str(j, "arch", text);
	snprintf(text, sizeof text, "%d.%d", b->nvrtc_major, b->nvrtc_minor);
	json_str(j, "nvrtc", text);
	json_f64(j, "compile_s", b->compile_s);
	json_str(j, "cache_key", b->key);
	json_bool(j, "cached", b->cached);
	json_str(j, "checked_against", op->given_reference ? "--reference" :
	    "generated");
	json_str(j, "reference_symbol", b->reference);
	json_begin_array(j, "variants");
	for (i = 0; i < op->count; i++)
		json_str(j, NULL, op->variants[i].id);
	json_end_array(j);
	json_end_object(j);
}

/*
 * registry.cu - ewb_variants[], the table of every variant.
 *
 * A study or ewbench row names its kernel and the numbers that shape its
 * launch; the launcher and shaper are ewb_study_launch or ewb_bulk_launch
 * (common.cuh) instantiated from those same numbers, so the table cannot
 * disagree with what runs.  Bytes, flops and in-place follow from the op
 * and dtype.
 */
#include "common.cuh"

/* peer_cub.cu */
extern "C" cudaError_t		ewb_cub_add_f32(const struct ewb_launch_args *);
extern "C" cudaError_t		ewb_cub_add_f16(const struct ewb_launch_args *);
extern "C" struct ewb_shape	ewb_cub_shape(const struct ewb_launch_args *);

static constexpr unsigned
elem_bytes(enum ewb_dtype dtype)
{
	return dtype == EWB_F16 ? 2 : 4;
}

/* add reads two operands, relu and abs one; all write one. */
static constexpr unsigned
read_bytes(enum ewb_op op, enum ewb_dtype dtype)
{
	return (op == EWB_OP_ADD ? 2 : 1) * elem_bytes(dtype);
}

static constexpr unsigned
flops(enum ewb_op op)
{
	return op == EWB_OP_ADD ? 1 : 0;
}

#define COST(op, dtype) \
	read_bytes(op, dtype), elem_bytes(dtype), flops(op), op == EWB_OP_ABS

/* A row whose launcher and shaper are those of the launch template given
 * last (a template-id, hence variadic: its commas are its own). */
#define ROW(origin, id, op, dtype, technique, per_thread, width, block, \
    stride, kernel, ...) \
	{ id, op, dtype, origin, technique, per_thread, width, block, \
	  COST(op, dtype), stride, __VA_ARGS__::launch, __VA_ARGS__::shape, \
	  (const void *)kernel, __VA_ARGS__::min_cc }

/* id, op, dtype, technique, elements per thread, vector width, default
 * block, grid-stride, kernel, scalar fallback for misaligned operands. */
#define STUDY(id, op, dtype, technique, per_thread, width, block, stride, \
    kernel, scalar) \
	ROW("study", id, op, dtype, technique, per_thread, width, block, \
	    stride, kernel, ewb_study_launch<kernel, scalar, block, \
	    per_thread, width, stride>)

/* ewbench's own variants (fast.cu).  TILE: one tile per block, grid
 * from n.  OCCUPANCY: grid-stride over a grid of one wave from the
 * occupancy calculator; per_thread counts one iteration. */
#define TILE(id, op, dtype, technique, per_thread, width, block, kernel, \
    scalar) \
	ROW("ewbench", id, op, dtype, technique, per_thread, width, block, \
	    false, kernel, ewb_study_launch<kernel, scalar, block, \
	    per_thread, width, false>)
#define OCCUPANCY(id, op, dtype, technique, per_thread, width, block, \
    kernel, scalar) \
	ROW("ewbench", id, op, dtype, technique, per_thread, width, block, \
	    true, kernel, ewb_study_launch<kernel, scalar, block, \
	    per_thread, width, true, true>)

/* A bulk-copy (TMA) variant, 16-byte packets: below sm_90, or with
 * misaligned operands, the TILE variant of the same shape (fallback)
 * runs instead. */
#define BULK(id, op, dtype, technique, per_thread, block, kernel, fallback, \
    scalar) \
	ROW("ewbench", id, op, dtype, technique, per_thread, \
	    16 / elem_bytes(dtype), block, false, kernel, \
	    ewb_bulk_launch<kernel, fallback, scalar, block, per_thread, \
	    16 / elem_bytes(dtype)>)

/* A library's own launch: elements per thread and vector width 0, as the
 * library decides them; default_block is nominal and overrides are ignored. */
#define PEER(id, op, dtype, technique, launcher, shaper) \
	{ id, op, dtype, "peer", technique, 0, 0, 256, COST(op, dtype), \
	  false, launcher, shaper, NULL, 0 }

const struct ewb_variant ewb_variants[] = {
	STUDY("add_f32", EWB_OP_ADD, EWB_F32,
	    "scalar: one 32-bit load per operand, one element per thread",
	    1, 1, 256, false, ewb_add_f32, ewb_add_f32),
	STUDY("add_f32x4", EWB_OP_ADD, EWB_F32,
	    "float4: one 128-bit load per operand, four elements per thread",
	    4, 4, 64, false, ewb_add_f32x4, ewb_add_f32),
	STUDY("add_f32x4_grid", EWB_OP_ADD, EWB_F32,
	    "float4 in a grid-stride loop over a fixed grid of one resident "
	    "wave (sm_count * min(2048 / block, 32) blocks, fewer if n needs "
	    "fewer)",
	    4, 4, 64, true, ewb_add_f32x4_grid, ewb_add_f32),
	STUDY("add_f16", EWB_OP_ADD, EWB_F16,
	    "scalar half: one 16-bit load per operand, __hadd",
	    1, 1, 256, false, ewb_add_f16, ewb_add_f16),
	STUDY("add_f16x2", EWB_OP_ADD, EWB_F16,
	    "half2: one 32-bit load per operand, __hadd2",
	    2, 2, 128, false, ewb_add_f16x2, ewb_add_f16),
	STUDY("add_f16x8", EWB_OP_ADD, EWB_F16,
	    "eight halves per thread as four independent 32-bit half2 loads "
	    "per operand, unrolled for instruction-level parallelism",
	    8, 2, 32, false, ewb_add_f16x8, ewb_add_f16),
	STUDY("add_f16x8_pack", EWB_OP_ADD, EWB_F16,
	    "one 128-bit load of eight halves per operand into a register "
	    "array, four __hadd2, one 128-bit store",
	    8, 8, 32, false, ewb_add_f16x8_pack, ewb_add_f16),

	STUDY("relu_f32", EWB_OP_RELU, EWB_F32,
	    "scalar: one 32-bit load, one element per thread",
	    1, 1, 256, false, ewb_relu_f32, ewb_relu_f32),
	STUDY("relu_f32x4", EWB_OP_RELU, EWB_F32,
	    "float4: one 128-bit load and store, four elements per thread",
	    4, 4, 256, false, ewb_relu_f32x4, ewb_relu_f32),

	STUDY("abs_f32", EWB_OP_ABS, EWB_F32,
	    "in place, one element per thread",
	    1, 1, 256, false, ewb_abs_f32, ewb_abs_f32),
	STUDY("abs_f32_unroll", EWB_OP_ABS, EWB_F32,
	    "in place, four consecutive elements per thread in an unrolled "
	    "loop of compile-time length, 32-bit accesses",
	    EWB_ABS_UNROLL, 1, 256, false, ewb_abs_f32_unroll, ewb_abs_f32),
	STUDY("abs_f32_grid", EWB_OP_ABS, EWB_F32,
	    "in place, grid-stride loop over a fixed grid of one resident "
	    "wave, bounds tested on the element index",
	    1, 1, 256, true, ewb_abs_f32_grid, ewb_abs_f32),
	STUDY("abs_f32x4", EWB_OP_ABS, EWB_F32,
	    "in place, float4: one 128-bit load and store, four elements per "
	    "thread",
	    4, 4, 256, false, ewb_abs_f32x4, ewb_abs_f32),
	STUDY("abs_f32_functor", EWB_OP_ABS, EWB_F32,
	    "in place, generic elementwise template with the operation passed "
	    "as a functor type, instantiated for abs",
	    1, 1, 256, false, ewb_abs_f32_functor, ewb_abs_f32),

	PEER("cub_add_f32", EWB_OP_ADD, EWB_F32,
	    "cub::DeviceTransform::Transform with an fp32 add functor; CUB "
	    "picks algorithm, block and grid itself",
	    ewb_cub_add_f32, ewb_cub_shape),
	PEER("cub_add_f16", EWB_OP_ADD, EWB_F16,
	    "cub::DeviceTransform::Transform with an __hadd functor; CUB "
	    "picks algorithm, block and grid itself",
	    ewb_cub_add_f16, ewb_cub_shape),

	TILE("add_f32x4_ilp2", EWB_OP_ADD, EWB_F32,
	    "two float4 loads per operand in flight per thread, issued before "
	    "any add; one tile of 2 x block float4 per block",
	    8, 4, 256, ewb_add_f32x4_ilp2, ewb_add_f32),
	TILE("add_f32x4_ilp4", EWB_OP_ADD, EWB_F32,
	    "four float4 loads per operand in flight per thread, issued before "
	    "any add; one tile of 4 x block float4 per block",
	    16, 4, 256, ewb_add_f32x4_ilp4, ewb_add_f32),
	TILE("add_f32x4_ilp4_cs", EWB_OP_ADD, EWB_F32,
	    "add_f32x4_ilp4 with streaming evict-first loads and stores "
	    "(__ldcs, __stcs)",
	    16, 4, 256, ewb_add_f32x4_ilp4_cs, ewb_add_f32),
	OCCUPANCY("add_f32x4_occ", EWB_OP_ADD, EWB_F32,
	    "add_f32x4_ilp4's tiles in a grid-stride loop over one wave of "
	    "blocks sized by the occupancy calculator",
	    16, 4, 256, ewb_add_f32x4_occ, ewb_add_f32),
	BULK("add_f32_tma", EWB_OP_ADD, EWB_F32,
	    "TMA: one float4 per thread per operand brought into shared memory "
	    "by 1-D bulk copies in two half-tile stages on mbarriers, 128-bit "
	    "stores; one tile per block (sm_90+, else add_f32x4)",
	    4, 256, ewb_add_f32_tma, ewb_add_f32x4, ewb_add_f32),
	BULK("add_f32_tma2", EWB_OP_ADD, EWB_F32,
	    "TMA: two float4 per thread per operand by 1-D bulk copies, one "
	    "stage per row of the tile (sm_90+, else add_f32x4_ilp2)",
	    8, 256, ewb_add_f32_tma2, ewb_add_f32x4_ilp2, ewb_add_f32),
	BULK("add_f32_tma_st", EWB_OP_ADD, EWB_F32,
	    "add_f32_tma whose sums go back to shared memory and out as one "
	    "shared-to-global bulk copy per tile (sm_90+, else add_f32x4)",
	    4, 256, ewb_add_f32_tma_st, ewb_add_f32x4, ewb_add_f32),
	TILE("add_f16x8_ilp2", EWB_OP_ADD, EWB_F16,
	    "two 128-bit loads of eight halves per operand in flight per "
	    "thread, issued before any __hadd2; one tile per block",
	    16, 8, 256, ewb_add_f16x8_ilp2, ewb_add_f16),
	TILE("add_f16x8_ilp4", EWB_OP_ADD, EWB_F16,
	    "four 128-bit loads of eight halves per operand in flight per "
	    "thread, issued before any __hadd2; one tile per block",
	    32, 8, 256, ewb_add_f16x8_ilp4, ewb_add_f16),
	TILE("add_f16x8_ilp4_cs", EWB_OP_ADD, EWB_F16,
	    "add_f16x8_ilp4 with streaming evict-first loads and stores "
	    "(__ldcs, __stcs)",
	    32, 8, 256, ewb_add_f16x8_ilp4_cs, ewb_add_f16),
	OCCUPANCY("add_f16x8_occ", EWB_OP_ADD, EWB_F16,
	    "add_f16x8_ilp4's tiles in a grid-stride loop over one wave of "
	    "blocks sized by the occupancy calculator",
	    32, 8, 256, ewb_add_f16x8_occ, ewb_add_f16),
	BULK("add_f16_tma", EWB_OP_ADD, EWB_F16,
	    "TMA: eight halves per thread per operand brought into shared "
	    "memory by 1-D bulk copies in two half-tile stages on mbarriers, "
	    "128-bit stores; one tile per block (sm_90+, else add_f16x8_pack)",
	    8, 256, ewb_add_f16_tma, ewb_add_f16x8_pack, ewb_add_f16),
	BULK("add_f16_tma2", EWB_OP_ADD, EWB_F16,
	    "TMA: sixteen halves per thread per operand by 1-D bulk copies, "
	    "one stage per row of the tile (sm_90+, else add_f16x8_ilp2)",
	    16, 256, ewb_add_f16_tma2, ewb_add_f16x8_ilp2, ewb_add_f16),
	BULK("add_f16_tma_st", EWB_OP_ADD, EWB_F16,
	    "add_f16_tma whose sums go back to shared memory and out as one "
	    "shared-to-global bulk copy per tile (sm_90+, else add_f16x8_pack)",
	    8, 256, ewb_add_f16_tma_st, ewb_add_f16x8_pack, ewb_add_f16),
	TILE("relu_f32x4_ilp2", EWB_OP_RELU, EWB_F32,
	    "two float4 loads in flight per thread, issued before any "
	    "compare; one tile per block",
	    8, 4, 256, ewb_relu_f32x4_ilp2, ewb_relu_f32),
	TILE("relu_f32x4_ilp4", EWB_OP_RELU, EWB_F32,
	    "four float4 loads in flight per thread, issued before any "
	    "compare; one tile per block",
	    16, 4, 256, ewb_relu_f32x4_ilp4, ewb_relu_f32),
	BULK("relu_f32_tma", EWB_OP_RELU, EWB_F32,
	    "TMA: two float4 per thread by 1-D bulk copies, one stage per row "
	    "of the tile, 128-bit stores (sm_90+, else relu_f32x4_ilp2)",
	    8, 256, ewb_relu_f32_tma, ewb_relu_f32x4_ilp2, ewb_relu_f32),
	TILE("abs_f32x4_ilp2", EWB_OP_ABS, EWB_F32,
	    "in place, two float4 loads in flight per thread, issued before "
	    "any store; one tile per block",
	    8, 4, 256, ewb_abs_f32x4_ilp2, ewb_abs_f32),
	TILE("abs_f32x4_ilp4", EWB_OP_ABS, EWB_F32,
	    "in place, four float4 loads in flight per thread, issued before "
	    "any store; one tile per block",
	    16, 4, 256, ewb_abs_f32x4_ilp4, ewb_abs_f32),
	BULK("abs_f32_tma", EWB_OP_ABS, EWB_F32,
	    "in place, TMA: two float4 per thread by 1-D bulk copies, one "
	    "stage per row of the tile, 128-bit stores back (sm_90+, else "
	    "abs_f32x4_ilp2)",
	    8, 256, ewb_abs_f32_tma, ewb_abs_f32x4_ilp2, ewb_abs_f32),
};

const size_t ewb_variant_count = sizeof ewb_variants / sizeof ewb_variants[0];

unsigned
ewb_dtype_size(enum ewb_dtype dtype)
{
	return elem_bytes(dtype);
}

const char *
ewb_dtype_name(enum ewb_dtype dtype)
{
	switch (dtype) {
	case EWB_F32:
		return "f32";
	case EWB_F16:
		return "f16";
	}
	return "?";
}

const char *
ewb_op_name(enum ewb_op op)
{
	switch (op) {
	case EWB_OP_ADD:
		return "add";
	case EWB_OP_RELU:
		return "relu";
	case EWB_OP_ABS:
		return "abs";
	}
	return "?";
}

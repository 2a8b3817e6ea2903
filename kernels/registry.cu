/*
 * registry.cu - ewb_variants[], the table of every variant.
 *
 * A study row names its kernel and the numbers that shape its launch; the
 * launcher and shaper are ewb_study_launch (common.cuh) instantiated from
 * those same numbers, so the table cannot disagree with what runs.  Bytes,
 * flops and in-place follow from the op and dtype.
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

/* id, op, dtype, technique, elements per thread, vector width, default
 * block, grid-stride, kernel, scalar fallback for misaligned operands. */
#define STUDY(id, op, dtype, technique, per_thread, width, block, stride, \
    kernel, scalar) \
	{ id, op, dtype, "study", technique, per_thread, width, block, \
	  COST(op, dtype), stride, \
	  ewb_study_launch<kernel, scalar, block, per_thread, width, \
	      stride>::launch, \
	  ewb_study_launch<kernel, scalar, block, per_thread, width, \
	      stride>::shape, \
	  (const void *)kernel }

/* A library's own launch: elements per thread and vector width 0, as the
 * library decides them; default_block is nominal and overrides are ignored. */
#define PEER(id, op, dtype, technique, launcher, shaper) \
	{ id, op, dtype, "peer", technique, 0, 0, 256, COST(op, dtype), \
	  false, launcher, shaper, NULL }

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

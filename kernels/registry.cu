/*
 * registry.cu - ewb_variants[], the table of every variant.
 *
 * The study's rows come from study.def, ewbench's own from fast.def, the
 * same lines that declare (and, for fast.def, define) their kernels; each
 * row's launcher and shaper are ewb_study_launch or ewb_bulk_launch
 * (common.cuh) instantiated from the row's numbers.  Op, dtype, bytes,
 * flops and in-place follow from the operation (ops.cuh).
 */
#include "common.cuh"
#include "peer_cub.cuh"

/* peer_cub.cu */
extern "C" cudaError_t		ewb_cub_add_f32(const struct ewb_launch_args *);
extern "C" cudaError_t		ewb_cub_add_f16(const struct ewb_launch_args *);
extern "C" struct ewb_shape	ewb_cub_shape(const struct ewb_launch_args *);

static constexpr unsigned
elem_bytes(enum ewb_dtype dtype)
{
	return dtype == EWB_F32 ? 4 : 2;
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
#define ROW(origin, id, Op, technique, per_thread, width, block, stride, \
    kernel, ...) \
	{ id, Op::op, ewb_dtype_of<Op>(), origin, technique, per_thread, \
	  width, block, COST(Op::op, ewb_dtype_of<Op>()), stride, \
	  __VA_ARGS__::launch, __VA_ARGS__::shape, (const void *)kernel, \
	  __VA_ARGS__::min_cc, 0, NULL }

/* study.def: the scalar kernel for misaligned operands is the op's own. */
#define STUDY(id, op, per_thread, width, block, stride, technique) \
	ROW("study", #id, op##_op, technique, per_thread, width, block, \
	    stride, ewb_##id, ewb_study_launch<ewb_##id, ewb_##op, \
	    per_thread, width, stride>),

/* fast.def: K packets per thread, each LANES(op) elements. */
#define LANES(op)	ewb_lanes<op##_op>()
#define PACKETS(op, K)	(K) * LANES(op), LANES(op)
#define TILE(id, op, K, access, block, technique) \
	ROW("ewbench", #id, op##_op, technique, (K) * LANES(op), LANES(op), \
	    block, false, ewb_##id, ewb_study_launch<ewb_##id, ewb_##op, \
	    PACKETS(op, K), false>),
#define STRIDE(id, op, K, access, block, technique) \
	ROW("ewbench", #id, op##_op, technique, (K) * LANES(op), LANES(op), \
	    block, true, ewb_##id, ewb_study_launch<ewb_##id, ewb_##op, \
	    PACKETS(op, K), true, true>),
#define BULK(id, op, K, block, fallback, technique) \
	ROW("ewbench", #id, op##_op, technique, (K) * LANES(op), LANES(op), \
	    block, false, ewb_##id, ewb_bulk_launch<ewb_##id, \
	    ewb_##fallback, ewb_##op, PACKETS(op, K)>),
#define BULK_STORE	BULK

/* probe.def: K words per thread per operand, each `word` wide. */
#define WORD_LANES(op, word)	(unsigned)(sizeof(word) / \
	sizeof(op##_op::elem))
#define PROBE(id, op, word, K, block, of, technique) \
	ROW("probe", #id, op##_op, technique, (K) * WORD_LANES(op, word), \
	    WORD_LANES(op, word), block, false, ewb_##id, \
	    ewb_study_launch<ewb_##id, ewb_##op, \
	    (K) * WORD_LANES(op, word), WORD_LANES(op, word), false>),

/* A library's own launch: elements per thread and vector width 0, as the
 * library decides them; default_block is nominal and overrides are ignored. */
#define PEER(id, op, dtype, technique, launcher, shaper, unavailable) \
	{ id, op, dtype, "peer", technique, 0, 0, 256, COST(op, dtype), \
	  false, launcher, shaper, NULL, 0, 0, unavailable },

const struct ewb_variant ewb_variants[] = {
#include "study.def"

	PEER("cub_add_f32", EWB_OP_ADD, EWB_F32,
	    "cub::DeviceTransform::Transform with an fp32 add functor; CUB "
	    "picks algorithm, block and grid itself",
	    ewb_cub_add_f32, ewb_cub_shape, EWB_CUB_UNAVAILABLE)
	PEER("cub_add_f16", EWB_OP_ADD, EWB_F16,
	    "cub::DeviceTransform::Transform with an __hadd functor; CUB "
	    "picks algorithm, block and grid itself",
	    ewb_cub_add_f16, ewb_cub_shape, EWB_CUB_UNAVAILABLE)

#include "fast.def"
#include "probe.def"
};

const size_t ewb_variant_count = sizeof ewb_variants / sizeof ewb_variants[0];

static bool
kernel_attributes(const void *kernel, struct cudaFuncAttributes *attr)
{
	if (kernel == NULL ||
	    cudaFuncGetAttributes(attr, kernel) != cudaSuccess) {
		(void)cudaGetLastError();	/* not the next launch's */
		return false;
	}
	return true;
}

unsigned
ewb_code_arch(const void *kernel)
{
	struct cudaFuncAttributes	attr;

	return kernel_attributes(kernel, &attr) ? (unsigned)attr.ptxVersion :
	    0;
}

unsigned
ewb_binary_arch(const void *kernel)
{
	struct cudaFuncAttributes	attr;

	return kernel_attributes(kernel, &attr) ?
	    (unsigned)attr.binaryVersion : 0;
}

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
	case EWB_BF16:
		return "bf16";
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
	case EWB_OP_CUSTOM:
		return "custom";
	}
	return "?";
}

unsigned
ewb_launch_sm_count(const struct ewb_launch_args *args)
{
	return ewb_sm_count(args->sm_count);
}

unsigned
ewb_launch_resident(const struct ewb_launch_args *args, unsigned block)
{
	return ewb_resident_estimate(args, block);
}

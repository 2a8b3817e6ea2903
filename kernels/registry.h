/*
 * registry.h - the kernel variants ewbench knows, as data.
 *
 * Every variant of the study (and every peer implementation) is one row of
 * ewb_variants[]: what it computes, how, with which launch shape, how many
 * bytes and flops one element costs, and a C-callable launcher.  The host
 * code (C11) never sees a kernel: it reads this table and calls launchers.
 *
 * Rules every launcher obeys:
 *  - correct for any n >= 1, including n not a multiple of the vector width
 *    and n > 2^31 (all indexing is 64-bit);
 *  - args->block is the block to launch, 1 to EWB_MAX_BLOCK threads: the
 *    plan resolves it (plan.c variant_blocks, default_block when --block
 *    says nothing); a peer's library picks its own and ignores it;
 *  - asynchronous on args->stream; returns the launch's cudaError_t
 *    (cudaGetLastError() after the launch), never synchronises;
 *  - vector paths need 16-byte aligned pointers, which cudaMalloc gives;
 *    a launcher handed misaligned pointers falls back to a scalar path.
 */
#ifndef EWB_REGISTRY_H
#define EWB_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* EWB_OP_CUSTOM: a user's own op, given by a reference kernel of the
 * same signature (--reference; userkernel.h); no built-in variant has it. */
enum ewb_op { EWB_OP_ADD, EWB_OP_RELU, EWB_OP_ABS, EWB_OP_CUSTOM };
/* EWB_BF16: bfloat16, for a user's kernel with a reference only. */
enum ewb_dtype { EWB_F32, EWB_F16, EWB_BF16 };

/* Operands of one launch.  For an in-place variant (abs) only `c` is used:
 * it is read and written.  For unary out-of-place (relu) `a` is the input. */
struct ewb_launch_args {
	const void	*a;
	const void	*b;
	const void	*more[2];	/* a user's op of 3 or 4 inputs: its
					   third and fourth */
	void		*c;
	size_t		 n;		/* elements */
	unsigned	 block;		/* threads per block (not 0) */
	int		 sm_count;	/* for variants with a fixed grid */
	int		 max_threads_per_sm;	/* what one SM holds, for the
						   one-wave grids; 0: ask the
						   current device */
	int		 max_blocks_per_sm;
	size_t		 shared_pad;	/* bytes of dynamic shared memory
					   given each block and unused by
					   the kernel: --residency's cap on
					   its resident blocks per SM (0:
					   none).  Only ewb_study_launch's
					   one-tile kernels take it */
	cudaStream_t	 stream;
};

/* Largest gridDim.x (compute capability 3.0 and later): a kernel without a
 * loop covers at most this many blocks, and the plan leaves out a size and
 * block that would need more (plan.c). */
#define EWB_MAX_GRID		2147483647ULL
/* The most threads a block has (--block, --kernel-block). */
#define EWB_MAX_BLOCK		1024u

/* The launch shape a launcher would use, so rows can record it. */
struct ewb_shape {
	unsigned	 block;
	unsigned long long grid;	/* blocks; 0 when the library decides (peers) */
};

typedef cudaError_t (*ewb_launcher)(const struct ewb_launch_args *);
typedef struct ewb_shape (*ewb_shaper)(const struct ewb_launch_args *);

struct ewb_variant {
	const char	*id;		/* e.g. "add_f32x4" */
	enum ewb_op	 op;
	enum ewb_dtype	 dtype;
	const char	*origin;	/* "study", "peer", "ewbench" for its own,
				   "probe" for the experiments' */
	const char	*technique;	/* one sentence, for humans */
	unsigned	 elems_per_thread;	/* per thread per iteration */
	unsigned	 vector_width;	/* elements per memory instruction */
	unsigned	 default_block;	/* published threads per block */
	unsigned	 read_bytes;	/* bytes read per element */
	unsigned	 write_bytes;	/* bytes written per element */
	unsigned	 flops;		/* floating-point ops per element */
	bool		 in_place;
	bool		 grid_stride;	/* fixed grid, loop over the data */
	ewb_launcher	 launch;
	ewb_shaper	 shape;
	const void	*kernel;	/* __global__ function for the occupancy
					   API; NULL when a library owns it */
	unsigned	 min_cc;	/* compute capability (major * 10 +
					   minor) below which the launcher
					   runs a fallback kernel instead of
					   this technique; 0: runs anywhere */
	uint64_t	 max_cover;	/* the most elements one launch may
					   cover (grid x block x elements
					   per thread) for the kernel's
					   count and index type: 2^31 for a
					   user kernel's int count; 0: no
					   limit */
	const char	*unavailable;	/* why this build cannot run it
					   (what its toolkit lacks), or
					   NULL: it can */
};

extern const struct ewb_variant ewb_variants[];
extern const size_t ewb_variant_count;

/* Bytes of one element of a dtype; name of an op or dtype. */
unsigned	 ewb_dtype_size(enum ewb_dtype);
const char	*ewb_dtype_name(enum ewb_dtype);
const char	*ewb_op_name(enum ewb_op);

/* Helper kernels used by the harness itself (not variants). */

/* Read all of buf (16-byte aligned, several times larger than L2) so that
 * L2 afterwards holds none of the benchmark's lines and nothing dirty: the
 * next kernel starts cold and pays no write-backs of earlier work. */
/* The compute capability the code loaded for kernel on the current
 * device was compiled for (major * 10 + minor: 80 for compute_80 PTX that
 * the driver JIT-compiled for a 9.0 GPU); 0 when it cannot be loaded. */
unsigned	 ewb_code_arch(const void *kernel);
/* The architecture of the machine code the driver loaded for kernel on
 * the current device (major * 10 + minor: 90 for an sm_90 cubin, and for
 * code JIT-compiled for a 9.0 GPU); 0 when it cannot be loaded. */
unsigned	 ewb_binary_arch(const void *kernel);

cudaError_t	 ewb_l2_flush(void *buf, size_t bytes, cudaStream_t);

/* For launchers written in C (a user's op's family, src/opgen/): the
 * one-wave arithmetic of common.cuh.  The SM count args gives, else the
 * current device's; the blocks of `block` threads one SM holds by thread
 * count alone (ewb_resident_estimate). */
unsigned	 ewb_launch_sm_count(const struct ewb_launch_args *args);
unsigned	 ewb_launch_resident(const struct ewb_launch_args *args,
		    unsigned block);

/* spin.cu: one thread holds the stream until the host writes
 * EWB_SPIN_RELEASE into *word (mapped host memory) or timeout_ns pass on
 * the GPU's clock; it then writes EWB_SPIN_RELEASED or EWB_SPIN_TIMED_OUT
 * there.  Its name contains "ewb_spin": a helper, never a point's time. */
#define EWB_SPIN_WAIT		0u
#define EWB_SPIN_RELEASE	1u
#define EWB_SPIN_RELEASED	2u
#define EWB_SPIN_TIMED_OUT	3u
cudaError_t	 ewb_spin(unsigned *word, unsigned long long timeout_ns,
		    cudaStream_t);
/* spin.cu: *step (device-visible memory) := the smallest step of the
 * GPU's global timer, in ns, or ~0 if it never moved. */
cudaError_t	 ewb_timer_step(unsigned long long *step, cudaStream_t);

/* fill.cu: fill_random's values (src/base/fill.c), written on the device. */
cudaError_t	 ewb_fill_random(void *buf, enum ewb_dtype, size_t n,
		    uint64_t seed, cudaStream_t);

/* compare.cu: a variant's output against the expected one, on the device,
 * by the rule of src/base/tolerance.h: with tol NULL reference.c's (widened to
 * float, equal by value, NaN never equal); a user's op with a reference
 * passes its tolerance.  *result lives in device memory; after the stream
 * reaches this point it holds how many elements differ and the first that
 * does (~0 when none). */
struct ewb_compare_result {
	unsigned long long	 bad_count;
	unsigned long long	 first_index;
};
struct ewb_tolerance;
cudaError_t	 ewb_compare(const void *got, const void *expected, size_t n,
		    enum ewb_dtype, const struct ewb_tolerance *tol,
		    struct ewb_compare_result *result, cudaStream_t);

#ifdef __cplusplus
}
#endif
#endif

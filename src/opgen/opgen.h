/*
 * opgen.h - ewbench's skeletons for a user's op: a per-element __device__
 * function (--elementwise FILE.cu[:FUNCTION], docs/user-kernels.md) made
 * into the family of kernels the study is made of, compiled by NVRTC from
 * the templates ewbench's own variants are built from (kernels/tiles.cuh,
 * kernels/family.cuh and the cover.h they include, embedded at build
 * time), checked and measured as a user's kernels are.
 *
 *   family.c    the family, as data: which kernels, their names (no
 *               compiler)
 *   program.c   the program NVRTC compiles: the user's function, the
 *               operation struct around it, the family's instances
 *   compile.c   NVRTC: the op's inputs and dtype from the compiler, PTX or
 *               a cubin, each kernel's lowered name
 *   launch.c    the GPU side: the cubin loaded, one registry row (variant)
 *               per kernel, their launchers, the reference
 */
#ifndef EWB_OPGEN_H
#define EWB_OPGEN_H

#include "base/ewbench.h"

/* The family's axes: the memory word, the words per thread per input,
 * the launch shape; threads per block are the run's --block. */
enum opgen_access { OPGEN_SCALAR, OPGEN_V64, OPGEN_V128 };
enum opgen_shape { OPGEN_TILE, OPGEN_STRIDE, OPGEN_RUNS, OPGEN_BULK,
	OPGEN_BULK_ONE };
#define OPGEN_ACCESSES		3u
#define OPGEN_SHAPES		5u
/* The shapes made at every access and K: tile, stride, runs. */
#define OPGEN_WORD_SHAPES	3u
#define OPGEN_KS		4u	/* 1, 2, 4, 8 */
/* The bulk-copy (TMA) shape: 16-byte packets only, K 1 and 2 (the
 * built-ins' *_tma and *_tma2), each K whose tile (inputs x K x 1024
 * threads x 16 bytes of shared memory) fits the least a block may opt in
 * to on a GPU with bulk copies, sm_120's 99 KiB (sm_90's and sm_100's:
 * 227 KiB): K 2 for 1 to 3 inputs. */
#define OPGEN_BULK_KS		2u
#define OPGEN_BULK_SHARED_MOST	(99u << 10)
/* The one-stage bulk-copy shape (bulkone, CCCL's DeviceTransform's design
 * on sm_90, docs/user-kernels.md): the element itself at K 2, 3, 4 and 6,
 * and 16-byte packets at K 1 and 2 (the two-stage bulk members' twins),
 * under the same shared-memory rule.  CCCL sizes its tile (256 threads)
 * until 48 KiB are in flight per SM; with 8 such blocks resident (2048
 * threads, which its 15-register kernel allows) that is an element count
 * per thread of 48 KiB / (2048 x the bytes the op reads per element),
 * rounded up: 3 for a two-input f32 op, 6 for one input of f32 or two of
 * f16, 2 for three or four f32 inputs, 4 for three f16 (12 for one f16
 * input, not a member). */
#define OPGEN_ONE_ELEM_KS	4u	/* 2, 3, 4, 6 */
#define OPGEN_ONE_PACKET_KS	2u	/* 1, 2 */
#define OPGEN_BULK_ONE_KS	(OPGEN_ONE_ELEM_KS + OPGEN_ONE_PACKET_KS)
/* Bulk copies are sm_90's: below it the plan leaves the bulk and bulkone
 * members out, saying why (their min_cc), and with --allow-fallback the
 * tile of the same word and K runs under their names (a bulk member's by
 * the tile member, a bulkone member's by its own code built below
 * sm_90). */
#define OPGEN_BULK_MIN_CC	90u
/* Kernels of one op, at most: every access x K x word shape, and the
 * bulk and bulkone ones. */
#define OPGEN_KERNELS		(OPGEN_ACCESSES * OPGEN_KS * \
				    OPGEN_WORD_SHAPES + OPGEN_BULK_KS + \
				    OPGEN_BULK_ONE_KS)
/* The blocks a member runs at without --block: 64 << 0 to 64 << 4,
 * 64 to 1024 (plan.c). */
#define OPGEN_BLOCKS		5u
/* A generated kernel's variant id: this, the function, ':', its name. */
#define OPGEN_ID_PREFIX		"gen:"

struct opgen_kernel {
	enum opgen_access access;
	enum opgen_shape  shape;
	unsigned	  k;		/* words per thread per input */
	unsigned	  word_bytes;	/* bytes one load moves */
	unsigned	  lanes;	/* elements in one word */
	char		  name[32];	/* "tile_v128_k4": shape, bits of
					   the word, K */
	char		 *expr;		/* NVRTC name expression */
	char		 *lowered;	/* after compiling */
};

/* The family of an op of `inputs` (1 to 4) inputs of dtype: fills out
 * (at most OPGEN_KERNELS of them: 44, 42 for 4 inputs) and returns how
 * many; names and words only (expr and lowered NULL). */
unsigned	 opgen_family(enum ewb_dtype, unsigned inputs,
		    struct opgen_kernel *out);
const char	*opgen_shape_name(enum opgen_shape);
/* The place of v among the run's op's rows, in family order (the plan's
 * order); the count of them for any other v.  opgen_rows_set says which
 * rows (opgen_op_init calls it). */
size_t		 opgen_member_index(const struct ewb_variant *v);
void		 opgen_rows_set(const struct ewb_variant *first, size_t count);

/* A user's op, compiled. */
struct opgen_build {
	const char	*path;		/* as given, or ewbench's own example */
	char		*path_owned;	/* path when malloc'd */
	char		*function;
	enum ewb_dtype	 dtype;		/* from the function's type */
	unsigned	 inputs;	/* 1 to 4 */
	struct opgen_kernel kernels[OPGEN_KERNELS];
	unsigned	 nkernels;
	char		*reference;	/* lowered name of the reference */
	char		 source_sha256[SHA256_HEX];
	unsigned	 arch;		/* sm_XX (0: PTX only, compute_90) */
	int		 nvrtc_major, nvrtc_minor;
	void		*image;		/* cubin, or PTX text */
	size_t		 image_bytes;
	char		 includes_sha256[SHA256_HEX];	/* of the files
					   the op #includes (user_includes) */
	char		 key[SHA256_HEX];	/* its compile cache key */
	char		*cache_path;	/* its entry; NULL: no cache */
	bool		 cached;	/* taken from the cache, not compiled */
	double		 compile_s;	/* compiling, or reading the entry */
};

/* The program NVRTC compiles for function of source (program.c): with
 * inputs 0 only what the probe needs, else the operation struct of an op
 * of that many inputs too; the probe's name expression; the family's
 * name expressions into b. */
char		*opgen_program_text(const char *source, const char *function,
		    unsigned inputs);
char		*opgen_probe_expr(void);
void		 opgen_name_kernels(struct opgen_build *b);

/*
 * Reads path, finds function (NULL: the file's only __device__ function
 * that is not __global__), asks the compiler the op's inputs and dtype and
 * compiles the family and its reference: a cubin for sm_<arch>, or with
 * arch 0 PTX for compute_90 (no GPU needed either way), or takes all that
 * from the compile cache (userkernel.h's; b->cached says which) when an
 * entry there answers its key, and stores it there when compiled.  -1
 * with *code EWB_EXIT_USAGE and a one-line cause for a file, function or
 * op that is not one (the compiler's first error), EWB_EXIT_ERROR when
 * NVRTC fails; a failed build leaves nothing in *b to free.
 */
int		 opgen_build(const char *path, const char *function,
		    unsigned arch, struct opgen_build *b, int *code,
		    char **cause);
void		 opgen_build_free(struct opgen_build *b);

/* The run's op on the GPU (launch.c): its family as registry rows, of
 * origin OPGEN_ORIGIN, ids OPGEN_ID_PREFIX "<function>:<name>". */
#define OPGEN_ORIGIN		"generated"
/* A member's published block: "own" in --block (the study's most common);
 * without --block a member runs at every block of the family. */
#define OPGEN_DEFAULT_BLOCK	256u
/* Threads per block of the reference's launch (one element each). */
#define OPGEN_REFERENCE_BLOCK	256u

struct opgen_op {
	struct opgen_build	 build;
	struct ewb_variant	 variants[OPGEN_KERNELS];
	char			*ids[OPGEN_KERNELS];
	char			*techniques[OPGEN_KERNELS];
	unsigned		 count;
	bool			 given_reference;	/* checked against a
						   --kernel's --reference, not
						   the generated one */
};

/* op's rows from b (no GPU: enough for a plan); takes b.  One op per
 * run: the launchers launch this one's kernels.  Then opgen_op_load
 * loads its cubin on the current device. */
void		 opgen_op_init(struct opgen_op *op, struct opgen_build *b);
int		 opgen_op_load(struct opgen_op *op, char **cause);
void		 opgen_op_free(struct opgen_op *op);
/* run.json "elementwise": the op's file, function, hash, inputs, dtype,
 * the architecture and NVRTC it was compiled by and the seconds it took,
 * its cache key and whether it came from the cache, its kernels
 * (manifest's op_json; ctx a struct opgen_op). */
void		 opgen_op_json(struct json *j, const void *ctx);
/* Whether a run has an op (opgen_op_init called, not yet freed). */
bool		 opgen_active(void);
/* The family's reference over a's operands into a->c, one thread per
 * element; asynchronous on a->stream. */
cudaError_t	 opgen_reference_launch(const struct ewb_launch_args *a);

/* The headers the program includes, as built into this binary
 * (headers.c, made from kernels/ at build time). */
extern const char *const opgen_header_names[];
extern const char *const opgen_header_texts[];
extern const unsigned opgen_header_count;

#endif

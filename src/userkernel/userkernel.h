/*
 * userkernel.h - a user's own kernel (--kernel FILE.cu[:FUNCTION]),
 * compiled at run time and measured as a variant of origin "user".
 *
 *   spec.c, scan.c      no compiler: the options (op and dtype from the
 *                       parameters where not given), the file read, the
 *                       function found, its includes checked
 *   program.c, build.c  no GPU: its signature checked against the op's by
 *                       NVRTC (build.c, the only file that links it), a
 *                       cubin for one architecture
 *   cache.c             the compile cache
 *   userkernel.c        the GPU side: the cubin loaded (cudaLibrary), the
 *                       registry row and launcher, run.json's entry
 * (internal.h: what they share among themselves).
 *
 * The signature of each op (docs/user-kernels.md), T float or __half:
 *   add    __global__ void f(const T *a, const T *b, T *c, size_t n)
 *   relu   __global__ void f(const T *a, T *c, size_t n)
 *   abs    __global__ void f(T *c, size_t n)		in place
 * A user's own op (--reference REF.cu[:FUNCTION], op "custom"): 1 to
 * USER_MAX_INPUTS inputs and one output, or one array in place, T float,
 * __half or __nv_bfloat16; the reference kernel has the same signature and
 * computes the expected output on the GPU, one thread per element:
 *   custom __global__ void f(const T *a, ..., T *out, size_t n)
 *   custom __global__ void f(T *out, size_t n)		in place
 * The inputs const or not (the article's kernels take float *a), the count
 * any integer type of 32 or 64 bits (int N, as the article's, or size_t):
 * the compiler says which (struct user_build's count), and a size whose
 * launch covers elements past a 32-bit count's range is left out of the
 * plan for that kernel, saying why (plan.c), never launched.  The grid is
 * ceil(ceil(n / elems per thread) / block), as for the built-in variants
 * without a loop.
 */
#ifndef EWB_USERKERNEL_H
#define EWB_USERKERNEL_H

#include "base/ewbench.h"
#include "base/tolerance.h"

/* The most inputs of a user's op (--reference). */
#define USER_MAX_INPUTS		4u
/* Threads per block of the reference kernel's launch (one element each). */
#define USER_REFERENCE_BLOCK	256u

/* The output's guard regions in the check (checker.c): this many bytes
 * before and after it, poisoned, and compared after the check launch. */
#define USER_GUARD_BYTES	(256u * 1024u)
/* Seconds a user kernel's launches may take before the watchdog stops
 * the run, by default (--kernel-timeout). */
#define USER_TIMEOUT_S		30u
/* A user's kernel's variant id: this, then its function's name; the whole
 * at most EWB_NAME_MAX bytes (data-limits.h), what the analysis reads. */
#define USER_ID_PREFIX		"user:"

/* What the command line says (cli.c). */
struct user_spec {
	const char	*path;		/* NULL: no --kernel */
	bool		 path_owned;	/* split off FILE:FUNCTION */
	char		*function;	/* NULL: the file's only kernel */
	enum ewb_op	 op;
	enum ewb_dtype	 dtype;
	bool		 op_given, dtype_given;
	unsigned	 params;	/* the parameters op or dtype were
					   taken from; 0: both given */
	unsigned	 per_thread;	/* elements per thread (grid) */
	unsigned	 block;		/* default threads per block */
	char		**flags;	/* extra NVRTC options */
	size_t		 nflags;
	unsigned	 timeout_s;	/* the watchdog's limit */
	bool		 no_guard;	/* --no-guard: the check's output
					   exactly its size, for
					   compute-sanitizer */
	/* --reference: a user's op (EWB_OP_CUSTOM). */
	const char	*ref_path;	/* NULL: none */
	bool		 ref_path_owned;
	char		*ref_function;
	unsigned	 inputs;	/* EWB_OP_CUSTOM: input arrays
					   besides the output; 0: in place */
	struct ewb_tolerance tol;	/* --ulps, --rel, --atol, --rtol */
	bool		 tol_given;
	bool		 atol_given, rtol_given;	/* else the dtype's
							   default, if the
							   other is given */
};

/* --kernel FILE[:FUNCTION] (a FUNCTION is a C identifier; a path holding
 * ':' takes an explicit one); --op, --dtype; --kernel-flags "OPTS" (split at
 * spaces, added to NVRTC's).  -1 with a cause on a bad value. */
int		 user_spec_kernel(struct user_spec *, const char *text,
		    char **cause);
int		 user_spec_op(struct user_spec *, const char *text,
		    char **cause);
int		 user_spec_dtype(struct user_spec *, const char *text,
		    char **cause);
/* --reference FILE[:FUNCTION]; --ulps N; --rel R; --atol A; --rtol R. */
int		 user_spec_reference(struct user_spec *, const char *text,
		    char **cause);
int		 user_spec_ulps(struct user_spec *, const char *text,
		    char **cause);
int		 user_spec_rel(struct user_spec *, const char *text,
		    char **cause);
int		 user_spec_atol(struct user_spec *, const char *text,
		    char **cause);
int		 user_spec_rtol(struct user_spec *, const char *text,
		    char **cause);
/* read_user_file of a source file (--kernel, --reference, --elementwise),
 * `examples/FILE` that is not here taken from ewbench's own examples
 * (*path then a malloc'd path, *owned true): a file found nowhere says
 * where they were looked for. */
int		 user_read_source(const char **path, bool *owned, char **text,
		    size_t *len, char **cause);
/* The input arrays of spec's op (add 2, relu 1, abs 0, custom its own). */
unsigned	 user_spec_inputs(const struct user_spec *);
void		 user_spec_flags(struct user_spec *, const char *text);
/* After parsing: defaults, and what goes together (--op with --kernel). */
int		 user_spec_finish(struct user_spec *, char **cause);
/* Where the op and the dtype came from, for run.json: "--op" or
 * "--dtype", "--reference" (the op), or "parameters" (the signature's). */
const char	*user_spec_op_from(const struct user_spec *);
const char	*user_spec_dtype_from(const struct user_spec *);
/* What the plan says of the kernel's op and dtype, one line (no newline):
 * where each came from, and, for an op taken from the parameters, that a
 * kernel of another op needs --reference.  Malloc'd. */
char		*user_spec_describe(const struct user_spec *, const char *id);
/* For a check that failed by value: when the op was taken from the
 * parameters, "its op ... if it is not a relu, give --reference ...";
 * else NULL.  Malloc'd. */
char		*user_spec_guess_hint(const struct user_spec *);
void		 user_spec_free(struct user_spec *);

/* The type of a kernel's element count, as the compiler judged it. */
enum user_count { USER_COUNT_U64, USER_COUNT_I64, USER_COUNT_U32,
    USER_COUNT_I32 };
/* "size_t"-like names for messages and run.json: "uint64", "int64",
 * "uint32", "int32". */
const char	*user_count_name(enum user_count);
/* The most elements a launch may cover for such a count: 2^31 (int),
 * 2^32 (unsigned), 0 (64 bits: no limit). */
uint64_t	 user_count_cover(enum user_count);

/* A compiled kernel. */
struct user_build {
	char		*function;	/* as in the source */
	char		*lowered;	/* its symbol in the cubin */
	enum user_count	 count;		/* its element count's type */
	char		 source_sha256[SHA256_HEX];	/* of the file */
	char		 includes_sha256[SHA256_HEX];	/* of the files
					   it #includes (user_includes) */
	char		 key[SHA256_HEX];	/* the cache key */
	char		*cache_path;	/* NULL: no cache directory */
	bool		 cached;	/* loaded from the cache */
	unsigned	 arch;		/* sm_XX compiled for: major * 10 +
					   minor (user_nvrtc_arch) */
	unsigned	 device_arch;	/* the GPU's, as asked for */
	char		**options;	/* NVRTC's, all of them */
	size_t		 noptions;
	int		 nvrtc_major, nvrtc_minor;
	void		*cubin;
	size_t		 cubin_bytes;
	char		*log;		/* NVRTC's warnings, or NULL */
	double		 compile_s;
};

/*
 * Reads, checks and compiles spec's kernel to a cubin for a GPU of
 * compute capability arch (for the sm_ of user_nvrtc_arch; no GPU needed),
 * or takes it from the cache: $XDG_CACHE_HOME/ewbench, else
 * ~/.cache/ewbench, keyed by a SHA-256 of the program, the files it
 * #includes, the options (architecture included) and NVRTC's version.
 * On failure returns -1 with *code EWB_EXIT_USAGE (an unreadable file,
 * no such function, a signature that does not match the op, a compile
 * error: NVRTC's log, its file:line as the compiler wrote them) or
 * EWB_EXIT_ERROR.
 */
int		 user_build(const struct user_spec *, unsigned arch,
		    struct user_build *, int *code, char **cause);
/* The sm_XX this NVRTC compiles machine code for on a GPU of compute
 * capability cc (major * 10 + minor): cc when NVRTC knows it, else the
 * newest it knows of cc's major below cc; 0 when none. */
unsigned	 user_nvrtc_arch(unsigned cc);
/* The same for spec's reference kernel (--reference): its file, its
 * function, the signature of the kernel's, no --kernel-flags. */
int		 user_build_reference(const struct user_spec *, unsigned arch,
		    struct user_build *, int *code, char **cause);
void		 user_build_free(struct user_build *);
/* The log of an NVRTC program (an nvrtcProgram), or NULL when it is
 * empty: the one place that reads one (src/opgen/ too). */
char		*user_nvrtc_log(void *program);
/* The oldest architecture of a newer major than sm_<arch> (the first
 * minor of each major NVRTC knows) for which compiles(arch, ctx) says
 * yes, else 0: what a source that fails for this GPU needs (bf16
 * arithmetic is declared for sm_80 and newer only).  The one search,
 * for --kernel and --elementwise (src/opgen/) alike. */
unsigned	 user_newer_arch_that_compiles(unsigned arch,
		    bool (*compiles)(unsigned arch, void *ctx), void *ctx);
/*
 * The compile cache (cache.c), for --kernel's builds and --elementwise's
 * family (src/opgen/) alike: $XDG_CACHE_HOME/ewbench, else
 * ~/.cache/ewbench, private to this user (private_cache_dir).
 * user_cache_path: the entry of key there (KEY SUFFIX), or NULL with the
 * reason said on stderr when there is no cache to use.  A key is the
 * SHA-256 of user_cache_key_part's parts (NUL-separated).  An entry is
 * magic (the kind of build and its layout's version, ending in a space),
 * the key, the digest of key and payload, a newline, then the payload:
 * user_cache_entry_load gives the payload (malloc'd, NUL-terminated)
 * only when magic, key and digest all match (anything else, the file
 * missing included, is a miss: false); user_cache_entry_store writes
 * one whose payload is head (text) then body (bytes), atomically, 0600,
 * saying on stderr when it cannot (never fatal).
 */
char		*user_cache_path(const char *key, const char *suffix);
void		 user_cache_key_part(struct sha256 *h, const char *part);
bool		 user_cache_entry_load(const char *path, const char *magic,
		    const char *key, char **payload, size_t *payload_len);
void		 user_cache_entry_store(const char *path, const char *magic,
		    const char *key, const char *head, const void *body,
		    size_t body_len);
/* The files source (the text of path) #includes, as NVRTC with these
 * flags finds them, checked before NVRTC opens them: -1 with a cause for
 * one that is not a regular file of at most SOURCE_MAX bytes.  digest:
 * the SHA-256 of every file read (its path and bytes), for a cache key. */
int		 user_includes(const char *path, const char *source,
		    char *const *flags, size_t nflags, char digest[SHA256_HEX],
		    char **cause);
/* The C identifier of the file's only __global__ function; -1 with a
 * cause when there is none or more than one. */
int		 user_find_function(const char *source, const char *path,
		    char **function, char **cause);

/* The user's variant, once loaded; one per run. */
struct user_kernel {
	const struct user_spec	*spec;	/* the run options' */
	struct user_build	 build;
	struct user_build	 ref;		/* --reference's; function
						   NULL: none */
	struct ewb_variant	 variant;
	char			*id;		/* "user:<function>" */
	char			*technique;
	char			*stopped;	/* the watchdog's words */
};

/* u's variant from s and b, and ref (NULL: no --reference) (no GPU:
 * enough for a plan); takes ownership of b and ref.  Then
 * user_kernel_load loads the cubins on the current device, so that the
 * variant and its reference launch. */
void		 user_kernel_init(struct user_kernel *,
		    const struct user_spec *s, struct user_build *b,
		    struct user_build *ref);
int		 user_kernel_load(struct user_kernel *, char **cause);
void		 user_kernel_free(struct user_kernel *);
/* run.json "user_kernels": the file, function, hashes, options. */
void		 user_kernel_json(struct json *, const void *user_kernel);
/* Whether v is a user's kernel (origin "user") or one generated for a
 * user's op (origin "generated", src/opgen/). */
bool		 variant_is_user(const struct ewb_variant *v);
/* Bytes of guard on either side of the loaded user kernel's checked
 * output: USER_GUARD_BYTES, or 0 with --no-guard. */
size_t		 user_guard_bytes(void);
/* The loaded kernel's reference (--reference) over a's operands into
 * a->c, one thread per element, USER_REFERENCE_BLOCK threads a block;
 * asynchronous on a->stream. */
cudaError_t	 user_reference_launch(const struct ewb_launch_args *a);
/* Whether a --reference kernel is loaded (user_reference_launch runs). */
bool		 user_reference_loaded(void);
/* The tolerance of v's check: the --ulps/--rel/--atol/--rtol of a user's
 * op, NULL for every other variant (equal by value, NaN never). */
const struct ewb_tolerance *variant_tolerance(const struct ewb_variant *v);
/* The input arrays the check fills for v: a user's op's own (in place:
 * 1, the array it rewrites); 2 for every other variant (a and b). */
unsigned	 variant_input_arrays(const struct ewb_variant *v);

#endif

/*
 * internal.h - what the files of src/userkernel/ share among themselves
 * (userkernel.h is the folder's public header; nothing outside it
 * includes this one):
 *
 *   spec.c      the command line's words for a user's kernel, finished
 *               from its source, and said back (no compiler)
 *   scan.c      the source read as text: the function, its parameters'
 *               types, the files it includes (no compiler)
 *   program.c   the program NVRTC compiles: the source, the signature's
 *               check, the count's probe
 *   cache.c     the compile cache on disk
 *   build.c     NVRTC: the only file here that links it
 *   userkernel.c  the GPU side: the cubin loaded, the variant, launches
 */
#ifndef EWB_USERKERNEL_INTERNAL_H
#define EWB_USERKERNEL_INTERNAL_H

#include "userkernel/userkernel.h"

/* The name NVRTC gives the appended checks in its messages. */
#define CHECK_FILE	"ewbench signature check"
/* The most bytes of a kernel's source (more is refused, never read
 * whole). */
#define SOURCE_MAX	(16u << 20)

/* scan.c */
/* s is a C identifier, the whole of it. */
bool		 user_identifier(const char *s);
/* s is a template's instance (tadd<float>), the whole of it. */
bool		 user_template_instance(const char *s);
/* How many parameters function has and the dtype their types say: a
 * guess from the text (the compiler judges the exact signature). */
bool		 user_infer_signature(const char *source, const char *function,
		    unsigned *count, enum ewb_dtype *dtype, bool *declared);

/* spec.c: what the spec says, in CUDA's words */
const char	*user_type_name(enum ewb_dtype dtype);
/* The parameter list the op wants, for messages: "const float *a, ...". */
char		*user_params(const struct user_spec *s);

/* program.c */
char		*user_expected_declaration(const struct user_spec *s,
		    const char *function);
char		*user_program_text(const struct user_spec *s,
		    const char *source, const char *function);
char		*user_count_probe(const char *function);
int		 user_count_from_probe(const char *lowered,
		    enum user_count *count);

/* cache.c: --kernel's entries (user_cache_entry_load and _store, in
 * userkernel.h, for their layout) */
void		 user_cache_key(struct user_build *b, const char *program);
bool		 user_cache_load(struct user_build *b);
void		 user_cache_store(const struct user_build *b);

#endif

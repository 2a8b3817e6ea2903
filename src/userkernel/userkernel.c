/*
 * userkernel.c - a user's kernel on the GPU: its cubin loaded through the
 * runtime's library API (cudaLibraryLoadData: the primary context every
 * other kernel runs in, and a cudaKernel_t that the occupancy and
 * attribute calls take like any __global__ function), its registry row
 * and launcher, and its entry in run.json.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kernels/cover.h"
#include "userkernel/userkernel.h"

/* The loaded kernel the launcher starts: one user kernel per run (a
 * launcher takes no context). */
static cudaLibrary_t		 loaded_library, loaded_ref_library;
static cudaKernel_t		 loaded_kernel, loaded_ref_kernel;
static const struct user_kernel	*loaded;

static struct ewb_shape
user_shape(const struct ewb_launch_args *a)
{
	struct ewb_shape	s;

	s.block = a->block;
	s.grid = ewb_cover_grid(a->n, loaded->variant.elems_per_thread,
	    s.block);
	return s;
}

/* The op's operands, in the order of its signature (userkernel.h), into
 * params; count: the count as the kernel takes it (set by the caller). */
static void
operands(const struct ewb_launch_args *a, void **params, void *count)
{
	const void *const	*inputs[USER_MAX_INPUTS] = { &a->a, &a->b,
				    &a->more[0], &a->more[1] };
	unsigned		 k, n = user_spec_inputs(loaded->spec);

	for (k = 0; k < n; k++)
		params[k] = (void *)inputs[k];
	params[n] = (void *)&a->c;
	params[n + 1] = count;
}

/* One launch of kernel with a's operands over grid x block threads, the
 * count as build's kernel takes it. */
static cudaError_t
launch(cudaKernel_t kernel, const struct user_build *build,
    const struct ewb_launch_args *a, unsigned long long blocks,
    unsigned threads)
{
	size_t		 n = a->n;
	unsigned	 n32 = (unsigned)a->n;
	void		*params[USER_MAX_INPUTS + 2];
	dim3		 grid = { 1, 1, 1 }, block = { 1, 1, 1 };
	cudaError_t	 e;

	/* A 32-bit count (int N, as in the article) gets 4 bytes. */
	operands(a, params, build->count == USER_COUNT_I32 ||
	    build->count == USER_COUNT_U32 ? (void *)&n32 : (void *)&n);
	if (blocks > 2147483647ULL)
		return cudaErrorInvalidConfiguration;
	grid.x = (unsigned)blocks;
	block.x = threads;
	e = cudaLaunchKernel((const void *)kernel, grid, block, params, 0,
	    a->stream);
	return e != cudaSuccess ? e : cudaGetLastError();
}

static cudaError_t
user_launch(const struct ewb_launch_args *a)
{
	struct ewb_shape	 s = user_shape(a);
	uint64_t		 cover = loaded->variant.max_cover;

	/* The plan left out every size whose launch covers elements past a
	 * 32-bit count's range (plan.c), and this refuses one that would
	 * get here all the same, rather than let the count or the kernel's
	 * index wrap. */
	if (cover != 0 && (a->n >= cover || s.grid * s.block *
	    loaded->variant.elems_per_thread > cover))
		return cudaErrorInvalidValue;
	return launch(loaded_kernel, &loaded->build, a, s.grid, s.block);
}

cudaError_t
user_reference_launch(const struct ewb_launch_args *a)
{
	unsigned long long	blocks = ewb_cover_grid(a->n, 1,
				    USER_REFERENCE_BLOCK);
	uint64_t		cover;

	if (loaded == NULL || loaded->ref.function == NULL)
		return cudaErrorInvalidValue;
	cover = user_count_cover(loaded->ref.count);
	if (cover != 0 && blocks * USER_REFERENCE_BLOCK > cover)
		return cudaErrorInvalidValue;
	return launch(loaded_ref_kernel, &loaded->ref, a, blocks,
	    USER_REFERENCE_BLOCK);
}

const struct ewb_tolerance *
variant_tolerance(const struct ewb_variant *v)
{
	return v->op == EWB_OP_CUSTOM && loaded != NULL ? &loaded->spec->tol :
	    NULL;
}

/* A user's op reads read_bytes / its element's size arrays (in place:
 * the one it rewrites), the family generated for it too. */
unsigned
variant_input_arrays(const struct ewb_variant *v)
{
	if (v->op != EWB_OP_CUSTOM)
		return 2;
	return v->read_bytes / ewb_dtype_size(v->dtype);
}

bool
user_reference_loaded(void)
{
	return loaded != NULL && loaded->ref.function != NULL;
}

size_t
user_guard_bytes(void)
{
	return loaded != NULL && loaded->spec->no_guard ? 0 : USER_GUARD_BYTES;
}

void
user_kernel_init(struct user_kernel *u, const struct user_spec *s,
    struct user_build *b, struct user_build *ref)
{
	struct ewb_variant	*v = &u->variant;
	unsigned		 elem = ewb_dtype_size(s->dtype);
	unsigned		 inputs = user_spec_inputs(s);
	uint64_t		 ref_cover;

	memset(u, 0, sizeof *u);
	u->spec = s;
	u->build = *b;
	memset(b, 0, sizeof *b);
	if (ref != NULL) {
		u->ref = *ref;
		memset(ref, 0, sizeof *ref);
	}
	u->id = xasprintf(USER_ID_PREFIX "%s", u->build.function);
	u->technique = xasprintf("%s from %s (sha256 %.12s), %u element%s "
	    "per thread", u->build.function, s->path, u->build.source_sha256,
	    s->per_thread, s->per_thread == 1 ? "" : "s");
	memset(v, 0, sizeof *v);
	v->id = u->id;
	v->op = s->op;
	v->dtype = s->dtype;
	v->origin = "user";
	v->technique = u->technique;
	v->elems_per_thread = s->per_thread;
	v->vector_width = 0;		/* not known */
	v->default_block = s->block;
	/* Bytes per element from the signature: each input read once, the
	 * output written once; in place, the one array read and written.
	 * A user's op's flops are not known (0). */
	v->in_place = inputs == 0;
	v->read_bytes = (inputs == 0 ? 1 : inputs) * elem;
	v->write_bytes = elem;
	v->flops = s->op == EWB_OP_ADD ? 1 : 0;
	v->max_cover = user_count_cover(u->build.count);
	/* The reference's launch covers n rounded up to its block: the
	 * smaller range holds for both. */
	ref_cover = user_count_cover(u->ref.count);
	if (u->ref.function != NULL && ref_cover != 0 &&
	    (v->max_cover == 0 || ref_cover < v->max_cover))
		v->max_cover = ref_cover;
	v->launch = user_launch;
	v->shape = user_shape;
	v->kernel = NULL;		/* until loaded */
	loaded = u;
}

int
user_kernel_load(struct user_kernel *u, char **cause)
{
	cudaError_t	e;

	e = cudaLibraryLoadData(&loaded_library, u->build.cubin, NULL, NULL,
	    0, NULL, NULL, 0);
	if (e == cudaSuccess)
		e = cudaLibraryGetKernel(&loaded_kernel, loaded_library,
		    u->build.lowered);
	if (e != cudaSuccess) {
		*cause = xasprintf("%s: loading its sm_%u cubin: %s",
		    u->spec->path, u->build.arch, cudaGetErrorString(e));
		return -1;
	}
	u->variant.kernel = (const void *)loaded_kernel;
	if (u->ref.function == NULL)
		return 0;
	e = cudaLibraryLoadData(&loaded_ref_library, u->ref.cubin, NULL, NULL,
	    0, NULL, NULL, 0);
	if (e == cudaSuccess && (e = cudaLibraryGetKernel(&loaded_ref_kernel,
	    loaded_ref_library, u->ref.lowered)) != cudaSuccess)
		cudaLibraryUnload(loaded_ref_library);
	if (e != cudaSuccess) {
		*cause = xasprintf("%s: loading its sm_%u cubin: %s",
		    u->spec->ref_path, u->ref.arch, cudaGetErrorString(e));
		loaded_ref_kernel = NULL;
		return -1;
	}
	return 0;
}

void
user_kernel_free(struct user_kernel *u)
{
	if (loaded == u) {
		if (u->variant.kernel != NULL)
			cudaLibraryUnload(loaded_library);
		if (loaded_ref_kernel != NULL)
			cudaLibraryUnload(loaded_ref_library);
		loaded_ref_kernel = NULL;
		loaded = NULL;
	}
	user_build_free(&u->build);
	user_build_free(&u->ref);
	free(u->id);
	free(u->technique);
	free(u->stopped);
	memset(u, 0, sizeof *u);
}

void
user_kernel_json(struct json *j, const void *ctx)
{
	const struct user_kernel	*u = ctx;
	const struct user_build		*b = &u->build;
	char				 text[32];
	size_t				 i;

	json_begin_array(j, "user_kernels");
	json_begin_object(j, NULL);
	json_str(j, "variant", u->id);
	json_str(j, "file", u->spec->path);
	json_str(j, "function", b->function);
	json_str(j, "symbol", b->lowered);
	json_str(j, "op", ewb_op_name(u->spec->op));
	json_str(j, "op_from", user_spec_op_from(u->spec));
	json_str(j, "dtype", ewb_dtype_name(u->spec->dtype));
	json_str(j, "dtype_from", user_spec_dtype_from(u->spec));
	json_str(j, "source_sha256", b->source_sha256);
	json_str(j, "cache_key", b->key);
	json_bool(j, "cached", b->cached);
	snprintf(text, sizeof text, "sm_%u", b->arch);
	json_str(j, "arch", text);
	snprintf(text, sizeof text, "%d.%d", b->nvrtc_major, b->nvrtc_minor);
	json_str(j, "nvrtc", text);
	json_begin_array(j, "options");
	for (i = 0; i < b->noptions; i++)
		json_str(j, NULL, b->options[i]);
	json_end_array(j);
	json_str(j, "count", user_count_name(b->count));
	json_u64(j, "elems_per_thread", u->spec->per_thread);
	json_u64(j, "default_block", u->spec->block);
	json_u64(j, "timeout_s", u->spec->timeout_s);
	json_bool(j, "guard", !u->spec->no_guard);
	json_u64(j, "inputs", user_spec_inputs(u->spec));
	json_bool(j, "in_place", u->variant.in_place);
	json_u64(j, "bytes_per_element", u->variant.read_bytes +
	    u->variant.write_bytes);
	if (u->ref.function != NULL) {
		json_begin_object(j, "reference");
		json_str(j, "file", u->spec->ref_path);
		json_str(j, "function", u->ref.function);
		json_str(j, "symbol", u->ref.lowered);
		json_str(j, "source_sha256", u->ref.source_sha256);
		json_str(j, "cache_key", u->ref.key);
		json_bool(j, "cached", u->ref.cached);
		json_str(j, "count", user_count_name(u->ref.count));
		json_u64(j, "ulps", u->spec->tol.ulps);
		json_f64(j, "rel", u->spec->tol.rel);
		json_f64(j, "atol", u->spec->tol.atol);
		json_f64(j, "rtol", u->spec->tol.rtol);
		json_end_object(j);
	} else
		json_null(j, "reference");
	json_str(j, "stopped", u->stopped);
	json_end_object(j);
	json_end_array(j);
}

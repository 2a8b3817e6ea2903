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

#include "userkernel.h"

/* The loaded kernel the launcher starts: one user kernel per run (a
 * launcher takes no context). */
static cudaLibrary_t		 loaded_library;
static cudaKernel_t		 loaded_kernel;
static const struct user_kernel	*loaded;

static struct ewb_shape
user_shape(const struct ewb_launch_args *a)
{
	const struct ewb_variant	*v = &loaded->variant;
	struct ewb_shape		 s;
	unsigned long long		 threads;

	s.block = a->block != 0 ? a->block : v->default_block;
	threads = a->n / v->elems_per_thread +
	    (a->n % v->elems_per_thread != 0);
	s.grid = threads / s.block + (threads % s.block != 0);
	return s;
}

/* The op's operands, in the order of its signature (userkernel.h). */
static cudaError_t
user_launch(const struct ewb_launch_args *a)
{
	struct ewb_shape	 s = user_shape(a);
	size_t			 n = a->n;
	uint64_t		 cover = loaded->variant.max_cover;
	unsigned		 n32 = (unsigned)a->n;
	void			*params[4], *count = &n;
	dim3			 grid = { 1, 1, 1 }, block = { 1, 1, 1 };
	cudaError_t		 e;

	/* A 32-bit count (int N, as in the article) gets 4 bytes; the plan
	 * left out every size whose launch covers elements past its range
	 * (plan.c), and this refuses one that would get here all the same,
	 * rather than let the count or the kernel's index wrap. */
	if (cover != 0 && (n >= cover || s.grid * s.block *
	    loaded->variant.elems_per_thread > cover))
		return cudaErrorInvalidValue;
	if (loaded->build.count == USER_COUNT_I32 ||
	    loaded->build.count == USER_COUNT_U32)
		count = &n32;
	switch (loaded->variant.op) {
	case EWB_OP_ADD:
		params[0] = (void *)&a->a;
		params[1] = (void *)&a->b;
		params[2] = (void *)&a->c;
		params[3] = count;
		break;
	case EWB_OP_RELU:
		params[0] = (void *)&a->a;
		params[1] = (void *)&a->c;
		params[2] = count;
		break;
	case EWB_OP_ABS:
		params[0] = (void *)&a->c;
		params[1] = count;
		break;
	}
	if (s.grid > 2147483647ULL)
		return cudaErrorInvalidConfiguration;
	grid.x = (unsigned)s.grid;
	block.x = s.block;
	e = cudaLaunchKernel((const void *)loaded_kernel, grid, block, params,
	    0, a->stream);
	return e != cudaSuccess ? e : cudaGetLastError();
}

size_t
user_guard_bytes(void)
{
	return loaded != NULL && loaded->spec->no_guard ? 0 : USER_GUARD_BYTES;
}

void
user_kernel_init(struct user_kernel *u, const struct user_spec *s,
    struct user_build *b)
{
	struct ewb_variant	*v = &u->variant;
	unsigned		 elem = ewb_dtype_size(s->dtype);

	u->spec = s;
	u->build = *b;
	memset(b, 0, sizeof *b);
	u->id = xasprintf("user:%s", u->build.function);
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
	v->read_bytes = (s->op == EWB_OP_ADD ? 2 : 1) * elem;
	v->write_bytes = elem;
	v->flops = s->op == EWB_OP_ADD ? 1 : 0;
	v->in_place = s->op == EWB_OP_ABS;
	v->max_cover = user_count_cover(u->build.count);
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
	return 0;
}

void
user_kernel_free(struct user_kernel *u)
{
	if (loaded == u) {
		if (u->variant.kernel != NULL)
			cudaLibraryUnload(loaded_library);
		loaded = NULL;
	}
	user_build_free(&u->build);
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
	json_str(j, "dtype", ewb_dtype_name(u->spec->dtype));
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
	if (u->stopped != NULL)
		json_str(j, "stopped", u->stopped);
	else
		json_null(j, "stopped");
	json_end_object(j);
	json_end_array(j);
}

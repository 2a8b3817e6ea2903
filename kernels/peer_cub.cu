/*
 * peer_cub.cu - the toolkit's own elementwise transform as a peer: CUB's
 * DeviceTransform chooses its algorithm, block and grid per architecture,
 * so these rows have no shape of their own (block 0, grid 0).  A build
 * whose CCCL has no DeviceTransform (peer_cub.cuh) holds launchers that
 * refuse: its rows are skipped before any launch, saying why.
 */
#include "common.cuh"
#include "peer_cub.cuh"

#if EWB_HAVE_CUB_TRANSFORM
#include <cub/device/device_transform.cuh>
#include <cuda/std/tuple>

/* An operation of ops.cuh as the functor CUB calls. */
template <typename Op>
struct functor {
	__device__ typename Op::elem
	operator()(typename Op::elem x, typename Op::elem y) const
	{
		return Op::one(x, y);
	}
};

/* CUB takes its offset type from the count's type: 32-bit offsets where
 * they suffice, as a library caller would pass, 64-bit beyond. */
template <typename T, typename Op>
static cudaError_t
cub_binary(const struct ewb_launch_args *args)
{
	const T		*a = (const T *)args->a, *b = (const T *)args->b;
	T		*c = (T *)args->c;
	cudaError_t	 error;

	if (args->n == 0)
		return cudaErrorInvalidValue;
	if (args->n <= INT32_MAX)
		error = cub::DeviceTransform::Transform(
		    cuda::std::make_tuple(a, b), c, (int32_t)args->n,
		    functor<Op>(),
		    args->stream);
	else
		error = cub::DeviceTransform::Transform(
		    cuda::std::make_tuple(a, b), c, (int64_t)args->n,
		    functor<Op>(),
		    args->stream);
	if (error != cudaSuccess)
		return error;
	return cudaGetLastError();
}

#else
template <typename T, typename Op>
static cudaError_t
cub_binary(const struct ewb_launch_args *args)
{
	(void)args;
	return cudaErrorNotSupported;
}
#endif

extern "C" cudaError_t
ewb_cub_add_f32(const struct ewb_launch_args *args)
{
	return cub_binary<float, add_f32_op>(args);
}

extern "C" cudaError_t
ewb_cub_add_f16(const struct ewb_launch_args *args)
{
	return cub_binary<__half, add_f16_op>(args);
}

/* The library decides; a block override is ignored. */
extern "C" struct ewb_shape
ewb_cub_shape(const struct ewb_launch_args *args)
{
	struct ewb_shape s;

	(void)args;
	s.block = 0;
	s.grid = 0;
	return s;
}

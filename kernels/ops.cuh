/*
 * ops.cuh - the four elementwise operations, each under one name (add_f32,
 * add_f16, relu_f32, abs_f32) that the variant lists (study.def, fast.def)
 * use: what the operation computes on one element (and, for fp16, on a
 * pair), its element type, how many arrays it reads, and the kernel
 * signature of its operand convention (common.cuh).
 *
 * From an operation's name, by token pasting:
 *   name##_op			the struct below
 *   EWB_PARAMS_##name		the parameter list of its kernels
 *   EWB_OPERANDS_##name		those parameters as (a, b, c, n) for the
 *				fast.cu templates, which take every operation
 *				in the binary form: a unary one reads a and
 *				ignores b, an in-place one reads and writes c
 */
#ifndef EWB_OPS_CUH
#define EWB_OPS_CUH

#include <cuda_fp16.h>

#include "registry.h"

struct add_f32_op {
	typedef float elem;
	static constexpr enum ewb_op op = EWB_OP_ADD;
	static constexpr unsigned inputs = 2;
	static __device__ __forceinline__ float
	one(float x, float y)
	{
		return x + y;
	}
};

struct add_f16_op {
	typedef __half elem;
	static constexpr enum ewb_op op = EWB_OP_ADD;
	static constexpr unsigned inputs = 2;
	static __device__ __forceinline__ __half
	one(__half x, __half y)
	{
		return __hadd(x, y);
	}
	static __device__ __forceinline__ __half2
	two(__half2 x, __half2 y)
	{
		return __hadd2(x, y);
	}
};

/* As relu.cu: negative, -0.0f and NaN give +0.0f. */
struct relu_f32_op {
	typedef float elem;
	static constexpr enum ewb_op op = EWB_OP_RELU;
	static constexpr unsigned inputs = 1;
	static __device__ __forceinline__ float
	one(float x, float)
	{
		return x > 0.0f ? x : 0.0f;
	}
};

struct abs_f32_op {
	typedef float elem;
	static constexpr enum ewb_op op = EWB_OP_ABS;
	static constexpr unsigned inputs = 1;
	static __device__ __forceinline__ float
	one(float x, float)
	{
		return fabsf(x);
	}
};

#define EWB_PARAMS_add_f32	const float *a, const float *b, float *c, size_t n
#define EWB_PARAMS_add_f16	const __half *a, const __half *b, __half *c, \
				size_t n
#define EWB_PARAMS_relu_f32	const float *a, float *c, size_t n
#define EWB_PARAMS_abs_f32	float *c, size_t n

#define EWB_OPERANDS_add_f32	a, b, c, n
#define EWB_OPERANDS_add_f16	a, b, c, n
#define EWB_OPERANDS_relu_f32	a, a, c, n
#define EWB_OPERANDS_abs_f32	c, c, c, n

/* The dtype of an operation's elements. */
template <typename Op>
constexpr enum ewb_dtype
ewb_dtype_of(void)
{
	return sizeof(typename Op::elem) == 2 ? EWB_F16 : EWB_F32;
}

/* Elements in one 16-byte packet. */
template <typename Op>
constexpr unsigned
ewb_lanes(void)
{
	return 16 / sizeof(typename Op::elem);
}

#endif

/*
 * article_add.cu - the RTX 5090 article's six add kernels as its listing
 * has them, transcribed for ewbench (docs/user-kernels.md, "From the
 * article's listing to a measured row"): non-const float and half
 * pointers, a 32-bit `int N`, 32-bit indices and the article's
 * reinterpret_cast macros, unchanged.  Only its PyTorch binding code is
 * left out (ewbench launches the kernels itself).
 *
 * The file holds six kernels: name the one to run, with the article's
 * launch shape (threads per block, elements per thread):
 *
 *   ewbench check --kernel examples/article_add.cu:elementwise_add_f32_kernel
 *   ewbench run --kernel examples/article_add.cu:elementwise_add_f32x4_kernel \
 *       --elems-per-thread 4 --kernel-block 64 -v add_f32x4 -s 1Mi,16Mi
 *
 *   kernel                               --kernel-block  --elems-per-thread
 *   elementwise_add_f32_kernel                256              1
 *   elementwise_add_f32x4_kernel               64              4
 *   elementwise_add_f16_kernel                256              1
 *   elementwise_add_f16x2_kernel              128              2
 *   elementwise_add_f16x8_kernel               32              8
 *   elementwise_add_f16x8_pack_kernel          32              8
 *
 * The published bugs are kept, marked PUBLISHED BUG, for ewbench's check
 * to catch (default check sizes 1, 3, 7, 8, 33, 1000003, 2^20, 2^24 + 5):
 *   f32x4, f16x2, f16x8   store a whole vector (a half2 pair) whenever its
 *                         first element is inside: past the end when N is
 *                         not a multiple of it; the guard names element
 *                         n + 0 (at n = 1: element 1)
 *   f16x8_pack            no code for the last N % 8 elements: the check
 *                         names the first (at n = 1: element 0)
 * and the vector loads read past the end of a and b alike (no check sees
 * a read; compute-sanitizer --no-guard does).  With --misalign the vector
 * kernels fault (they assume 16-byte aligned operands).  The article's
 * listing of its half2 kernel repeats the scalar one; the half2 kernel
 * here is the one its text and table describe.  `int` indices limit every
 * kernel to launches that cover at most 2^31 elements: ewbench leaves
 * larger sizes out for it, saying why.
 */
#include <cuda_fp16.h>

#define FLOAT4(value) (reinterpret_cast<float4 *>(&(value))[0])
#define HALF2(value) (reinterpret_cast<half2 *>(&(value))[0])
#define LDST128BITS(value) (reinterpret_cast<float4 *>(&(value))[0])

/* fp32, one element per thread, 256 threads per block. */
__global__ void elementwise_add_f32_kernel(float *a, float *b, float *c, int N)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	if (idx < N)
		c[idx] = a[idx] + b[idx];
}

/* fp32, a float4 per operand: four elements per thread, 64 threads. */
__global__ void elementwise_add_f32x4_kernel(float *a, float *b, float *c, int N)
{
	int idx = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
	if (idx < N) {	/* PUBLISHED BUG: idx + 3 may be >= N */
		float4 reg_a = FLOAT4(a[idx]);
		float4 reg_b = FLOAT4(b[idx]);
		float4 reg_c;
		reg_c.x = reg_a.x + reg_b.x;
		reg_c.y = reg_a.y + reg_b.y;
		reg_c.z = reg_a.z + reg_b.z;
		reg_c.w = reg_a.w + reg_b.w;
		FLOAT4(c[idx]) = reg_c;
	}
}

/* fp16, one element per thread, __hadd, 256 threads. */
__global__ void elementwise_add_f16_kernel(half *a, half *b, half *c, int N)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	if (idx < N)
		c[idx] = __hadd(a[idx], b[idx]);
}

/* fp16, a half2 per operand, __hadd2, 128 threads. */
__global__ void elementwise_add_f16x2_kernel(half *a, half *b, half *c, int N)
{
	int idx = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
	if (idx < N) {	/* PUBLISHED BUG: idx + 1 may be >= N */
		half2 reg_a = HALF2(a[idx]);
		half2 reg_b = HALF2(b[idx]);
		half2 reg_c = __hadd2(reg_a, reg_b);
		HALF2(c[idx]) = reg_c;
	}
}

/* fp16, four half2 per operand unrolled (eight elements), 32 threads. */
__global__ void elementwise_add_f16x8_kernel(half *a, half *b, half *c, int N)
{
	int idx = 8 * (blockIdx.x * blockDim.x + threadIdx.x);
	half2 reg_a_0 = HALF2(a[idx + 0]);
	half2 reg_a_1 = HALF2(a[idx + 2]);
	half2 reg_a_2 = HALF2(a[idx + 4]);
	half2 reg_a_3 = HALF2(a[idx + 6]);
	half2 reg_b_0 = HALF2(b[idx + 0]);
	half2 reg_b_1 = HALF2(b[idx + 2]);
	half2 reg_b_2 = HALF2(b[idx + 4]);
	half2 reg_b_3 = HALF2(b[idx + 6]);
	half2 reg_c_0, reg_c_1, reg_c_2, reg_c_3;
	reg_c_0.x = __hadd(reg_a_0.x, reg_b_0.x);
	reg_c_0.y = __hadd(reg_a_0.y, reg_b_0.y);
	reg_c_1.x = __hadd(reg_a_1.x, reg_b_1.x);
	reg_c_1.y = __hadd(reg_a_1.y, reg_b_1.y);
	reg_c_2.x = __hadd(reg_a_2.x, reg_b_2.x);
	reg_c_2.y = __hadd(reg_a_2.y, reg_b_2.y);
	reg_c_3.x = __hadd(reg_a_3.x, reg_b_3.x);
	reg_c_3.y = __hadd(reg_a_3.y, reg_b_3.y);
	/* PUBLISHED BUG: each store writes a pair, whose second element may
	 * be element N */
	if ((idx + 0) < N) { HALF2(c[idx + 0]) = reg_c_0; }
	if ((idx + 2) < N) { HALF2(c[idx + 2]) = reg_c_1; }
	if ((idx + 4) < N) { HALF2(c[idx + 4]) = reg_c_2; }
	if ((idx + 6) < N) { HALF2(c[idx + 6]) = reg_c_3; }
}

/* fp16, one 128-bit load of eight halves per operand into registers,
 * four __hadd2, one 128-bit store; 32 threads. */
__global__ void elementwise_add_f16x8_pack_kernel(half *a, half *b, half *c, int N)
{
	int idx = 8 * (blockIdx.x * blockDim.x + threadIdx.x);
	half pack_a[8], pack_b[8], pack_c[8];
	LDST128BITS(pack_a[0]) = LDST128BITS(a[idx]);
	LDST128BITS(pack_b[0]) = LDST128BITS(b[idx]);
#pragma unroll
	for (int i = 0; i < 8; i += 2)
		HALF2(pack_c[i]) = __hadd2(HALF2(pack_a[i]), HALF2(pack_b[i]));
	/* PUBLISHED BUG: no code for the last N % 8 elements */
	if ((idx + 7) < N) { LDST128BITS(c[idx]) = LDST128BITS(pack_c[0]); }
}

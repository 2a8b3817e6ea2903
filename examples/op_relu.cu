/* ReLU, one input: negative, -0.0f and NaN give +0.0f, as relu_f32. */
__device__ float
relu(float x)
{
	return x > 0.0f ? x : 0.0f;
}

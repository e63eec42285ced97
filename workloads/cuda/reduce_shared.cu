// Sum of n floats: each block reduces blockDim.x elements in shared memory (a tree of
// halving strides with __syncthreads between steps) and writes one partial sum per block.
// blockDim.x must be a power of two, at most 1024.
extern "C" __global__ void reduce_shared(const float* in, float* partial, int n) {
  __shared__ float s[1024];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

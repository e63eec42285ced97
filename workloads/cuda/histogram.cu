// A 256-bin histogram of n bytes: each block counts into a shared-memory histogram with
// atomicAdd on shared memory, then adds its bins to the global histogram with atomicAdd on
// global memory. blockDim.x must be at least 256.
extern "C" __global__ void histogram(const unsigned char* data, int n, unsigned int* bins) {
  __shared__ unsigned int local[256];
  const int t = threadIdx.x;
  if (t < 256) local[t] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  if (t < 256) atomicAdd(&bins[t], local[t]);
}

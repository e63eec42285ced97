// Sum of n ints: each warp reduces its 32 values with __shfl_down_sync, lane 0 of each warp
// adds its warp's sum to out[blockIdx.x].
extern "C" __global__ void reduce_shfl(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(&out[blockIdx.x], v);
}

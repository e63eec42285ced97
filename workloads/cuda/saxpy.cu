// y[i] = alpha * x[i] + y[i] over n floats (a float parameter), with a grid-stride loop.
extern "C" __global__ void saxpy(int n, float alpha, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = alpha * x[i] + y[i];
}

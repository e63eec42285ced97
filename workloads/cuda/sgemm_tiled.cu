// C = A * B for row-major float matrices (A: m x k, B: k x n, C: m x n), with 16 x 16 tiles
// of A and B staged in shared memory. A 2D grid of 16 x 16 blocks; m, n and k multiples of 16.
#define TILE 16
extern "C" __global__ void sgemm_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < k; t += TILE) {
    As[threadIdx.y][threadIdx.x] = A[row * k + t + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + col];
    __syncthreads();
    for (int j = 0; j < TILE; ++j) acc += As[threadIdx.y][j] * Bs[j][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

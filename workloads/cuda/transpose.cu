// out = in transposed, for a rows x cols float matrix, through a 32 x 32 shared-memory tile
// per block (blocks of 32 x 8 threads, each thread moving four elements). transpose_naive's
// tile has 32 columns: a column read hits one bank 32 times. transpose_padded's has 33, so
// the column's words fall in 32 different banks.
#define TILE 32
#define ROWS 8

template <int Pad>
__device__ void transpose_tile(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + Pad];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
  transpose_tile<0>(in, out, rows, cols);
}

extern "C" __global__ void transpose_padded(const float* in, float* out, int rows, int cols) {
  transpose_tile<1>(in, out, rows, cols);
}

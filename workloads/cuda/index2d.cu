// A 2D grid of 2D blocks over a width x height image: out[y][x] = in[y][x] * scale + x - y,
// indexed with %tid.x/y, %ctaid.x/y, %ntid.x/y and %nctaid.x (the row pitch is the grid's).
extern "C" __global__ void index2d(const int* in, int* out, int width, int height, int scale) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int pitch = gridDim.x * blockDim.x;  // columns covered by the grid
  if (x < width && y < height) out[y * pitch + x] = in[y * pitch + x] * scale + x - y;
}

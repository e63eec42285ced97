// The warp-specialised Hopper bf16 GEMM of gemm_ws.cu with one consumer warpgroup: C = A x B^T
// (A M x K, B N x K, both K-major bf16; C M x N fp32) in 64 x 128 tiles, one block of two
// warpgroups each. Warpgroup 0's elected thread fills a 2-stage ring with TMA copies
// (24 KB a stage, so that several blocks share an SM's shared memory); warpgroup 1 consumes
// it with wgmma.m64n128k16.
//
// Tensor maps (cuTensorMapEncodeTiled): bf16, rank 2, dims {K, M} and {K, N}, boxes {64, 64}
// and {64, 128}, 128B swizzle. K is a multiple of 64, M of 64 and N of 128.
#include <cstdint>

#include "hopper.cuh"

namespace {

constexpr int BM = 64, BN = 128, BK = 64, STAGES = 2;
constexpr int A_STAGE = BM * BK * 2, B_STAGE = BN * BK * 2;  // bytes (8 KB and 16 KB)

}  // namespace

extern "C" __global__ void __launch_bounds__(256, 1)
    gemm_ws64(const __grid_constant__ CUtensorMap tma_a, const __grid_constant__ CUtensorMap tma_b, float* c, int m,
            int n, int k) {
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char* a_ring = smem;
  unsigned char* b_ring = smem + STAGES * A_STAGE;
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(smem + STAGES * (A_STAGE + B_STAGE));
  std::uint64_t* empty = full + STAGES;
  const int warpgroup = threadIdx.x / 128;
  const int tile_m = blockIdx.y * BM, tile_n = blockIdx.x * BN;
  const int k_tiles = k / BK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 128);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  if (warpgroup == 0) {  // the producer
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (threadIdx.x / 32 == 0) {
      std::uint32_t elected = 0;
      asm volatile(
          "{\n"
          ".reg .pred e;\n"
          "elect.sync _|e, 0xffffffff;\n"
          "selp.u32 %0, 1, 0, e;\n"
          "}\n"
          : "=r"(elected));
      if (elected) {
        for (int kt = 0; kt < k_tiles; ++kt) {
          const int s = kt % STAGES;
          mbar_wait(&empty[s], ((kt / STAGES) & 1) ^ 1);  // a fresh barrier passes parity 1
          mbar_expect_tx(&full[s], A_STAGE + B_STAGE);
          tma_load_2d(a_ring + s * A_STAGE, &tma_a, &full[s], kt * BK, tile_m);
          tma_load_2d(b_ring + s * B_STAGE, &tma_b, &full[s], kt * BK, tile_n);
        }
      }
    }
    return;
  }

  // The consumer: warpgroup 1, the tile's 64 rows.
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  float acc[64];
  for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
  const int half = warpgroup - 1;
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int s = kt % STAGES;
    mbar_wait(&full[s], (kt / STAGES) & 1);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    for (int kk = 0; kk < BK / 16; ++kk) {
      const unsigned char* a = a_ring + s * A_STAGE + half * 64 * 128 + kk * 32;
      const unsigned char* b = b_ring + s * B_STAGE + kk * 32;
      wgmma_m64n128k16(acc, descriptor(a), descriptor(b), kt > 0 || kk > 0);
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    mbar_arrive(&empty[s]);
  }

  // The accumulators to C (the m64nNk16 fragment: thread t of the warpgroup holds rows
  // 16 * (t / 32) + (t % 32) / 4 and 8 more, columns 2 * (t % 4) + 8 * j and the next).
  const int t = threadIdx.x % 128, row = tile_m + half * 64 + 16 * (t / 32) + (t % 32) / 4;
  for (int j = 0; j < BN / 8; ++j) {
    const int col = tile_n + 8 * j + 2 * (t % 4);
    if (row < m && col < n) {
      c[row * n + col] = acc[4 * j];
      c[row * n + col + 1] = acc[4 * j + 1];
    }
    if (row + 8 < m && col < n) {
      c[(row + 8) * n + col] = acc[4 * j + 2];
      c[(row + 8) * n + col + 1] = acc[4 * j + 3];
    }
  }
}

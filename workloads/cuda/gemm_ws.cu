// A Hopper bf16 GEMM in the warp-specialised style: C = A x B^T with A (M x K) and B (N x K)
// row-major bf16 (both K-major), C (M x N) row-major fp32. One block of three warpgroups
// computes a 128 x 128 tile of C: warpgroup 0 is the producer (one elected thread of its
// first warp fills a 4-stage shared-memory ring with TMA copies, cp.async.bulk.tensor with
// the tensor maps passed as __grid_constant__ CUtensorMap parameters, under transaction
// barriers), warpgroups 1 and 2 are the consumers (each a 64 x 128 half of the tile with
// wgmma.m64n128k16 reading both operands from 128B-swizzled shared memory). setmaxnreg
// moves registers from the producer to the consumers.
//
// Tensor maps (cuTensorMapEncodeTiled): bf16, rank 2, dims {K, M} and {K, N}, box {64, 128},
// 128B swizzle. K is a multiple of 64, M and N of 128.
#include <cuda.h>

#include <cstdint>

namespace {

constexpr int BM = 128, BN = 128, BK = 64, STAGES = 4;
constexpr int A_STAGE = BM * BK * 2, B_STAGE = BN * BK * 2;  // bytes (16 KB each)

__device__ inline std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ inline void mbar_init(std::uint64_t* bar, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count));
}

__device__ inline void mbar_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes));
}

__device__ inline void mbar_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)));
}

__device__ inline void mbar_wait(std::uint64_t* bar, std::uint32_t parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait;\n"
      "}\n" ::"r"(smem_u32(bar)),
      "r"(parity));
}

__device__ inline void tma_load_2d(void* dst, const CUtensorMap* map, std::uint64_t* bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
          smem_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1)
      : "memory");
}

// A wgmma shared-memory descriptor for a K-major tile in the 128B swizzle: 8-row groups of
// 128-byte rows are 1024 bytes apart.
__device__ inline std::uint64_t descriptor(const void* p) {
  const std::uint64_t addr = smem_u32(p);
  return ((addr & 0x3ffff) >> 4) | (std::uint64_t(1) << 16) | (std::uint64_t(1024 >> 4) << 32) | (std::uint64_t(1) << 62);
}

__device__ inline void wgmma_m64n128k16(float (&d)[64], std::uint64_t a, std::uint64_t b, int accumulate) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(a), "l"(b), "r"(accumulate));
}

}  // namespace

extern "C" __global__ void __launch_bounds__(384, 1)
    gemm_ws(const __grid_constant__ CUtensorMap tma_a, const __grid_constant__ CUtensorMap tma_b, float* c, int m,
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
      mbar_init(&empty[s], 256);
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

  // The consumers: warpgroup 1 rows 0..63 of the tile, warpgroup 2 rows 64..127.
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

// Hopper GMMA microbenchmark: issue interval of dependent wgmma.mma_async m64nNk16 and a
// bit-level dump of one m64nNk16 product, for comparison with Flynn's `mma_engine`
// (tools/gmma_compare, docs/calibration.md).
//
// Build and run on an sm_90 GPU (H100, H200):  scripts/cuda/run.sh OUTPUT_FILE
//   nvcc -O2 -arch=sm_90a -o gmma_microbench gmma_microbench.cu && ./gmma_microbench OUTPUT_FILE
//
// Everything below is written from the PTX ISA's description of the warpgroup MMA
// ("Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions", PTX ISA 8.x):
//
// * wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.{f16,bf16} d, a-desc, b-desc,
//   scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b;
//   D (64 x N, fp32, in registers) = A (64 x 16, shared memory) x B (16 x N, shared memory)
//   + (scale-d ? D : 0). imm-trans-a = imm-trans-b = 0: both operands K-major (A row-major
//   M x K, B stored as N rows of K elements).
// * Matrix descriptor (64 bits): start address >> 4 in bits 0-13, leading dimension byte
//   offset >> 4 in bits 16-29, stride dimension byte offset >> 4 in bits 32-45, base offset
//   in bits 49-51 (0 here), swizzle mode in bits 62-63 (0 = none, used here).
// * No-swizzle K-major layout: the operand is made of "core matrices" of 8 rows x 16 bytes
//   (8 x 8 16-bit elements), each stored as 128 contiguous bytes (row r at +16 r). The
//   leading byte offset is the distance between core matrices adjacent in K, the stride
//   byte offset between core matrices adjacent in M (A) or N (B). Here K = 16 is two core
//   matrices: LBO = 128, SBO = 256, so element (row i, k) of A, or (column n, k) of B with
//   i or n as the row, lies at byte (i / 8) * 256 + (k / 8) * 128 + (i % 8) * 16 + (k % 8) * 2.
// * D fragment of m64nNk16 with fp32 accumulators, N / 2 registers per thread: warp w of
//   the warpgroup holds rows 16 w .. 16 w + 15; lane l holds, for each 8-column chunk j,
//   d[4j + 0], d[4j + 1] at row 16 w + l / 4, columns 8 j + 2 (l % 4) + {0, 1}, and
//   d[4j + 2], d[4j + 3] at row 16 w + l / 4 + 8, same columns.
// * Shared-memory writes made with ordinary stores are made visible to the asynchronous
//   proxy that wgmma reads through with fence.proxy.async.shared::cta (then a CTA barrier);
//   wgmma.fence orders earlier register accesses before the first wgmma; consecutive
//   wgmma of one shape accumulating into the same registers need no fence between them;
//   wgmma.commit_group closes a group and wgmma.wait_group N waits until at most N groups
//   are pending.
//
// Input generator (reproducible on the host; tools/gmma_compare implements the same):
//   splitmix64 (G. Steele, D. Lea, C. Flood, "Fast splittable pseudorandom number
//   generators", OOPSLA 2014; constants as in S. Vigna's public-domain splitmix64.c):
//     state += 0x9e3779b97f4a7c15; z = state;
//     z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
//     z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
//     return z ^ (z >> 31);
//   with state = the GEMM's seed before the first call. One call per value:
//     u = (double)((int64_t)(z >> 40) - 8388608) / 8388608   (exact fp32, uniform in [-1, 1))
//   A (64 x 16, row-major) first, then B (16 x N, row-major), then C (64 x N, row-major).
//   A and B are u rounded to the input type, round to nearest even (may round to 1.0);
//   C is u as fp32.
//
// Output: docs/calibration.md describes the format ("flynn-gmma-bench 1").

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "splitmix64.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define FLYNN_CHECK(call)                                                                          \
  do {                                                                                             \
    cudaError_t flynn_err = (call);                                                                \
    if (flynn_err != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(flynn_err)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// ---------------------------------------------------------------------------------------
// Device side
// ---------------------------------------------------------------------------------------

// wgmma exists only in the architecture-specific target sm_90a. nvcc -arch=sm_90a also
// embeds portable compute_90 PTX, for which these instructions are replaced by a trap
// (the driver picks the sm_90a code on an sm_90 device).
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define FLYNN_NO_WGMMA 1
#endif

// Register lists of the D operand: N / 2 fp32 registers per thread.
#define FLYNN_D32 "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}"
#define FLYNN_D64 "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
  "}"
#define FLYNN_D128 "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
  "}"

// "+f" constraints for d[O] .. d[O + 3], ... (read and written: D accumulates).
#define FLYNN_F4(O) "+f"(d[(O) + 0]), "+f"(d[(O) + 1]), "+f"(d[(O) + 2]), "+f"(d[(O) + 3])
#define FLYNN_F16(O) FLYNN_F4(O), FLYNN_F4((O) + 4), FLYNN_F4((O) + 8), FLYNN_F4((O) + 12)
#define FLYNN_F32(O) FLYNN_F16(O), FLYNN_F16((O) + 16)
#define FLYNN_F64(O) FLYNN_F32(O), FLYNN_F32((O) + 32)
#define FLYNN_F128(O) FLYNN_F64(O), FLYNN_F64((O) + 64)

// One wgmma: D = A x B + (scale_d != 0 ? D : 0), A and B through descriptors.
// SHAPE, TY: instruction strings; REGS: register list; DA, DB, SD: operand numbers of the
// descriptors and of scale_d (after the N / 2 accumulator operands).
#define FLYNN_WGMMA_ASM(SHAPE, TY, REGS, DA, DB, SD)                                        \
  "{\n"                                                                                     \
  ".reg .pred p;\n"                                                                         \
  "setp.ne.b32 p, %" SD ", 0;\n"                                                            \
  "wgmma.mma_async.sync.aligned." SHAPE ".f32." TY "." TY " " REGS ", %" DA ", %" DB        \
  ", p, 1, 1, 0, 0;\n"                                                                      \
  "}\n"

#ifdef FLYNN_NO_WGMMA
#define FLYNN_WGMMA_ISSUE(stmt) __trap()
#else
#define FLYNN_WGMMA_ISSUE(stmt) stmt
#endif

template <int N, bool BF16>
struct Wgmma;

#define FLYNN_WGMMA_SPEC(NN, ISBF, TYSTR, REGS, FLIST, DA, DB, SD)                             \
  template <>                                                                                \
  struct Wgmma<NN, ISBF> {                                                                   \
    static __device__ __forceinline__ void run(float (&d)[NN / 2], std::uint64_t da,        \
                                               std::uint64_t db, int scale_d) {              \
      FLYNN_WGMMA_ISSUE(asm volatile(FLYNN_WGMMA_ASM("m64n" #NN "k16", TYSTR, REGS, DA, DB, SD) \
                                     : FLIST                                                 \
                                     : "l"(da), "l"(db), "r"(scale_d)                        \
                                     : "memory"));                                           \
    }                                                                                        \
  };

FLYNN_WGMMA_SPEC(64, false, "f16", FLYNN_D32, FLYNN_F32(0), "32", "33", "34")
FLYNN_WGMMA_SPEC(64, true, "bf16", FLYNN_D32, FLYNN_F32(0), "32", "33", "34")
FLYNN_WGMMA_SPEC(128, false, "f16", FLYNN_D64, FLYNN_F64(0), "64", "65", "66")
FLYNN_WGMMA_SPEC(128, true, "bf16", FLYNN_D64, FLYNN_F64(0), "64", "65", "66")
FLYNN_WGMMA_SPEC(256, false, "f16", FLYNN_D128, FLYNN_F128(0), "128", "129", "130")
FLYNN_WGMMA_SPEC(256, true, "bf16", FLYNN_D128, FLYNN_F128(0), "128", "129", "130")

__device__ __forceinline__ void wgmma_fence() {
  FLYNN_WGMMA_ISSUE(asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"));
}
__device__ __forceinline__ void wgmma_commit() {
  FLYNN_WGMMA_ISSUE(asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"));
}
template <int PENDING>
__device__ __forceinline__ void wgmma_wait() {
  FLYNN_WGMMA_ISSUE(asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(PENDING) : "memory"));
}
__device__ __forceinline__ void fence_smem_to_async_proxy() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ std::uint64_t read_clock() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;\n" : "=l"(t)::"memory");
  return t;
}

// No-swizzle K-major descriptor for a 16-wide K slice (two core matrices in K).
constexpr std::uint32_t kLbo = 128;  // next core matrix in K
constexpr std::uint32_t kSbo = 256;  // next 8 rows (M) or 8 columns (N)

__device__ __forceinline__ std::uint64_t make_desc(const void* smem) {
  const std::uint32_t addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  std::uint64_t desc = 0;
  desc |= std::uint64_t((addr >> 4) & 0x3fff);
  desc |= std::uint64_t((kLbo >> 4) & 0x3fff) << 16;
  desc |= std::uint64_t((kSbo >> 4) & 0x3fff) << 32;
  // base offset (bits 49-51) 0, swizzle (bits 62-63) 0: no swizzle.
  return desc;
}

// Element offset (in 16-bit elements) of (row, k) in the no-swizzle K-major layout.
__host__ __device__ __forceinline__ unsigned kmajor_offset(unsigned row, unsigned k) {
  return ((row / 8) * kSbo + (k / 8) * kLbo + (row % 8) * 16 + (k % 8) * 2) / 2;
}

// Issue interval: one warpgroup, `chain` dependent wgmmas accumulating into the same D,
// timed `reps` times; cycles_out[0] = the smallest clock64 difference (thread 0).
template <int N, bool BF16>
__global__ void __launch_bounds__(128, 1) interval_kernel(int chain, int reps, unsigned long long* cycles_out,
                                                          float* sink) {
  __shared__ __align__(128) std::uint16_t sa[64 * 16];
  __shared__ __align__(128) std::uint16_t sb[N * 16];
  const unsigned tid = threadIdx.x;
  // Small operands (multiples of 1/128 in [-1, 1)) so that the long sums stay finite.
  for (unsigned i = tid; i < 64 * 16 + N * 16; i += blockDim.x) {
    const unsigned h = (i * 2654435761u) >> 24;
    const float v = (static_cast<float>(h) - 128.0f) / 128.0f;
    const std::uint16_t bits =
        BF16 ? __bfloat16_as_ushort(__float2bfloat16_rn(v)) : __half_as_ushort(__float2half_rn(v));
    if (i < 64 * 16)
      sa[i] = bits;  // the layout does not matter for timing
    else
      sb[i - 64 * 16] = bits;
  }
  fence_smem_to_async_proxy();
  __syncthreads();
  const std::uint64_t da = make_desc(sa), db = make_desc(sb);

  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.0f;

  unsigned long long best = ~0ull;
  for (int r = 0; r < reps; ++r) {
    wgmma_fence();
    __syncthreads();
    const std::uint64_t t0 = read_clock();
    for (int i = 0; i < chain; i += 8) {
#pragma unroll
      for (int u = 0; u < 8; ++u) Wgmma<N, BF16>::run(d, da, db, 1);
      wgmma_commit();
      wgmma_wait<1>();  // keep one group of 8 in flight while the next is issued
    }
    wgmma_wait<0>();
    const std::uint64_t t1 = read_clock();
    if (t1 - t0 < best) best = t1 - t0;
  }
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += d[i];
  sink[tid] = s;
  if (tid == 0) cycles_out[0] = best;
}

// One GEMM: D (64 x N) = A (64 x 16, row-major) x B (16 x N, row-major) + C (64 x N).
template <int N, bool BF16>
__global__ void __launch_bounds__(128, 1) gemm_kernel(const std::uint16_t* a, const std::uint16_t* b,
                                                      const float* c, float* dout) {
  __shared__ __align__(128) std::uint16_t sa[64 * 16];
  __shared__ __align__(128) std::uint16_t sb[N * 16];
  const unsigned tid = threadIdx.x;
  for (unsigned i = tid; i < 64 * 16; i += blockDim.x) sa[kmajor_offset(i / 16, i % 16)] = a[i];
  for (unsigned i = tid; i < 16 * N; i += blockDim.x) {
    const unsigned k = i / N, n = i % N;
    sb[kmajor_offset(n, k)] = b[i];  // B is K-major: column n is a row of 16 K elements
  }
  fence_smem_to_async_proxy();
  __syncthreads();

  const unsigned warp = tid / 32, lane = tid % 32;
  const unsigned row0 = 16 * warp + lane / 4, row1 = row0 + 8;
  float d[N / 2];
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
    const unsigned col = 8 * j + 2 * (lane % 4);
    d[4 * j + 0] = c[row0 * N + col];
    d[4 * j + 1] = c[row0 * N + col + 1];
    d[4 * j + 2] = c[row1 * N + col];
    d[4 * j + 3] = c[row1 * N + col + 1];
  }
  wgmma_fence();
  Wgmma<N, BF16>::run(d, make_desc(sa), make_desc(sb), 1);
  wgmma_commit();
  wgmma_wait<0>();
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
    const unsigned col = 8 * j + 2 * (lane % 4);
    dout[row0 * N + col] = d[4 * j + 0];
    dout[row0 * N + col + 1] = d[4 * j + 1];
    dout[row1 * N + col] = d[4 * j + 2];
    dout[row1 * N + col + 1] = d[4 * j + 3];
  }
}

// ---------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------

namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}

float float_of(std::uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// fp32 -> bf16, round to nearest even (NaN kept quiet).
std::uint16_t to_bf16(float f) {
  const std::uint32_t x = bits_of(f);
  if (std::isnan(f)) return static_cast<std::uint16_t>((x >> 16) | 0x0040);
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

// fp32 -> IEEE binary16, round to nearest even, subnormals kept, overflow to infinity.
// Computed in double: scale so that the last bit a half keeps has weight 1, round to an
// integer with ties to even (std::nearbyint in the default rounding mode), then encode.
std::uint16_t to_f16(float f) {
  const std::uint16_t sign = static_cast<std::uint16_t>((bits_of(f) >> 16) & 0x8000u);
  if (std::isnan(f)) return static_cast<std::uint16_t>(sign | 0x7e00u);
  const double a = std::fabs(static_cast<double>(f));
  if (a == 0.0) return sign;
  int e;
  std::frexp(a, &e);                                  // a = m * 2^e, m in [0.5, 1)
  const int unit = e - 11 < -24 ? -24 : e - 11;       // weight of the last kept bit
  const double v = std::ldexp(std::nearbyint(std::ldexp(a, -unit)), unit);  // rounded value
  if (v > 65504.0) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow
  if (v < std::ldexp(1.0, -14))                       // subnormal (or zero): v / 2^-24
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::ldexp(v, 24)));
  int ve;
  const double vm = std::frexp(v, &ve);               // v = vm * 2^ve, leading bit 2^(ve - 1)
  const auto exp_field = static_cast<std::uint32_t>(ve - 1 + 15);
  const auto man = static_cast<std::uint32_t>(std::ldexp(vm * 2.0 - 1.0, 10));
  return static_cast<std::uint16_t>(sign | (exp_field << 10) | man);
}

double widen(bool bf16, std::uint16_t h) {
  if (bf16) return float_of(std::uint32_t(h) << 16);
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double s = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 0) return s * std::ldexp(static_cast<double>(m), -24);
  if (e == 31) return m ? NAN : s * INFINITY;
  return s * std::ldexp(static_cast<double>(1024 + m), e - 25);
}

struct Gemm {
  const char* name;
  bool bf16;
  int n;
  std::uint64_t seed;
};

template <int N, bool BF16>
unsigned long long time_chain(int chain, int reps) {
  unsigned long long* dcycles;
  float* dsink;
  FLYNN_CHECK(cudaMalloc(&dcycles, sizeof(unsigned long long)));
  FLYNN_CHECK(cudaMalloc(&dsink, 128 * sizeof(float)));
  interval_kernel<N, BF16><<<1, 128>>>(chain, reps, dcycles, dsink);
  FLYNN_CHECK(cudaGetLastError());
  FLYNN_CHECK(cudaDeviceSynchronize());
  unsigned long long cycles = 0;
  FLYNN_CHECK(cudaMemcpy(&cycles, dcycles, sizeof cycles, cudaMemcpyDeviceToHost));
  FLYNN_CHECK(cudaFree(dcycles));
  FLYNN_CHECK(cudaFree(dsink));
  return cycles;
}

template <int N, bool BF16>
void intervals(std::FILE* out) {
  const int reps = 5;
  for (int chain : {256, 4096}) {
    const unsigned long long cycles = time_chain<N, BF16>(chain, reps);
    std::fprintf(out, "interval n=%d type=%s wgmmas=%d cycles=%llu\n", N, BF16 ? "bf16" : "f16", chain, cycles);
    std::fprintf(stderr, "m64n%dk16 %s: %d dependent wgmmas in %llu cycles (%.2f per wgmma)\n", N,
                 BF16 ? "bf16" : "f16", chain, cycles, static_cast<double>(cycles) / chain);
  }
}

template <int N, bool BF16>
void run_gemm(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b, const std::vector<float>& c,
              std::vector<float>& d) {
  std::uint16_t *da, *db;
  float *dc, *dd;
  FLYNN_CHECK(cudaMalloc(&da, a.size() * 2));
  FLYNN_CHECK(cudaMalloc(&db, b.size() * 2));
  FLYNN_CHECK(cudaMalloc(&dc, c.size() * 4));
  FLYNN_CHECK(cudaMalloc(&dd, c.size() * 4));
  FLYNN_CHECK(cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
  FLYNN_CHECK(cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
  FLYNN_CHECK(cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice));
  gemm_kernel<N, BF16><<<1, 128>>>(da, db, dc, dd);
  FLYNN_CHECK(cudaGetLastError());
  FLYNN_CHECK(cudaDeviceSynchronize());
  d.assign(c.size(), 0.0f);
  FLYNN_CHECK(cudaMemcpy(d.data(), dd, d.size() * 4, cudaMemcpyDeviceToHost));
  FLYNN_CHECK(cudaFree(da));
  FLYNN_CHECK(cudaFree(db));
  FLYNN_CHECK(cudaFree(dc));
  FLYNN_CHECK(cudaFree(dd));
}

void dump_gemm(std::FILE* out, const Gemm& g) {
  const int m = 64, k = 16, n = g.n;
  SplitMix64 rng{g.seed};
  std::vector<std::uint16_t> a(m * k), b(k * n);
  std::vector<float> c(m * n), d;
  for (auto& x : a) x = g.bf16 ? to_bf16(rng.uniform()) : to_f16(rng.uniform());
  for (auto& x : b) x = g.bf16 ? to_bf16(rng.uniform()) : to_f16(rng.uniform());
  for (auto& x : c) x = rng.uniform();
  if (g.bf16) {
    if (n == 64) run_gemm<64, true>(a, b, c, d);
    if (n == 256) run_gemm<256, true>(a, b, c, d);
  } else {
    if (n == 64) run_gemm<64, false>(a, b, c, d);
    if (n == 256) run_gemm<256, false>(a, b, c, d);
  }
  // Sanity check of the layouts against exact arithmetic (a wrong descriptor or fragment
  // mapping gives errors of order 1; rounding gives errors of order 1e-6).
  double worst = 0.0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double exact = c[i * n + j];
      for (int x = 0; x < k; ++x) exact += widen(g.bf16, a[i * k + x]) * widen(g.bf16, b[x * n + j]);
      worst = std::fmax(worst, std::fabs(exact - d[i * n + j]));
    }
  std::fprintf(stderr, "%s: max |D - exact| = %.3g%s\n", g.name, worst,
               worst > 1e-3 ? "  (far above rounding: check the operand layouts)" : "");

  std::fprintf(out, "gemm name=%s type=%s m=%d n=%d k=%d seed=0x%016llx c=seeded\n", g.name,
               g.bf16 ? "bf16" : "f16", m, n, k, static_cast<unsigned long long>(g.seed));
  for (int i = 0; i < m; ++i) {
    std::fprintf(out, "a %d", i);
    for (int x = 0; x < k; ++x) std::fprintf(out, " %04x", a[i * k + x]);
    std::fprintf(out, "\n");
  }
  for (int x = 0; x < k; ++x) {
    std::fprintf(out, "b %d", x);
    for (int j = 0; j < n; ++j) std::fprintf(out, " %04x", b[x * n + j]);
    std::fprintf(out, "\n");
  }
  for (int pass = 0; pass < 2; ++pass) {
    const std::vector<float>& v = pass == 0 ? c : d;
    for (int i = 0; i < m; ++i) {
      std::fprintf(out, "%c %d", pass == 0 ? 'c' : 'd', i);
      for (int j = 0; j < n; ++j) std::fprintf(out, " %08x", bits_of(v[i * n + j]));
      std::fprintf(out, "\n");
    }
  }
  std::fprintf(out, "end\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_FILE\n", argv[0]);
    return 2;
  }
  int dev = 0;
  FLYNN_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  FLYNN_CHECK(cudaGetDeviceProperties(&prop, dev));
  if (prop.major != 9 || prop.minor != 0) {
    std::fprintf(stderr, "%s is compute capability %d.%d; wgmma (sm_90a) needs 9.0 (H100, H200)\n", prop.name,
                 prop.major, prop.minor);
    return 1;
  }
  std::FILE* out = std::fopen(argv[1], "w");
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 1;
  }
  std::fprintf(out, "flynn-gmma-bench 1\n");
  std::fprintf(out, "# Written by scripts/cuda/gmma_microbench.cu on the device below (docs/calibration.md).\n");
  std::fprintf(out, "source hardware\n");
  std::fprintf(out, "device %s, compute capability %d.%d, %d SMs\n", prop.name, prop.major, prop.minor,
               prop.multiProcessorCount);

  // Dependent-chain timing (one warpgroup on one SM; clock64 counts SM cycles).
  intervals<64, false>(out);
  intervals<64, true>(out);
  intervals<128, false>(out);
  intervals<128, true>(out);
  intervals<256, false>(out);
  intervals<256, true>(out);

  const Gemm gemms[] = {
      {"bf16_m64n64k16", true, 64, 0x464c594e00000001ull},
      {"f16_m64n64k16", false, 64, 0x464c594e00000002ull},
      {"bf16_m64n256k16", true, 256, 0x464c594e00000003ull},
      {"f16_m64n256k16", false, 256, 0x464c594e00000004ull},
  };
  for (const Gemm& g : gemms) dump_gemm(out, g);
  if (std::fclose(out) != 0) {
    std::fprintf(stderr, "error writing %s\n", argv[1]);
    return 1;
  }
  std::fprintf(stderr, "wrote %s\n", argv[1]);
  return 0;
}

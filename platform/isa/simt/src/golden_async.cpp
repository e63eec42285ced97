// The golden interpreters' asynchronous operations: TMA box copies and the warpgroup MMA's
// reference arithmetic, shared by the SIMT ISA's and the PTX interpreter (written
// independently of the timed TMA loader and GMMA unit, which are checked against them).
#include <cfloat>
#include <cmath>
#include <cstring>

#include "flynn/common/format.h"
#include "flynn/common/wide_vectors.h"
#include "flynn/platform/simt_interp.h"
#include "flynn/tensor/numeric.h"
#include "flynn/tma/swizzle.h"
#include "golden_layout.h"

namespace flynn::simt {

static_assert(FLT_EVAL_METHOD == 0, "the wgmma reference needs float arithmetic in float");

namespace {

using eight_floats = float __attribute__((vector_size(8 * sizeof(float))));  // element-wise IEEE fp32

// Columns j .. j + 8 * Groups - 1 of one row of D += that row of A (K wide) x B (K x n):
// eight columns per group as one element-wise fp32 operation, their partial sums held across
// the row's K products. Inlined into the caller's build.
template <unsigned Groups, unsigned K>
[[gnu::always_inline]] inline void wgmma_columns(const float* arow, const float* bf, float* drow, unsigned n,
                                                 unsigned j) {
  eight_floats dv[Groups], bv;
  for (unsigned g = 0; g < Groups; ++g) std::memcpy(&dv[g], drow + j + 8 * g, sizeof bv);
  for (unsigned k = 0; k < K; ++k) {
    const float x = arow[k];
    const eight_floats xv = {x, x, x, x, x, x, x, x};
    for (unsigned g = 0; g < Groups; ++g) {
      std::memcpy(&bv, &bf[std::size_t(k) * n + j + 8 * g], sizeof bv);
      dv[g] = dv[g] + xv * bv;
    }
  }
  for (unsigned g = 0; g < Groups; ++g) std::memcpy(drow + j + 8 * g, &dv[g], sizeof bv);
}

// D (64 x n, row-major) += A (64 x K) x B (K x n, row-major), the reference arithmetic (each
// output: acc = D, then + a[i][k] * b[k][j] for k ascending, fp32). n is a multiple of 8; four
// groups of eight columns side by side, independent chains the host can overlap.
template <unsigned K>
FLYNN_WIDE_VECTORS void wgmma_products(const float* af, const float* bf, float* d, unsigned n) {
  for (unsigned i = 0; i < 64; ++i) {
    float* drow = &d[std::size_t(i) * n];
    const float* arow = &af[std::size_t(i) * K];
    unsigned j = 0;
    for (; j + 32 <= n; j += 32) wgmma_columns<4, K>(arow, bf, drow, n, j);
    for (; j < n; j += 8) wgmma_columns<1, K>(arow, bf, drow, n, j);
  }
}

// The operand formats, decoded here from their definitions (sign, exponent field, fraction;
// independently of the datapath's numeric.h conversions for the 8-bit and tf32 formats).
float golden_fp8(std::uint8_t v, unsigned exp_bits, bool ieee_specials) {
  const unsigned man_bits = 7 - exp_bits, bias = (1u << (exp_bits - 1)) - 1;
  const unsigned e = (v >> man_bits) & ((1u << exp_bits) - 1), m = v & ((1u << man_bits) - 1);
  const float sign = (v & 0x80) ? -1.0f : 1.0f;
  if (e == (1u << exp_bits) - 1) {
    if (ieee_specials) return m ? NAN : sign * INFINITY;               // e5m2
    if (m == (1u << man_bits) - 1) return NAN;                          // e4m3: only S.1111.111
  }
  const float frac = static_cast<float>(m) / static_cast<float>(1u << man_bits);
  if (e == 0) return sign * std::ldexp(frac, 1 - static_cast<int>(bias));
  return sign * std::ldexp(1.0f + frac, static_cast<int>(e) - static_cast<int>(bias));
}

float golden_tf32(const unsigned char* p) {
  float x = 0;
  std::memcpy(&x, p, 4);
  if (!std::isfinite(x)) {  // (the format's definition for non-finite values: the top 19 bits)
    std::uint32_t b = 0;
    std::memcpy(&b, p, 4);
    b &= 0xffffe000u;
    std::memcpy(&x, &b, 4);
    return x;
  }
  if (std::fabs(x) < std::ldexp(1.0f, -126))  // fp32 subnormal: multiples of 2^-136 kept
    return std::trunc(std::ldexp(x, 136)) * std::ldexp(1.0f, -136);
  int e = 0;
  const float m = std::frexp(x, &e);  // |m| in [0.5, 1): 11 significant bits kept, truncated
  return std::ldexp(std::trunc(m * 2048.0f) / 2048.0f, e);
}

float golden_element(element_type t, const unsigned char* p) {
  switch (t) {
    case element_type::e4m3: return golden_fp8(p[0], 4, false);
    case element_type::e5m2: return golden_fp8(p[0], 5, true);
    case element_type::tf32: return golden_tf32(p);
    default: return to_f32(t, static_cast<std::uint16_t>(p[0] | p[1] << 8));
  }
}

}  // namespace

std::string golden_mbarriers::check_address(std::uint32_t addr) const {
  if (addr % 8 || std::uint64_t(addr) + 8 > shared_bytes_)
    return "mbarrier address " + hex(addr) + ": expected an 8-byte aligned shared address below " +
           std::to_string(shared_bytes_);
  return {};
}

std::string golden_mbarriers::init(std::uint32_t addr, std::uint64_t count) {
  if (std::string e = check_address(addr); !e.empty()) return e;
  if (count == 0 || count > (1u << 20)) return "mbarrier.init count " + std::to_string(count) + ": expected 1 .. 1048576";
  bars_[addr] = golden_mbarrier(static_cast<std::uint32_t>(count));
  return {};
}

golden_mbarrier* golden_mbarriers::find(std::uint32_t addr, std::string& fault) {
  fault = check_address(addr);
  if (!fault.empty()) return nullptr;
  const auto it = bars_.find(addr);
  if (it == bars_.end()) {
    fault = "no mbarrier initialised at shared address " + hex(addr);
    return nullptr;
  }
  return &it->second;
}

std::string golden_tma_check(const tensor_descriptor& d, std::uint32_t dst, std::uint64_t shared_bytes, bool store) {
  const std::string what = store ? "tma.store" : "tma.load";
  if (const std::string e = d.validate(); !e.empty()) return what + ": invalid tensor descriptor: " + e;
  if (d.swizzle != swizzle_mode::none && dst % 1024)
    return what + ": shared address " + hex(dst) + ": expected 1024-byte alignment for a swizzled layout";
  if (dst % 16) return what + ": shared address " + hex(dst) + ": expected 16-byte alignment";
  if (std::uint64_t(dst) + d.box_bytes() > shared_bytes)
    return what + (store ? " source " : " destination ") + hex(dst) + " + " + std::to_string(d.box_bytes()) +
           " bytes: outside the block's " + std::to_string(shared_bytes) + " bytes of shared memory";
  return {};
}

std::string golden_tma_copy(const tensor_descriptor& d, const std::array<std::int64_t, 5>& coords, std::uint32_t dst,
                            std::vector<unsigned char>& shared, std::vector<unsigned char>& global, bool store) {
  std::uint64_t rows = 1;
  for (unsigned k = 1; k < d.rank; ++k) rows *= d.box[k];
  const std::uint64_t row_bytes = std::uint64_t(d.box[0]) * d.elem_bytes;
  const unsigned swizzle_bytes = d.swizzle == swizzle_mode::b128  ? 128
                                 : d.swizzle == swizzle_mode::b64 ? 64
                                 : d.swizzle == swizzle_mode::b32 ? 32
                                                                  : 0;
  for (std::uint64_t row = 0; row < rows; ++row) {
    std::uint64_t rem = row, gaddr = d.global_base;
    bool inside = true;
    for (unsigned k = 1; k < d.rank; ++k) {
      const std::int64_t x = coords[k] + static_cast<std::int64_t>(rem % d.box[k]);
      rem /= d.box[k];
      if (x < 0 || static_cast<std::uint64_t>(x) >= d.dims[k]) inside = false;
      else gaddr += static_cast<std::uint64_t>(x) * d.strides[k];
    }
    const std::int64_t x0 = coords[0];
    if (inside && x0 >= 0 && std::uint64_t(x0) + d.box[0] <= d.dims[0] && row_bytes % 16 == 0 &&
        gaddr + (std::uint64_t(x0) + d.box[0]) * d.elem_bytes <= global.size()) {
      // The whole row in bounds: sixteen bytes at a time (a swizzle moves 16-byte granules whole).
      for (std::uint64_t c = 0; c < row_bytes; c += 16) {
        unsigned char* sh = &shared[dst + golden_layout::swizzle(row * row_bytes + c, swizzle_bytes)];
        unsigned char* g = &global[gaddr + std::uint64_t(x0) * d.elem_bytes + c];
        if (store) std::memcpy(g, sh, 16);
        else std::memcpy(sh, g, 16);
      }
      continue;
    }
    for (std::uint32_t e = 0; e < d.box[0]; ++e) {
      const std::int64_t x = x0 + static_cast<std::int64_t>(e);
      const bool in_bounds = inside && x >= 0 && static_cast<std::uint64_t>(x) < d.dims[0];
      for (unsigned byte = 0; byte < d.elem_bytes; ++byte) {
        const std::uint64_t off = row * row_bytes + std::uint64_t(e) * d.elem_bytes + byte;
        const std::uint64_t g = gaddr + static_cast<std::uint64_t>(x) * d.elem_bytes + byte;
        if (in_bounds && g >= global.size())
          return std::string(store ? "tma.store" : "tma.load") + ": global address " + hex(g) + " out of range";
        unsigned char& sh = shared[dst + golden_layout::swizzle(off, swizzle_bytes)];
        if (store) {
          if (in_bounds) global[g] = sh;
        } else {
          sh = in_bounds ? global[g] : 0;
        }
      }
    }
  }
  return {};
}

std::string golden_wgmma(unsigned n, element_type ty, element_type bty, bool a_regs, bool accumulate,
                         const std::vector<unsigned char>& shared, std::vector<wgmma_part>& parts) {
  std::string fault;
  auto desc = [&](std::uint64_t bits, const char* which, golden_layout::operand_desc& d) {
    const std::string e = golden_layout::decode(bits, d);
    if (!e.empty() && fault.empty()) fault = std::string(which) + " descriptor " + hex(bits) + ": " + e;
    return e.empty();
  };
  // K: each operand row is 32 bytes; an element's bytes lie together in one 16-byte chunk.
  const unsigned ea = element_bytes(ty), eb = element_bytes(bty), kk = 32 / ea;
  auto element = [&](element_type t, unsigned bytes, std::uint64_t addr) -> float {
    if (addr + bytes > shared.size()) {
      if (fault.empty()) fault = "wgmma operand at shared address " + hex(addr) + " out of range";
      return 0;
    }
    return golden_element(t, &shared[addr]);
  };
  std::vector<float> af(std::size_t(64) * kk), bf(std::size_t(kk) * n);
  std::vector<float> d(std::size_t(64) * n, 0.0f);
  for (unsigned w = 0; w < 4; ++w) {
    if (a_regs) {  // (16-bit types: a pair of elements per register, low half first)
      for (unsigned l = 0; l < 32; ++l)
        for (unsigned i = 0; i < 4; ++i) {
          unsigned row = 0, col = 0;
          golden_layout::a_fragment(l, i, row, col);
          const std::uint32_t v = parts[32 * w + l].a_frag[i];
          af[(16 * w + row) * kk + col] = to_f32(ty, static_cast<std::uint16_t>(v & 0xffff));
          af[(16 * w + row) * kk + col + 1] = to_f32(ty, static_cast<std::uint16_t>(v >> 16));
        }
    } else {
      golden_layout::operand_desc ad;
      if (!desc(parts[32 * w].a_desc, "A", ad)) return fault;
      for (unsigned row = 0; row < 16; ++row)
        for (unsigned k = 0; k < kk; ++k)
          af[(16 * w + row) * kk + k] = element(ty, ea, golden_layout::operand_address(ad, 16 * w + row, k * ea));
    }
    if (accumulate)
      for (unsigned l = 0; l < 32; ++l)
        for (unsigned i = 0; i < n / 2; ++i) {
          unsigned row = 0, col = 0;
          golden_layout::accumulator(l, i, row, col);
          std::memcpy(&d[std::size_t(16 * w + row) * n + col], &parts[32 * w + l].d[i], 4);
        }
  }
  golden_layout::operand_desc bd;
  if (!desc(parts[0].b_desc, "B", bd)) return fault;
  for (unsigned j = 0; j < n; ++j)
    for (unsigned k = 0; k < kk; ++k) bf[std::size_t(k) * n + j] = element(bty, eb, golden_layout::operand_address(bd, j, k * eb));
  if (!fault.empty()) return fault;
  if (kk == 8) wgmma_products<8>(af.data(), bf.data(), d.data(), n);
  else if (kk == 32) wgmma_products<32>(af.data(), bf.data(), d.data(), n);
  else wgmma_products<16>(af.data(), bf.data(), d.data(), n);
  for (unsigned w = 0; w < 4; ++w)
    for (unsigned l = 0; l < 32; ++l) {
      parts[32 * w + l].d.resize(n / 2);
      for (unsigned i = 0; i < n / 2; ++i) {
        unsigned row = 0, col = 0;
        golden_layout::accumulator(l, i, row, col);
        std::memcpy(&parts[32 * w + l].d[i], &d[std::size_t(16 * w + row) * n + col], 4);
      }
    }
  return {};
}

void golden_mma_sync(element_type ty, const std::array<std::array<std::uint32_t, 10>, 32>& ops,
                     std::array<std::array<std::uint32_t, 4>, 32>& d) {
  float a[16][16], b[16][8], c[16][8];
  const auto half = [&](std::uint32_t v, unsigned hi) { return to_f32(ty, static_cast<std::uint16_t>(v >> (16 * hi))); };
  for (unsigned l = 0; l < 32; ++l) {
    const unsigned g = l / 4, t = l % 4;
    for (unsigned i = 0; i < 4; ++i)
      for (unsigned h = 0; h < 2; ++h) a[g + 8 * (i % 2)][2 * t + 8 * (i / 2) + h] = half(ops[l][i], h);
    for (unsigned i = 0; i < 2; ++i)
      for (unsigned h = 0; h < 2; ++h) b[2 * t + 8 * i + h][g] = half(ops[l][4 + i], h);
    for (unsigned i = 0; i < 4; ++i) std::memcpy(&c[g + 8 * (i / 2)][2 * t + i % 2], &ops[l][6 + i], 4);
  }
  for (unsigned row = 0; row < 16; ++row)
    for (unsigned col = 0; col < 8; ++col) {
      float acc = c[row][col];
      for (unsigned k = 0; k < 16; ++k) acc = acc + a[row][k] * b[k][col];  // (products exact in fp32)
      c[row][col] = acc;
    }
  for (unsigned l = 0; l < 32; ++l) {
    const unsigned g = l / 4, t = l % 4;
    for (unsigned i = 0; i < 4; ++i) std::memcpy(&d[l][i], &c[g + 8 * (i / 2)][2 * t + i % 2], 4);
  }
}

}  // namespace flynn::simt

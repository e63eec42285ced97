#include "flynn/tensor/numeric.h"

#include <cmath>

#include "flynn/common/bits.h"

namespace flynn {

std::uint16_t f32_to_bf16(float f) {
  const std::uint32_t x = float_to_bits(f);
  if (std::isnan(f)) return static_cast<std::uint16_t>((x >> 16) | 0x0040);  // quiet NaN
  const std::uint32_t lsb = (x >> 16) & 1;
  return static_cast<std::uint16_t>((x + 0x7fff + lsb) >> 16);  // round to nearest even
}


std::uint16_t f32_to_f16(float f) {
  const std::uint32_t x = float_to_bits(f);
  const std::uint32_t sign = (x >> 16) & 0x8000;
  const std::int32_t exp = static_cast<std::int32_t>((x >> 23) & 0xff) - 127;
  std::uint32_t man = x & 0x7fffff;
  if (std::isnan(f)) return static_cast<std::uint16_t>(sign | 0x7e00 | (man >> 13));
  if (exp > 15) return static_cast<std::uint16_t>(sign | 0x7c00);  // overflow, inf
  if (exp >= -14) {  // normal half: 10 mantissa bits, round to nearest even on 13 dropped
    std::uint32_t h = (static_cast<std::uint32_t>(exp + 15) << 10) | (man >> 13);
    const std::uint32_t rest = man & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;  // may carry into the exponent
    return static_cast<std::uint16_t>(sign | h);  // h == 0x7c00 is the correct overflow to inf
  }
  if (exp < -25) return static_cast<std::uint16_t>(sign);  // below half the smallest subnormal
  // Subnormal half: value = man' * 2^-24 with the implicit bit made explicit.
  man |= 0x800000;
  const unsigned shift = static_cast<unsigned>(-exp - 14 + 13);  // 14 .. 24
  std::uint32_t h = man >> shift;
  const std::uint32_t rest = man & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (h & 1))) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0x1f) return bits_to_float(sign | 0x7f800000 | (man << 13));
  if (exp == 0) {
    const float v = std::ldexp(static_cast<float>(man), -24);  // exact
    return sign ? -v : v;
  }
  return bits_to_float(sign | ((exp + 112) << 23) | (man << 13));
}


std::uint16_t from_f32(element_type t, float f) { return t == element_type::bf16 ? f32_to_bf16(f) : f32_to_f16(f); }

void reference_gemm(element_type in, unsigned m, unsigned n, unsigned k, const std::vector<std::uint16_t>& a,
                    const std::vector<std::uint16_t>& b, const std::vector<float>& c, std::vector<float>& d) {
  d.assign(std::size_t(m) * n, 0.0f);
  for (unsigned i = 0; i < m; ++i)
    for (unsigned j = 0; j < n; ++j) {
      volatile float acc = c[std::size_t(i) * n + j];  // fp32 at every step
      for (unsigned x = 0; x < k; ++x) {
        const float p = to_f32(in, a[std::size_t(i) * k + x]) * to_f32(in, b[std::size_t(x) * n + j]);
        acc = acc + p;
      }
      d[std::size_t(i) * n + j] = acc;
    }
}

void reference_gemm_f64(element_type in, unsigned m, unsigned n, unsigned k, const std::vector<std::uint16_t>& a,
                        const std::vector<std::uint16_t>& b, const std::vector<float>& c, std::vector<double>& d) {
  d.assign(std::size_t(m) * n, 0.0);
  for (unsigned i = 0; i < m; ++i)
    for (unsigned j = 0; j < n; ++j) {
      double acc = c[std::size_t(i) * n + j];
      for (unsigned x = 0; x < k; ++x)
        acc += double(to_f32(in, a[std::size_t(i) * k + x])) * double(to_f32(in, b[std::size_t(x) * n + j]));
      d[std::size_t(i) * n + j] = acc;
    }
}

}  // namespace flynn

#include "flynn/tensor/numeric.h"

#include <cmath>
#include <cstring>
#include <limits>

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


unsigned element_bytes(element_type t) {
  switch (t) {
    case element_type::f16: case element_type::bf16: return 2;
    case element_type::f32: case element_type::tf32: return 4;
    case element_type::e4m3: case element_type::e5m2: return 1;
  }
  return 2;
}

const char* element_name(element_type t) {
  switch (t) {
    case element_type::f16: return "f16";
    case element_type::bf16: return "bf16";
    case element_type::f32: return "f32";
    case element_type::tf32: return "tf32";
    case element_type::e4m3: return "e4m3";
    case element_type::e5m2: return "e5m2";
  }
  return "?";
}

namespace {

// An fp8 value with `mbits` mantissa bits and exponent bias `bias`: (exponent field e,
// mantissa m) -> (1 + m / 2^mbits) x 2^(e - bias), subnormal for e = 0. Exact in fp32.
float fp8_value(unsigned e, unsigned m, unsigned mbits, int bias, bool negative) {
  const float v = e == 0 ? std::ldexp(static_cast<float>(m), 1 - bias - static_cast<int>(mbits))
                         : std::ldexp(static_cast<float>((1u << mbits) | m), static_cast<int>(e) - bias - static_cast<int>(mbits));
  return negative ? -v : v;
}

// Round to nearest even onto the finite codes of an fp8 format whose positive codes 0 ..
// max_code are in increasing order: the nearest code, the even one on a tie.
std::uint8_t fp8_round(float f, std::uint8_t max_code, float (*decode)(std::uint8_t)) {
  const std::uint8_t sign = std::signbit(f) ? 0x80 : 0;
  const float a = std::fabs(f);
  std::uint8_t lo = 0, hi = max_code;  // largest code <= a: binary search on the ordered codes
  if (a >= decode(max_code)) return static_cast<std::uint8_t>(sign | max_code);
  while (hi - lo > 1) {
    const std::uint8_t mid = static_cast<std::uint8_t>((lo + hi) / 2);
    if (decode(mid) <= a) lo = mid;
    else hi = mid;
  }
  const float dl = a - decode(lo), dh = decode(hi) - a;
  const std::uint8_t code = dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi);
  return static_cast<std::uint8_t>(sign | code);
}

}  // namespace

float e4m3_to_f32(std::uint8_t v) {
  const unsigned e = (v >> 3) & 0xf, m = v & 7;
  if (e == 0xf && m == 7) return std::numeric_limits<float>::quiet_NaN();
  return fp8_value(e, m, 3, 7, v & 0x80);
}

float e5m2_to_f32(std::uint8_t v) {
  const unsigned e = (v >> 2) & 0x1f, m = v & 3;
  if (e == 0x1f) {
    if (m) return std::numeric_limits<float>::quiet_NaN();
    return v & 0x80 ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  }
  return fp8_value(e, m, 2, 15, v & 0x80);
}

std::uint8_t f32_to_e4m3(float f) {
  if (std::isnan(f)) return 0x7f;
  return fp8_round(f, 0x7e, e4m3_to_f32);  // saturating: 0x7e is 448
}

std::uint8_t f32_to_e5m2(float f) {
  if (std::isnan(f)) return 0x7f;
  const std::uint8_t sign = std::signbit(f) ? 0x80 : 0;
  // Beyond the largest finite value (57344) by half its step (8192) or more: infinity.
  if (std::fabs(f) >= 57344.0f + 4096.0f) return static_cast<std::uint8_t>(sign | 0x7c);
  return fp8_round(f, 0x7b, e5m2_to_f32);
}

float element_to_f32(element_type t, const unsigned char* p) {
  switch (t) {
    case element_type::f16: return f16_to_f32(static_cast<std::uint16_t>(p[0] | p[1] << 8));
    case element_type::bf16: return bf16_to_f32(static_cast<std::uint16_t>(p[0] | p[1] << 8));
    case element_type::e4m3: return e4m3_to_f32(p[0]);
    case element_type::e5m2: return e5m2_to_f32(p[0]);
    case element_type::f32: case element_type::tf32: {
      std::uint32_t x = 0;
      std::memcpy(&x, p, 4);
      return t == element_type::tf32 ? tf32_to_f32(x) : bits_to_float(x);
    }
  }
  return 0.0f;
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

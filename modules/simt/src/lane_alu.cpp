#include "lane_alu.h"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>

#include <cstring>

namespace flynn::simt {

static_assert(FLT_EVAL_METHOD == 0, "lane arithmetic needs float arithmetic in float");

namespace {
float f32(std::uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
std::uint32_t bits(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}

template <class T>
bool compare_as(cmp c, T x, T y) {
  switch (c) {
    case cmp::eq: return x == y;
    case cmp::ne: return x != y;
    case cmp::lt: return x < y;
    case cmp::le: return x <= y;
    case cmp::gt: return x > y;
    case cmp::ge: return x >= y;
  }
  return false;
}
}  // namespace

bool lane_compare(cmp c, type t, std::uint32_t a, std::uint32_t b) {
  if (t == type::f32) return compare_as(c, f32(a), f32(b));
  if (t == type::u32) return compare_as(c, a, b);
  return compare_as(c, static_cast<std::int32_t>(a), static_cast<std::int32_t>(b));
}

std::optional<std::uint32_t> lane_arithmetic(op code, std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  const auto sa = static_cast<std::int32_t>(a), sb = static_cast<std::int32_t>(b);
  switch (code) {
    case op::add: return a + b;
    case op::sub: return a - b;
    case op::mul: return a * b;
    case op::mulhi: return static_cast<std::uint32_t>((std::int64_t(sa) * std::int64_t(sb)) >> 32);
    case op::mad: return a * b + c;
    case op::div: return sb == 0 ? 0 : (sa == INT32_MIN && sb == -1) ? a : static_cast<std::uint32_t>(sa / sb);
    case op::rem: return sb == 0 ? a : (sa == INT32_MIN && sb == -1) ? 0 : static_cast<std::uint32_t>(sa % sb);
    case op::and_: return a & b;
    case op::or_: return a | b;
    case op::xor_: return a ^ b;
    case op::not_: return ~a;
    case op::shl: return a << (b & 31);
    case op::shr: return a >> (b & 31);
    case op::sra: return static_cast<std::uint32_t>(sa >> (b & 31));
    case op::min: return static_cast<std::uint32_t>(std::min(sa, sb));
    case op::max: return static_cast<std::uint32_t>(std::max(sa, sb));
    case op::fadd: return bits(f32(a) + f32(b));
    case op::fsub: return bits(f32(a) - f32(b));
    case op::fmul: return bits(f32(a) * f32(b));
    case op::ffma: return bits(std::fma(f32(a), f32(b), f32(c)));
    case op::fmin: return bits(std::fmin(f32(a), f32(b)));
    case op::fmax: return bits(std::fmax(f32(a), f32(b)));
    case op::fdiv: return bits(f32(a) / f32(b));
    case op::fsqrt: return bits(std::sqrt(f32(a)));
    case op::cvt_f_s: return bits(static_cast<float>(sa));
    case op::cvt_s_f: {
      const float f = f32(a);
      if (std::isnan(f)) return 0u;
      if (f >= 2147483648.0f) return 0x7fffffffu;
      if (f < -2147483648.0f) return 0x80000000u;
      return static_cast<std::uint32_t>(static_cast<std::int32_t>(f));
    }
    default: return std::nullopt;
  }
}

pipeline pipeline_of(op code) {
  switch (code) {
    case op::mul: case op::mulhi: case op::mad: case op::div: case op::rem: return pipeline::multiplier;
    case op::fdiv: case op::fsqrt: return pipeline::sfu;
    default: return pipeline::alu;
  }
}

}  // namespace flynn::simt

// The golden PTX interpreter's arithmetic on register values: integers truncated to the
// instruction's width, floats as binary32 bits in the low word.
#include "ptx_interp_alu.h"

#include <algorithm>
#include <cmath>

#include "flynn/common/bits.h"

namespace flynn::ptx {

namespace {

float f32(std::uint64_t v) { return bits_to_float(static_cast<std::uint32_t>(v)); }
std::uint64_t bits(float f) { return float_to_bits(f); }

template <class T>
bool compare(cmp c, T a, T b) {
  switch (c) {
    case cmp::eq: return a == b;
    case cmp::ne: return a != b;
    case cmp::lt: return a < b;
    case cmp::le: return a <= b;
    case cmp::gt: return a > b;
    case cmp::ge: return a >= b;
  }
  return false;
}

// add, sub, min, max, mul, mad and fma.
std::uint64_t add_mul(const instruction& in, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const unsigned sz = size_of(in.type);
  const std::uint64_t m = mask_of(sz ? sz : 1);
  const bool f = in.type == dtype::f32;
  switch (in.op) {
    case opcode::add: return f ? bits(f32(a) + f32(b)) : (a + b) & m;
    case opcode::sub: return f ? bits(f32(a) - f32(b)) : (a - b) & m;
    case opcode::min:
    case opcode::max: {
      const bool mn = in.op == opcode::min;
      if (f) return bits(mn ? std::fmin(f32(a), f32(b)) : std::fmax(f32(a), f32(b)));
      const std::int64_t x = sext(a, 4), y = sext(b, 4);
      return static_cast<std::uint64_t>(mn ? std::min(x, y) : std::max(x, y));
    }
    case opcode::mul:
      switch (in.mode) {
        case mul_mode::none: return bits(f32(a) * f32(b));
        case mul_mode::lo: return (a * b) & m;
        case mul_mode::hi: return static_cast<std::uint64_t>((sext(a, 4) * sext(b, 4)) >> 32);
        case mul_mode::wide:
          if (is_signed(in.type)) return static_cast<std::uint64_t>(sext(a & m, sz) * sext(b & m, sz));
          return (a & m) * (b & m);
      }
      return 0;
    case opcode::mad: return (a * b + c) & m;
    case opcode::fma: return bits(std::fma(f32(a), f32(b), f32(c)));
    default: return 0;
  }
}

// div and rem.
std::uint64_t divide(const instruction& in, std::uint64_t a, std::uint64_t b) {
  if (in.type == dtype::f32) return bits(f32(a) / f32(b));
  // (PTX leaves x / 0 undefined; the core's ISA gives 0 for x / 0 and x for x % 0)
  const std::int64_t x = sext(a, 4), y = sext(b, 4);
  std::int64_t r;
  if (in.op == opcode::div) r = y == 0 ? 0 : (x == INT32_MIN && y == -1) ? x : x / y;
  else r = y == 0 ? x : (x == INT32_MIN && y == -1) ? 0 : x % y;
  const unsigned sz = size_of(in.type);
  return static_cast<std::uint64_t>(r) & mask_of(sz ? sz : 1);
}

// cvt: between 32- and 64-bit integers, and between s32 and f32.
std::uint64_t convert(const instruction& in, std::uint64_t a) {
  if (size_of(in.type) == 8) return is_signed(in.type2) ? static_cast<std::uint64_t>(sext(a, 4)) : a & 0xffffffffu;
  if (size_of(in.type2) == 8) return a & 0xffffffffu;
  if (in.type == dtype::f32) return bits(static_cast<float>(static_cast<std::int32_t>(a)));
  // cvt.rzi.s32.f32: truncate, saturate, NaN -> 0
  const float f = f32(a);
  std::int32_t r = 0;
  if (std::isnan(f)) r = 0;
  else if (f >= 2147483648.0f) r = INT32_MAX;
  else if (f < -2147483648.0f) r = INT32_MIN;
  else r = static_cast<std::int32_t>(f);
  return static_cast<std::uint32_t>(r);
}

}  // namespace

std::uint64_t mask_of(unsigned bytes) { return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1; }

std::int64_t sext(std::uint64_t v, unsigned bytes) {
  const unsigned sh = 64 - 8 * bytes;
  return static_cast<std::int64_t>(v << sh) >> sh;
}

std::uint64_t compute(const instruction& in, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  switch (in.op) {
    case opcode::div:
    case opcode::rem: return divide(in, a, b);
    case opcode::and_:
    case opcode::or_:
    case opcode::xor_:
    case opcode::not_: {
      const unsigned sz = size_of(in.type);
      const std::uint64_t r = in.op == opcode::and_ ? a & b : in.op == opcode::or_ ? a | b : in.op == opcode::xor_ ? a ^ b : ~a;
      return in.type == dtype::pred ? (r & 1u) : r & mask_of(sz ? sz : 1);
    }
    case opcode::shl:
    case opcode::shr: {
      a &= 0xffffffffu;
      // (PTX clamps shift amounts above the width; the core's ISA takes them mod 32)
      const unsigned s = static_cast<unsigned>(b & 31);
      std::uint64_t r;
      if (in.op == opcode::shl) r = a << s;
      else if (in.type == dtype::s32) r = static_cast<std::uint64_t>(sext(a, 4) >> s);
      else r = a >> s;
      return r & 0xffffffffu;
    }
    case opcode::setp: {
      bool r;
      if (in.type == dtype::f32) r = compare(in.cond, f32(a), f32(b));
      else if (in.type == dtype::s32) r = compare(in.cond, sext(a, 4), sext(b, 4));
      else r = compare(in.cond, a & 0xffffffffu, b & 0xffffffffu);
      return r ? 1 : 0;
    }
    case opcode::cvt: return convert(in, a);
    default: return add_mul(in, a, b, c);
  }
}

std::uint32_t atom_result(const instruction& in, std::uint32_t old, std::uint32_t v) {
  switch (in.atom) {
    case atom_op::add: return in.type == dtype::f32 ? static_cast<std::uint32_t>(bits(f32(old) + f32(v))) : old + v;
    case atom_op::min:
      return in.type == dtype::s32 ? (static_cast<std::int32_t>(v) < static_cast<std::int32_t>(old) ? v : old)
                                   : std::min(v, old);
    case atom_op::max:
      return in.type == dtype::s32 ? (static_cast<std::int32_t>(v) > static_cast<std::int32_t>(old) ? v : old)
                                   : std::max(v, old);
    case atom_op::exch: break;
  }
  return v;
}

}  // namespace flynn::ptx

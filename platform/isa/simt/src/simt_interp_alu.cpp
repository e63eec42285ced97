// The golden SIMT interpreter's arithmetic on 32-bit registers (floats as binary32 bits) and
// on register pairs (64-bit values, the low word first).
#include "simt_interp_alu.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "flynn/common/bits.h"

namespace flynn::simt {

// binary32 results must be rounded once per operation: no extended intermediate precision.
static_assert(FLT_EVAL_METHOD == 0, "the SIMT interpreter needs float arithmetic in float");

namespace {

std::int32_t s32(std::uint32_t x) { return static_cast<std::int32_t>(x); }

// Signed division truncating toward zero: x / 0 = 0, INT_MIN / -1 = INT_MIN.
std::uint32_t div_signed(std::uint32_t a, std::uint32_t b) {
  if (b == 0) return 0;
  if (a == 0x80000000u && b == 0xffffffffu) return a;
  return static_cast<std::uint32_t>(s32(a) / s32(b));
}

// Remainder with the sign of the dividend: x % 0 = x, INT_MIN % -1 = 0.
std::uint32_t rem_signed(std::uint32_t a, std::uint32_t b) {
  if (b == 0) return a;
  if (a == 0x80000000u && b == 0xffffffffu) return 0;
  return static_cast<std::uint32_t>(s32(a) % s32(b));
}

std::uint32_t shift_right_arith(std::uint32_t a, std::uint32_t s) {
  const unsigned n = s & 31;
  if (n == 0) return a;
  const std::uint32_t r = a >> n;
  return (a >> 31) ? r | ~(0xffffffffu >> n) : r;
}

// High 32 bits of the signed 64-bit product.
std::uint32_t mul_high(std::uint32_t a, std::uint32_t b) {
  const auto p = static_cast<std::uint64_t>(std::int64_t{s32(a)} * std::int64_t{s32(b)});
  return static_cast<std::uint32_t>(p >> 32);
}

// float -> int32: truncate toward zero, saturate, NaN -> 0.
std::uint32_t float_to_s32(float f) {
  if (std::isnan(f)) return 0;
  if (f >= 2147483648.0f) return 0x7fffffffu;
  if (f <= -2147483648.0f) return 0x80000000u;
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(f));
}

template <typename T>
bool compare(cmp c, T a, T b) {
  switch (c) {
    case cmp::eq: return a == b;
    case cmp::ne: return a != b;  // true for unordered floats
    case cmp::lt: return a < b;
    case cmp::le: return a <= b;
    case cmp::gt: return a > b;
    case cmp::ge: return a >= b;
  }
  return false;
}

bool set_predicate(cmp c, type t, std::uint32_t a, std::uint32_t b) {
  switch (t) {
    case type::s32: return compare(c, s32(a), s32(b));
    case type::u32: return compare(c, a, b);
    case type::f32: return compare(c, bits_to_float(a), bits_to_float(b));
    case type::s16: case type::u16: break;  // (not setp types: malformed refuses them)
  }
  return false;
}

std::uint64_t pair(const golden_registers& r, unsigned x) {
  return std::uint64_t(r[x]) | (std::uint64_t(r[x + 1u]) << 32);
}
void set_pair(golden_registers& r, unsigned x, std::uint64_t v) {
  r[x] = static_cast<std::uint32_t>(v);
  r[x + 1u] = static_cast<std::uint32_t>(v >> 32);
}

// The 64-bit instructions (mov, add, cvt, mul.wide, logic) on register pairs; a: the first
// source register, b: the second source (or the immediate).
void wide(const instr& in, golden_registers& r, std::uint32_t a, std::uint32_t b) {
  const std::uint64_t y = in.b_imm ? static_cast<std::uint64_t>(in.imm) : 0;
  switch (in.code) {
    case op::mov64: set_pair(r, in.rd, in.b_imm ? y : pair(r, in.ra)); break;
    case op::add64: set_pair(r, in.rd, pair(r, in.ra) + (in.b_imm ? y : pair(r, in.rb))); break;
    case op::cvt64:
      set_pair(r, in.rd, in.ty == type::s32 ? static_cast<std::uint64_t>(std::int64_t(s32(a))) : std::uint64_t(a));
      break;
    case op::mul_wide:
      switch (in.ty) {
        case type::s32: set_pair(r, in.rd, static_cast<std::uint64_t>(std::int64_t(s32(a)) * s32(b))); break;
        case type::u32: set_pair(r, in.rd, std::uint64_t(a) * b); break;
        case type::s16:
          r[in.rd] = static_cast<std::uint32_t>(std::int32_t(std::int16_t(a & 0xffff)) * std::int16_t(b & 0xffff));
          break;
        default: r[in.rd] = (a & 0xffff) * (b & 0xffff); break;
      }
      break;
    default: {  // logic64
      const std::uint64_t x = pair(r, in.ra), z = in.b_imm ? y : pair(r, in.rb);
      set_pair(r, in.rd, in.sub == 0 ? (x & z) : in.sub == 1 ? (x | z) : (x ^ z));
      break;
    }
  }
}

}  // namespace

void execute_arithmetic(const instr& in, golden_registers& r, golden_predicates& p) {
  const std::uint32_t a = r[in.ra];
  const std::uint32_t b = in.b_imm ? static_cast<std::uint32_t>(in.imm) : r[in.rb];
  const std::uint32_t c = r[in.rc];
  const float fa = bits_to_float(a), fb = bits_to_float(b), fc = bits_to_float(c);
  switch (in.code) {
    case op::mov64: case op::add64: case op::cvt64: case op::mul_wide: case op::logic64: wide(in, r, a, b); break;
    case op::plogic: {
      const bool x = p[in.ra], y = p[in.rb];
      p[in.rd] = in.imm == 0 ? (x && y) : in.imm == 1 ? (x || y) : in.imm == 2 ? (x != y) : !x;
      break;
    }
    case op::setp: p[in.rd] = set_predicate(in.cond, in.ty, a, b); break;
    case op::selp: r[in.rd] = p[in.rc] ? (in.a_imm ? in.imm_b : a) : b; break;
    case op::add: r[in.rd] = a + b; break;
    case op::sub: r[in.rd] = a - b; break;
    case op::mul: r[in.rd] = a * b; break;
    case op::mulhi: r[in.rd] = mul_high(a, b); break;
    case op::mad: r[in.rd] = a * b + c; break;
    case op::div: r[in.rd] = div_signed(a, b); break;
    case op::rem: r[in.rd] = rem_signed(a, b); break;
    case op::and_: r[in.rd] = a & b; break;
    case op::or_: r[in.rd] = a | b; break;
    case op::xor_: r[in.rd] = a ^ b; break;
    case op::not_: r[in.rd] = ~a; break;
    case op::shl: r[in.rd] = a << (b & 31); break;
    case op::shr: r[in.rd] = a >> (b & 31); break;
    case op::sra: r[in.rd] = shift_right_arith(a, b); break;
    case op::min: r[in.rd] = s32(a) < s32(b) ? a : b; break;
    case op::max: r[in.rd] = s32(a) > s32(b) ? a : b; break;
    case op::fadd: r[in.rd] = float_to_bits(fa + fb); break;
    case op::fsub: r[in.rd] = float_to_bits(fa - fb); break;
    case op::fmul: r[in.rd] = float_to_bits(fa * fb); break;
    case op::ffma: r[in.rd] = float_to_bits(std::fma(fa, fb, fc)); break;
    case op::fmin: r[in.rd] = float_to_bits(std::fmin(fa, fb)); break;
    case op::fmax: r[in.rd] = float_to_bits(std::fmax(fa, fb)); break;
    case op::fdiv: r[in.rd] = float_to_bits(fa / fb); break;
    case op::fsqrt: r[in.rd] = float_to_bits(std::sqrt(fa)); break;
    case op::cvt_f_s: r[in.rd] = float_to_bits(static_cast<float>(s32(a))); break;
    case op::cvt_s_f: r[in.rd] = float_to_s32(fa); break;
    default: break;  // (not arithmetic instructions)
  }
}

std::uint32_t atom_result(const instr& in, std::uint32_t old, std::uint32_t v) {
  switch (static_cast<atomic_op>(in.sub)) {
    case atomic_op::add: return in.ty == type::f32 ? float_to_bits(bits_to_float(old) + bits_to_float(v)) : old + v;
    case atomic_op::min: return in.ty == type::s32 ? (s32(v) < s32(old) ? v : old) : std::min(v, old);
    case atomic_op::max: return in.ty == type::s32 ? (s32(v) > s32(old) ? v : old) : std::max(v, old);
    case atomic_op::exch: break;
  }
  return v;
}

}  // namespace flynn::simt

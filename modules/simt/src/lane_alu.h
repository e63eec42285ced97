// The SIMT core's lane arithmetic: what one lane's ALU, multiplier and special-function
// unit compute (semantics: flynn/simt/isa.h), and how long each pipeline takes.
#pragma once

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <optional>

#include "flynn/common/bits.h"
#include "flynn/simt/isa.h"

namespace flynn::simt {

static_assert(FLT_EVAL_METHOD == 0, "lane arithmetic needs float arithmetic in float");

// A 32-bit register as IEEE binary32, and back.
inline float lane_float(std::uint32_t x) { return bits_to_float(x); }
inline std::uint32_t lane_bits(float f) { return float_to_bits(f); }

// The result of an arithmetic instruction (add .. cvt) on one lane's operands; nothing for
// an instruction that is not one of them (mov, ldparam, setp and selp read state beyond
// the operands: the core does them). Inline: it runs once per lane.
inline std::optional<std::uint32_t> lane_arithmetic(op code, std::uint32_t a, std::uint32_t b, std::uint32_t c) {
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
    case op::fadd: return lane_bits(lane_float(a) + lane_float(b));
    case op::fsub: return lane_bits(lane_float(a) - lane_float(b));
    case op::fmul: return lane_bits(lane_float(a) * lane_float(b));
    case op::ffma: return lane_bits(std::fma(lane_float(a), lane_float(b), lane_float(c)));
    case op::fmin: return lane_bits(std::fmin(lane_float(a), lane_float(b)));
    case op::fmax: return lane_bits(std::fmax(lane_float(a), lane_float(b)));
    case op::fdiv: return lane_bits(lane_float(a) / lane_float(b));
    case op::fsqrt: return lane_bits(std::sqrt(lane_float(a)));
    case op::cvt_f_s: return lane_bits(static_cast<float>(sa));
    case op::cvt_s_f: {
      const float f = lane_float(a);
      if (std::isnan(f)) return 0u;
      if (f >= 2147483648.0f) return 0x7fffffffu;
      if (f < -2147483648.0f) return 0x80000000u;
      return static_cast<std::uint32_t>(static_cast<std::int32_t>(f));
    }
    default: return std::nullopt;
  }
}

// setp's comparison of a and b as the given type (IEEE for f32: NaN compares false, but ne).
bool lane_compare(cmp c, type t, std::uint32_t a, std::uint32_t b);
// The comparison for 32 lanes at once: bit l of the result is lane l's (a[l] vs b[l]).
std::uint32_t compare_lanes(cmp c, type t, const std::uint32_t* a, const std::uint32_t* b);

// shfl: the lane whose value lane `lane` takes (PTX shfl.sync: b the lane offset or index, c
// the clamp in bits 0..4 and the segment mask in bits 8..12); `in_range` false when the
// source is outside the lane's segment, and then the lane keeps its own value.
inline unsigned shuffle_source(shuffle_mode m, unsigned lane, std::uint32_t b, std::uint32_t c, bool& in_range) {
  const int bval = static_cast<int>(b & 31), cval = static_cast<int>(c & 31), seg = static_cast<int>((c >> 8) & 31);
  const int l = static_cast<int>(lane), max_lane = (l & seg) | (cval & ~seg), min_lane = l & seg;
  int j = l;
  switch (m) {
    case shuffle_mode::up: j = l - bval; in_range = j >= max_lane; break;
    case shuffle_mode::down: j = l + bval; in_range = j <= max_lane; break;
    case shuffle_mode::bfly: j = l ^ bval; in_range = j <= max_lane; break;
    case shuffle_mode::idx: j = min_lane | (bval & ~seg); in_range = j <= max_lane; break;
  }
  return in_range ? static_cast<unsigned>(j) : lane;
}

// Which pipeline executes an ALU-class instruction.
enum class pipeline { alu, multiplier, sfu };
pipeline pipeline_of(op code);

}  // namespace flynn::simt

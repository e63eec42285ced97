// The SIMT core's lane arithmetic: what one lane's ALU, multiplier and special-function
// unit compute (semantics: flynn/simt/isa.h), and how long each pipeline takes.
#pragma once

#include <cstdint>
#include <optional>

#include "flynn/simt/isa.h"

namespace flynn::simt {

// The result of an arithmetic instruction (add .. cvt) on one lane's operands; nothing for
// an instruction that is not one of them (mov, ldparam, setp and selp read state beyond
// the operands: the core does them).
std::optional<std::uint32_t> lane_arithmetic(op code, std::uint32_t a, std::uint32_t b, std::uint32_t c);

// setp's comparison of a and b as the given type (IEEE for f32: NaN compares false, but ne).
bool lane_compare(cmp c, type t, std::uint32_t a, std::uint32_t b);

// Which pipeline executes an ALU-class instruction.
enum class pipeline { alu, multiplier, sfu };
pipeline pipeline_of(op code);

}  // namespace flynn::simt

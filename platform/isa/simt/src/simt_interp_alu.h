// The golden SIMT interpreter's arithmetic: what the integer, float, 64-bit, comparison and
// predicate instructions do to a thread's registers, apart from the threads and memories the
// interpreter (simt_interp.cpp) keeps.
#pragma once

#include <array>
#include <cstdint>

#include "flynn/simt/isa.h"

namespace flynn::simt {

using golden_registers = std::array<std::uint32_t, num_registers>;
using golden_predicates = std::array<bool, 8>;

// Executes arithmetic instruction in (add .. cvt.s32.f32, the 64-bit mov, add, cvt,
// mul.wide and logic, setp, selp and the predicate operations) on registers r and
// predicates p.
void execute_arithmetic(const instr& in, golden_registers& r, golden_predicates& p);

// The value atom instruction in leaves in memory that held `old`, with operand value v.
std::uint32_t atom_result(const instr& in, std::uint32_t old, std::uint32_t v);

}  // namespace flynn::simt

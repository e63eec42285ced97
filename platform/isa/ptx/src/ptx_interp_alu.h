// The golden PTX interpreter's arithmetic: what arithmetic, logic, comparison, conversion and
// atomic instructions compute from their source values, apart from the threads and memories
// the interpreter (ptx_interp.cpp) keeps.
#pragma once

#include <cstdint>

#include "flynn/platform/ptx.h"

namespace flynn::ptx {

// The low `bytes` bytes of a 64-bit value (all of it from 8 bytes on).
std::uint64_t mask_of(unsigned bytes);
// v's low `bytes` bytes, sign-extended.
std::int64_t sext(std::uint64_t v, unsigned bytes);

// The result of instruction in (add, sub, min, max, mul, mad, fma, div, rem, and, or, xor,
// not, shl, shr, setp or cvt) on the values of its source operands 1, 2 and 3.
std::uint64_t compute(const instruction& in, std::uint64_t a, std::uint64_t b, std::uint64_t c);

// The value atom instruction in leaves in memory that held `old`, with operand value v.
std::uint32_t atom_result(const instruction& in, std::uint32_t old, std::uint32_t v);

}  // namespace flynn::ptx

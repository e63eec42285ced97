// The golden functional interpreter of the vector machine ISA: architectural semantics only
// (no timing), written independently of the timed models in modules/vector, which are
// checked against it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "flynn/vector/isa.h"

namespace flynn::vec {

struct interp_config {
  unsigned max_vl = 64;                          // vector register length (elements)
  std::uint64_t max_instructions = 100000000;    // runaway limit
};

struct interp_result {
  bool ok = true;
  std::string fault;               // "PC N (LINE: TEXT): reason" when !ok
  std::uint64_t instructions = 0;  // instructions completed (halt included, a faulting one not)
  std::uint32_t pc = 0;            // halt's index, the faulting instruction's, or code.size()
  std::array<std::uint64_t, 16> r{};  // final scalar registers
};

// Runs `p` from instruction 0 until halt or until the PC runs past the last instruction.
// `memory` is a flat little-endian byte array; the caller loads p.data into it. Every access
// is 8 bytes, 8-byte aligned and inside `memory`, else the run stops with a fault. A faulting
// instruction has no effect.
interp_result interpret(const program& p, std::vector<unsigned char>& memory,
                        const interp_config& c);

}  // namespace flynn::vec

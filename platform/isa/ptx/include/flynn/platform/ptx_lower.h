// Lowering of a PTX kernel to the SIMT core's instruction set (flynn/simt/isa.h): one SIMT
// instruction per PTX instruction, with the same line, text and timing class (ALU,
// multiplier, SFU, LSU), and the kernel's virtual registers allocated to the core's
// registers r0..r255 (64-bit values in pairs) and predicates p0..p7 by live ranges, so that
// the register count, and with it the occupancy, is what the kernel needs.
#pragma once

#include <cstdint>
#include <vector>

#include "flynn/platform/ptx.h"
#include "flynn/simt/isa.h"

namespace flynn::ptx {

struct lowered {
  simt::kernel code;                    // instruction i is PTX instruction i
  unsigned registers = 0;               // 32-bit registers per thread
  unsigned predicates = 0;              // predicates per thread
  std::vector<std::int32_t> placement;  // per virtual register: its first core register (or predicate), -1 unused
};

// Throws input_error (naming the file and line) for what the core cannot hold: more than
// 256 registers or 8 predicates live at once, a parameter access not on a 4-byte boundary.
lowered lower(const module& m, const kernel& k);

}  // namespace flynn::ptx

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
  // The parameters (indices into the kernel's params) that cp.async.bulk.tensor names as
  // tensor maps: tma.load's map k is tensor_map_params[k].
  std::vector<unsigned> tensor_map_params;
};

// Throws input_error (naming the file and line) for what the core cannot hold: more than
// 256 registers or 8 predicates live at once, a parameter access not on a 4-byte boundary,
// a tensor map that is not a parameter's address, wgmma with scaled or transposed operands.
// Hopper's instructions lower as: mbarrier.try_wait.parity to mbarrier.wait that blocks until
// the phase completes and then sets its predicate; cp.async.bulk.tensor to tma.load with its
// coordinates listed; wgmma.mma_async to wgmma (scale-d an immediate or a predicate);
// elect.sync to elect; wgmma.fence, fence.* and setmaxnreg to nop (their orderings hold here:
// each thread's accesses are in order; registers are allocated once for the kernel).
lowered lower(const module& m, const kernel& k);

}  // namespace flynn::ptx

// The SIMT core's side of a sub-partition's register file: its operand collector reads an
// instruction's source registers and its results are written back through the same banks,
// crossbar and result queue as the tensor path's fragment reads and accumulator writes (the
// register file's TLM port), so that the two contend. Timing only: the values stay with
// the warps, which the core reads and writes itself at the cycles these calls return.
#pragma once

#include <cstddef>
#include <cstdint>

#include <systemc>

namespace flynn {

class register_file_if : public virtual sc_core::sc_interface {
 public:
  // The core's pipeline latencies include an uncontended access, so both answer t when
  // nothing is in the way, and later by the cycles the banks, crossbar or result queue add.
  // Warp registers `regs` (128 B each) read from cycle t on: the cycle the instruction goes
  // on with them (its last register read in its bank and across the crossbar, less one bank
  // cycle and the crossbar's latency).
  virtual std::uint64_t read_operands(const unsigned* regs, std::size_t n, std::uint64_t t) = 0;
  // Warp registers `regs` written back from cycle t on: the cycle the last one takes its bank.
  virtual std::uint64_t write_results(const unsigned* regs, std::size_t n, std::uint64_t t) = 0;
};

}  // namespace flynn

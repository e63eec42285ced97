// The link between the scalar unit's issue stage and the vector unit: vector instructions
// are dispatched in program order with their scalar operands already read. Not memory
// traffic, so not a TLM socket: an sc_port / sc_export pair with this interface.
#pragma once

#include <cstdint>
#include <string>

#include <systemc>

#include "flynn/vector/isa.h"

namespace flynn::vec {

struct scalar_operands {
  std::uint64_t base = 0;    // memory instructions: base address (register + offset)
  std::uint64_t value = 0;   // scalar second operand (kind reg) or setvl/setvs value
};

struct dispatch_result {
  std::uint64_t issued = 0;        // cycle the instruction left the issue stage
  bool writes_scalar = false;      // vmpop, setvl rd, ra
  std::uint64_t scalar_value = 0;
  std::uint64_t scalar_ready = 0;  // cycle the scalar result is available
  std::string fault;               // simulated fault (empty when none)
};

class vector_dispatch_if : public virtual sc_core::sc_interface {
 public:
  // Issues `in` no earlier than cycle `earliest` (and at most one instruction per cycle):
  // executes it functionally and schedules its elements. Returns the issue cycle.
  virtual dispatch_result dispatch(const instr& in, const scalar_operands& ops,
                                   std::uint64_t earliest) = 0;
  // Cycle by which every dispatched instruction has completed.
  virtual std::uint64_t drain_cycle() const = 0;
  // The clock the cycles of this interface count (the vector unit's).
  virtual sc_core::sc_time clock() const = 0;
};

}  // namespace flynn::vec

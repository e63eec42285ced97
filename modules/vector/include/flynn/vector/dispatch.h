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
  std::uint32_t pc = 0;      // the instruction's place in the program (named in fault reports)
};

struct dispatch_result {
  std::uint64_t issued = 0;        // cycle the instruction left the issue stage
  bool writes_scalar = false;      // vmpop, setvl rd, ra
  std::uint64_t scalar_value = 0;
  std::uint64_t scalar_ready = 0;  // cycle the scalar result is available
  std::string fault;               // simulated fault (empty when none)
  // The fault belongs to an instruction dispatched earlier, still in flight (its memory
  // access failed): the `pc` it was dispatched with. -1: the instruction just dispatched.
  std::int64_t fault_pc = -1;
};

class vector_dispatch_if : public virtual sc_core::sc_interface {
 public:
  // Issues `in` no earlier than cycle `earliest` (and at most one instruction per cycle) and
  // returns the issue cycle; its elements then run at their cycles. Called from a thread: it
  // may wait in simulated time (never past the issue cycle) for what the issue decision
  // depends on, such as a memory response still to come.
  virtual dispatch_result dispatch(const instr& in, const scalar_operands& ops,
                                   std::uint64_t earliest) = 0;
  // Waits until every dispatched instruction has completed (called from a thread). `issued`
  // is the cycle by which they all had; `fault` a fault one of them met.
  virtual dispatch_result drain() = 0;
  std::uint64_t drain_cycle() { return drain().issued; }
  // The clock the cycles of this interface count (the vector unit's).
  virtual sc_core::sc_time clock() const = 0;
  // Elements per vector register (the golden interpreter replays with it).
  virtual unsigned max_vl() const = 0;
};

}  // namespace flynn::vec

// In-order scalar unit of the Cray-style machine (the "strong ox"). It runs the one
// instruction stream: scalar instructions itself, vector instructions dispatched in order
// to the vector unit, at most one instruction issued per cycle. Timing rule (the
// lecture's): an instruction starts when the previous scalar instruction has completed,
// except that a memory instruction may start one cycle after a preceding independent
// memory instruction (the memory then decides when its bank and port serve it).
// See docs/modules/scalar_unit.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>

#include "flynn/common/lt_initiator.h"
#include "flynn/common/params.h"
#include "flynn/vector/dispatch.h"
#include "flynn/vector/isa.h"
#include "flynn/vector/vector_program.h"

namespace flynn {

struct scalar_unit_params : clocked_params {
  property<unsigned> lat_add{this, {"lat_add", "cycles", "add and subtract"}, 4, 1, 1000};
  property<unsigned> lat_logic{this, {"lat_logic", "cycles",
      "logic, compare-and-set, packed compare and logic"}, 1, 1, 1000};
  property<unsigned> lat_shift{this, {"lat_shift", "cycles", "shifts"}, 1, 1, 1000};
  property<unsigned> lat_mul{this, {"lat_mul", "cycles",
      "integer multiply and packed multiply-add"}, 6, 1, 1000};
  property<unsigned> lat_fadd{this, {"lat_fadd", "cycles",
      "floating-point add and subtract"}, 6, 1, 1000};
  property<unsigned> lat_fmul{this, {"lat_fmul", "cycles", "floating-point multiply"}, 7, 1, 1000};
  property<unsigned> lat_branch{this, {"lat_branch", "cycles",
      "branches, including decrement-and-branch"}, 2, 1, 1000};
  property<unsigned> lat_other{this, {"lat_other", "cycles",
      "load immediate, move, halt"}, 1, 1, 1000};
  property<unsigned> lat_packed{this, {"lat_packed", "cycles",
      "packed add and subtract"}, 1, 1, 1000};
  property<unsigned> quantum{this, {"quantum", "cycles",
      "temporal decoupling quantum"}, 1000, 1, 1u << 30};
  property<std::uint64_t> max_instructions{this, {"max_instructions", "instructions",
      "runaway guard: more instructions than this is a fault"}, 1000000000, 1, std::uint64_t(1) << 40};

  std::vector<param_issue> check() const { return {}; }
  // Nothing it allocates grows with a parameter beyond a few KiB.
  param_footprint footprint() const { return {}; }
};

class scalar_unit : public lt_initiator, public programmable_core {
 public:
  using params = scalar_unit_params;
  tlm::tlm_initiator_socket<32> mem;              // data memory
  sc_core::sc_port<vec::vector_dispatch_if> vpu;  // vector instruction dispatch

  scalar_unit(const sc_core::sc_module_name& name, const params& p);

  // The program to run (before simulation starts).
  void load(const vec::program& prog);
  std::uint64_t reg(unsigned i) const { return r_[i]; }
  std::uint64_t instructions() const { return instructions_.value(); }
  const params& parameters() const { return p_; }
  bool done() const { return done_; }

  std::string pending_work() const override;
  programmable_core* as_core() override { return this; }
  std::vector<std::string> program_kinds() const override { return {"vector"}; }
  void load_program(const core_program& p) override;
  bool has_program() const override { return loaded_; }
  // max_vl: the vector unit's behind `vpu` (64 when none is bound).
  core_limits limits() const override;
  core_counts counts() const override { return {instructions(), instructions(), 0}; }
  void attach_trace(trace_sink& sink) override;

 private:
  void run();
  bool step(std::uint64_t& pc);
  std::uint64_t exec_memory(const vec::instr& in, std::uint64_t t, bool& ok);
  std::uint64_t exec_alu(const vec::instr& in, std::uint64_t t);
  unsigned latency(vec::op o) const;
  void stop_with_fault(const vec::instr& in, std::uint32_t pc, const std::string& what);
  // Cycle counts across the dispatch link, from this unit's clock to the vector unit's and
  // back (rounded up to the next edge).
  std::uint64_t to_vpu(std::uint64_t c) const;
  std::uint64_t from_vpu(std::uint64_t c) const;

  params p_;
  vec::program prog_;
  bool loaded_ = false, done_ = false;
  std::string fault_;
  std::array<std::uint64_t, 16> r_{};
  std::array<std::uint64_t, 16> ready_{};  // cycle each scalar register is available
  std::uint64_t issue_slot_ = 0;           // earliest cycle for the next issue
  std::uint64_t scalar_done_ = 0;          // all scalar instructions so far completed by
  // The previous instruction, for the memory-overlap rule.
  bool prev_mem_ = false;
  std::uint64_t prev_mem_issue_ = 0;
  int prev_load_dst_ = -1;
  std::uint32_t pc_now_ = 0;

  // Statistics, in the order they are written.
  statistic instructions_{stats_, "instructions", "instructions", "instructions executed (scalar and vector)"};
  statistic scalar_instr_{stats_, "scalar_instructions", "instructions", "instructions executed by the scalar unit"};
  statistic vector_instr_{stats_, "vector_instructions", "instructions",
                          "instructions dispatched to the vector unit"};
  statistic mem_instr_{stats_, "memory_instructions", "instructions", "scalar loads and stores"};
  statistic overlapped_mem_{stats_, "overlapped_memory", "instructions",
                            "memory instructions issued one cycle after an independent memory instruction"};
  statistic branches_taken_{stats_, "branches_taken", "branches", "taken branches"};
  trace_signal pc_sig_, issue_sig_;
};

}  // namespace flynn

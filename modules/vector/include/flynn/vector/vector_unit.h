// Cray-style vector unit: vector register file (max_vl elements of 64 bits per register),
// VL, VS and VM registers, pipelined functional units (one element per lane per cycle),
// L lanes (element i on lane i mod L), memory ports as TLM initiators (base + i * stride,
// or gather/scatter), chaining policies and two masked-execution implementations.
// See docs/modules/vector_unit.md.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>

#include "flynn/common/module.h"
#include "flynn/common/params.h"
#include "flynn/tlm/lanes_extension.h"
#include "flynn/vector/dispatch.h"

namespace flynn {

enum class chaining_policy { none, flexible, cray1 };
enum class mask_policy { simple, density_time };

struct vector_unit_params {
  unsigned max_vl = 64;
  unsigned lanes = 1;
  chaining_policy chaining = chaining_policy::flexible;
  mask_policy masking = mask_policy::simple;
  unsigned shared_ports = 1, load_ports = 0, store_ports = 0;
  bool port_held_until_done = true;  // the lecture's model; false: free after the last element issues
  unsigned queue_depth = 0;  // 0: issue waits for a free unit/port (Cray-1); N: N may wait per unit
  unsigned lat_add = 4, lat_logic = 1, lat_shift = 1, lat_mul = 7, lat_div = 20;
  unsigned lat_fadd = 6, lat_fmul = 7, lat_cmp = 1, lat_control = 1;
  double clock_ns = 1.0;

  unsigned ports() const { return shared_ports + load_ports + store_ports; }
  void visit(param_visitor& v);
  std::vector<param_issue> check() const;
};

class vector_unit : public module, public vec::vector_dispatch_if {
 public:
  using params = vector_unit_params;
  using initiator_socket = tlm::tlm_initiator_socket<32>;
  enum class fu { add, logic, shift, mul, div, fadd, fmul, cmp, count_ };

  sc_core::sc_export<vec::vector_dispatch_if> dispatch_export;

  vector_unit(const sc_core::sc_module_name& name, const params& p);
  ~vector_unit() override;

  initiator_socket& port(unsigned i);
  unsigned port_count() const { return static_cast<unsigned>(ports_.size()); }
  const params& parameters() const { return p_; }
  std::uint64_t element(unsigned v, unsigned i) const { return vr_[v][i]; }

  vec::dispatch_result dispatch(const vec::instr& in, const vec::scalar_operands& ops,
                                std::uint64_t earliest) override;
  std::uint64_t drain_cycle() const override { return drain_; }
  sc_core::sc_time clock() const override { return clock_period(); }

  void attach_trace(trace_sink& sink) override;
  void finish() override;

 private:
  struct mem_port;
  struct unit_state {
    std::uint64_t free_at = 0;
    std::deque<std::uint64_t> waiting;  // first-element start of queued instructions
    stat_counter element_ops, busy_cycles, instructions;
    trace_signal busy, element;
  };

  // Timing of one vector register's last write, per element.
  struct reg_timing {
    std::vector<std::uint64_t> ready;      // element i written (available) at
    std::vector<std::uint64_t> read_until; // element i last read at
    std::uint64_t first = 0, full = 0;     // first element, whole vector available at
  };

  std::uint64_t operand_ready(unsigned v, unsigned i, bool chained) const;
  std::uint64_t admit(std::deque<std::uint64_t>& waiting, std::uint64_t t, std::uint64_t free_at) const;
  bool chains(unsigned v, std::uint64_t& t) const;
  std::string exec_memory(const vec::instr& in, const vec::scalar_operands& ops,
                          std::uint64_t t, vec::dispatch_result& r);
  void exec_arith(const vec::instr& in, const vec::scalar_operands& ops, std::uint64_t t);
  std::uint64_t alu(vec::op o, std::uint64_t a, std::uint64_t b) const;
  fu unit_of(vec::op o) const;
  unsigned latency_of(fu u) const;
  void count_ops(std::uint64_t cycle, unsigned n);
  void flush_ops(std::uint64_t before);
  std::vector<unsigned> active_elements(bool masked) const;

  params p_;
  std::vector<std::vector<std::uint64_t>> vr_;  // architectural vector registers
  std::vector<reg_timing> rt_;
  std::vector<bool> vm_;
  std::uint64_t vl_ = 0, vs_ = 1;
  std::uint64_t vl_ready_ = 0, vm_ready_ = 0;
  std::uint64_t first_issue_ = 0, last_issue_ = 0, drain_ = 0;
  bool issued_any_ = false;
  std::array<unit_state, static_cast<std::size_t>(fu::count_)> units_;
  std::vector<std::unique_ptr<mem_port>> ports_;

  // Element operations per cycle: a window of recent cycles, folded into a histogram.
  std::map<std::uint64_t, std::uint32_t> ops_window_;  // cycle -> element ops starting
  std::uint64_t ops_base_ = 0;                          // first cycle not yet folded
  bool ops_started_ = false;
  std::vector<stat_counter> ops_hist_;  // cycles with k element operations, k = index

  stat_counter instructions_, element_ops_, chained_, unchained_, masked_skipped_,
      port_stall_, mem_elements_;
  trace_signal vl_sig_, vm_pop_sig_;
  std::vector<trace_signal> reg_progress_;
};

}  // namespace flynn

// Tensor core: the D = A x B + C datapath of one sub-partition as a TLM-2.0 target. An
// initiator (the GMMA state machine, operand collectors) sends one block of work per
// transaction: a generic payload carrying an mma_step_extension that points at the A, B
// and C/D tiles. The datapath works in steps of step_m x step_n x step_k multiply-adds,
// `fma_per_cycle` per cycle, with a pipeline latency before D is written back; a block takes
// the first free cycles of the datapath at or after its arrival cycle (simulated-time order,
// whatever order the calls come in). The arithmetic is the defined order of numeric.h. See
// docs/modules/tensor_core.md.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "flynn/common/module.h"
#include "flynn/common/params.h"
#include "flynn/tensor/numeric.h"

namespace flynn {

// One block of tensor-core work: D (m x n, fp32, row-major) = A (m x k, row-major) x B +
// D, with B given K-major (n rows of k elements). A's and B's elements are packed
// little-endian, element_bytes(type) (element_bytes(b_type)) bytes each; A and B have the
// same element size. The pointers stay valid for the call.
struct mma_step_extension : tlm::tlm_extension<mma_step_extension> {
  unsigned m = 0, n = 0, k = 0;
  element_type type = element_type::bf16;    // A's elements
  element_type b_type = element_type::bf16;  // B's
  const unsigned char* a = nullptr;
  const unsigned char* b = nullptr;
  float* d = nullptr;
  std::uint64_t start = 0, end = 0;          // out: the cycles the datapath computed the block, [start, end)
  // The block D (m x n, fp32) += A (m x k, a_type) x B (k x n, b_type).
  void set_block(unsigned m_, unsigned n_, unsigned k_, element_type a_type, element_type b_type_,
                 const unsigned char* a_, const unsigned char* b_, float* d_) {
    m = m_;
    n = n_;
    k = k_;
    type = a_type;
    b_type = b_type_;
    a = a_;
    b = b_;
    d = d_;
  }
  tlm::tlm_extension_base* clone() const override { return new mma_step_extension(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override { *this = static_cast<const mma_step_extension&>(e); }
};

struct tensor_core_params : clocked_params {
  property<unsigned> step_m{this, {"step_m", "", "rows of one datapath step"}, 4, 1, 64};
  property<unsigned> step_n{this, {"step_n", "", "columns of one datapath step"}, 4, 1, 64};
  property<unsigned> step_k{this, {"step_k", "",
      "depth of one datapath step in 16-bit elements (2 x step_k bytes of K: twice the fp8 "
      "elements, half the tf32)"}, 4, 1, 64};
  property<unsigned> fma_per_cycle{this, {"fma_per_cycle", "FMA/cycle",
      "multiply-adds per cycle on 16-bit operands (a whole number of steps): the datapath takes "
      "2 x step_k bytes of K a step, so fp8 runs twice as many multiply-adds a cycle and tf32 "
      "half"}, 512, 1, 1 << 16};
  property<unsigned> latency{this, {"latency", "cycles",
      "pipeline latency from the last step to D written back"}, 8, 0, 1000};
  ideal_switch ideal{this,
      "an ideal tensor core for attribution (flynn attribute): every block computes at its "
      "arrival cycle, taking no cycles and no latency (the results as before)"};
  std::vector<param_issue> check() const;
  // Nothing it allocates grows with a parameter beyond a few KiB.
  param_footprint footprint() const { return {}; }
};

class tensor_core : public module {
 public:
  using params = tensor_core_params;
  tlm_utils::simple_target_socket<tensor_core, 32> port;

  tensor_core(const sc_core::sc_module_name& name, const params& p);
  // Cycle by which all work received so far is written back.
  std::uint64_t busy_until() const { return (busy_at_.empty() ? 0 : busy_at_.rbegin()->second) + p_.latency; }
  std::uint64_t busy_cycles() const { return busy_.value(); }
  void attach_trace(trace_sink& sink) override;

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  params p_;
  // The datapath's reserved cycles: disjoint [start, end) runs by start; runs that end long
  // before the latest arrival are forgotten (no block arrives that late).
  std::map<std::uint64_t, std::uint64_t> busy_at_;
  std::uint64_t reserve(std::uint64_t arrive, std::uint64_t cycles);
  std::vector<float> af_, bf_;  // the block's operands widened to fp32
  // Statistics, in the order they are written.
  statistic blocks_{stats_, "blocks", "blocks", "blocks of work received"};
  statistic steps_{stats_, "steps", "steps", "datapath steps (step_m x step_n x step_k multiply-adds each)"};
  statistic fmas_{stats_, "fmas", "FMA", "multiply-adds"};
  statistic busy_{stats_, "busy_cycles", "cycles", "cycles the datapath computed"};
  stat_formula utilisation_{stats_, "utilisation",
                            [this] {
                              const std::uint64_t now = to_cycles(flynn::sim_now());
                              return now ? double(busy_.value()) / double(now) : 0.0;
                            },
                            "", "busy cycles / cycles of the run"};
  trace_signal busy_sig_;
};

}  // namespace flynn

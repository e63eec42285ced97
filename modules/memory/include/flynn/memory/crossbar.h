// A crossbar between initiators (SMs) and the slices of a sliced cache (or memory
// channels): each request goes to the output its address hashes to, over its input link
// and the output's link, each passing a limited number of bytes per cycle, after the
// crossbar's latency, and a far partition's extra latency when the input and the output
// sit in different partitions (the near and far halves of an L2). Responses come back the
// same way. A timing stage (timing_stage.h). See docs/modules/crossbar.md.
#pragma once

#include <cstdint>
#include <vector>

#include "flynn/common/module.h"
#include "flynn/common/params.h"
#include "flynn/memory/occupancy_calendar.h"
#include "flynn/memory/timing_stage.h"

namespace flynn {

enum class slice_hash { modulo, xor_fold };

inline constexpr named_choice<slice_hash> slice_hashes[] = {
    {slice_hash::modulo, "modulo", "unit number mod outputs"},
    {slice_hash::xor_fold, "xor", "the unit number's bits folded by XOR into log2(outputs) bits (outputs a power of two)"},
};

struct crossbar_params : clocked_params {
  property<unsigned> ports{this, {"ports", "",
      "inputs: target sockets port0, port1, ... (one initiator each)"}, 1, 1, 256};
  property<unsigned> outputs{this, {"outputs", "",
      "outputs: initiator sockets down0, down1, ... (\"down\" when 1), e.g. one per L2 slice"}, 2, 1, 256};
  property<unsigned> interleave_bytes{this, {"interleave_bytes", "B",
      "consecutive bytes that go to one output, a power of two"}, 256, 1, 1u << 20};
  property<slice_hash> hash{this, {"hash", "",
      "how an address's unit number (address / interleave_bytes) picks the "
      "output"}, slice_hash::xor_fold, slice_hashes};
  property<unsigned> latency{this, {"latency", "cycles",
      "through the crossbar, each way"}, 10, 0, 100000};
  property<unsigned> bytes_per_cycle{this, {"bytes_per_cycle", "B",
      "each link, each way: a request's bytes (a write's data, else a header cycle) on its input "
      "and output links, a response's on the way back"}, 32, 1, 4096};
  property<unsigned> partitions{this, {"partitions", "",
      "groups of inputs and outputs (input i in partition i x partitions / ports, output o in o "
      "x partitions / outputs); 1: all near"}, 1, 1, 16};
  property<unsigned> far_latency{this, {"far_latency", "cycles",
      "extra latency each way between an input and an output of different partitions"}, 0, 0, 100000};
  ideal_switch ideal{this,
      "an ideal crossbar for attribution (flynn attribute): every request goes on to its output "
      "at its arrival cycle and its response comes back when the level below answers, with no "
      "latency or link limit"};

  std::vector<param_issue> check() const;
  // What it allocates by these parameters (see param_footprint).
  param_footprint footprint() const;
};

class crossbar : public timing_stage {
 public:
  using params = crossbar_params;

  crossbar(const sc_core::sc_module_name& name, const params& p);
  const params& parameters() const { return p_; }
  // The output an address goes to, and whether input `port` reaches it across partitions.
  unsigned output_of(std::uint64_t address) const;
  bool far(unsigned port, unsigned output) const;
  void attach_trace(trace_sink& sink) override;

 private:
  void schedule(request& r) override;
  void answered(request& r, std::uint64_t at) override;
  std::uint64_t least_latency(const tlm::tlm_generic_payload&) const override { return 2 * std::uint64_t(p_.latency) + 2; }
  unsigned route(const tlm::tlm_generic_payload& gp) const override { return output_of(gp.get_address()); }
  std::uint64_t cycles_for(std::uint64_t bytes) const { return (bytes + p_.bytes_per_cycle - 1) / p_.bytes_per_cycle; }

  params p_;
  unsigned hash_bits_ = 0;
  std::vector<occupancy_calendar> in_link_, out_link_, back_in_link_, back_out_link_;  // links, each way
  void forget(std::uint64_t now);
  stat_counter latency_sum_, responses_;  // the operands of mean_latency, not written themselves
  // Statistics, in the order they are written.
  statistic requests_{stats_, "requests", "requests", "requests through the crossbar"};
  statistic_vector per_output_{stats_, "requests_per_output", "requests", "requests per output"};
  statistic far_requests_{stats_, "far_requests", "requests", "requests between partitions (far_latency each way)"};
  statistic link_wait_{stats_, "link_wait_cycles", "cycles",
                       "cycles requests and responses waited for busy links, summed"};
  stat_ratio mean_latency_{stats_, "mean_latency", latency_sum_, responses_, "cycles",
                           "mean cycles from a request's arrival to its response"};
  std::vector<std::uint64_t> blocks_;  // scratch
};

}  // namespace flynn

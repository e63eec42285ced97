// SIMT core (a GPU streaming multiprocessor in the spirit of a GTX 285 core): warps of
// threads sharing a PC, fine-grained multithreading over warp slots, a warp scheduler
// (named policies), SIMD lanes, per-warp reconvergence stacks for branch divergence, and
// a load/store unit that coalesces global accesses into transactions and sends shared
// accesses as multi-lane requests, both over TLM sockets. See docs/modules/simt_core.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "flynn/common/module.h"
#include "flynn/gmma/wgmma.h"
#include "flynn/regfile/register_file_if.h"
#include "flynn/simt/isa.h"
#include "flynn/simt/launch.h"
#include "flynn/simt/simt_core_params.h"
#include "flynn/simt/simt_program.h"
#include "flynn/tlm/no_dmi_initiator.h"
#include "flynn/tma/tma_if.h"

namespace flynn {

class simt_core : public module, public no_dmi_initiator, public programmable_core {
 public:
  using params = simt_core_params;
  tlm::tlm_initiator_socket<32> global;  // global memory
  tlm::tlm_initiator_socket<32> shared;  // shared memory (one region per resident block)
  // Asynchronous units (optional): the GMMA state machine (wgmma) and a TMA-style loader.
  sc_core::sc_port<gmma_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND> gmma;
  sc_core::sc_port<tma_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND> tma;
  // Sub-partition k's register file (rfK, optional): its operand collector reads each
  // instruction's sources and its results are written back there, through the banks and
  // crossbar the tensor path uses too; without one, operand_banks models the collector.
  using rf_port = sc_core::sc_port<register_file_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
  std::vector<std::unique_ptr<rf_port>> rf;

  simt_core(const sc_core::sc_module_name& name, const params& p);
  ~simt_core() override;

  // The kernel and its launch (before simulation starts). Throws std::invalid_argument
  // if the launch cannot run on this core (block larger than the thread contexts, ...).
  void load(const simt::kernel& k, const simt_launch& l);
  const params& parameters() const { return p_; }
  std::uint64_t thread_instructions() const;
  // The per-thread instruction counts of the finished warps as simt::thread_count_term sums.
  std::uint64_t thread_count_digest() const;

  programmable_core* as_core() override { return this; }
  std::vector<std::string> program_kinds() const override { return {"simt"}; }
  void load_program(const core_program& p) override;
  bool has_program() const override;
  core_limits limits() const override { return {p_.max_instructions, p_.warp_size, 0}; }
  core_counts counts() const override;
  std::string pending_work() const override;
  std::string socket_lanes(const std::string& s) const override {
    return s == "global" || s == "shared"
               ? "sends: a warp access as one request of per-lane addresses (contiguous ones as plain bytes)"
               : "";
  }
  void attach_trace(trace_sink& sink) override;
  bool optional_socket(const std::string& s) const override {
    return s == "gmma" || s == "tma" || s.rfind("rf", 0) == 0;
  }
  // Hazard reports (on by default): accesses to shared memory and registers that the
  // kernel's synchronisation does not order (docs/hazards.md).
  void check_hazards(bool on) override;
  std::string hazard_report() const override;
  void finish() override;

 private:
  class engine;  // the issue loop and the parts it drives (modules/simt/src/core_engine.h)
  params p_;
  std::unique_ptr<engine> e_;
  void run();
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& delay) override;
};

}  // namespace flynn

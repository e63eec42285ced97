// Pieces for the base-protocol checker tests: a scripted target whose forward-path
// behaviour each test supplies, and payload helpers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <systemc>
#include <tlm>

#include "flynn/tlm/memory_manager.h"
#include "flynn/tlm/payload.h"
#include "flynn/tlm/protocol_checker.h"

namespace protocol_test {

// A target whose forward-path calls run the supplied functions. Backward calls are made by
// the test through `socket->nb_transport_bw` / `socket->invalidate_direct_mem_ptr`.
struct scripted_target : sc_core::sc_module, tlm::tlm_fw_transport_if<> {
  tlm::tlm_target_socket<32> socket;
  std::function<void(tlm::tlm_generic_payload&, sc_core::sc_time&)> on_b =
      [](tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
      };
  std::function<tlm::tlm_sync_enum(tlm::tlm_generic_payload&, tlm::tlm_phase&,
                                   sc_core::sc_time&)>
      on_nb = [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) {
        return tlm::TLM_ACCEPTED;
      };
  std::function<bool(tlm::tlm_generic_payload&, tlm::tlm_dmi&)> on_dmi =
      [](tlm::tlm_generic_payload&, tlm::tlm_dmi&) { return false; };
  std::function<unsigned(tlm::tlm_generic_payload&)> on_dbg =
      [](tlm::tlm_generic_payload&) { return 0u; };

  explicit scripted_target(const sc_core::sc_module_name& n)
      : sc_core::sc_module(n), socket("socket") {
    socket.bind(*this);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override { on_b(gp, d); }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& d) override {
    return on_nb(gp, ph, d);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) override {
    return on_dmi(gp, dmi);
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp) override { return on_dbg(gp); }

  // Backward call helper.
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase ph) {
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    return socket->nb_transport_bw(gp, ph, d);
  }
};

inline void setup(tlm::tlm_generic_payload& gp, tlm::tlm_command cmd, std::uint64_t addr,
                  unsigned char* data, unsigned len) {
  flynn::prepare_payload(gp, cmd, addr, data, len);
}

// A pooled (memory-managed, acquired) payload.
inline tlm::tlm_generic_payload* pooled(flynn::payload_pool& pool, tlm::tlm_command cmd,
                                        std::uint64_t addr, unsigned len) {
  tlm::tlm_generic_payload* gp = pool.allocate();
  setup(*gp, cmd, addr, pool.buffer(gp), len);
  return gp;
}

inline bool mentions(const flynn::protocol_checker& c, const std::string& rule,
                     const std::string& text) {
  for (const auto& v : c.violation_list())
    if (v.rule == rule && v.text.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace protocol_test

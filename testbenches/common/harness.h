// Small test harness pieces: an initiator whose thread runs a test body, and helpers to
// build payloads.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

namespace flynn_test {

// An initiator running `body` in its thread; records DMI invalidations and backward
// transport calls.
struct initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<initiator> socket;
  std::function<void(initiator&)> body;
  int invalidations = 0;
  std::vector<std::pair<tlm::tlm_phase, sc_core::sc_time>> bw_calls;
  std::function<tlm::tlm_sync_enum(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&)> on_bw;
  bool finished = false;

  SC_HAS_PROCESS(initiator);
  initiator(const sc_core::sc_module_name& n, std::function<void(initiator&)> b)
      : sc_core::sc_module(n), socket("socket"), body(std::move(b)) {
    socket.register_invalidate_direct_mem_ptr(this, &initiator::invalidate);
    socket.register_nb_transport_bw(this, &initiator::nb_bw);
    SC_THREAD(run);
  }
  void run() {
    body(*this);
    finished = true;
  }
  void invalidate(sc_dt::uint64, sc_dt::uint64) { ++invalidations; }
  tlm::tlm_sync_enum nb_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    bw_calls.emplace_back(ph, sc_core::sc_time_stamp() + d);
    if (on_bw) return on_bw(gp, ph, d);
    return tlm::TLM_ACCEPTED;
  }

  // Blocking access at local offset `delay` (cycles are 1 ns); returns the completion time
  // in cycles.
  std::uint64_t access(tlm::tlm_command cmd, std::uint64_t addr, void* data, unsigned len,
                       std::uint64_t at_cycle, tlm::tlm_response_status* status = nullptr) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    sc_core::sc_time d = sc_core::sc_time(double(at_cycle), sc_core::SC_NS) - sc_core::sc_time_stamp();
    socket->b_transport(gp, d);
    if (status) *status = gp.get_response_status();
    return static_cast<std::uint64_t>((sc_core::sc_time_stamp() + d) / sc_core::sc_time(1, sc_core::SC_NS));
  }
};

}  // namespace flynn_test

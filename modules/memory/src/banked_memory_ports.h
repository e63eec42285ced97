// The banked memory's ports (private to modules/memory/src): the adapter that gives each
// target socket its port index, and the port's timing and AT state.
#pragma once

#include <deque>
#include <memory>
#include <utility>

#include "flynn/memory/banked_memory.h"

namespace flynn {

struct port_adapter final : tlm::tlm_fw_transport_if<> {
  banked_memory* mem;
  unsigned index;
  port_adapter(banked_memory* m, unsigned i) : mem(m), index(i) {}
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    mem->b_transport(index, gp, d);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& d) override {
    return mem->nb_transport_fw(index, gp, ph, d);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) override {
    return mem->get_direct_mem_ptr(index, gp, dmi);
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp) override {
    return mem->transport_dbg(gp);
  }
};

struct banked_memory::port_state {
  std::unique_ptr<target_socket> socket;
  port_adapter adapter;
  port_kind kind;
  occupancy_calendar calendar{false};  // cycles each request holds the port; tag: its first wavefront
  // AT: END_REQ and BEGIN_RESP due, each in non-decreasing time order. A read's response
  // carries the watch records of its words (see watch_): they go when it is answered, with
  // no search for them.
  struct response {
    std::uint64_t due;
    tlm::tlm_generic_payload* gp;
    watch_list watches;
  };
  std::deque<std::pair<std::uint64_t, tlm::tlm_generic_payload*>> end_req;
  std::deque<response> begin_resp;
  sc_core::sc_event end_req_ev;
  bool awaiting_end_resp = false;
  const tlm::tlm_generic_payload* resp_sent = nullptr;  // the response awaiting END_RESP
  std::uint64_t resp_sent_at = 0;
  port_state(banked_memory* m, unsigned i, port_kind k, const char* name)
      : socket(std::make_unique<target_socket>(name)), adapter(m, i), kind(k) {}
};

}  // namespace flynn

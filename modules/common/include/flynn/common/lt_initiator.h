// The base of a module whose initiator sockets make blocking calls only (b_transport,
// transport_dbg): it is the backward interface those sockets are bound to. Such a module
// never sends BEGIN_REQ, so a target calling nb_transport_bw on it breaks the protocol
// (a simulated fault), and it keeps no DMI pointers, so an invalidation has nothing to drop.
#pragma once

#include <string>

#include <systemc>
#include <tlm>

#include "flynn/common/module.h"
#include "flynn/tlm/no_dmi_initiator.h"

namespace flynn {

class lt_initiator : public module, public no_dmi_initiator {
 public:
  using module::module;

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override {
    (void)gp;
    (void)delay;
    fault("nb_transport_bw " + std::string(phase.get_name()) + " from a target: this module makes blocking calls only");
    return tlm::TLM_COMPLETED;
  }
};

}  // namespace flynn
